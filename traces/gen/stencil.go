package gen

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/mpi"
)

// Imbalance patterns of the stencil generator (the workload case studies
// of Anger, PhD thesis, Georgia Tech 2016, §5.1.2).
const (
	ImbalanceNone      = "none"
	ImbalanceRandom    = "random"        // a fixed random load per rank
	ImbalanceCharged   = "charged-field" // particles drift to two plates (Eq. 8–9)
	ImbalanceWavefront = "wavefront"     // a Gaussian front moving from the upper-left corner
)

// Stencil describes a bulk-synchronous halo-exchange stencil. Each iteration
// every rank computes, exchanges halos with its face neighbours
// (nonblocking, then waitall) and joins an allreduce.
//
// Rank i's compute time in an iteration is
//
//	ComputeNs · (Balance + (1 − Balance) · pattern_i)
//
// with pattern_i ∈ [0, 1] from the imbalance pattern, normalized so the most
// loaded rank has 1 (our linear reading of the thesis' §5.1.2): Balance = 1
// is perfectly balanced, Balance = 0 is the pattern's full imbalance.
type Stencil struct {
	Dims           []int   // process grid, 2 or 3 extents; their product is the rank count
	Iterations     int     // BSP iterations
	HaloBytes      int64   // bytes per face exchange
	ComputeNs      int64   // compute time of the most loaded rank per iteration
	Imbalance      string  // none, random, charged-field, wavefront
	Balance        float64 // in [0, 1]
	Intensity      float64 // compute intensity in [0, 1], 1 = compute bound; recorded as a parameter for models
	AllreduceBytes int64   // per-iteration allreduce; 0 for none
	Periodic       bool    // wrap the grid around
	Sigma          float64 // Gaussian width of the charged-field and wavefront patterns (default 0.15)
	Seed           uint64
}

// MaxEvents is the most events (and list entries) a generated MPI trace
// may have: 2^25, about 2 GB of trace. Every generator checks it (or
// MaxPatternOps) from its parameters, counting an upper bound, before
// allocating anything.
const MaxEvents = 1 << 25

// MaxPatternOps is the most operations a generated pattern may have:
// 2^27 (about 2 × 10^8 engine events; an execution graph holds about 60
// bytes an operation, so 8 GB at most). The scaling benchmarks' ring
// allreduce of 10^8 events has 6.7 × 10^7 operations.
const MaxPatternOps = 1 << 27

// Region names and parameters the stencil writes.
const (
	StencilRegion  = "stencil.compute"
	HaloRegion     = "stencil.halo"      // the halo exchange's MPI calls
	ReduceRegion   = "stencil.allreduce" // the per-iteration allreduce
	ParamWork      = "work"              // the rank's load as a fraction of the maximum
	ParamIntensity = "intensity"         // the compute intensity knob
)

func (s *Stencil) validate() error {
	if len(s.Dims) != 2 && len(s.Dims) != 3 {
		return fmt.Errorf("stencil: want a 2-D or 3-D process grid, got %d dimensions", len(s.Dims))
	}
	n := 1
	for i, d := range s.Dims {
		if d < 1 {
			return paramErr("stencil", gridParams[i], "grid extent %d is not positive", d)
		}
		n *= d
		if n > graph.MaxRanks {
			return fmt.Errorf("stencil: more than %d ranks", graph.MaxRanks)
		}
	}
	switch {
	case s.Iterations < 1:
		return paramErr("stencil", "iterations", "iterations %d < 1", s.Iterations)
	case float64(n)*float64(s.Iterations)*float64(3+4*len(s.Dims)) > MaxEvents:
		return paramErr("stencil", "iterations", "%d ranks × %d iterations × up to %d events per rank and iteration exceed %d events (gen.MaxEvents)",
			n, s.Iterations, 3+4*len(s.Dims), MaxEvents)
	case s.HaloBytes < 0:
		return paramErr("stencil", "halo_bytes", "halo_bytes %d is negative", s.HaloBytes)
	case s.ComputeNs < 0:
		return paramErr("stencil", "compute_ns", "compute_ns %d is negative", s.ComputeNs)
	case s.AllreduceBytes < 0:
		return paramErr("stencil", "allreduce_bytes", "allreduce_bytes %d is negative", s.AllreduceBytes)
	case s.ComputeNs > graph.MaxTimeNs:
		return paramErr("stencil", "compute_ns", "compute_ns %d exceeds %d ns (graph.MaxTimeNs)", s.ComputeNs, graph.MaxTimeNs)
	case !(s.Balance >= 0 && s.Balance <= 1):
		return paramErr("stencil", "balance", "balance %g outside [0, 1]", s.Balance)
	case !(s.Intensity >= 0 && s.Intensity <= 1):
		return paramErr("stencil", "intensity", "intensity %g outside [0, 1]", s.Intensity)
	case !(s.Sigma >= 0) || math.IsInf(s.Sigma, 0):
		return paramErr("stencil", "sigma", "sigma %g is not a finite number ≥ 0", s.Sigma)
	}
	switch s.Imbalance {
	case "", ImbalanceNone, ImbalanceRandom, ImbalanceCharged, ImbalanceWavefront:
	default:
		return fmt.Errorf("stencil: unknown imbalance %q (want none, random, charged-field or wavefront)", s.Imbalance)
	}
	return nil
}

// ImbalanceParams are the stencil parameters that only some imbalance
// patterns read, in order: balance (the pattern's share of the load),
// sigma (the Gaussians' width) and seed (the random loads).
var ImbalanceParams = []string{"balance", "sigma", "seed"}

// ImbalanceReaders returns the imbalance patterns that read the stencil
// parameter param (one of ImbalanceParams); with any other pattern it has
// no effect.
func ImbalanceReaders(param string) []string {
	switch param {
	case "balance":
		return []string{ImbalanceRandom, ImbalanceCharged, ImbalanceWavefront}
	case "sigma":
		return []string{ImbalanceCharged, ImbalanceWavefront}
	case "seed":
		return []string{ImbalanceRandom}
	}
	return nil
}

// gauss is Eq. 8 without its constant factor (patterns are normalized).
func gauss(x, mu, sigma float64) float64 {
	d := (x - mu) / sigma
	return math.Exp(-d * d / 2)
}

// loads returns pattern_i for iteration it, normalized to a maximum of 1.
func (s *Stencil) loads(it int, coords [][]int, random []float64) []float64 {
	n := len(coords)
	w := make([]float64, n)
	sigma := s.Sigma
	if sigma == 0 {
		sigma = 0.15
	}
	// cell centre in [0, 1] along dimension d
	centre := func(i, d int) float64 { return (float64(coords[i][d]) + 0.5) / float64(s.Dims[d]) }
	for i := range w {
		switch s.Imbalance {
		case ImbalanceRandom:
			w[i] = random[i]
		case ImbalanceCharged:
			// Eq. 9: Work = Weight·Position + (1 − Weight)·SteadyState, with the
			// plates at x = 0 and x = 1, Weight rising linearly from 0 to 1
			// over the run and a uniform steady state.
			x := centre(i, 0)
			weight := float64(it+1) / float64(s.Iterations)
			w[i] = weight*gauss(math.Min(x, 1-x), 0, sigma) + (1 - weight)
		case ImbalanceWavefront:
			// The front leaves the upper-left corner and crosses the
			// domain diagonally over the run; load follows a Gaussian of
			// the distance to the front.
			var r2 float64
			for d := 0; d < len(s.Dims); d++ {
				c := centre(i, d)
				r2 += c * c
			}
			front := math.Sqrt(float64(len(s.Dims))) * float64(it+1) / float64(s.Iterations)
			w[i] = gauss(math.Sqrt(r2), front, sigma)
		default:
			w[i] = 1
		}
	}
	mx := 0.0
	for _, v := range w {
		mx = math.Max(mx, v)
	}
	for i := range w {
		if mx > 0 {
			w[i] /= mx
		}
	}
	return w
}

// Generate returns the stencil's MPI trace.
func (s Stencil) Generate() (*mpi.Trace, error) {
	if err := s.validate(); err != nil {
		return nil, err
	}
	n := 1
	for _, d := range s.Dims {
		n *= d
	}
	coords := make([][]int, n)
	for i := range coords {
		c := make([]int, len(s.Dims))
		x := i
		for d := len(s.Dims) - 1; d >= 0; d-- { // row-major, last dimension fastest
			c[d] = x % s.Dims[d]
			x /= s.Dims[d]
		}
		coords[i] = c
	}
	index := func(c []int) int {
		i := 0
		for d := range s.Dims {
			i = i*s.Dims[d] + c[d]
		}
		return i
	}
	// Face neighbours: per dimension, the lower and upper one (-1 if none).
	neigh := make([][]int, n)
	for i := range neigh {
		for d := range s.Dims {
			for _, step := range []int{-1, 1} {
				c := append([]int(nil), coords[i]...)
				c[d] += step
				if c[d] < 0 || c[d] >= s.Dims[d] {
					if !s.Periodic || s.Dims[d] == 1 {
						neigh[i] = append(neigh[i], -1)
						continue
					}
					c[d] = (c[d] + s.Dims[d]) % s.Dims[d]
				}
				neigh[i] = append(neigh[i], index(c))
			}
		}
	}
	rng := rand.New(rand.NewPCG(s.Seed, 0x5354454e43494c)) // "STENCIL"
	random := make([]float64, n)
	for i := range random {
		random[i] = rng.Float64()
	}
	t := mpi.NewTrace(n)
	t.ParamNames = []string{ParamWork, ParamIntensity}
	t.Region(StencilRegion)
	halo, reduce := t.Region(HaloRegion), t.Region(ReduceRegion)
	for it := 0; it < s.Iterations; it++ {
		w := s.loads(it, coords, random)
		for r := 0; r < n; r++ {
			frac := s.Balance + (1-s.Balance)*w[r]
			t.AppendCompute(r, StencilRegion, int64(math.Round(float64(s.ComputeNs)*frac)), frac, s.Intensity)
			var reqs []int64
			req := int64(0)
			// Face k (dimension k/2, direction k%2) receives with tag k from
			// the neighbour, which sends with the opposite face's tag.
			for k, nb := range neigh[r] {
				if nb < 0 || nb == r {
					continue
				}
				req++
				t.Append(r, mpi.Event{Kind: mpi.Irecv, Region: halo, Peer: int32(nb), Tag: int32(k), Bytes: s.HaloBytes, Req: req})
				reqs = append(reqs, req)
			}
			for k, nb := range neigh[r] {
				if nb < 0 || nb == r {
					continue
				}
				req++
				t.Append(r, mpi.Event{Kind: mpi.Isend, Region: halo, Peer: int32(nb), Tag: int32(k ^ 1), Bytes: s.HaloBytes, Req: req})
				reqs = append(reqs, req)
			}
			if len(reqs) > 0 {
				t.AppendList(r, mpi.Event{Kind: mpi.Waitall, Region: halo}, reqs)
			}
			if s.AllreduceBytes > 0 {
				t.Append(r, mpi.Event{Kind: mpi.Allreduce, Region: reduce, Bytes: s.AllreduceBytes})
			}
		}
	}
	return t, nil
}

// Sweep describes a sweep3d-like wavefront on a 2-D process grid: for each
// octant, K blocks sweep from one corner to the opposite one; a rank
// receives the block's inflow from its upstream neighbours in x and y,
// computes, and sends the outflow downstream.
type Sweep struct {
	Px, Py    int
	Octants   int   // 1..8 (default 8); octants alternate corners
	Blocks    int   // blocks per octant along z
	ComputeNs int64 // per block
	Bytes     int64 // per face message
}

// SweepRegion is the region name of a sweep's compute blocks.
const SweepRegion = "sweep.block"

// Generate returns the sweep's MPI trace.
func (s Sweep) Generate() (*mpi.Trace, error) {
	if s.Octants == 0 {
		s.Octants = 8
	}
	switch {
	case s.Px < 1:
		return nil, paramErr("sweep", "px", "grid extent %d is not positive", s.Px)
	case s.Py < 1:
		return nil, paramErr("sweep", "py", "grid extent %d is not positive", s.Py)
	case float64(s.Px)*float64(s.Py) > graph.MaxRanks:
		return nil, fmt.Errorf("sweep: process grid %d×%d has more than %d ranks (graph.MaxRanks)", s.Px, s.Py, graph.MaxRanks)
	case s.Octants < 1 || s.Octants > 8:
		return nil, paramErr("sweep", "octants", "octants %d outside 1..8", s.Octants)
	case s.Blocks < 1:
		return nil, paramErr("sweep", "blocks", "blocks %d < 1", s.Blocks)
	case s.ComputeNs < 0:
		return nil, paramErr("sweep", "compute_ns", "compute_ns %d is negative", s.ComputeNs)
	case s.Bytes < 0:
		return nil, paramErr("sweep", "bytes", "bytes %d is negative", s.Bytes)
	case s.ComputeNs > graph.MaxTimeNs:
		return nil, paramErr("sweep", "compute_ns", "compute_ns %d exceeds %d ns (graph.MaxTimeNs)", s.ComputeNs, graph.MaxTimeNs)
	case float64(s.Px)*float64(s.Py)*float64(s.Octants)*float64(s.Blocks)*5 > MaxEvents:
		return nil, paramErr("sweep", "blocks", "%d×%d ranks × %d octants × %d blocks × up to 5 events per block exceed %d events (gen.MaxEvents)",
			s.Px, s.Py, s.Octants, s.Blocks, MaxEvents)
	}
	t := mpi.NewTrace(s.Px * s.Py)
	rank := func(x, y int) int { return y*s.Px + x }
	for o := 0; o < s.Octants; o++ {
		dx, dy := 1, 1 // sweep direction of this octant
		if o&1 != 0 {
			dx = -1
		}
		if o&2 != 0 {
			dy = -1
		}
		for y := 0; y < s.Py; y++ {
			for x := 0; x < s.Px; x++ {
				r := rank(x, y)
				for b := 0; b < s.Blocks; b++ {
					tag := int32(o*2 + 0)
					if ux := x - dx; ux >= 0 && ux < s.Px {
						t.Append(r, mpi.Event{Kind: mpi.Recv, Peer: int32(rank(ux, y)), Tag: tag, Bytes: s.Bytes})
					}
					if uy := y - dy; uy >= 0 && uy < s.Py {
						t.Append(r, mpi.Event{Kind: mpi.Recv, Peer: int32(rank(x, uy)), Tag: tag + 1, Bytes: s.Bytes})
					}
					t.AppendCompute(r, SweepRegion, s.ComputeNs)
					if vx := x + dx; vx >= 0 && vx < s.Px {
						t.Append(r, mpi.Event{Kind: mpi.Send, Peer: int32(rank(vx, y)), Tag: tag, Bytes: s.Bytes})
					}
					if vy := y + dy; vy >= 0 && vy < s.Py {
						t.Append(r, mpi.Event{Kind: mpi.Send, Peer: int32(rank(x, vy)), Tag: tag + 1, Bytes: s.Bytes})
					}
				}
			}
		}
	}
	return t, nil
}

// Collective describes a micro-benchmark: Reps calls of one collective on
// all ranks (or on the first CommSize ranks), with GapNs of compute between
// calls.
type Collective struct {
	Kind     mpi.Kind
	Ranks    int
	CommSize int // 0: all ranks (MPI_COMM_WORLD)
	Bytes    int64
	Root     int32
	Reps     int
	GapNs    int64
}

// Generate returns the micro-benchmark's MPI trace.
func (c Collective) Generate() (*mpi.Trace, error) {
	if !c.Kind.IsCollective() {
		return nil, fmt.Errorf("collective benchmark: %s is not a collective", c.Kind)
	}
	const what = "collective benchmark"
	switch {
	case c.Ranks < 1 || c.Ranks > graph.MaxRanks:
		return nil, paramErr(what, "ranks", "ranks %d outside 1..%d (graph.MaxRanks)", c.Ranks, graph.MaxRanks)
	case c.CommSize < 0 || c.CommSize > c.Ranks:
		return nil, paramErr(what, "comm_size", "communicator size %d outside 0..%d ranks (0: all)", c.CommSize, c.Ranks)
	case c.Reps < 1:
		return nil, paramErr(what, "reps", "reps %d < 1", c.Reps)
	case c.Bytes < 0:
		return nil, paramErr(what, "bytes", "bytes %d is negative", c.Bytes)
	case c.GapNs < 0:
		return nil, paramErr(what, "gap_ns", "gap_ns %d is negative", c.GapNs)
	case c.GapNs > graph.MaxTimeNs:
		return nil, paramErr(what, "gap_ns", "gap_ns %d exceeds %d ns (graph.MaxTimeNs)", c.GapNs, graph.MaxTimeNs)
	}
	per := 2.0 // the gap's calc and the call, per rank and repetition
	if c.Kind == mpi.Alltoallv {
		per += float64(c.Ranks) // and its list of counts
	}
	if float64(c.Ranks)*float64(c.Reps)*per > MaxEvents {
		return nil, paramErr(what, "reps", "%d ranks × %d repetitions × %g events (and list entries) each exceed %d (gen.MaxEvents)",
			c.Ranks, c.Reps, per, MaxEvents)
	}
	t := mpi.NewTrace(c.Ranks)
	comm, size := mpi.World, c.Ranks
	if c.CommSize > 0 && c.CommSize < c.Ranks {
		m := make([]int32, c.CommSize)
		for i := range m {
			m[i] = int32(i)
		}
		comm, size = t.AddComm("bench", m), c.CommSize
	}
	if !c.Kind.IsRooted() && c.Root != 0 {
		return nil, paramErr(what, "root", "root %d: %s has no root", c.Root, c.Kind)
	}
	if c.Kind.IsRooted() && (c.Root < 0 || int(c.Root) >= size) {
		return nil, paramErr(what, "root", "root %d outside 0..%d", c.Root, size-1)
	}
	for rep := 0; rep < c.Reps; rep++ {
		for r := 0; r < size; r++ {
			if c.GapNs > 0 {
				t.AppendCompute(r, "bench.gap", c.GapNs)
			}
			e := mpi.Event{Kind: c.Kind, Comm: comm, Peer: c.Root, Bytes: c.Bytes}
			if c.Kind == mpi.Alltoallv {
				list := make([]int64, size)
				for j := range list {
					list[j] = c.Bytes
				}
				t.AppendList(r, e, list)
				continue
			}
			t.Append(r, e)
		}
	}
	return t, nil
}

// gridParams names the extents of a stencil's process grid, as a
// scenario's [workload.params] does.
var gridParams = []string{"px", "py", "pz"}

// ParamError is a generator's error about one of its parameters, named as
// in a scenario's [workload.params] (the command-line flag of the same
// name has - for _).
type ParamError struct {
	Generator string // "stencil", "sweep" or "collective benchmark"
	Param     string // e.g. "iterations", "halo_bytes"
	Msg       string // what is wrong, naming the parameter
}

func (e *ParamError) Error() string { return e.Generator + ": " + e.Msg }

func paramErr(gen, param, format string, a ...any) error {
	return &ParamError{Generator: gen, Param: param, Msg: fmt.Sprintf(format, a...)}
}
