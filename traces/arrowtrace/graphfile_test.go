package arrowtrace

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/capsim/capsim/traces/goal"
	"github.com/capsim/capsim/traces/graph"
)

const sched = `num_ranks 4
rank 0 {
l1: calc 100 cpu 1
l2: send 8b to 1 tag 5 cpu 0 nic 1
l2 requires l1
l3: send 70000b to 2 tag 0
l3 irequires l2
}
rank 1 {
l1: recv 8b from 0 tag 5
l2: calc 5
l2 requires l1
}
rank 2 {
a: recv 70000b from -1 tag -1
}
`

func sampleGraph(t testing.TB) *graph.Graph {
	g, err := goal.Parse(strings.NewReader(sched), "s.goal")
	if err != nil {
		t.Fatal(err)
	}
	r := int32(len(g.Regions))
	g.Regions = append(g.Regions, "stencil.compute")
	g.Region[0], g.Region[4] = r, r
	return g
}

func sameGraph(t *testing.T, a, b *graph.Graph) {
	t.Helper()
	if a.NumRanks() != b.NumRanks() || a.NumOps() != b.NumOps() || a.NumDeps() != b.NumDeps() {
		t.Fatalf("shape: %d/%d/%d vs %d/%d/%d", a.NumRanks(), a.NumOps(), a.NumDeps(), b.NumRanks(), b.NumOps(), b.NumDeps())
	}
	for i := int32(0); i < int32(a.NumOps()); i++ {
		if a.Describe(i) != b.Describe(i) || a.CPU[i] != b.CPU[i] || a.NIC[i] != b.NIC[i] || a.RegionName(i) != b.RegionName(i) || a.Label(i) != b.Label(i) {
			t.Errorf("op %d: %s (%s) vs %s (%s)", i, a.Describe(i), a.RegionName(i), b.Describe(i), b.RegionName(i))
		}
		da, ka := a.Deps(i)
		db, kb := b.Deps(i)
		if len(da) != len(db) {
			t.Fatalf("op %d deps %v vs %v", i, da, db)
		}
		for j := range da {
			if da[j] != db[j] || ka[j] != kb[j] {
				t.Errorf("op %d dep %d: %d/%v vs %d/%v", i, j, da[j], ka[j], db[j], kb[j])
			}
		}
	}
	for r := range a.RankStart {
		if a.RankStart[r] != b.RankStart[r] {
			t.Fatalf("rank offsets %v vs %v", a.RankStart, b.RankStart)
		}
	}
}

func TestGraphRoundTrip(t *testing.T) {
	g := sampleGraph(t)
	p := filepath.Join(t.TempDir(), "g.arrow")
	if err := WriteGraph(p, g); err != nil {
		t.Fatal(err)
	}
	k, err := Detect(p)
	if err != nil || k != KindGraph {
		t.Fatalf("Detect = %v, %v", k, err)
	}
	g2, err := ReadGraph(p)
	if err != nil {
		t.Fatal(err)
	}
	sameGraph(t, g, g2)
	if g2.NumRanks() != 4 || g2.RankStart[3] != g2.RankStart[4] {
		t.Errorf("empty rank 3 lost: %v", g2.RankStart)
	}
	// Deterministic bytes.
	var a, b bytes.Buffer
	EncodeGraph(&a, g)
	EncodeGraph(&b, g2)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("re-encoding a read graph changes the bytes")
	}
}

func TestDetectGOAL(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.goal")
	os.WriteFile(p, []byte(sched), 0o644)
	if k, err := Detect(p); err != nil || k != KindGOAL {
		t.Fatalf("Detect = %v, %v", k, err)
	}
}

// writeRows builds a graph file from raw column values, to feed the reader
// malformed input that the writer would never produce.
type rawRow struct {
	rank      int32
	kind      string
	size      int64
	peer, tag int32
	cpu       int32
	req       []int32
}

// nullKind in a rawRow writes a null kind.
const nullKind = "\x00null"

func rawFile(t *testing.T, numRanks string, rows []rawRow, mutate func(*arrow.Schema) *arrow.Schema) []byte {
	t.Helper()
	g := &graph.Graph{RankStart: []int32{0, 0}}
	sc := graphSchemaFor(g.NumRanks(), g.NumOps(), g.NumDeps(), g.Labels != nil)
	md := arrow.NewMetadata([]string{MetaFormat, MetaVersion, MetaNumRanks}, []string{FormatGraph, Version, numRanks})
	sc = arrow.NewSchema(sc.Fields(), &md)
	if mutate != nil {
		sc = mutate(sc)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for _, r := range rows {
		for i, f := range sc.Fields() {
			fb := b.Field(i)
			switch f.Name {
			case "rank":
				fb.(*array.Int32Builder).Append(r.rank)
			case "kind":
				if r.kind == nullKind {
					fb.AppendNull()
				} else if db, ok := fb.(*array.BinaryDictionaryBuilder); ok {
					db.AppendString(r.kind)
				} else {
					fb.(*array.StringBuilder).Append(r.kind)
				}
			case "size":
				if ib, ok := fb.(*array.Int64Builder); ok {
					ib.Append(r.size)
				} else {
					fb.(*array.Float64Builder).Append(float64(r.size))
				}
			case "peer":
				fb.(*array.Int32Builder).Append(r.peer)
			case "tag":
				fb.(*array.Int32Builder).Append(r.tag)
			case "cpu":
				fb.(*array.Int32Builder).Append(r.cpu)
			case "nic":
				fb.(*array.Int32Builder).Append(0)
			case "region":
				fb.AppendNull()
			case "requires", "irequires":
				lb := fb.(*array.ListBuilder)
				lb.Append(true)
				if f.Name == "requires" {
					for _, d := range r.req {
						lb.ValueBuilder().(*array.Int32Builder).Append(d)
					}
				}
			default:
				fb.AppendNull()
			}
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	var buf bytes.Buffer
	w, err := ipc.NewFileWriter(&buf, ipc.WithSchema(sc))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	w.Close()
	return buf.Bytes()
}

func TestGraphErrorsNameRowAndField(t *testing.T) {
	ok := []rawRow{{0, "send", 8, 1, 0, 0, nil}, {1, "recv", 8, 0, 0, 0, nil}}
	for _, tc := range []struct {
		name  string
		ranks string
		rows  []rawRow
		mut   func(*arrow.Schema) *arrow.Schema
		want  string
	}{
		{"negative size", "2", []rawRow{ok[0], {1, "recv", -8, 0, 0, 0, nil}}, nil, "g.arrow: row 1: field size: negative size -8"},
		{"unknown kind", "2", []rawRow{ok[0], {1, "wait", 8, 0, 0, 0, nil}}, nil, "row 1: field kind: unknown operation kind \"wait\""},
		{"null kind", "2", []rawRow{ok[0], {1, nullKind, 8, 0, 0, 0, nil}}, nil, "row 1: field kind: is null"},
		{"unknown plain kind", "2", []rawRow{ok[0], {1, "wait", 8, 0, 0, 0, nil}}, func(s *arrow.Schema) *arrow.Schema {
			fs := s.Fields()
			fs[1].Type = arrow.BinaryTypes.String
			md := s.Metadata()
			return arrow.NewSchema(fs, &md)
		}, "row 1: field kind: unknown operation kind \"wait\""},
		{"null plain kind", "2", []rawRow{{0, nullKind, 8, 1, 0, 0, nil}, ok[1]}, func(s *arrow.Schema) *arrow.Schema {
			fs := s.Fields()
			fs[1].Type = arrow.BinaryTypes.String
			md := s.Metadata()
			return arrow.NewSchema(fs, &md)
		}, "row 0: field kind: is null"},
		{"unknown peer", "2", []rawRow{{0, "send", 8, 5, 0, 0, nil}, ok[1]}, nil, "row 0: field peer: peer 5 is not a rank"},
		{"rank out of range", "2", []rawRow{ok[0], {2, "calc", 8, -1, 0, 0, nil}}, nil, "row 1: field rank: rank 2 outside 0..1"},
		{"ranks out of order", "2", []rawRow{ok[1], ok[0]}, nil, "row 1: field rank: rank 0 after rank 1"},
		{"dangling dependency", "2", []rawRow{ok[0], {0, "calc", 8, -1, 0, 0, []int32{7}}, ok[1]}, nil, "row 1: field requires: operation index 7, but rank 0 has only 2 operations"},
		{"self dependency", "2", []rawRow{ok[0], {0, "calc", 8, -1, 0, 0, []int32{1}}, ok[1]}, nil, "row 1: field requires: operation depends on itself"},
		{"negative cpu", "2", []rawRow{{0, "calc", 8, -1, 0, -2, nil}}, nil, "row 0: field cpu: cpu -2 outside 0..255"},
		{"bad num_ranks", "zero", ok, nil, "field capsim.num_ranks"},
		{"missing column", "2", ok, func(s *arrow.Schema) *arrow.Schema {
			md := s.Metadata()
			return arrow.NewSchema(s.Fields()[1:], &md)
		}, "field rank: column missing"},
		{"wrong type", "2", ok, func(s *arrow.Schema) *arrow.Schema {
			fs := s.Fields()
			fs[2].Type = arrow.PrimitiveTypes.Float64
			md := s.Metadata()
			return arrow.NewSchema(fs, &md)
		}, "field size: has type float64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeGraph(rawFile(t, tc.ranks, tc.rows, tc.mut), "g.arrow")
			var fe *FormatError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestPlainStringKindAccepted(t *testing.T) {
	data := rawFile(t, "2", []rawRow{{0, "send", 8, 1, 3, 0, nil}, {1, "recv", 8, -1, -1, 0, nil}}, func(s *arrow.Schema) *arrow.Schema {
		fs := s.Fields()
		fs[1].Type = arrow.BinaryTypes.String
		md := s.Metadata()
		return arrow.NewSchema(fs, &md)
	})
	g, err := DecodeGraph(data, "plain.arrow")
	if err != nil {
		t.Fatal(err)
	}
	if g.Describe(1) != "rank 1 l1: recv 8b from any tag any" {
		t.Errorf("got %s", g.Describe(1))
	}
}

// FuzzDecodeGraph: errors are FormatErrors, a graph read is valid and
// reads back the same after EncodeGraph.
func FuzzDecodeGraph(f *testing.F) {
	var buf bytes.Buffer
	g, _ := goal.Parse(strings.NewReader(sched), "s")
	EncodeGraph(&buf, g)
	f.Add(buf.Bytes())
	f.Add([]byte("ARROW1\x00\x00"))
	f.Add([]byte{})
	f.Add(streamOf(buf.Bytes()))
	f.Add(streamOf(buf.Bytes(), ipc.WithLZ4()))
	buf.Reset()
	EncodeGraph(&buf, sampleGraph(f)) // with a region
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := DecodeGraph(data, "fuzz.arrow")
		g1, err1 := decodeGraphWith(bytes.NewReader(data), "fuzz.arrow", true)
		if (err == nil) != (err1 == nil) || err != nil && err.Error() != err1.Error() {
			t.Fatalf("by columns: %v; row by row: %v", err, err1)
		}
		if err == nil {
			sameGraph(t, g, g1)
		}
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("decoded graph invalid: %v", err)
		}
		var out bytes.Buffer
		if err := EncodeGraph(&out, g); err != nil {
			t.Fatal(err)
		}
		g2, err := DecodeGraph(out.Bytes(), "again")
		if err != nil {
			t.Fatal(err)
		}
		for id := int32(0); id < int32(g.NumOps()); id++ {
			d1, k1 := g.Deps(id)
			d2, k2 := g2.Deps(id)
			if g.Describe(id) != g2.Describe(id) || g.RegionName(id) != g2.RegionName(id) || g.Label(id) != g2.Label(id) ||
				!slices.Equal(d1, d2) || !slices.Equal(k1, k2) {
				t.Fatalf("op %d differs after a round trip", id)
			}
		}
	})
}

// TestLateDictionaryValues: a kind and a region first seen after the
// first record batch are written (an Arrow IPC file holds one dictionary
// per column, so the writer fixes them up front; a later dictionary
// fails with "Dictionary replacement detected").
func TestLateDictionaryValues(t *testing.T) {
	b := graph.NewBuilder(2)
	n := BatchRows + 10
	for i := 0; i < n; i++ {
		b.Add(0, graph.SendOp(8, 1, 0))
	}
	op := graph.CalcOp(5)
	op.Region = b.Region("late")
	b.Add(1, op)
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := EncodeGraph(&buf, g); err != nil {
		t.Fatal(err)
	}
	g2, err := DecodeGraph(buf.Bytes(), "late")
	if err != nil {
		t.Fatal(err)
	}
	sameGraph(t, g, g2)
}

// TestBatchesReadIntoRecycledMemory: a graph of several record batches,
// every value different, read back as a file, a stream and an LZ4
// stream: each batch is read into the memory the one before it was
// released from (recycler), so a decoder keeping any of it would see it
// overwritten.
func TestBatchesReadIntoRecycledMemory(t *testing.T) {
	b := graph.NewBuilder(3)
	reg := []int32{graph.NoRegion, b.Region("a"), b.Region("b")}
	n := 2*BatchRows + 17
	for i := 0; i < n; i++ {
		r := i % 3
		op := graph.SendOp(int64(i), int32((r+1)%3), int32(i%1000))
		if i%7 == 0 {
			op = graph.CalcOp(int64(i))
		}
		op.Region = reg[i%5%3]
		id := b.Add(r, op)
		if i%11 == 0 {
			b.SetLabel(r, id, "x"+strconv.Itoa(i))
		}
		if id > 0 {
			b.Dep(r, id, id-1, graph.DepKind(i%2))
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	var file bytes.Buffer
	if err := EncodeGraph(&file, g); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"file":       file.Bytes(),
		"stream":     streamOf(file.Bytes()),
		"lz4 stream": streamOf(file.Bytes(), ipc.WithLZ4()),
	} {
		g2, err := DecodeGraph(data, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !slices.Equal(g.Kind, g2.Kind) || !slices.Equal(g.Size, g2.Size) || !slices.Equal(g.Peer, g2.Peer) ||
			!slices.Equal(g.Tag, g2.Tag) || !slices.Equal(g.Region, g2.Region) || !slices.Equal(g.Regions, g2.Regions) ||
			!slices.Equal(g.Labels, g2.Labels) || !slices.Equal(g.DepStart, g2.DepStart) ||
			!slices.Equal(g.DepOp, g2.DepOp) || !slices.Equal(g.DepKind, g2.DepKind) {
			t.Errorf("%s: the graph read back differs", name)
		}
	}
}

func TestRecycler(t *testing.T) {
	var r recycler
	big := r.Allocate(recycleMin + 10)
	bigger := r.Allocate(2 * recycleMin)
	for i := range big {
		big[i] = 0xff
	}
	for i := range bigger {
		bigger[i] = 0xee
	}
	r.Free(bigger)
	r.Free(big)
	r.Free(r.Allocate(100)) // small: not kept
	if len(r.free) != 2 {
		t.Fatalf("%d buffers kept, want 2", len(r.free))
	}
	// The smallest kept buffer that fits is handed out, zeroed.
	got := r.Allocate(recycleMin)
	if len(got) != recycleMin || &got[0] != &big[0] {
		t.Errorf("Allocate(%d) did not reuse the smaller buffer", recycleMin)
	}
	for _, c := range got[:cap(got)] {
		if c != 0 {
			t.Fatal("reused buffer not zeroed")
		}
	}
	grown := r.Reallocate(3*recycleMin, got)
	if len(grown) != 3*recycleMin || len(r.free) != 2 {
		t.Errorf("Reallocate: len %d, %d kept", len(grown), len(r.free))
	}
}

func TestGraphWriterRejects(t *testing.T) {
	reg := graph.CalcOp(1)
	reg.Region = 1
	bad := graph.CalcOp(1)
	bad.Kind = graph.Recv + 1
	for _, tc := range []struct {
		name string
		ops  []graph.Op
		rank []int32
		want string
	}{
		{"region out of range", []graph.Op{reg}, []int32{0}, "region 1, but the writer has 1 regions"},
		{"unknown kind", []graph.Op{bad}, []int32{0}, "not calc, send or recv"},
		{"ranks out of order", []graph.Op{graph.CalcOp(1), graph.CalcOp(1)}, []int32{1, 0}, "rank 0 after rank 1"},
	} {
		gw, err := NewGraphWriter(io.Discard, 2, []string{"a"}, false)
		if err != nil {
			t.Fatal(err)
		}
		for i, op := range tc.ops {
			err = gw.Op(tc.rank[i], op, nil, nil, "")
		}
		gw.Abort()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestColumnsMatchRows decodes a graph of several batches (regions first
// named in later batches, both dependency kinds, wildcards, several CPUs
// and NICs, calcs, empty ranks) column by column and row by row, and
// compares both with the graph written.
func TestColumnsMatchRows(t *testing.T) {
	const ranks = 5
	b := graph.NewBuilder(ranks)
	regs := []string{"", "halo", "compute", "", "allreduce"}
	for r := 0; r < ranks-1; r++ { // rank 4 stays empty
		prev := int32(-1)
		for i := 0; i < 40000; i++ {
			var op graph.Op
			switch i % 3 {
			case 0:
				op = graph.SendOp(int64(i), int32((r+1)%ranks), int32(i%7))
			case 1:
				op = graph.RecvOp(int64(i), graph.AnySource, graph.AnyTag)
				if i%2 == 0 {
					op = graph.RecvOp(int64(i), int32((r+ranks-1)%ranks), int32(i%5))
				}
			default:
				op = graph.CalcOp(int64(i))
			}
			op.CPU, op.NIC = uint8(i%3), uint8(i%2)
			if reg := regs[(i/9000+r)%len(regs)]; reg != "" {
				op.Region = b.Region(reg)
			}
			id := b.Add(r, op)
			if prev >= 0 {
				kind := graph.Requires
				if i%4 == 0 {
					kind = graph.Irequires
				}
				b.Dep(r, id, prev, kind)
			}
			prev = id
		}
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := EncodeGraph(&buf, g); err != nil {
		t.Fatal(err)
	}
	cols, err := DecodeGraph(buf.Bytes(), "g.arrow")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := decodeGraphWith(bytes.NewReader(buf.Bytes()), "g.arrow", true)
	if err != nil {
		t.Fatal(err)
	}
	sameGraph(t, g, cols)
	sameGraph(t, rows, cols)
	if !slices.Equal(rows.Regions, cols.Regions) || !slices.Equal(rows.Region, cols.Region) {
		t.Errorf("regions %q vs %q", cols.Regions, rows.Regions)
	}
}
