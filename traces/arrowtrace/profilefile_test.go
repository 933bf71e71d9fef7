package arrowtrace

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/capsim/capsim/traces/taskgraph"
)

func TestProfilesRoundTrip(t *testing.T) {
	p := taskgraph.DefaultProfiles()
	path := filepath.Join(t.TempDir(), "p.arrow")
	if err := WriteProfiles(path, p); err != nil {
		t.Fatal(err)
	}
	q, err := ReadProfiles(path)
	if err != nil {
		t.Fatal(err)
	}
	if q.Machine != p.Machine {
		t.Errorf("machine %+v, want %+v", q.Machine, p.Machine)
	}
	if strings.Join(q.Kernels(), ",") != strings.Join(p.Kernels(), ",") {
		t.Fatalf("kernels %v, want %v", q.Kernels(), p.Kernels())
	}
	for _, k := range p.Kernels() {
		a, b := p.Kernel(k), q.Kernel(k)
		if len(a) != len(b) {
			t.Fatalf("%s: %d rows, want %d", k, len(b), len(a))
		}
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("%s row %d: %+v, want %+v", k, i, b[i], a[i])
			}
		}
	}
	// Byte-identical re-encoding.
	var x, y bytes.Buffer
	EncodeProfiles(&x, p)
	EncodeProfiles(&y, q)
	if !bytes.Equal(x.Bytes(), y.Bytes()) {
		t.Error("re-encoding differs")
	}
}

// profileFile writes rows with a plain string kernel column and the given
// metadata, as another tool might.
func profileFile(t testing.TB, meta map[string]string, kernels []string, threads []int32, freq, tm, pw []float64) []byte {
	keys, vals := []string{}, []string{}
	for k, v := range meta {
		keys = append(keys, k)
		vals = append(vals, v)
	}
	md := arrow.NewMetadata(keys, vals)
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "kernel", Type: arrow.BinaryTypes.String},
		{Name: "threads", Type: arrow.PrimitiveTypes.Int32},
		{Name: "freq_ghz", Type: arrow.PrimitiveTypes.Float64},
		{Name: "time_s", Type: arrow.PrimitiveTypes.Float64},
		{Name: "power_w", Type: arrow.PrimitiveTypes.Float64},
	}, &md)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues(kernels, nil)
	b.Field(1).(*array.Int32Builder).AppendValues(threads, nil)
	b.Field(2).(*array.Float64Builder).AppendValues(freq, nil)
	b.Field(3).(*array.Float64Builder).AppendValues(tm, nil)
	b.Field(4).(*array.Float64Builder).AppendValues(pw, nil)
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	fw, err := ipc.NewFileWriter(&buf, ipc.WithSchema(sc))
	if err != nil {
		t.Fatal(err)
	}
	fw.Write(rec)
	fw.Close()
	return buf.Bytes()
}

func TestProfilesErrors(t *testing.T) {
	good := map[string]string{MetaFormat: FormatProfiles, MetaVersion: Version, MetaThreads: "8", MetaIdleW: "100"}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for a, b := range good {
			m[a] = b
		}
		m[k] = v
		return m
	}
	ks := []string{"A", "A", "B"}
	th := []int32{1, 2, 1}
	fr := []float64{0, 0, 0}
	tm := []float64{1, 0.6, 2}
	pw := []float64{1, 2, 1}
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"format", profileFile(t, with(MetaFormat, "mpi-trace"), ks, th, fr, tm, pw), "field capsim.format: not a capsim task-profile file"},
		{"threads meta", profileFile(t, with(MetaThreads, "x"), ks, th, fr, tm, pw), "field capsim.threads"},
		{"idle", profileFile(t, with(MetaIdleW, "-1"), ks, th, fr, tm, pw), "field capsim.idle_w"},
		{"too many threads", profileFile(t, good, ks, []int32{1, 9, 1}, fr, tm, pw), "row 1: field threads: kernel A: thread count 9 above the machine's 8"},
		{"time", profileFile(t, good, ks, th, fr, []float64{1, 1, 0}, pw), "row 2: field time_s"},
		{"power", profileFile(t, good, ks, th, fr, tm, []float64{1, -2, 1}), "row 1: field power_w"},
		{"duplicate", profileFile(t, good, ks, []int32{1, 1, 1}, fr, tm, pw), "row 1: field kernel: kernel A: 1 threads at 0 GHz listed twice"},
		{"empty", profileFile(t, good, nil, nil, nil, nil, nil), "no profile rows"},
		{"garbage", []byte("not arrow"), "not a readable Arrow IPC file"},
	} {
		_, err := DecodeProfiles(c.data, "p.arrow")
		var fe *FormatError
		if err == nil || !errors.As(err, &fe) || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "p.arrow") {
			t.Errorf("%s: error %v, want a FormatError containing %q", c.name, err, c.want)
		}
	}
	p, err := DecodeProfiles(profileFile(t, good, ks, th, fr, tm, pw), "p.arrow")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Kernel("A")) != 2 || p.Machine.Threads != 8 || p.Machine.IdleW != 100 {
		t.Errorf("decoded %+v", p)
	}
}

func FuzzDecodeProfiles(f *testing.F) {
	p := taskgraph.NewProfiles(taskgraph.Machine{Name: "m", Threads: 4, IdleW: 10})
	p.Add("A", taskgraph.ProfileConfig{Threads: 1, Time: 1, Power: 1})
	p.Add("A", taskgraph.ProfileConfig{Threads: 2, FreqGHz: 1.5, Time: 0.6, Power: 2.5})
	p.Add("B", taskgraph.ProfileConfig{Threads: 4, Time: 0.1, Power: 9})
	var buf bytes.Buffer
	EncodeProfiles(&buf, p)
	f.Add(buf.Bytes())
	f.Add([]byte("ARROW1\x00\x00"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		q, err := DecodeProfiles(data, "fuzz.arrow")
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		// What decodes re-encodes and decodes to the same profiles.
		var out bytes.Buffer
		if err := EncodeProfiles(&out, q); err != nil {
			t.Fatalf("decoded profiles do not encode: %v", err)
		}
		r, err := DecodeProfiles(out.Bytes(), "again.arrow")
		if err != nil {
			t.Fatalf("re-encoded profiles do not decode: %v", err)
		}
		if r.NumConfigs() != q.NumConfigs() || r.Machine != q.Machine {
			t.Fatalf("round trip changed the profiles")
		}
		for _, k := range q.Kernels() {
			if len(q.Pareto(k)) == 0 {
				t.Fatalf("kernel %s has an empty frontier", k)
			}
		}
	})
}
