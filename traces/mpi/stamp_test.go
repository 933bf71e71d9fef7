package mpi

import "testing"

func TestAppendKeepsStampsAligned(t *testing.T) {
	tr := NewTrace(1)
	tr.Append(0, Event{Kind: Compute, Duration: 5})
	if tr.Stamped() || tr.Ranks[0].Stamps != nil {
		t.Fatal("a trace without stamps has stamps")
	}
	tr.AppendStamped(0, Event{Kind: Send, Bytes: 8}, Stamp{Start: 5, End: 9})
	tr.Append(0, Event{Kind: Compute})
	tr.AppendList(0, Event{Kind: Waitall}, []int64{1, 2})
	rk := tr.Ranks[0]
	if !tr.Stamped() || len(rk.Stamps) != len(rk.Events) {
		t.Fatalf("%d stamps for %d events", len(rk.Stamps), len(rk.Events))
	}
	want := []Stamp{{}, {5, 9}, {}, {}}
	for i, s := range want {
		if rk.Stamps[i] != s || s.Known() != (i == 1) {
			t.Errorf("stamp %d = %v (known %v), want %v", i, rk.Stamps[i], rk.Stamps[i].Known(), s)
		}
	}
}
