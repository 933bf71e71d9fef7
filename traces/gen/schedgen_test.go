package gen

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/capsim/capsim/traces/graph"
)

// sharedDir finds the shared knowledge directory: $CAPSIM_SHARED, or
// ../shared relative to the module root.
func sharedDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("CAPSIM_SHARED"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
	d := filepath.Join(dir, "..", "shared")
	if _, err := os.Stat(d); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("shared directory %s missing: %v", d, err)
		}
		t.Skipf("shared directory %s missing (set CAPSIM_SHARED); skipping", d)
	}
	return d
}

// canon renders a graph rank by rank as sorted-independent text: one line
// per op (kind size peer tag) in op order, then its dependency edges sorted.
func canon(g *graph.Graph) []string {
	var out []string
	for r := 0; r < g.NumRanks(); r++ {
		base := g.RankStart[r]
		for id := base; id < g.RankStart[r+1]; id++ {
			line := fmt.Sprintf("rank %d op %d: %s %d", r, id-base+1, g.Kind[id], g.Size[id])
			if g.Kind[id] != graph.Calc {
				line += fmt.Sprintf(" peer %d tag %d", g.Peer[id], g.Tag[id])
			}
			deps, kinds := g.Deps(id)
			var ds []string
			for j, d := range deps {
				ds = append(ds, fmt.Sprintf("%s %d", kinds[j], d-base+1))
			}
			sort.Strings(ds)
			out = append(out, line+" | "+strings.Join(ds, ", "))
		}
	}
	return out
}

var (
	reOp  = regexp.MustCompile(`^l(\d+): (send|recv) (\d+)b (?:to|from) (\d+) tag (\d+)$`)
	reCal = regexp.MustCompile(`^l(\d+): calc (\d+)$`)
	reDep = regexp.MustCompile(`^l(\d+) (requires|irequires) l(\d+)$`)
	reRnk = regexp.MustCompile(`^rank (\d+) \{$`)
)

// parseGOAL reads the subset of GOAL that schedgen writes (labels l1, l2, …
// in order) into a graph, enough to compare with Schedgen's output.
func parseGOAL(path string) (*graph.Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b *graph.Builder
	rank := -1
	sc := bufio.NewScanner(f)
	for ln := 1; sc.Scan(); ln++ {
		line := strings.TrimSpace(sc.Text())
		atoi := func(s string) int64 { v, _ := strconv.ParseInt(s, 10, 64); return v }
		switch m := []([]string){reOp.FindStringSubmatch(line), reCal.FindStringSubmatch(line), reDep.FindStringSubmatch(line), reRnk.FindStringSubmatch(line)}; {
		case line == "" || line == "}":
		case strings.HasPrefix(line, "num_ranks "):
			b = graph.NewBuilder(int(atoi(strings.TrimPrefix(line, "num_ranks "))))
		case m[3] != nil:
			rank = int(atoi(m[3][1]))
		case m[0] != nil:
			if atoi(m[0][1]) != int64(b.Len(rank))+1 {
				return nil, fmt.Errorf("%s:%d: label out of order", path, ln)
			}
			k, _ := graph.ParseOpKind(m[0][2])
			b.Add(rank, graph.Op{Kind: k, Size: atoi(m[0][3]), Peer: int32(atoi(m[0][4])), Tag: int32(atoi(m[0][5])), Region: graph.NoRegion})
		case m[1] != nil:
			if atoi(m[1][1]) != int64(b.Len(rank))+1 {
				return nil, fmt.Errorf("%s:%d: label out of order", path, ln)
			}
			b.Add(rank, graph.CalcOp(atoi(m[1][2])))
		case m[2] != nil:
			kind := graph.Requires
			if m[2][2] == "irequires" {
				kind = graph.Irequires
			}
			b.Dep(rank, int32(atoi(m[2][1])-1), int32(atoi(m[2][3])-1), kind)
		default:
			return nil, fmt.Errorf("%s:%d: unexpected line %q", path, ln, line)
		}
	}
	if b == nil {
		return nil, fmt.Errorf("%s: no num_ranks", path)
	}
	return b.Build()
}

func TestSchedgenConformance(t *testing.T) {
	dir := filepath.Join(sharedDir(t), "conformance", "loggopsim")
	cases := map[string]SchedgenOptions{
		"allreduce_recdoub_16": {Pattern: AllreduceRecDoub, Ranks: 16, DataSize: 1000, NBFunc: 3000},
		"allreduce_ring_8":     {Pattern: AllreduceRing, Ranks: 8, DataSize: 200000},
		"alltoall_8":           {Pattern: LinearAlltoall, Ranks: 8, DataSize: 100000},
		"bcast_binary_16":      {Pattern: BinaryTreeBcast, Ranks: 16, DataSize: 8},
		"bcast_binomial_16":    {Pattern: BinomialTreeBcast, Ranks: 16, DataSize: 1024},
		"dissem_32":            {Pattern: Dissemination, Ranks: 32, DataSize: 64},
		"gather_16":            {Pattern: GatherPattern, Ranks: 16, DataSize: 512},
		"scatter_16":           {Pattern: ScatterPattern, Ranks: 16, DataSize: 512},
		"reduce_binomial_12":   {Pattern: BinomialTreeReduce, Ranks: 12, DataSize: 4096},
		"ring_pipelined_8":     {Pattern: PipelinedRing, Ranks: 8, DataSize: 65536, SegmentSize: 8192},
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.goal"))
	if len(files) != len(cases) {
		t.Errorf("%d conformance files, %d cases", len(files), len(cases))
	}
	for name, o := range cases {
		t.Run(name, func(t *testing.T) {
			want, err := parseGOAL(filepath.Join(dir, name+".goal"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := Schedgen(o)
			if err != nil {
				t.Fatal(err)
			}
			w, g := canon(want), canon(got)
			if len(w) != len(g) {
				t.Fatalf("%d ops, conformance has %d", len(g), len(w))
			}
			for i := range w {
				if w[i] != g[i] {
					t.Fatalf("first difference:\n got  %s\n want %s", g[i], w[i])
				}
			}
			if got.NumDeps() != want.NumDeps() {
				t.Errorf("%d edges, want %d", got.NumDeps(), want.NumDeps())
			}
		})
	}
}

// Every pattern at many sizes (powers of two and not, several roots):
// sends and receives match one to one with equal sizes and the schedule
// runs to completion even with synchronous messages.
func TestSchedgenStructure(t *testing.T) {
	for _, pat := range Patterns() {
		for _, p := range []int{1, 2, 3, 5, 8, 12, 13, 16, 33} {
			for _, root := range []int{0, p / 2} {
				o := SchedgenOptions{Pattern: pat, Ranks: p, DataSize: 4000, Root: root, SegmentSize: 1000}
				g, err := Schedgen(o)
				if err != nil {
					t.Fatalf("%s p=%d: %v", pat, p, err)
				}
				if err := matchAndRun(g); err != nil {
					t.Errorf("%s p=%d root=%d: %v", pat, p, root, err)
				}
				sends := 0
				for _, k := range g.Kind {
					if k == graph.Send {
						sends++
					}
				}
				want := map[Pattern]int{BinomialTreeBcast: p - 1, BinaryTreeBcast: p - 1, BinomialTreeReduce: p - 1,
					Dissemination: p * ceilLog2(p), PipelinedRing: 4 * (p - 1), LinearAlltoall: p * (p - 1),
					GatherPattern: p - 1, ScatterPattern: p - 1, AllreduceRing: 2 * p * (p - 1)}
				if p&(p-1) == 0 {
					want[AllreduceRecDoub] = 2 * p * ceilLog2(p)
				}
				if w, ok := want[pat]; ok && sends != w {
					t.Errorf("%s p=%d: %d sends, want %d", pat, p, sends, w)
				}
			}
		}
	}
}

func TestSchedgenErrors(t *testing.T) {
	for _, o := range []SchedgenOptions{
		{Pattern: "nope"},
		{Pattern: Dissemination, Ranks: -1},
		{Pattern: GatherPattern, Ranks: 4, Root: 4},
		{Pattern: PipelinedRing, DataSize: -3},
	} {
		if _, err := Schedgen(o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

func ExampleSchedgen() {
	g, err := Schedgen(SchedgenOptions{Pattern: Dissemination, Ranks: 4, DataSize: 8})
	if err != nil {
		panic(err)
	}
	fmt.Println(g.NumOps(), "ops,", g.NumDeps(), "deps")
	fmt.Println(g.Describe(2))
	// Output:
	// 16 ops, 4 deps
	// rank 0 l3: send 8b to 2 tag 0
}
