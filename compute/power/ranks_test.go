package power

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/capsim/capsim/traces/graph"
)

func TestRankProfiles(t *testing.T) {
	b := graph.NewBuilder(2)
	c0 := b.Add(0, graph.CalcOp(10))
	c1 := b.Add(0, graph.CalcOp(10))
	c2 := b.Add(1, graph.CalcOp(10))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	a := NewAccountant(g)
	a.Busy(c0, 0, 10)
	a.Busy(c1, 10, 30)               // back to back with c0: one span at 20 W
	a.Busy(g.RankStart[1]+c2, 5, 15) // Add returns rank-local ids
	m := JobModel{BaseW: 100, IdleW: 5, ActiveW: []float64{20, 30}, Wait: WaitPower{Mode: WaitIdle}}
	rs, err := a.RankProfiles(m, 40)
	if err != nil {
		t.Fatal(err)
	}
	want := []Step{
		{Times: []int64{0, 30}, Watts: []float64{20, 5}, End: 40},
		{Times: []int64{0, 5, 15}, Watts: []float64{5, 30, 5}, End: 40},
	}
	if !reflect.DeepEqual(rs, want) {
		t.Fatalf("profiles %+v, want %+v", rs, want)
	}
	// The ranks' energy plus the base equals the accountant's total.
	rep, err := a.Report(m, 40, 0)
	if err != nil {
		t.Fatal(err)
	}
	e := 100 * 40e-9
	for _, s := range rs {
		e += s.Energy()
	}
	if math.Abs(e-rep.EnergyJ) > 1e-15 {
		t.Errorf("rank energy %g + base, want %g", e, rep.EnergyJ)
	}
	if _, err := a.RankProfiles(m, 20); err == nil {
		t.Error("busy span past the makespan accepted")
	}
}

func TestWriteTimeline(t *testing.T) {
	ranks := []Step{
		{Times: []int64{0, 30}, Watts: []float64{20, 5}, End: 40},
		{Times: []int64{0, 5, 15}, Watts: []float64{5, 30, 5}, End: 40},
	}
	var buf bytes.Buffer
	if err := WriteTimeline(&buf, "rank", ranks, 100, map[string]string{"energy_j": "1"}); err != nil {
		t.Fatal(err)
	}
	fr, err := ipc.NewFileReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	if v, _ := fr.Schema().Metadata().GetValue("base_w"); v != "100" {
		t.Errorf("base_w %q", v)
	}
	var got []string
	for i := 0; i < fr.NumRecords(); i++ {
		rec, err := fr.RecordBatch(i)
		if err != nil {
			t.Fatal(err)
		}
		for j := 0; j < int(rec.NumRows()); j++ {
			got = append(got, fmt.Sprintf("%d %d %d %g", rec.Column(0).(*array.Int32).Value(j), rec.Column(1).(*array.Int64).Value(j),
				rec.Column(2).(*array.Int64).Value(j), rec.Column(3).(*array.Float64).Value(j)))
		}
	}
	want := []string{"0 0 30 20", "0 30 40 5", "1 0 5 5", "1 5 15 30", "1 15 40 5"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
}

// Seven ranks on a 6+6-core node (sockets12): the 7th busy core wakes the
// second socket, 130 W → 151 W (Anger's thesis §4.1.2).
func TestNodeProfilesSockets(t *testing.T) {
	s, err := FitSockets(sockets12(), []int{6, 6})
	if err != nil {
		t.Fatal(err)
	}
	b := graph.NewBuilder(14)
	for r := 0; r < 14; r++ {
		b.Add(r, graph.CalcOp(10))
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	a := NewAccountant(g)
	for r := int32(0); r < 7; r++ {
		end := int64(100)
		if r == 6 {
			end = 50 // the 7th core is busy for half the time
		}
		a.Busy(g.RankStart[r], 0, end)
	}
	a.Busy(g.RankStart[13], 20, 40) // one core of node 1
	ns, err := a.NodeProfiles(s, 12, 14, 200)
	if err != nil {
		t.Fatal(err)
	}
	if len(ns) != 2 {
		t.Fatalf("%d nodes, want 2", len(ns))
	}
	check := func(got Step, times []int64, watts []float64) {
		t.Helper()
		if !reflect.DeepEqual(got.Times, times) || len(got.Watts) != len(watts) {
			t.Fatalf("profile %+v, want times %v watts %v", got, times, watts)
		}
		for i := range watts {
			if math.Abs(got.Watts[i]-watts[i]) > 1e-9 {
				t.Errorf("profile %+v, want watts %v", got, watts)
			}
		}
	}
	check(ns[0], []int64{0, 50, 100}, []float64{151, 130, 40})
	check(ns[1], []int64{0, 20, 40}, []float64{40, 80, 40})
	small := Sockets{Idle: 5, Cores: []int{2}, Intercept: []float64{10}, Slope: []float64{3}}
	if _, err := a.NodeProfiles(small, 14, 14, 200); err == nil {
		t.Error("8 busy ranks on a 2-core node: want error")
	}
}
