package gen

import (
	"fmt"

	"github.com/capsim/capsim/traces/mpi"
)

// SweepOptions describes a sweep3d-like wavefront (KBA sweeps) on a 2-D
// process grid. Zero fields take the defaults given per field.
type SweepOptions struct {
	// Dims is the 2-D process grid [px, py] (required; px·py ranks).
	Dims []int
	// Iterations repeats the full set of octant sweeps (default 1).
	Iterations int
	// Octants is the number of sweeps per iteration, 1 to 8 (default 8).
	// Octant o sweeps from the corner given by its bits: bit 0 flips the x
	// direction, bit 1 the y direction (bit 2, the z direction, changes
	// only the tag since z is not decomposed).
	Octants int
	// KBlocks is the number of z blocks pipelined per octant (default 10).
	KBlocks int
	// Bytes is the size of one face message (default 4096).
	Bytes int64
	// ComputeNs is the compute time of one block (default 100 µs).
	ComputeNs int64
}

func (o *SweepOptions) defaults() error {
	if len(o.Dims) != 2 || o.Dims[0] < 1 || o.Dims[1] < 1 {
		return fmt.Errorf("sweep: process grid %v must have 2 positive extents", o.Dims)
	}
	if o.Iterations == 0 {
		o.Iterations = 1
	}
	if o.Octants == 0 {
		o.Octants = 8
	}
	if o.KBlocks == 0 {
		o.KBlocks = 10
	}
	if o.Bytes == 0 {
		o.Bytes = 4096
	}
	if o.ComputeNs == 0 {
		o.ComputeNs = 100_000
	}
	switch {
	case o.Iterations < 0 || o.KBlocks < 0:
		return fmt.Errorf("sweep: negative iteration or block count")
	case o.Octants < 1 || o.Octants > 8:
		return fmt.Errorf("sweep: %d octants (want 1..8)", o.Octants)
	case o.Bytes < 0 || o.ComputeNs < 0:
		return fmt.Errorf("sweep: negative size or time")
	}
	return nil
}

// Sweep generates a sweep3d-like wavefront. For every octant and z block,
// each rank does a blocking Recv from its upstream x neighbour and its
// upstream y neighbour (where they exist), computes (region
// "sweep.compute"), then does a blocking Send to its downstream x and y
// neighbours. Messages of octant o carry tag o.
func Sweep(o SweepOptions) (*mpi.Trace, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	px, py := o.Dims[0], o.Dims[1]
	t := mpi.NewTrace(px * py)
	t.Region(RegionSweep)
	for r := 0; r < px*py; r++ {
		x, y := r/py, r%py
		for it := 0; it < o.Iterations; it++ {
			for oct := 0; oct < o.Octants; oct++ {
				dx, dy := 1, 1
				if oct&1 != 0 {
					dx = -1
				}
				if oct&2 != 0 {
					dy = -1
				}
				upX, downX, upY, downY := -1, -1, -1, -1
				if ux := x - dx; ux >= 0 && ux < px {
					upX = ux*py + y
				}
				if vx := x + dx; vx >= 0 && vx < px {
					downX = vx*py + y
				}
				if uy := y - dy; uy >= 0 && uy < py {
					upY = x*py + uy
				}
				if vy := y + dy; vy >= 0 && vy < py {
					downY = x*py + vy
				}
				for k := 0; k < o.KBlocks; k++ {
					for _, up := range []int{upX, upY} {
						if up >= 0 {
							t.Append(r, mpi.Event{Kind: mpi.Recv, Peer: int32(up), Tag: int32(oct), Bytes: o.Bytes, Region: mpi.NoRegion, ParamOff: -1})
						}
					}
					t.AppendCompute(r, RegionSweep, o.ComputeNs)
					for _, down := range []int{downX, downY} {
						if down >= 0 {
							t.Append(r, mpi.Event{Kind: mpi.Send, Peer: int32(down), Tag: int32(oct), Bytes: o.Bytes, Region: mpi.NoRegion, ParamOff: -1})
						}
					}
				}
			}
		}
	}
	return t, nil
}

// BenchOptions describes a collective micro-benchmark. Zero fields take
// the defaults given per field.
type BenchOptions struct {
	// Kind is the collective (required).
	Kind mpi.Kind
	// Ranks is the world size (required, ≥ 1).
	Ranks int
	// CommSize, when > 0, runs the collective on a communicator of the
	// first CommSize world ranks; the rest stay idle (default: all ranks).
	CommSize int
	// Bytes is the per-rank payload (Event.Bytes; for alltoallv, the size
	// sent to every peer) (default 1024).
	Bytes int64
	// Reps is the number of repetitions (default 1).
	Reps int
	// Root is the root of rooted collectives (default 0).
	Root int
	// ComputeNs, when > 0, puts a compute event (region "bench.compute")
	// before every repetition.
	ComputeNs int64
}

// Bench generates a micro-benchmark trace: Reps calls of one collective.
func Bench(o BenchOptions) (*mpi.Trace, error) {
	if !o.Kind.IsCollective() {
		return nil, fmt.Errorf("bench: %s is not a collective", o.Kind)
	}
	if o.Ranks < 1 {
		return nil, fmt.Errorf("bench: %d ranks (want ≥ 1)", o.Ranks)
	}
	if o.CommSize == 0 {
		o.CommSize = o.Ranks
	}
	if o.Bytes == 0 {
		o.Bytes = 1024
	}
	if o.Reps == 0 {
		o.Reps = 1
	}
	switch {
	case o.CommSize < 1 || o.CommSize > o.Ranks:
		return nil, fmt.Errorf("bench: communicator size %d not in 1..%d", o.CommSize, o.Ranks)
	case o.Bytes < 0 || o.Reps < 0 || o.ComputeNs < 0:
		return nil, fmt.Errorf("bench: negative size, repetitions or time")
	case o.Root < 0 || o.Root >= o.CommSize:
		return nil, fmt.Errorf("bench: root %d not in 0..%d", o.Root, o.CommSize-1)
	}
	t := mpi.NewTrace(o.Ranks)
	comm := mpi.World
	if o.CommSize < o.Ranks {
		m := make([]int32, o.CommSize)
		for i := range m {
			m[i] = int32(i)
		}
		comm = t.AddComm("bench", m)
	}
	var list []int64
	if o.Kind == mpi.Alltoallv {
		list = make([]int64, o.CommSize)
		for i := range list {
			list[i] = o.Bytes
		}
	}
	for r := 0; r < o.CommSize; r++ {
		for k := 0; k < o.Reps; k++ {
			if o.ComputeNs > 0 {
				t.AppendCompute(r, RegionBench, o.ComputeNs)
			}
			e := mpi.Event{Kind: o.Kind, Comm: comm, Bytes: o.Bytes, Region: mpi.NoRegion, ParamOff: -1}
			if o.Kind.IsRooted() {
				e.Peer = int32(o.Root)
			}
			if list != nil {
				t.AppendList(r, e, list)
			} else {
				t.Append(r, e)
			}
		}
	}
	return t, nil
}
