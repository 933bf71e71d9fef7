package network

import (
	"math"
	"strings"
	"testing"

	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/lower"
)

// A wire's parameters are the network's with the protocol's hop latency
// for L, G over the protocol's efficiency and no eager limit; wire 0 is
// the network itself.
func TestForWire(t *testing.T) {
	base := NewLogGOPS(2500, 1500, 1000, 6, 1, 65535)
	if got, err := base.ForWire(0); err != nil || got != base {
		t.Fatalf("wire 0: %+v, %v; want the base", got, err)
	}
	for _, tc := range []struct {
		alg   string
		p     lower.Protocol
		l     lower.Link
		nodes int
		L     int64
		G     float64 // ns per byte
	}{
		{"nccl-ring", lower.LL, lower.NVLink, 1, 600, 12},
		{"nccl-ring", lower.LL128, lower.PCI, 1, 2500, 6 / 0.92},
		{"nccl-ring", lower.Simple, lower.Net, 2, 14000, 6},
		{"nccl-tree", lower.LL, lower.Net, 4, 5000, 6 * 3.8},
		{"nccl-tree", lower.LL128, lower.NVLink, 1, 1250, 6 * 9.0 / 7},
		{"nccl-tree", lower.LL128, lower.NVLink, 2, 1250, 6 * 128.0 / 120},
		{"nccl-tree", lower.Simple, lower.PCI, 1, 4000, 6 / 0.92},
	} {
		w, err := lower.NewWire(tc.alg, tc.p, tc.l, tc.nodes)
		if err != nil {
			t.Fatal(err)
		}
		got, err := base.ForWire(w)
		if err != nil {
			t.Fatal(err)
		}
		want := base
		want.Latency, want.EagerLimit = tc.L, math.MaxInt64
		want.GapPerByte = PerByteFs(int64(math.Round(tc.G * 1e6)))
		if got != want {
			t.Errorf("%s: %+v, want %+v", w, got, want)
		}
	}
	if _, err := base.ForWire(lower.NumWires); err == nil {
		t.Error("a wire lower does not make: no error")
	}
	huge := base
	huge.GapPerByte = PerByteFs(MaxPerByteNs * FsPerNs)
	w, _ := lower.NewWire("nccl-ring", lower.LL, lower.Net, 2)
	if _, err := huge.ForWire(w); err == nil || !strings.Contains(err.Error(), "exceeds") {
		t.Errorf("G over its bound: error %v", err)
	}
}

// Classify gives every (override, wire) pair of the graph's sends one
// class, priced as the override's parameters made the wire's; sends
// without a wire keep their override's class, and a graph with wires
// but no overrides gets classes.
func TestClassifyWires(t *testing.T) {
	ring, _ := lower.NewWire("nccl-ring", lower.LL, lower.NVLink, 1)
	tree, _ := lower.NewWire("nccl-tree", lower.Simple, lower.Net, 2)
	b := graph.NewBuilder(2)
	b.Region("halo")
	sends := []struct {
		wire   lower.Wire
		region int32
	}{{ring, graph.NoRegion}, {0, graph.NoRegion}, {tree, 0}, {ring, 0}, {ring, graph.NoRegion}, {0, 0}}
	for _, s := range sends {
		op := graph.SendOp(8, 1, 0)
		op.Wire, op.Region = uint8(s.wire), s.region
		b.Add(0, op)
		b.Add(1, graph.RecvOp(8, 0, 0))
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	base := DefaultLogGOPS()
	halo := base
	halo.Latency = 300
	for _, overrides := range [][]Override{nil, {{Region: "halo", Params: halo}}} {
		c, err := Classify(g, base, overrides, nil)
		if err != nil || c == nil {
			t.Fatalf("%d overrides: %v, %v", len(overrides), c, err)
		}
		if err := c.Validate(g.NumOps()); err != nil {
			t.Fatal(err)
		}
		for i, s := range sends {
			p := base
			if len(overrides) > 0 && s.region == 0 {
				p = halo
			}
			want, _ := p.ForWire(s.wire)
			if got := c.Params[c.Of[i]]; got != want {
				t.Errorf("%d overrides, send %d (%s, region %d): %+v, want %+v", len(overrides), i, s.wire, s.region, got, want)
			}
		}
		if want := 1 + len(overrides) + 2 + len(overrides); len(c.Params) != want {
			t.Errorf("%d overrides: %d classes, want %d", len(overrides), len(c.Params), want)
		}
	}
	g.Wire[0] = lower.NumWires
	if _, err := Classify(g, base, nil, nil); err == nil || !strings.Contains(err.Error(), "not one of lower's") {
		t.Errorf("a wire lower does not make: error %v", err)
	}
}
