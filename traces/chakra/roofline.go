package chakra

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/capsim/capsim/traces/graph"
)

// Roofline times nodes recorded without a duration from their num_ops
// and tensor_size attributes, as ASTRA-sim's roofline model does
// (astra-sim/system/Roofline.cc, used by its workload layer when the
// roofline is enabled): a node of N operations on T bytes has the
// operational intensity N/T, runs at min(PeakOps, MemBytes·N/T)
// operations per second and so takes max(N/PeakOps, T/MemBytes) seconds.
// MEM_LOAD and MEM_STORE nodes take T/MemBytes.
type Roofline struct {
	// PeakOps is the device's peak rate, in operations per second (num_ops
	// counts what the trace's producer counted, usually floating-point
	// operations).
	PeakOps float64
	// MemBytes is its memory bandwidth in bytes per second; 0 leaves
	// memory out (every node compute-bound, MEM nodes free).
	MemBytes float64
}

// Validate reports a rate that is not a finite number above 0 (MemBytes
// may be 0).
func (m *Roofline) Validate() error {
	if !(m.PeakOps > 0) || math.IsInf(m.PeakOps, 0) {
		return fmt.Errorf("roofline: peak rate %g operations/s (want a finite number above 0)", m.PeakOps)
	}
	if !(m.MemBytes >= 0) || math.IsInf(m.MemBytes, 0) {
		return fmt.Errorf("roofline: memory bandwidth %g bytes/s (want a finite number ≥ 0)", m.MemBytes)
	}
	return nil
}

// nodeNs returns the roofline time of node i of f in ns, rounded to the
// nearest, and whether the node has a roofline time: a COMP node with
// num_ops or tensor_size, a MEM node with tensor_size.
func (m *Roofline) nodeNs(f *File, i int) (int64, bool, error) {
	nd := &f.Nodes[i]
	ops, hasOps := nd.Attr("num_ops")
	size, hasSize := nd.Attr("tensor_size")
	if ops.Int < 0 {
		return 0, false, nodeErr(f, i, "negative num_ops %d", ops.Int)
	}
	if size.Int < 0 {
		return 0, false, nodeErr(f, i, "negative tensor_size %d", size.Int)
	}
	var s float64
	switch nd.Type {
	case CompNode:
		if !hasOps && !hasSize {
			return 0, false, nil
		}
		s = float64(ops.Int) / m.PeakOps
	case MemLoadNode, MemStoreNode:
		if !hasSize {
			return 0, false, nil
		}
	default:
		return 0, false, nil
	}
	if m.MemBytes > 0 {
		s = max(s, float64(size.Int)/m.MemBytes)
	}
	ns := math.Round(s * 1e9)
	if ns > float64(graph.MaxTimeNs) {
		return 0, false, nodeErr(f, i, "roofline time of %d operations on %d bytes exceeds %d ns", ops.Int, size.Int, int64(graph.MaxTimeNs))
	}
	return int64(ns), true, nil
}

// commSize returns node i's message or collective size: comm_size, else
// tensor_size (the size of the tensor it carries), else 0.
func commSize(f *File, i int) (int64, error) {
	nd := &f.Nodes[i]
	a, ok := nd.Attr("comm_size")
	name := "comm_size"
	if !ok {
		a, _ = nd.Attr("tensor_size")
		name = "tensor_size"
	}
	if a.Int < 0 {
		return 0, nodeErr(f, i, "negative %s %d", name, a.Int)
	}
	return a.Int, nil
}

// ParseRoofline reads a roofline from 'ops=R[,mem=B]': the peak rate R
// in operations per second and the memory bandwidth B in bytes per second,
// as decimal or exponent numbers (ops=989e12,mem=3.35e12).
func ParseRoofline(spec string) (*Roofline, error) {
	var m Roofline
	seen := map[string]bool{}
	for _, kv := range strings.Split(spec, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok || seen[k] {
			return nil, fmt.Errorf("roofline %q: want ops=R[,mem=B], each once", spec)
		}
		seen[k] = true
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, fmt.Errorf("roofline %q: %s: %q is not a number", spec, k, v)
		}
		switch k {
		case "ops":
			m.PeakOps = x
		case "mem":
			m.MemBytes = x
		default:
			return nil, fmt.Errorf("roofline %q: unknown key %q (want ops, mem)", spec, k)
		}
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return &m, nil
}
