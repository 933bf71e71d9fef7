package bound

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/optimize/frontier"
)

// benchDAG is R ranks × M tasks per rank with C configurations each: each
// rank runs a chain of tasks, with a barrier (a shared vertex) after every
// 10th task and a message to the next rank after every 5th.
func benchDAG(R, M, C int, seed uint64) *DAG {
	rng := rand.New(rand.NewPCG(seed, 7))
	d := &DAG{Vertices: 2, Init: 0, Fin: 1}
	vertex := func() int { d.Vertices++; return d.Vertices - 1 }
	cur := make([]int, R)
	for m := 0; m < M; m++ {
		barrier := -1
		if m%10 == 9 && m < M-1 {
			barrier = vertex()
		}
		next := make([]int, R)
		for r := 0; r < R; r++ {
			dst := d.Fin
			if m < M-1 {
				if barrier >= 0 {
					dst = barrier
				} else {
					dst = vertex()
				}
			}
			base := 1 + 9*rng.Float64()
			cs := make([]frontier.Config, C)
			for c := range cs {
				f := 1 - 0.6*float64(c)/float64(C) // frequency share
				cs[c] = frontier.Config{Time: base * (0.3 + 0.7/f), Power: 20 + 80*f*f*f}
			}
			h, _ := frontier.Hull(cs)
			d.Tasks = append(d.Tasks, Task{Rank: r, Src: cur[r], Dst: dst, Hull: h})
			next[r] = dst
		}
		if m%5 == 4 && m < M-1 && barrier < 0 {
			for r := 0; r+1 < R; r++ {
				d.Messages = append(d.Messages, Message{Src: next[r], Dst: next[r+1], Time: 0.01})
			}
		}
		cur = next
	}
	return d
}

// benchOptions reads the solver options of a benchmark from the
// environment, for profiling: CAPSIM_LP_METHOD (auto, dual, barrier,
// barrier-nocross), CAPSIM_LP_LOG (CLP's log level; CLP prints its
// presolve, barrier and crossover times) and CAPSIM_LP_SCALING (0–3).
func benchOptions(b *testing.B, form Form) Options {
	opt := Options{Form: form}
	if m := os.Getenv("CAPSIM_LP_METHOD"); m != "" {
		var err error
		if opt.Method, err = clp.ParseMethod(m); err != nil {
			b.Fatal(err)
		}
	}
	if l := os.Getenv("CAPSIM_LP_LOG"); l != "" {
		opt.LogLevel, _ = strconv.Atoi(l)
	}
	if l := os.Getenv("CAPSIM_LP_SCALING"); l != "" {
		sc, _ := strconv.Atoi(l)
		opt.Scaling = clp.Scaling(sc)
	}
	if l := os.Getenv("CAPSIM_LP_BLOCK"); l != "" {
		opt.BlockCols, _ = strconv.Atoi(l)
	}
	if l := os.Getenv("CAPSIM_LP_WORKERS"); l != "" {
		opt.Workers, _ = strconv.Atoi(l)
	}
	opt.NoPresolve = os.Getenv("CAPSIM_LP_PRESOLVE") == "off"
	return opt
}

func benchBound(b *testing.B, R, M, C int, caps int) {
	for _, form := range []Form{FormSegment, FormMix, FormIncrement} {
		b.Run(form.String(), func(b *testing.B) { benchForm(b, R, M, C, caps, form) })
	}
}

func benchForm(b *testing.B, R, M, C int, caps int, form Form) {
	benchDAGSolve(b, benchDAG(R, M, C, 1), R, caps, form)
}

func benchDAGSolve(b *testing.B, d *DAG, R, caps int, form Form) {
	if !clp.Available() {
		b.Skip("no solver")
	}
	opt := benchOptions(b, form)
	opt.KeepBasis = caps > 1 && os.Getenv("CAPSIM_LP_COLD") == ""
	b.ResetTimer()
	var st Stats
	var first, rest float64
	for i := 0; i < b.N; i++ {
		o, err := InitialOrder(d)
		if err != nil {
			b.Fatal(err)
		}
		s, err := NewSolver(d, o, opt)
		if err != nil {
			b.Fatal(err)
		}
		minCap, _ := s.MinFeasibleCap()
		maxCap := 100.0 * float64(R)
		if f, err := strconv.ParseFloat(os.Getenv("CAPSIM_LP_SPAN"), 64); err == nil && f > 0 {
			maxCap = minCap + f*(maxCap-minCap) // sweep a share of the feasible range
		}
		for k := 0; k < caps; k++ {
			cp := minCap + (maxCap-minCap)*float64(k+1)/float64(caps+1)
			res, err := s.Solve(cp)
			if err != nil {
				b.Fatal(err)
			}
			st = res.Stats
			if k == 0 {
				first = st.SolveS
			} else {
				rest += st.SolveS
			}
		}
		s.Close()
	}
	b.ReportMetric(float64(st.Variables), "variables")
	b.ReportMetric(float64(st.Rows), "rows")
	b.ReportMetric(float64(st.Nonzeros), "nonzeros")
	b.ReportMetric(float64(st.Blocks), "blocks")
	b.ReportMetric(float64(st.Iter), "iterations")
	b.ReportMetric(st.BuildS, "build-s")
	b.ReportMetric(first, "solve-s")
	if caps > 1 {
		b.ReportMetric(rest/float64(caps-1), "warm-solve-s")
	}
}

// BenchmarkBound32x2000 is the LP's performance target case: 32 ranks × 2,000 tasks ×
// 10 configurations, build and one solve (target < 20 s).
func BenchmarkBound32x2000(b *testing.B) { benchBound(b, 32, 2000, 10, 1) }

// BenchmarkBound32x200 is a tenth of that, for quick comparisons.
func BenchmarkBound32x200(b *testing.B) { benchBound(b, 32, 200, 10, 1) }

// BenchmarkBoundSweep20 is the same LP swept over 20 caps from the
// previous basis (target < 3× one solve).
func BenchmarkBoundSweep20(b *testing.B) { benchBound(b, 32, 2000, 10, 20) }

// BenchmarkBoundSweep20x200 is the 20-cap sweep on the 32 × 200 case.
func BenchmarkBoundSweep20x200(b *testing.B) { benchBound(b, 32, 200, 10, 20) }

// BenchmarkBoundMillion is the LP's large case: 1,024 ranks × 1,000
// tasks (a million compute tasks) with 6 configurations each and a
// collective after every task, build and one solve (target < 10 minutes,
// < 8 GB). Run it alone with -bench BoundMillion -benchtime 1x; -short
// skips it. With ranks' task boundaries interleaved in time instead (as in
// benchDAG), a block's Cholesky factor has about rows × ranks entries, so
// 1,024 interleaved ranks are out of reach (see README.md).
func BenchmarkBoundMillion(b *testing.B) {
	if testing.Short() {
		b.Skip("-short")
	}
	d := SyncDAG(1024, 1000, 6, 1)
	for _, form := range []Form{FormIncrement, FormMix} {
		b.Run(form.String(), func(b *testing.B) { benchDAGSolve(b, d, 1024, 1, form) })
	}
}
