package graph

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

func TestBuilderAndDescribe(t *testing.T) {
	b := NewBuilder(3)
	c := b.Add(0, CalcOp(100))
	s := b.Add(0, SendOp(8, 1, 4))
	b.Dep(0, s, c, Requires)
	r := b.Add(1, RecvOp(8, AnySource, AnyTag))
	reg := b.Region("work")
	op := CalcOp(5)
	op.Region = reg
	x := b.Add(1, op)
	b.Dep(1, x, r, Irequires)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if g.NumRanks() != 3 || g.NumOps() != 4 || g.NumDeps() != 2 || g.RankStart[3] != 4 || g.RankStart[2] != 4 {
		t.Fatalf("shape %v", g.RankStart)
	}
	if got := g.Describe(2); got != "rank 1 l1: recv 8b from any tag any" {
		t.Errorf("Describe = %q", got)
	}
	if g.RegionName(3) != "work" || g.RegionName(0) != "" || g.RankOf(3) != 1 || g.RankOf(1) != 0 {
		t.Errorf("regions or ranks wrong")
	}
	if ranks := g.OpRanks(); ranks[0] != 0 || ranks[3] != 1 {
		t.Errorf("OpRanks %v", ranks)
	}
	if g.DepOrder != nil {
		t.Errorf("declaration order equal to storage order should not be stored")
	}
}

func TestDepOrderKept(t *testing.T) {
	b := NewBuilder(1)
	a := b.Add(0, CalcOp(1))
	x := b.Add(0, CalcOp(1))
	y := b.Add(0, CalcOp(1))
	b.Dep(0, y, a, Requires) // declared first, stored second
	b.Dep(0, x, a, Requires)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if len(g.DepOrder) != 2 || g.DepOrder[0] != 1 || g.DepOrder[1] != 0 {
		t.Fatalf("DepOrder %v, want [1 0]", g.DepOrder)
	}
	g.DepOrder[1] = 1
	if err := g.Validate(); !errors.Is(err, ErrInvalid) {
		t.Errorf("a non-permutation order validated: %v", err)
	}
}

func TestValidateErrors(t *testing.T) {
	for _, tc := range []struct {
		build func(b *Builder)
		want  string
	}{
		{func(b *Builder) { b.Add(0, SendOp(1, 5, 0)) }, "peer 5 is not a rank"},
		{func(b *Builder) { b.Add(0, SendOp(-1, 1, 0)) }, "negative size"},
		{func(b *Builder) { b.Add(0, SendOp(1, 1, -3)) }, "send tag -3 is negative"},
		{func(b *Builder) { i := b.Add(0, CalcOp(1)); b.Dep(0, i, i, Requires) }, "depends on itself"},
		{func(b *Builder) { i := b.Add(0, CalcOp(1)); b.Dep(0, i, 7, Requires) }, "which rank 0 does not have"},
		{func(b *Builder) { op := CalcOp(1); op.Region = 3; b.Add(0, op) }, "region 3 out of range"},
	} {
		b := NewBuilder(2)
		tc.build(b)
		_, err := b.Build()
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("err = %v, want %q", err, tc.want)
		}
	}
}

func TestParseKinds(t *testing.T) {
	for _, k := range []OpKind{Calc, Send, Recv} {
		if got, err := ParseOpKind(k.String()); err != nil || got != k {
			t.Errorf("%s does not round-trip", k)
		}
	}
	if _, err := ParseOpKind("wait"); err == nil {
		t.Error("unknown kind accepted")
	}
}

// FuzzParseOpKind checks that an accepted GOAL keyword prints back
// unchanged.
func FuzzParseOpKind(f *testing.F) {
	for _, s := range []string{"calc", "send", "recv", "Calc", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := ParseOpKind(s)
		if err != nil {
			return
		}
		if k.String() != s {
			t.Fatalf("ParseOpKind(%q) = %v", s, k)
		}
	})
}

// Calc durations and a rank's total calc time are bounded by MaxTimeNs.
func TestValidateTimeLimit(t *testing.T) {
	for _, tc := range []struct {
		name string
		ns   []int64
		ok   bool
	}{
		{"at the limit", []int64{MaxTimeNs / 2, MaxTimeNs / 2}, true},
		{"one calc past it", []int64{4e18}, false},
		{"three calcs of 4e18", []int64{4e18, 4e18, 4e18}, false},
		{"a total past it", []int64{MaxTimeNs / 2, MaxTimeNs/2 + 1}, false},
	} {
		b := NewBuilder(1)
		for _, ns := range tc.ns {
			b.Add(0, CalcOp(ns))
		}
		_, err := b.Build()
		if (err == nil) != tc.ok {
			t.Errorf("%s: err %v, want ok=%v", tc.name, err, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "MaxTimeNs") {
			t.Errorf("%s: error %q does not name the limit", tc.name, err)
		}
	}
}

func TestTimeConversions(t *testing.T) {
	for _, tc := range []struct {
		s    float64
		ns   int64
		fail bool
	}{
		{1.5, 1500000000, false}, {0, 0, false}, {1e9, MaxTimeNs, false},
		{math.NaN(), 0, true}, {math.Inf(1), 0, true}, {-1, 0, true}, {1.1e9, 0, true}, {9.3e9, 0, true},
	} {
		ns, err := SecondsToNs(tc.s)
		if (err != nil) != tc.fail || ns != tc.ns {
			t.Errorf("SecondsToNs(%g) = %d, %v", tc.s, ns, err)
		}
	}
	for _, tc := range []struct {
		x  float64
		ns int64
	}{{2.4, 2}, {-3, 0}, {1e18, MaxTimeNs}, {1e19, MaxTimeNs + 1}, {math.NaN(), MaxTimeNs + 1}, {math.Inf(1), MaxTimeNs + 1}} {
		if got := SatNs(tc.x); got != tc.ns {
			t.Errorf("SatNs(%g) = %d, want %d", tc.x, got, tc.ns)
		}
	}
	if MulNs(1<<40, 1e9) != MaxTimeNs+1 || MulNs(1<<62, 4) != MaxTimeNs+1 || MulNs(1000, 6) != 6000 {
		t.Errorf("MulNs does not saturate")
	}
}

// An Op packs in 24 bytes, as builders hold one per operation.
func TestOpSize(t *testing.T) {
	if n := unsafe.Sizeof(Op{}); n != 24 {
		t.Errorf("Op takes %d bytes, want 24", n)
	}
}

// Labels: the last one set on an operation wins, unlabelled operations
// have none, and a label on an operation the rank lacks is an error.
func TestBuilderLabels(t *testing.T) {
	b := NewBuilder(2)
	b.Add(0, CalcOp(1))
	b.SetLabel(0, 0, "a")
	b.Add(0, CalcOp(1))
	b.SetLabel(0, 0, "b")
	b.Add(1, CalcOp(1))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(g.Labels, ","); got != "b,," {
		t.Errorf("labels %q, want \"b,,\"", got)
	}
	b = NewBuilder(1)
	b.Add(0, CalcOp(1))
	b.SetLabel(0, 3, "x")
	if _, err := b.Build(); !errors.Is(err, ErrInvalid) {
		t.Errorf("label on a missing operation: %v", err)
	}
}

// The Wire column exists only when some operation has a wire, holds each
// operation's, and must match the operation count.
func TestBuilderWire(t *testing.T) {
	b := NewBuilder(2)
	b.Add(0, SendOp(8, 1, 0))
	b.Add(1, RecvOp(8, 0, 0))
	g, err := b.Build()
	if err != nil || g.Wire != nil {
		t.Fatalf("no wires: column %v, %v", g.Wire, err)
	}
	b = NewBuilder(2)
	s := SendOp(8, 1, 0)
	s.Wire = 7
	b.Add(1, RecvOp(8, 0, 0))
	b.Add(0, CalcOp(1))
	b.Add(0, s)
	if g, err = b.Build(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(g.Wire, []uint8{0, 7, 0}) {
		t.Errorf("wires %v, want [0 7 0]", g.Wire)
	}
	g.Wire = g.Wire[:2]
	if err := g.Validate(); !errors.Is(err, ErrInvalid) {
		t.Errorf("short Wire column: %v", err)
	}
}
