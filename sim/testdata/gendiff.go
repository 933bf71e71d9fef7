//go:build ignore

// gendiff writes random GOAL schedules for the differential test against
// LogGOPSim. It only writes the .goal files; the .times files come from
// running LogGOPSim (txt2bin + LogGOPSim) on them, see README.md.
//
//	go run gendiff.go -n 40 -out differential
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

type op struct {
	text string
}

func main() {
	n := flag.Int("n", 40, "number of schedules")
	out := flag.String("out", "differential", "output folder")
	seed := flag.Uint64("seed", 1, "random seed")
	minp := flag.Int("minp", 2, "fewest ranks")
	maxp := flag.Int("maxp", 16, "most ranks")
	prefix := flag.String("prefix", "rand", "file name prefix")
	late := flag.Bool("late-deps", false, "write each rank's dependency lines at its end, shuffled")
	flag.Parse()
	rng := rand.New(rand.NewPCG(*seed, 2))
	for i := 0; i < *n; i++ {
		p := *minp + rng.IntN(*maxp-*minp+1)
		msgs := p + rng.IntN(12*p)
		ops := make([][]string, p)
		sizes := []int64{0, 1, 8, 100, 1000, 4096, 4097, 20000, 65535, 65536, 100000}
		for m := 0; m < msgs; m++ {
			src, dst := rng.IntN(p), rng.IntN(p)
			if src == dst {
				dst = (dst + 1) % p
			}
			size := sizes[rng.IntN(len(sizes))]
			tag := rng.IntN(3)
			cpu, nic := "", ""
			if rng.IntN(5) == 0 {
				cpu = " cpu 1"
			}
			if rng.IntN(5) == 0 {
				nic = " nic 1"
			}
			ops[src] = append(ops[src], fmt.Sprintf("send %db to %d tag %d%s%s", size, dst, tag, cpu, nic))
			rs, rt := fmt.Sprint(src), fmt.Sprint(tag)
			if rng.IntN(8) == 0 {
				rs = "-1"
			}
			if rng.IntN(8) == 0 {
				rt = "-1"
			}
			ops[dst] = append(ops[dst], fmt.Sprintf("recv %db from %s tag %s", size, rs, rt))
			if rng.IntN(3) == 0 {
				r := rng.IntN(p)
				c := ""
				if rng.IntN(4) == 0 {
					c = " cpu 1"
				}
				ops[r] = append(ops[r], fmt.Sprintf("calc %d%s", rng.IntN(20000), c))
			}
		}
		var b strings.Builder
		fmt.Fprintf(&b, "num_ranks %d\n", p)
		for r := 0; r < p; r++ {
			rng.Shuffle(len(ops[r]), func(i, j int) { ops[r][i], ops[r][j] = ops[r][j], ops[r][i] })
			fmt.Fprintf(&b, "\nrank %d {\n", r)
			var deps []string
			for k, o := range ops[r] {
				fmt.Fprintf(&b, "l%d: %s\n", k+1, o)
				if k > 0 && rng.IntN(2) == 0 {
					on := rng.IntN(k)
					kind := "requires"
					if rng.IntN(3) == 0 {
						kind = "irequires"
					}
					d := fmt.Sprintf("l%d %s l%d\n", k+1, kind, on+1)
					if *late {
						deps = append(deps, d)
					} else {
						b.WriteString(d)
					}
				}
			}
			rng.Shuffle(len(deps), func(i, j int) { deps[i], deps[j] = deps[j], deps[i] })
			for _, d := range deps {
				b.WriteString(d)
			}
			b.WriteString("}\n")
		}
		name := filepath.Join(*out, fmt.Sprintf("%s_%03d.goal", *prefix, i))
		if err := os.WriteFile(name, []byte(b.String()), 0o644); err != nil {
			panic(err)
		}
	}
}
