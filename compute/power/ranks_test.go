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
	m := JobModel{BaseW: 100, IdleW: 5, ActiveW: []float64{20, 30}}
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
	if err := WriteTimeline(&buf, ranks, 100, map[string]string{"energy_j": "1"}); err != nil {
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
