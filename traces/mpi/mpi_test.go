package mpi

import "testing"

func TestKindsRoundTrip(t *testing.T) {
	for _, k := range Kinds() {
		got, err := ParseKind(k.String())
		if err != nil || got != k {
			t.Errorf("%s: %v %v", k, got, err)
		}
	}
	if !Allreduce.IsCollective() || Send.IsCollective() || !Bcast.IsRooted() || Allreduce.IsRooted() || !Irecv.IsPointToPoint() {
		t.Error("kind classes wrong")
	}
	if _, err := ParseKind("sendrecv"); err == nil {
		t.Error("unknown kind accepted")
	}
}

func TestTraceHelpers(t *testing.T) {
	tr := NewTrace(3)
	if tr.Regions[0] != "" || tr.Region("a") != 1 || tr.Region("a") != 1 || tr.Region("") != NoRegion {
		t.Errorf("regions %v", tr.Regions)
	}
	c := tr.AddComm("pair", []int32{2, 0})
	if c != 1 || tr.Comm(1).Members[0] != 2 || tr.Comm(9) != nil || tr.Comm(World).Name != "world" {
		t.Error("communicators")
	}
	tr.AppendCompute(1, "a", 10, 1.5, 2.5)
	tr.AppendList(1, Event{Kind: Waitall}, []int64{4, 5})
	e0, e1 := &tr.Ranks[1].Events[0], &tr.Ranks[1].Events[1]
	if p := tr.Params(1, e0); len(p) != 2 || p[1] != 2.5 || tr.Params(1, e1) != nil {
		t.Errorf("params %v", p)
	}
	if l := tr.List(1, e1); len(l) != 2 || l[0] != 4 || tr.NumEvents() != 2 {
		t.Errorf("list %v", l)
	}
	var zero Event
	if zero.Kind != Compute || zero.Region != NoRegion || zero.ParamLen != 0 {
		t.Error("the zero Event must mean 'nothing'")
	}
}

// FuzzParseKind checks that an accepted kind name prints back unchanged.
func FuzzParseKind(f *testing.F) {
	for _, k := range Kinds() {
		f.Add(k.String())
	}
	f.Add("Allreduce")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		k, err := ParseKind(s)
		if err != nil {
			return
		}
		if k.String() != s {
			t.Fatalf("ParseKind(%q) = %v", s, k)
		}
	})
}
