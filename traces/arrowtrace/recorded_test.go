package arrowtrace

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/mpi"
)

// TestRecordedRoundTrip writes a graph and an MPI trace with a recorded
// run and reads them back; without one the files carry no such metadata.
func TestRecordedRoundTrip(t *testing.T) {
	rec := &graph.Recorded{SpanNs: []int64{5885851, 5790000}, StartNs: []int64{697, 0}, OffNs: []int64{0, 300}, GapsKept: true}
	b := graph.NewBuilder(2)
	b.Add(0, graph.CalcOp(10))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	tr := mpi.NewTrace(2)
	tr.AppendCompute(1, "x", 5)
	for _, with := range []*graph.Recorded{rec, nil} {
		g.Recorded, tr.Recorded = with, with
		var gb, mb bytes.Buffer
		if err := EncodeGraph(&gb, g); err != nil {
			t.Fatal(err)
		}
		if err := EncodeMPI(&mb, tr); err != nil {
			t.Fatal(err)
		}
		if has := bytes.Contains(gb.Bytes(), []byte(MetaRecorded)) || bytes.Contains(mb.Bytes(), []byte(MetaRecorded)); has != (with != nil) {
			t.Errorf("recorded %v: metadata key present %v", with, has)
		}
		g2, err := DecodeGraph(gb.Bytes(), "g.arrow")
		if err != nil {
			t.Fatal(err)
		}
		t2, err := DecodeMPI(mb.Bytes(), "m.arrow")
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(g2.Recorded) != fmt.Sprint(with) || fmt.Sprint(t2.Recorded) != fmt.Sprint(with) {
			t.Errorf("read back %+v and %+v, want %+v", g2.Recorded, t2.Recorded, with)
		}
	}
}

func TestReadRecordedErrors(t *testing.T) {
	for _, tc := range []struct{ json, want string }{
		{`{"version":2,"span_ns":[1,2]}`, "version 2 (this capsim reads 1)"},
		{`{"version":1,"span_ns":[1]}`, "1 recorded span times for 2 ranks"},
		{`{"version":1,"off_ns":[1,-5]}`, "rank 1: recorded recording-off time -5 ns"},
		{`{"version":1,"start_ns":[1]}`, "1 recorded start times for 2 ranks"},
		{`{"version":1,"spans":[1,2]}`, "unknown field"},
		{`[1,2]`, "not the JSON of a recorded run"},
	} {
		md := arrow.NewMetadata([]string{MetaRecorded}, []string{tc.json})
		_, err := readRecorded(md, 2, "t.arrow")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "t.arrow: field capsim.recorded") {
			t.Errorf("%s: %v, want %q", tc.json, err, tc.want)
		}
	}
}

// FuzzReadRecorded feeds arbitrary metadata values: readRecorded must
// return a recorded run that fits the ranks or an error naming the file
// and the key, never panic.
func FuzzReadRecorded(f *testing.F) {
	f.Add(`{"version":1,"span_ns":[1,2],"off_ns":[0,3],"outside_ns":[4,0],"gaps_kept":true}`, 2)
	f.Add(`{"version":1,"span_ns":[1,2],"start_ns":[0,58850938]}`, 2)
	f.Add(`{"version":1}`, 0)
	f.Add(`{"version":1,"span_ns":[1e30]}`, 1)
	f.Fuzz(func(t *testing.T, v string, n int) {
		if n < 0 || n > 1<<16 {
			return
		}
		md := arrow.NewMetadata([]string{MetaRecorded}, []string{v})
		rec, err := readRecorded(md, n, "f.arrow")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.arrow: field capsim.recorded") {
				t.Fatalf("error does not name the file and key: %v", err)
			}
			return
		}
		if err := rec.Validate(n); err != nil {
			t.Fatalf("accepted %q: %v", v, err)
		}
	})
}
