package arrowtrace

import (
	"bytes"
	"errors"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/capsim/capsim/traces/mpi"
)

func sampleMPI() *mpi.Trace {
	t := mpi.NewTrace(4)
	t.ParamNames = []string{"cells", "iters"}
	rows := t.AddComm("rows", []int32{2, 0})
	t.AppendCompute(0, "stencil", 1000, 64, 3)
	t.AppendCompute(1, "stencil", 900)
	t.Append(0, mpi.Event{Kind: mpi.Isend, Peer: 1, Tag: 7, Bytes: 128, Req: 1})
	t.Append(1, mpi.Event{Kind: mpi.Irecv, Peer: mpi.AnySource, Tag: mpi.AnyTag, Bytes: 128, Req: 5})
	t.AppendList(0, mpi.Event{Kind: mpi.Waitall}, []int64{1})
	t.Append(1, mpi.Event{Kind: mpi.Wait, Req: 5})
	t.Append(0, mpi.Event{Kind: mpi.Bcast, Comm: rows, Peer: 1, Bytes: 8, Duration: 55})
	t.Append(2, mpi.Event{Kind: mpi.Bcast, Comm: rows, Peer: 1, Bytes: 8})
	for r := 0; r < 4; r++ {
		t.AppendList(r, mpi.Event{Kind: mpi.Alltoallv}, []int64{1, 2, 3, int64(r)})
	}
	return t
}

func TestMPIRoundTrip(t *testing.T) {
	tr := sampleMPI()
	p := filepath.Join(t.TempDir(), "m.arrow")
	if err := WriteMPI(p, tr); err != nil {
		t.Fatal(err)
	}
	if k, err := Detect(p); err != nil || k != KindMPI {
		t.Fatalf("Detect = %v, %v", k, err)
	}
	got, err := ReadMPI(p)
	if err != nil {
		t.Fatal(err)
	}
	for r := range tr.Ranks {
		if len(tr.Ranks[r].Events) == 0 && len(got.Ranks[r].Events) == 0 {
			continue
		}
		if !reflect.DeepEqual(tr.Ranks[r].Events, got.Ranks[r].Events) {
			t.Errorf("rank %d events\n%+v\n%+v", r, tr.Ranks[r].Events, got.Ranks[r].Events)
		}
		if !reflect.DeepEqual(tr.Ranks[r].List, got.Ranks[r].List) || len(tr.Ranks[r].Params) != len(got.Ranks[r].Params) {
			t.Errorf("rank %d side arrays differ", r)
		}
	}
	if !reflect.DeepEqual(tr.Comms, got.Comms) || !reflect.DeepEqual(tr.Regions, got.Regions) || !reflect.DeepEqual(tr.ParamNames, got.ParamNames) {
		t.Errorf("comms/regions/params: %+v %v %v", got.Comms, got.Regions, got.ParamNames)
	}
	var a, b bytes.Buffer
	EncodeMPI(&a, tr)
	EncodeMPI(&b, got)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("re-encoding changes the bytes")
	}
}

func TestMPIErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		mut  func(*mpi.Trace)
		want string
	}{
		{"negative bytes", func(t *mpi.Trace) { t.Ranks[2].Events[0].Bytes = -1 }, "field bytes: negative size -1"},
		{"unknown comm", func(t *mpi.Trace) { t.Ranks[2].Events[0].Comm = 9 }, "field comm: unknown communicator 9"},
		{"bad root", func(t *mpi.Trace) { t.Ranks[2].Events[0].Peer = 2 }, "field peer: root 2 is not a rank of communicator 1 (size 2)"},
		{"bad peer", func(t *mpi.Trace) { t.Ranks[0].Events[1].Peer = 4 }, "field peer: peer 4 is not a rank of communicator 0"},
		{"negative duration", func(t *mpi.Trace) { t.Ranks[1].Events[0].Duration = -5 }, "field duration: negative duration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := sampleMPI()
			tc.mut(tr)
			var buf bytes.Buffer
			if err := EncodeMPI(&buf, tr); err != nil {
				t.Fatal(err)
			}
			_, err := DecodeMPI(buf.Bytes(), "m.arrow")
			var fe *FormatError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "m.arrow: row ") {
				t.Errorf("err = %v, want %q with file and row", err, tc.want)
			}
		})
	}
}

func FuzzDecodeMPI(f *testing.F) {
	var buf bytes.Buffer
	EncodeMPI(&buf, sampleMPI())
	f.Add(buf.Bytes())
	f.Add([]byte("ARROW1"))
	f.Add(streamOf(buf.Bytes()))
	f.Add(streamOf(buf.Bytes(), ipc.WithZstd()))
	f.Add([]byte("\xff\xff\xff\xff\x08\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := DecodeMPI(data, "fuzz.arrow")
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		var out bytes.Buffer
		if err := EncodeMPI(&out, tr); err != nil {
			t.Fatalf("decoded trace does not encode: %v", err)
		}
	})
}

// TestMPILateDictionaryValues: a kind and a region first seen after the
// first record batch are written (the file holds one dictionary per
// column, so the writer puts every kind and region in it up front; a
// later dictionary fails with "Dictionary replacement detected").
func TestMPILateDictionaryValues(t *testing.T) {
	tr := mpi.NewTrace(1)
	for i := 0; i < BatchRows+3; i++ {
		tr.Append(0, mpi.Event{Kind: mpi.Barrier})
	}
	tr.AppendCompute(0, "late", 10)
	var buf bytes.Buffer
	if err := EncodeMPI(&buf, tr); err != nil {
		t.Fatal(err)
	}
	got, err := DecodeMPI(buf.Bytes(), "late")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tr.Ranks[0].Events, got.Ranks[0].Events) || !reflect.DeepEqual(tr.Regions, got.Regions) {
		t.Error("trace read back differs")
	}
}
