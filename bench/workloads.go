package bench

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/models"
	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/arrowtrace"
	"github.com/capsim/capsim/traces/gen"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/lower"
)

// Measure is what one run of a workload reports.
type Measure struct {
	Events int64         // engine events processed
	Wall   time.Duration // the timed part's wall time
	Allocs uint64        // heap allocations during the timed part
	// Extra holds workload-specific figures (e.g. the modeled/unmodeled
	// ratio), printed after the standard columns.
	Extra map[string]float64
}

// Workload is one benchmark of the table that `go run ./bench/run` prints
// and docs/perf/README.md shows. Run builds its input (untimed), then times the
// part the benchmark is about.
type Workload struct {
	// Name is the row's label in the workload table of docs/perf/README.md.
	Name string
	// Setup prepares inputs in dir once (untimed); it may be nil.
	Setup func(dir string) error
	// Run performs one timed run with the inputs in dir; root is the
	// module's root (for example files).
	Run func(dir, root string) (Measure, error)
	// Child, when set, runs the workload as `capsim ARGS...` (the built
	// binary) instead of Run: the wall time and peak RSS are the child's.
	Child func(dir string) []string
}

// timed runs f with the allocation count taken around it.
func timed(f func() (int64, error)) (Measure, error) {
	runtime.GC()
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	start := time.Now()
	ev, err := f()
	wall := time.Since(start)
	runtime.ReadMemStats(&b)
	return Measure{Events: ev, Wall: wall, Allocs: b.Mallocs - a.Mallocs}, err
}

// RingFile is the reference workload's file in dir: LogGOPSim's schedgen
// pattern allreduce_ring on 1,024 ranks with 1 MiB per rank (6.3 M
// events), as an Arrow execution graph.
func RingFile(dir string) string { return filepath.Join(dir, "ring1024.arrow") }

// RingGOAL is the same schedule as GOAL text, for LogGOPSim.
func RingGOAL(dir string) string { return filepath.Join(dir, "ring1024.goal") }

func writeRing(dir string) error {
	if _, err := os.Stat(RingFile(dir)); err == nil {
		return nil
	}
	g, err := gen.GeneratePattern(gen.RingAllreduce, gen.PatternOptions{Ranks: 1024, Bytes: 1 << 20})
	if err != nil {
		return err
	}
	return arrowtrace.WriteGraph(RingFile(dir), g)
}

// ChakraTrace returns the shared PyTorch Chakra trace (one NPU, 3,664
// nodes): under $CAPSIM_SHARED, else in the shared folder beside the
// module root.
func ChakraTrace() (string, error) {
	base := os.Getenv("CAPSIM_SHARED")
	if base == "" {
		root, err := testenv.FindModuleRoot()
		if err != nil {
			return "", err
		}
		base = filepath.Join(root, "..", "shared")
	}
	p := filepath.Join(base, "traces", "chakra", "pytorch-kineto-1rank", "chakra.0.et")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("the PyTorch Chakra trace (set CAPSIM_SHARED to the shared folder): %w", err)
	}
	return p, nil
}

// ChakraFile is the PyTorch Chakra trace's place in dir (a link to
// ChakraTrace).
func ChakraFile(dir string) string { return filepath.Join(dir, "chakra-pytorch", "chakra.0.et") }

func linkChakra(dir string) error {
	src, err := ChakraTrace()
	if err != nil {
		return err
	}
	if src, err = filepath.Abs(src); err != nil {
		return err
	}
	dst := ChakraFile(dir)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if err := os.Remove(dst); err != nil && !os.IsNotExist(err) {
		return err
	}
	return os.Symlink(src, dst)
}

// replayGraph times sim.Run on g.
func replayGraph(g *graph.Graph, opt sim.Options) (Measure, error) {
	return timed(func() (int64, error) {
		res, err := sim.Run(g, network.DefaultLogGOPS(), opt)
		if err != nil {
			return 0, err
		}
		return res.Events, nil
	})
}

// Workloads returns the benchmark table's rows, in the order printed.
func Workloads() []Workload {
	return []Workload{
		{
			Name:  "ring allreduce, 1,024 ranks × 1 MiB, `capsim replay` of its Arrow file",
			Setup: writeRing,
			Child: func(dir string) []string { return []string{"replay", RingFile(dir), "--json"} },
		},
		{
			Name:  "ring allreduce, 1,024 ranks × 1 MiB, replay only (in memory)",
			Setup: writeRing,
			Run: func(dir, _ string) (Measure, error) {
				g, err := arrowtrace.ReadGraph(RingFile(dir))
				if err != nil {
					return Measure{}, err
				}
				return replayGraph(g, sim.Options{})
			},
		},
		{
			Name:  "PyTorch Chakra trace replicated to 1,024 NPUs, `capsim replay --replicate 1024`",
			Setup: linkChakra,
			Child: func(dir string) []string {
				return []string{"replay", ChakraFile(dir), "--replicate", "1024", "--json"}
			},
		},
		{
			Name: "dissemination barrier, 65,536 ranks",
			Run: func(string, string) (Measure, error) {
				g, err := gen.GeneratePattern(gen.Dissemination, gen.PatternOptions{Ranks: 65536})
				if err != nil {
					return Measure{}, err
				}
				return replayGraph(g, sim.Options{})
			},
		},
		{
			Name: "stencil, 1,024 ranks, every calc priced through a model file",
			Run: func(_, root string) (Measure, error) {
				g, err := StencilGraph(190)
				if err != nil {
					return Measure{}, err
				}
				_, set, err := models.Load(filepath.Join(root, "examples", "models", "stencil.json"))
				if err != nil {
					return Measure{}, err
				}
				plain, err := replayGraph(g, sim.Options{})
				if err != nil {
					return Measure{}, err
				}
				t := compute.Target{Default: compute.Config{CPUFreqGHz: 1.6}.Merge(set.Recorded)}
				p, err := compute.NewPricer(g, set, t)
				if err != nil {
					return Measure{}, err
				}
				m, err := replayGraph(g, sim.Options{Pricer: p})
				m.Extra = map[string]float64{"recorded-durations s": plain.Wall.Seconds(), "modeled/recorded": m.Wall.Seconds() / plain.Wall.Seconds()}
				return m, err
			},
		},
	}
}

// StencilGraph lowers a 1024-rank (32 × 32) charged-field stencil of iters
// iterations (190: about 10 million events).
func StencilGraph(iters int) (*graph.Graph, error) { return stencilGraph(32, iters) }

// ScalingPoint is one size of a scaling series.
type ScalingPoint struct {
	// Pattern is the point's label in the scaling table.
	Pattern string
	// Series names the point's line in the scaling plots.
	Series string
	Ranks  int
	Graph  func() (*graph.Graph, error)
}

// stencilGraph lowers a charged-field stencil on a side × side grid.
func stencilGraph(side, iters int) (*graph.Graph, error) {
	s := gen.Stencil{Dims: []int{side, side}, Iterations: iters, HaloBytes: 32768, ComputeNs: 1000000,
		Imbalance: "charged-field", Balance: 0.5, Intensity: 1, AllreduceBytes: 8, Sigma: 0.15, Seed: 1}
	t, err := s.Generate()
	if err != nil {
		return nil, err
	}
	return lower.Lower(t, lower.Options{})
}

// Scaling returns the scaling series from 10^5 up to about maxEvents
// engine events, a point a decade: the ring allreduce and the linear
// all-to-all growing in ranks, random permutations growing in ranks and
// rounds (64 to 32,768 ranks) and in rounds alone (4,096 ranks), the stencil growing in iterations at 1,024
// ranks, and the stencil at about 10^6 events from 16 to 65,536 ranks.
func Scaling(maxEvents float64) []ScalingPoint {
	var out []ScalingPoint
	fits := func(events float64) bool { return events <= 1.2*maxEvents }
	// ring: ≈ 6 p² events; linear all-to-all: ≈ p³ events (measured).
	for _, p := range []int{128, 400, 1290, 4080} {
		if !fits(6 * float64(p*p)) {
			break
		}
		out = append(out, ScalingPoint{"allreduce_ring", "allreduce_ring", p, func() (*graph.Graph, error) {
			return gen.GeneratePattern(gen.RingAllreduce, gen.PatternOptions{Ranks: p, Bytes: 1 << 20})
		}})
	}
	for _, p := range []int{46, 100, 215, 464} {
		if !fits(float64(p * p * p)) {
			break
		}
		out = append(out, ScalingPoint{"linear_alltoall", "linear_alltoall", p, func() (*graph.Graph, error) {
			return gen.GeneratePattern(gen.LinearAlltoall, gen.PatternOptions{Ranks: p, Bytes: 65536})
		}})
	}
	// random permutations: 2 operations and ≈ 3 events a rank and round.
	for i, p := range []int{64, 512, 4096, 32768} {
		events := 1e5 * math.Pow(10, float64(i))
		if !fits(events) {
			break
		}
		rounds := int(math.Round(events / (3 * float64(p))))
		out = append(out, ScalingPoint{fmt.Sprintf("random_permutation, %d rounds", rounds), "random_permutation, 64–32,768 ranks", p, func() (*graph.Graph, error) {
			return gen.GeneratePattern(gen.RandomPermutation, gen.PatternOptions{Ranks: p, Bytes: 65536, Rounds: rounds, Seed: 1})
		}})
	}
	// random permutations at 4,096 ranks growing in rounds alone: what
	// the time per event owes to the ranks, not to the events.
	for i := range 4 {
		events := 1e5 * math.Pow(10, float64(i))
		if !fits(events) {
			break
		}
		rounds := int(math.Round(events / (3 * 4096)))
		out = append(out, ScalingPoint{fmt.Sprintf("random_permutation, %d rounds", rounds), "random_permutation, 4,096 ranks", 4096, func() (*graph.Graph, error) {
			return gen.GeneratePattern(gen.RandomPermutation, gen.PatternOptions{Ranks: 4096, Bytes: 65536, Rounds: rounds, Seed: 1})
		}})
	}
	// stencil at 1,024 ranks: ≈ 53,000 events an iteration.
	for _, it := range []int{2, 19, 190, 1900} {
		if !fits(53000 * float64(it)) {
			break
		}
		out = append(out, ScalingPoint{fmt.Sprintf("stencil2d, %d iterations", it), "stencil2d, 1,024 ranks", 1024, func() (*graph.Graph, error) { return StencilGraph(it) }})
	}
	// stencil with ≈ 10^6 events from 16 to 65,536 ranks.
	for _, side := range []int{4, 16, 64, 256} {
		ranks := side * side
		it := max(1, 1000000/(52*ranks))
		if !fits(52 * float64(ranks*it)) {
			break
		}
		out = append(out, ScalingPoint{fmt.Sprintf("stencil2d, %d iterations", it), "stencil2d, 16–65,536 ranks", ranks, func() (*graph.Graph, error) {
			return stencilGraph(side, it)
		}})
	}
	return out
}
