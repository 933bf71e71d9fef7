package taskgraph

import "math"

// The default profile set models the node of the thesis' task-graph
// experiments (Anger, PhD thesis, Georgia Tech 2016, §4.2.1 and Table 5):
// an Intel Xeon Phi 3120A at 1.1 GHz whose
// offload runtime leaves 112 hardware threads (56 cores × 2) to tasks,
// with an idle power of 106.9 W. The thesis prints no profile numbers
// (Figs. 18 and 20 carry none in the text), so the numbers are a model,
// chosen to match what the thesis does state:
//
//   - GEMM and SPMV scale well (nearly straight frontiers), DAXPY and
//     POTRF poorly (few Pareto points), and CG's kernels other than SPMV
//     scale poorly (§2.9, §5.2.3);
//   - every kernel's cheapest frontier point is far below 35 W, the cap
//     "guaranteed to contain at least one Pareto-optimal point for each
//     task" (§3.3, §5.5 item 9);
//   - 112 threads of GEMM draw about 179 W over idle, 286 W in all, near
//     the card's 300 W TDP.
//
// Time of a task on n threads (s):
//
//	T(n) = T1·(f + (1−f)/S(n)) + o·log2(n),  S(n) = n / (1 + (n−1)/B)
//
// with T1 the one-thread time (work / per-thread rate), f the serial
// fraction, o the fork/join cost per tree level and B the thread count at
// which memory bandwidth saturates (B = ∞ for compute-bound kernels:
// on the in-order Phi core one thread issues at most every other cycle,
// so throughput grows with threads, not cores). Incremental power (W):
//
//	P(n) = 1.2·⌈n/2⌉ + e·n + 20·S(n)/B
//
// 1.2 W wakes a core (threads fill cores two at a time), e is the
// kernel's energy per thread (its arithmetic intensity) and the last term
// is memory power, 20 W at saturated bandwidth. Tiles are 256×256
// doubles; CG blocks are 32³ = 32,768 rows of the 27-point stencil.
// Times are rounded to 1 ns and powers to 1 mW.

// DefaultMachine is the node of the default profiles.
var DefaultMachine = Machine{Name: "xeon-phi-3120a", Threads: 112, IdleW: 106.9}

// DefaultFreqGHz is the frequency of the default profiles (the 3120A's
// clock; the thesis varies threads only).
const DefaultFreqGHz = 1.1

// KernelModel holds the parameters of one kernel in the default profiles.
type KernelModel struct {
	Name string
	Work float64 // flops (compute-bound) or bytes (memory-bound) per task
	Rate float64 // one thread's flop/s or byte/s
	F    float64 // serial fraction
	O    float64 // s per fork/join tree level
	B    float64 // bandwidth saturation in threads; 0 = compute-bound
	E    float64 // W per thread
}

const tile = 256.0

// DefaultModels are the kernel parameters of DefaultProfiles.
var DefaultModels = []KernelModel{
	{Name: GEMM, Work: 2 * tile * tile * tile, Rate: 5e9, F: 0.002, O: 5e-6, E: 1.0},
	{Name: TRSM, Work: tile * tile * tile, Rate: 4e9, F: 0.02, O: 5e-6, E: 0.9},
	{Name: SYRK, Work: tile * tile * (tile + 1), Rate: 4.5e9, F: 0.01, O: 5e-6, E: 0.95},
	{Name: POTRF, Work: tile * tile * tile / 3, Rate: 2.5e9, F: 0.3, O: 40e-6, E: 0.8},
	{Name: GETRF, Work: 2 * tile * tile * tile / 3, Rate: 3e9, F: 0.15, O: 20e-6, E: 0.85},
	// 27 nonzeros per row, 8-byte value and 4-byte index, plus x and y.
	{Name: SPMV, Work: 32768 * (27*12 + 16), Rate: 2.5e9, F: 0.005, O: 5e-6, B: 60, E: 0.5},
	{Name: DDOT, Work: 32768 * 16, Rate: 2.5e9, F: 0.05, O: 8e-6, B: 60, E: 0.5},
	{Name: DAXPY, Work: 32768 * 24, Rate: 2.5e9, F: 0.05, O: 8e-6, B: 60, E: 0.5},
	// The sum of one partial result per block: serial.
	{Name: REDUCE, Work: 2e-6, Rate: 1, F: 1, O: 8e-6, E: 0.4},
}

// Config returns the modeled configuration of m on n threads.
func (m KernelModel) Config(n int) ProfileConfig {
	s := float64(n)
	bw := 0.0
	if m.B > 0 {
		s = float64(n) / (1 + float64(n-1)/m.B)
		bw = 20 * s / m.B
	}
	t := m.Work/m.Rate*(m.F+(1-m.F)/s) + m.O*math.Log2(float64(n))
	p := 1.2*math.Ceil(float64(n)/2) + m.E*float64(n) + bw
	return ProfileConfig{
		Threads: int32(n),
		FreqGHz: DefaultFreqGHz,
		Time:    math.Round(t*1e9) / 1e9,
		Power:   math.Round(p*1e3) / 1e3,
	}
}

// DefaultProfiles returns the built-in profile set: every kernel of the
// generators on 1..112 threads of DefaultMachine.
func DefaultProfiles() *Profiles {
	p := NewProfiles(DefaultMachine)
	for _, m := range DefaultModels {
		for n := 1; n <= DefaultMachine.Threads; n++ {
			if err := p.Add(m.Name, m.Config(n)); err != nil {
				panic(err) // the table above is valid
			}
		}
	}
	return p
}
