package gen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/capsim/capsim/traces/mpi"
)

// Imbalance is a load-imbalance pattern of a BSP workload (Anger,
// Dynamic Power Steering §5.1.2; see docs/notes/001_anger.md).
type Imbalance string

// The imbalance patterns. Each gives every rank a pattern value in [0, 1]
// per iteration, with maximum 1 over the ranks.
const (
	// None: every rank carries the same load (pattern 1).
	None Imbalance = "none"
	// Random: independent uniform draws per rank and iteration, scaled so
	// the largest is 1 (the paper's control case).
	Random Imbalance = "random"
	// ChargedField: particles drift toward two charged plates at both ends
	// of grid axis 0. With d the distance of a rank's subdomain centre from
	// the closer plate (domain length 1), Eq. 9 gives
	// Work = Weight·Position(d, 0, σ) + (1−Weight)·SteadyState, Position
	// being the Gaussian density of Eq. 8 (here scaled to peak 1), and
	// Weight = 1 − exp(−Growth·t) rising monotonically with iteration t.
	// The values are divided by their maximum over the ranks.
	ChargedField Imbalance = "charged"
	// Wavefront: a front leaves the upper-left corner (grid coordinate 0
	// on every axis) and advances Speed domain lengths per iteration; a
	// rank's load is the Gaussian (Eq. 8, peak 1) of its subdomain centre's
	// distance from the front, so the front always carries the most work.
	Wavefront Imbalance = "wavefront"
)

// ParseImbalance maps a name (none, random, charged, wavefront) to its pattern.
func ParseImbalance(s string) (Imbalance, error) {
	switch Imbalance(s) {
	case None, Random, ChargedField, Wavefront:
		return Imbalance(s), nil
	case "":
		return None, nil
	}
	return "", fmt.Errorf("unknown imbalance pattern %q (have none, random, charged, wavefront)", s)
}

// Names of the per-compute-event parameters stencil traces carry, in order.
const (
	ParamCells    = "cells"        // grid cells updated in the event (load-scaled)
	ParamMemBound = "memory_bound" // memory-boundness m in [0, 1] (0 = compute bound)
	ParamLoad     = "load"         // relative load in (0, 1]: the event's share of ComputeNs
)

// Region names of the generated compute events.
const (
	RegionStencil = "stencil.compute"
	RegionSweep   = "sweep.compute"
	RegionBench   = "bench.compute"
)

// StencilOptions describes a BSP halo-exchange stencil. Zero fields take
// the defaults given per field.
type StencilOptions struct {
	// Dims is the process grid, 2 or 3 extents whose product is the rank
	// count (required).
	Dims []int
	// Periodic wraps the grid around on every axis (default false).
	Periodic bool
	// Iterations is the number of BSP iterations (default 10).
	Iterations int
	// HaloBytes is the size of one face's halo message (default 8192).
	HaloBytes int64
	// ComputeNs is the compute time per iteration of a fully loaded rank
	// (default 1 ms); a rank computes ComputeNs·load.
	ComputeNs int64
	// Cells is the cell count of a fully loaded rank per iteration, carried
	// as parameter "cells" (default 32768).
	Cells float64
	// Imbalance is the load pattern (default None).
	Imbalance Imbalance
	// Balance b ∈ [0, 1] sets load = b + (1−b)·pattern: 1 is perfect
	// balance, 0 (the default) the full pattern (the paper's load-imbalance
	// axis).
	Balance float64
	// MemoryBound m ∈ [0, 1] is the compute-intensity knob, expressed as
	// the notes recommend (001_anger.md, "Computational intensity"): the
	// memory-bound fraction of the work, so that a compute model can scale
	// time with frequency f as τ(f) = (1−m)·f_max/f + m. 0 (the default) is
	// entirely compute bound. It is carried as parameter "memory_bound".
	MemoryBound float64
	// Sigma is the Gaussian width σ in domain lengths for ChargedField and
	// Wavefront (default 0.15).
	Sigma float64
	// Growth is the ChargedField weight growth rate per iteration (default 0.2).
	Growth float64
	// SteadyState is the ChargedField steady-state load (default 1).
	SteadyState float64
	// Speed is the Wavefront advance per iteration in domain lengths
	// (default: the front crosses the domain diagonal in Iterations).
	Speed float64
	// AllreduceBytes is the size of the allreduce that ends every
	// iteration (default 8); NoAllreduce leaves it out.
	AllreduceBytes int64
	NoAllreduce    bool
	// Seed seeds the Random pattern.
	Seed uint64
}

func (o *StencilOptions) defaults() error {
	if len(o.Dims) != 2 && len(o.Dims) != 3 {
		return fmt.Errorf("stencil: process grid %v must have 2 or 3 dimensions", o.Dims)
	}
	for i, d := range o.Dims {
		if d < 1 {
			return fmt.Errorf("stencil: process grid extent %d on axis %d (want ≥ 1)", d, i)
		}
	}
	def := func(v *int64, d int64) {
		if *v == 0 {
			*v = d
		}
	}
	if o.Iterations == 0 {
		o.Iterations = 10
	}
	def(&o.HaloBytes, 8192)
	def(&o.ComputeNs, 1_000_000)
	def(&o.AllreduceBytes, 8)
	for _, f := range []struct {
		v *float64
		d float64
	}{{&o.Cells, 32768}, {&o.Sigma, 0.15}, {&o.Growth, 0.2}, {&o.SteadyState, 1}} {
		if *f.v == 0 {
			*f.v = f.d
		}
	}
	var err error
	if o.Imbalance, err = ParseImbalance(string(o.Imbalance)); err != nil {
		return fmt.Errorf("stencil: %w", err)
	}
	switch {
	case o.Iterations < 0:
		return fmt.Errorf("stencil: %d iterations (want ≥ 1)", o.Iterations)
	case o.HaloBytes < 0 || o.ComputeNs < 0 || o.AllreduceBytes < 0 || o.Cells < 0:
		return fmt.Errorf("stencil: negative size or time")
	case o.Balance < 0 || o.Balance > 1 || math.IsNaN(o.Balance):
		return fmt.Errorf("stencil: balance %g not in [0, 1]", o.Balance)
	case o.MemoryBound < 0 || o.MemoryBound > 1 || math.IsNaN(o.MemoryBound):
		return fmt.Errorf("stencil: memory-boundness %g not in [0, 1]", o.MemoryBound)
	case o.Sigma <= 0 || o.Growth < 0 || o.SteadyState < 0 || o.Speed < 0:
		return fmt.Errorf("stencil: sigma must be > 0 and growth, steady state, speed ≥ 0")
	}
	return nil
}

// grid maps ranks to coordinates (row-major: the last axis varies fastest).
type grid struct {
	dims     []int
	periodic bool
}

func (g grid) size() int {
	n := 1
	for _, d := range g.dims {
		n *= d
	}
	return n
}

func (g grid) coords(r int, c []int) {
	for a := len(g.dims) - 1; a >= 0; a-- {
		c[a] = r % g.dims[a]
		r /= g.dims[a]
	}
}

func (g grid) rank(c []int) int {
	r := 0
	for a, d := range g.dims {
		r = r*d + c[a]
	}
	return r
}

// neighbor returns the rank one step (dir = ±1) along axis a from
// coordinates c, or -1 at a non-periodic edge or on an axis of extent 1.
func (g grid) neighbor(c []int, a, dir int) int {
	if g.dims[a] == 1 {
		return -1
	}
	x := c[a] + dir
	if x < 0 || x >= g.dims[a] {
		if !g.periodic {
			return -1
		}
		x = (x + g.dims[a]) % g.dims[a]
	}
	old := c[a]
	c[a] = x
	r := g.rank(c)
	c[a] = old
	return r
}

// loads fills load (one entry per rank) for iteration t.
func (o *StencilOptions) loads(t int, g grid, rng *rand.Rand, load []float64) {
	c := make([]int, len(g.dims))
	for r := range load {
		g.coords(r, c)
		switch o.Imbalance {
		case None:
			load[r] = 1
		case Random:
			load[r] = rng.Float64()
		case ChargedField:
			x := (float64(c[0]) + 0.5) / float64(g.dims[0])
			d := math.Min(x, 1-x)
			w := 1 - math.Exp(-o.Growth*float64(t))
			load[r] = w*gauss(d, o.Sigma) + (1-w)*o.SteadyState
		case Wavefront:
			var d2 float64
			for a := range c {
				x := (float64(c[a]) + 0.5) / float64(g.dims[a])
				d2 += x * x
			}
			speed := o.Speed
			if speed == 0 {
				speed = math.Sqrt(float64(len(c))) / float64(max(o.Iterations, 1))
			}
			load[r] = gauss(math.Sqrt(d2)-speed*float64(t), o.Sigma)
		}
	}
	m := 0.0
	for _, v := range load {
		m = math.Max(m, v)
	}
	for r := range load {
		p := 1.0
		if m > 0 {
			p = load[r] / m
		}
		load[r] = o.Balance + (1-o.Balance)*p
	}
}

// gauss is Eq. 8's Gaussian of x with mean 0 and width sigma, scaled to peak 1.
func gauss(x, sigma float64) float64 { return math.Exp(-x * x / (2 * sigma * sigma)) }

// Stencil generates a 2-D or 3-D halo-exchange stencil in BSP iterations.
// Every iteration of every rank: Irecv from and Isend to each existing face
// neighbour (tag 2a for messages travelling up axis a, 2a+1 down), a
// Waitall, a compute event of region "stencil.compute" lasting
// ComputeNs·load with parameters cells, memory_bound and load, then (unless
// NoAllreduce) an allreduce of AllreduceBytes on the world communicator.
func Stencil(o StencilOptions) (*mpi.Trace, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	g := grid{dims: o.Dims, periodic: o.Periodic}
	n := g.size()
	t := mpi.NewTrace(n)
	t.ParamNames = []string{ParamCells, ParamMemBound, ParamLoad}
	t.Region(RegionStencil)
	rng := rand.New(rand.NewPCG(o.Seed, 0x5374656e63696c)) // "Stencil"
	load := make([]float64, n)
	c := make([]int, len(o.Dims))
	reqs := make([]int64, 0, 12)
	for it := 0; it < o.Iterations; it++ {
		o.loads(it, g, rng, load)
		for r := 0; r < n; r++ {
			g.coords(r, c)
			reqs = reqs[:0]
			q := int64(0)
			for _, isend := range []bool{false, true} {
				for a := range o.Dims {
					for _, dir := range []int{1, -1} {
						nb := g.neighbor(c, a, dir)
						if nb < 0 {
							continue
						}
						e := mpi.Event{Peer: int32(nb), Bytes: o.HaloBytes, Req: q, Region: mpi.NoRegion, ParamOff: -1}
						if isend { // travelling in direction dir along a
							e.Kind, e.Tag = mpi.Isend, haloTag(a, dir)
						} else { // arrives from the neighbour at dir, travelling in -dir
							e.Kind, e.Tag = mpi.Irecv, haloTag(a, -dir)
						}
						t.Append(r, e)
						reqs = append(reqs, q)
						q++
					}
				}
			}
			if len(reqs) > 0 {
				t.AppendList(r, mpi.Event{Kind: mpi.Waitall, Region: mpi.NoRegion, ParamOff: -1}, reqs)
			}
			t.AppendCompute(r, RegionStencil, int64(float64(o.ComputeNs)*load[r]), o.Cells*load[r], o.MemoryBound, load[r])
			if !o.NoAllreduce {
				t.Append(r, mpi.Event{Kind: mpi.Allreduce, Comm: mpi.World, Bytes: o.AllreduceBytes, Region: mpi.NoRegion, ParamOff: -1})
			}
		}
	}
	return t, nil
}

func haloTag(axis, dir int) int32 {
	if dir > 0 {
		return int32(2 * axis)
	}
	return int32(2*axis + 1)
}

// ParseDims parses a process grid such as "4x4" or "2x3x4".
func ParseDims(s string) ([]int, error) {
	var dims []int
	for _, f := range strings.Split(s, "x") {
		var d int
		if _, err := fmt.Sscanf(f, "%d", &d); err != nil || d < 1 || fmt.Sprint(d) != f {
			return nil, fmt.Errorf("process grid %q: extent %q is not a positive integer", s, f)
		}
		dims = append(dims, d)
	}
	return dims, nil
}

// CheckDims reports an error unless dims multiply to ranks.
func CheckDims(dims []int, ranks int) error {
	n := 1
	for _, d := range dims {
		n *= d
	}
	if n != ranks {
		return fmt.Errorf("process grid %v has %d ranks, want %d", dims, n, ranks)
	}
	return nil
}
