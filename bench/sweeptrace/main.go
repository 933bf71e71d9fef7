// Command sweeptrace reads the trace a 1-worker `capsim sweep` writes
// where CAPSIM_SWEEP_TRACE names a file (scenarios.Run) and prints where
// its CPU time goes and the critical path of the same sweep on more
// workers: building the LP, then each LP chain's caps in order, each cap's
// lp point planned (its headroom search) once its chain has solved it. A
// run on w workers takes at least the critical path, and at least the
// build plus the rest of the CPU time over w, less the other policies'
// points (the only work of the sweep that needs no LP: they replay on the
// other w-1 workers while it is built, as far as they fill the build), so
// the speed-up from w workers is at most the total over the larger of the
// two. With one worker every span's CPU time is its own
// work, so the figures do not depend on the machine's other load.
//
//	CAPSIM_SWEEP_TRACE=trace.tsv capsim sweep my.toml -o out --workers 1
//	go run ./bench/sweeptrace trace.tsv
//
// It reads traces of one workload and machine (one LP).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
)

func main() {
	workers := flag.Int("workers", 2, "the worker count to give the critical path's bound for")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: sweeptrace [-workers N] TRACE")
		os.Exit(2)
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "sweeptrace:", err)
		os.Exit(1)
	}
	defer f.Close()
	s, err := read(f)
	if err != nil {
		fmt.Fprintf(os.Stderr, "sweeptrace: %s: %v\n", flag.Arg(0), err)
		os.Exit(1)
	}
	s.print(os.Stdout, *workers)
}

// summary is a 1-worker trace's CPU seconds by kind of work.
type summary struct {
	total, build  float64
	chains        map[string][]capCost // per chain, its caps' solves in order
	plan          map[float64]float64  // per cap, the lp point's headroom search
	points, waits float64              // the other policies' points; waits for a chain
}

type capCost struct {
	capW, cpu float64
}

// read parses a trace: per line the worker, the span's wall start and
// end, its CPU seconds and its name, tab-separated.
func read(r io.Reader) (*summary, error) {
	s := &summary{chains: map[string][]capCost{}, plan: map[float64]float64{}}
	sc := bufio.NewScanner(r)
	builds := 0
	for n := 1; sc.Scan(); n++ {
		f := strings.SplitN(sc.Text(), "\t", 5)
		if len(f) != 5 {
			return nil, fmt.Errorf("line %d: %d fields, want 5", n, len(f))
		}
		if f[0] != "0" {
			return nil, fmt.Errorf("line %d: worker %s: the trace is not of a 1-worker run", n, f[0])
		}
		cpu, err := strconv.ParseFloat(f[3], 64)
		if err != nil {
			return nil, fmt.Errorf("line %d: CPU time: %w", n, err)
		}
		name := f[4]
		var capW float64
		switch {
		case strings.HasPrefix(name, "group "):
			s.total += cpu
		case name == "build LP":
			s.build += cpu
			builds++
		case strings.HasPrefix(name, "bound chain "):
			// "bound chain [lo hi] cap C"
			i := strings.Index(name, " cap ")
			if i < 0 {
				return nil, fmt.Errorf("line %d: %q", n, name)
			}
			if capW, err = strconv.ParseFloat(name[i+5:], 64); err != nil {
				return nil, fmt.Errorf("line %d: %q: %w", n, name, err)
			}
			ch := name[len("bound chain "):i]
			s.chains[ch] = append(s.chains[ch], capCost{capW, cpu})
		case strings.HasPrefix(name, "plan cap "):
			// "plan cap C probes N"
			if _, err := fmt.Sscanf(name, "plan cap %g", &capW); err != nil {
				return nil, fmt.Errorf("line %d: %q: %w", n, name, err)
			}
			s.plan[capW] += cpu
		case strings.HasPrefix(name, "wait "):
			s.waits += cpu
		case strings.HasPrefix(name, "point ") && !strings.HasPrefix(name, "point lp "):
			s.points += cpu
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if builds > 1 {
		return nil, fmt.Errorf("%d LPs built: sweeptrace reads traces of one workload and machine", builds)
	}
	return s, nil
}

// criticalPath is the longest chain of work that must run in order: the
// LP's build, its chain's caps up to a cap, and that cap's search. It
// returns its length and the chain and cap it ends at.
func (s *summary) criticalPath() (float64, string, float64) {
	best, chain, capW := s.build, "", 0.0
	keys := make([]string, 0, len(s.chains))
	for k := range s.chains {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		acc := s.build
		for _, c := range s.chains[k] {
			acc += c.cpu
			if v := acc + s.plan[c.capW]; v > best {
				best, chain, capW = v, k, c.capW
			}
		}
	}
	return best, chain, capW
}

func (s *summary) print(w io.Writer, workers int) {
	var bounds, plans float64
	for _, cs := range s.chains {
		for _, c := range cs {
			bounds += c.cpu
		}
	}
	for _, p := range s.plan {
		plans += p
	}
	fmt.Fprintf(w, "CPU time %.3f s: LP build %.3f s, %d chains' solves %.3f s, %d lp headroom searches %.3f s, other points %.3f s\n",
		s.total, s.build, len(s.chains), bounds, len(s.plan), plans, s.points)
	cp, chain, capW := s.criticalPath()
	// While one worker builds the LP, the others replay the other
	// policies' points (scenarios' prereplay), as far as they fill it.
	lb := max(cp, s.build+(s.total-s.build-min(s.points, float64(workers-1)*s.build))/float64(workers))
	fmt.Fprintf(w, "critical path %.3f s (the build, chain %s to %g W and its search)\n", cp, chain, capW)
	fmt.Fprintf(w, "%d workers: at least %.3f s, a speed-up of at most %.2f×\n", workers, lb, s.total/lb)
}
