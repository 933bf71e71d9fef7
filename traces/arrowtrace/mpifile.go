package arrowtrace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/capsim/capsim/internal/atomicfile"
	"github.com/capsim/capsim/traces/mpi"
)

// MetaComms holds the communicators of an MPI trace as JSON: a list of
// {"id": 1, "name": "rows", "members": [0, 4, 8]} objects, members given as
// world ranks in communicator rank order. MPI_COMM_WORLD (id 0) is implicit.
const MetaComms = "capsim.communicators"

// MetaCollectives holds the collective algorithms the trace's format
// replays its collectives with (mpi.Trace.Algorithms, liballprof's:
// schedgen's), as "KIND=ALGORITHM" items joined by commas in kind order.
// Absent: capsim's defaults. An MPI trace converted to Arrow keeps them,
// so that it replays as the trace it was converted from.
const MetaCollectives = "capsim.collectives"

// ParamPrefix starts the names of per-compute-event parameter columns.
const ParamPrefix = "param."

const mpiUnits = "duration: ns; bytes: bytes; peer: rank within comm (root for rooted collectives)"

type commJSON struct {
	ID      int32   `json:"id"`
	Name    string  `json:"name"`
	Members []int32 `json:"members"`
}

func mpiSchema(t *mpi.Trace) (*arrow.Schema, error) {
	fields := []arrow.Field{
		{Name: "rank", Type: arrow.PrimitiveTypes.Int32},
		{Name: "kind", Type: kindDictType},
		{Name: "region", Type: regionDictType, Nullable: true},
		{Name: "comm", Type: arrow.PrimitiveTypes.Int32},
		{Name: "peer", Type: arrow.PrimitiveTypes.Int32},
		{Name: "tag", Type: arrow.PrimitiveTypes.Int32},
		{Name: "bytes", Type: arrow.PrimitiveTypes.Int64},
		{Name: "duration", Type: arrow.PrimitiveTypes.Int64},
		{Name: "request", Type: arrow.PrimitiveTypes.Int64},
		{Name: "list", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true},
	}
	for _, p := range t.ParamNames {
		fields = append(fields, arrow.Field{Name: ParamPrefix + p, Type: arrow.PrimitiveTypes.Float64, Nullable: true})
	}
	var comms []commJSON
	for _, c := range t.Comms {
		if c.ID == mpi.World {
			continue
		}
		comms = append(comms, commJSON{c.ID, c.Name, c.Members})
	}
	sort.Slice(comms, func(i, j int) bool { return comms[i].ID < comms[j].ID })
	cj, err := json.Marshal(comms)
	if err != nil {
		return nil, err
	}
	if comms == nil {
		cj = []byte("[]")
	}
	keys := []string{MetaFormat, MetaVersion, MetaNumRanks, MetaUnits, MetaComms}
	vals := []string{FormatMPI, Version, strconv.Itoa(len(t.Ranks)), mpiUnits, string(cj)}
	if spec := mpi.AlgorithmsSpec(t.Algorithms); spec != "" {
		keys, vals = append(keys, MetaCollectives), append(vals, spec)
	}
	md := arrow.NewMetadata(keys, vals)
	return withRecorded(arrow.NewSchema(fields, &md), t.Recorded)
}

// WriteMPI writes t to path as an Arrow MPI-trace file, atomically.
func WriteMPI(path string, t *mpi.Trace) error {
	return atomicfile.Write(path, func(w io.Writer) error { return EncodeMPI(w, t) })
}

// EncodeMPI writes t as an Arrow IPC file to w.
func EncodeMPI(w io.Writer, t *mpi.Trace) error {
	sc, err := mpiSchema(t)
	if err != nil {
		return err
	}
	fw, err := ipc.NewFileWriter(w, ipc.WithSchema(sc))
	if err != nil {
		return err
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	rankB := b.Field(0).(*array.Int32Builder)
	kindB := b.Field(1).(*array.BinaryDictionaryBuilder)
	regB := b.Field(2).(*array.BinaryDictionaryBuilder)
	commB := b.Field(3).(*array.Int32Builder)
	peerB := b.Field(4).(*array.Int32Builder)
	tagB := b.Field(5).(*array.Int32Builder)
	bytesB := b.Field(6).(*array.Int64Builder)
	durB := b.Field(7).(*array.Int64Builder)
	reqB := b.Field(8).(*array.Int64Builder)
	listB := b.Field(9).(*array.ListBuilder)
	listV := listB.ValueBuilder().(*array.Int64Builder)
	// An Arrow IPC file holds one dictionary per column: every kind and
	// region goes into it before the first batch.
	kinds := make([]string, 0, len(mpi.Kinds()))
	for _, k := range mpi.Kinds() {
		kinds = append(kinds, k.String())
	}
	for _, vals := range []struct {
		b     *array.BinaryDictionaryBuilder
		names []string
	}{{kindB, kinds}, {regB, t.Regions}} {
		arr := newStrings(vals.names)
		err := vals.b.InsertStringDictValues(arr)
		arr.Release()
		if err != nil {
			return err
		}
	}
	np := len(t.ParamNames)
	flush := func() error {
		rec := b.NewRecordBatch()
		defer rec.Release()
		return fw.Write(rec)
	}
	rows := 0
	for r := range t.Ranks {
		rk := &t.Ranks[r]
		for i := range rk.Events {
			e := &rk.Events[i]
			rankB.Append(int32(r))
			if err := kindB.AppendString(e.Kind.String()); err != nil {
				return err
			}
			if e.Region == mpi.NoRegion || e.Region < 0 || int(e.Region) >= len(t.Regions) {
				regB.AppendNull()
			} else if err := regB.AppendString(t.Regions[e.Region]); err != nil {
				return err
			}
			commB.Append(e.Comm)
			peerB.Append(e.Peer)
			tagB.Append(e.Tag)
			bytesB.Append(e.Bytes)
			durB.Append(e.Duration)
			reqB.Append(e.Req)
			if e.Kind == mpi.Waitall || e.Kind == mpi.Alltoallv {
				listB.Append(true)
				for _, v := range t.List(r, e) {
					listV.Append(v)
				}
			} else {
				listB.AppendNull()
			}
			for p := 0; p < np; p++ {
				pb := b.Field(10 + p).(*array.Float64Builder)
				if e.Kind == mpi.Compute && int(e.ParamLen) == np {
					pb.Append(rk.Params[int(e.ParamOff)+p])
				} else {
					pb.AppendNull()
				}
			}
			rows++
			if rows == BatchRows {
				if err := flush(); err != nil {
					return err
				}
				rows = 0
			}
		}
	}
	if rows > 0 || t.NumEvents() == 0 {
		if err := flush(); err != nil {
			return err
		}
	}
	return fw.Close()
}

// ReadMPI reads an Arrow MPI-trace file, one record batch at a time.
func ReadMPI(path string) (*mpi.Trace, error) {
	return readPath(path, decodeMPI)
}

// DecodeMPI reads an MPI trace from the bytes of an Arrow IPC file; name is
// used in error messages.
func DecodeMPI(data []byte, name string) (*mpi.Trace, error) {
	return decodeMPI(bytes.NewReader(data), name)
}

func decodeMPI(r sizer, name string) (*mpi.Trace, error) {
	d := &mpiDecoder{name: name}
	if err := readFile(r, name, d); err != nil {
		return nil, err
	}
	return d.t, nil
}

func (d *mpiDecoder) rows() int64 { return d.row }

type mpiDecoder struct {
	name    string
	col     map[string]int
	params  []int // column index per parameter
	t       *mpi.Trace
	comms   map[int32]int // comm id -> size
	regions map[string]int32
	row     int64
	rank    int32
}

func (d *mpiDecoder) errf(row int64, field, format string, a ...any) error {
	return &FormatError{File: d.name, Row: row, Field: field, Msg: fmt.Sprintf(format, a...)}
}

func (d *mpiDecoder) format() string { return FormatMPI }

func (d *mpiDecoder) schema(sc *arrow.Schema) error {
	n, err := header(sc, d.name, FormatMPI, "MPI trace")
	if err != nil {
		return err
	}
	md := sc.Metadata()
	d.t = mpi.NewTrace(n)
	d.t.Rows = true // rows are grouped by rank: Trace.Row is the file's row
	for r := range d.t.Ranks {
		d.t.Ranks[r].File = d.name
	}
	if d.t.Recorded, err = readRecorded(md, n, d.name); err != nil {
		return err
	}
	d.comms = map[int32]int{mpi.World: n}
	d.regions = map[string]int32{"": mpi.NoRegion}
	if cj, ok := md.GetValue(MetaComms); ok && cj != "" {
		var comms []commJSON
		dec := json.NewDecoder(strings.NewReader(cj))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&comms); err != nil {
			return d.errf(-1, MetaComms, "not a JSON list of communicators: %v", err)
		}
		for i, c := range comms {
			where := fmt.Sprintf("communicator %d (entry %d)", c.ID, i)
			if _, dup := d.comms[c.ID]; dup || c.ID < 0 {
				return d.errf(-1, MetaComms, "%s: id negative or defined twice", where)
			}
			if len(c.Members) == 0 {
				return d.errf(-1, MetaComms, "%s has no members", where)
			}
			seen := map[int32]bool{}
			for _, m := range c.Members {
				if m < 0 || int(m) >= n || seen[m] {
					return d.errf(-1, MetaComms, "%s: member %d is not a rank or is listed twice", where, m)
				}
				seen[m] = true
			}
			d.comms[c.ID] = len(c.Members)
			d.t.Comms = append(d.t.Comms, mpi.Communicator{ID: c.ID, Name: c.Name, Members: c.Members})
		}
	}
	if spec, ok := md.GetValue(MetaCollectives); ok {
		if d.t.Algorithms, err = parseCollectives(spec); err != nil {
			return d.errf(-1, MetaCollectives, "%v", err)
		}
	}
	d.col, err = columns(sc, d.name, []column{
		{name: "rank", typ: arrow.INT32}, {name: "kind", typ: arrow.STRING}, {name: "region", typ: arrow.STRING},
		{name: "comm", typ: arrow.INT32}, {name: "peer", typ: arrow.INT32}, {name: "tag", typ: arrow.INT32},
		{name: "bytes", typ: arrow.INT64}, {name: "duration", typ: arrow.INT64}, {name: "request", typ: arrow.INT64},
		{name: "list", typ: arrow.LIST, elem: arrow.INT64},
	})
	if err != nil {
		return err
	}
	for i, f := range sc.Fields() {
		if p, ok := strings.CutPrefix(f.Name, ParamPrefix); ok {
			if f.Type.ID() != arrow.FLOAT64 {
				return d.errf(-1, f.Name, "has type %s, want float64", f.Type)
			}
			d.t.ParamNames = append(d.t.ParamNames, p)
			d.params = append(d.params, i)
		}
	}
	return nil
}

// mpiBatch is one record batch's columns, as mpiDecoder.batch reads them.
type mpiBatch struct {
	rank, comm, peer, tag []int32
	nbytes, dur, req      []int64
	kind, region          stringCol
	list                  listCol[int64]
	params                []*array.Float64 // the parameter columns
	pbuf                  []float64        // one row's parameters
}

func (d *mpiDecoder) batch(rec arrow.RecordBatch) error {
	b, err := d.columns(rec)
	if err != nil {
		return err
	}
	t := d.t
	nr := int32(len(t.Ranks))
	rank, kind, region := b.rank, b.kind, b.region
	for i := 0; i < int(rec.NumRows()); i++ {
		row := d.row
		r := rank[i]
		if r < 0 || r >= nr {
			return d.errf(row, "rank", "rank %d outside 0..%d", r, nr-1)
		}
		if r < d.rank {
			return d.errf(row, "rank", "rank %d after rank %d: rows must be grouped by rank in increasing order", r, d.rank)
		}
		d.rank = r
		if kind.isNull(i) {
			return d.errf(row, "kind", "is null")
		}
		k, err := mpi.ParseKind(kind.value(i))
		if err != nil {
			return d.errf(row, "kind", "%v", err)
		}
		e := mpi.Event{Kind: k, Comm: b.comm[i], Peer: b.peer[i], Tag: b.tag[i], Bytes: b.nbytes[i],
			Duration: b.dur[i], Req: b.req[i]}
		if e.Bytes < 0 {
			return d.errf(row, "bytes", "negative size %d", e.Bytes)
		}
		if e.Duration < 0 {
			return d.errf(row, "duration", "negative duration %d", e.Duration)
		}
		size, ok := d.comms[e.Comm]
		if !ok {
			return d.errf(row, "comm", "unknown communicator %d", e.Comm)
		}
		if err := d.checkPeer(&e, size); err != nil {
			return err
		}
		if !region.isNull(i) {
			e.Region = d.regionID(region.value(i))
		}
		rk := &t.Ranks[r]
		if k == mpi.Waitall || k == mpi.Alltoallv {
			if err := d.appendList(&b.list, i, &e, rk, size); err != nil {
				return err
			}
		}
		if k == mpi.Compute && len(b.params) > 0 {
			b.appendParams(i, &e, rk)
		}
		rk.Events = append(rk.Events, e)
		d.row++
	}
	return nil
}

// columns reads the columns of rec.
func (d *mpiDecoder) columns(rec arrow.RecordBatch) (mpiBatch, error) {
	var b mpiBatch
	col := func(name string) arrow.Array { return rec.Column(d.col[name]) }
	var i32 [4][]int32
	for k, name := range []string{"rank", "comm", "peer", "tag"} {
		v, err := int32s(rec, d.col[name], name, d.name, d.row)
		if err != nil {
			return b, err
		}
		i32[k] = v
	}
	b.rank, b.comm, b.peer, b.tag = i32[0], i32[1], i32[2], i32[3]
	var i64 [3][]int64
	for k, name := range []string{"bytes", "duration", "request"} {
		v, err := int64s(rec, d.col[name], name, d.name, d.row)
		if err != nil {
			return b, err
		}
		i64[k] = v
	}
	b.nbytes, b.dur, b.req = i64[0], i64[1], i64[2]
	b.kind = newStringCol(col("kind"))
	b.region = newStringCol(col("region"))
	var err error
	if b.list, err = newListCol[int64](col("list"), "list", d.name, d.row); err != nil {
		return b, err
	}
	b.params = make([]*array.Float64, len(d.params))
	for j, c := range d.params {
		b.params[j] = rec.Column(c).(*array.Float64)
	}
	b.pbuf = make([]float64, len(b.params))
	return b, nil
}

// regionID returns the id of region name, adding it on first use.
func (d *mpiDecoder) regionID(name string) int32 { return internRegion(d.regions, &d.t.Regions, name) }

// appendList appends the list of row i (a waitall's requests, an
// alltoallv's size per member of a communicator of size members) to rk
// and points e at it.
func (d *mpiDecoder) appendList(list *listCol[int64], i int, e *mpi.Event, rk *mpi.Rank, size int) error {
	row, k := d.row, e.Kind
	if list.IsNull(i) {
		return d.errf(row, "list", "%s needs a list", k)
	}
	lo, hi, ok := list.Offsets(i)
	if !ok {
		return d.errf(row, "list", "list offsets %d..%d out of range", lo, hi)
	}
	if k == mpi.Alltoallv && int(hi-lo) != size {
		return d.errf(row, "list", "alltoallv lists %d sizes for a communicator of %d", hi-lo, size)
	}
	e.ListOff, e.ListLen = int32(len(rk.List)), int32(hi-lo)
	rk.List = append(rk.List, list.Values[lo:hi]...)
	return nil
}

// appendParams appends the model parameters of row i, if it has any, to
// rk and points e at them.
func (b *mpiBatch) appendParams(i int, e *mpi.Event, rk *mpi.Rank) {
	has := false
	for j, p := range b.params {
		b.pbuf[j] = 0
		if !p.IsNull(i) {
			b.pbuf[j] = p.Value(i)
			has = true
		}
	}
	if has {
		e.ParamOff, e.ParamLen = int32(len(rk.Params)), int32(len(b.pbuf))
		rk.Params = append(rk.Params, b.pbuf...)
	}
}

// checkPeer checks the peer and tag of e, the event of row d.row, on a
// communicator of size ranks.
func (d *mpiDecoder) checkPeer(e *mpi.Event, size int) error {
	row, k := d.row, e.Kind
	switch {
	case k.IsPointToPoint():
		recv := k == mpi.Recv || k == mpi.Irecv
		if (e.Peer < 0 || int(e.Peer) >= size) && !(recv && e.Peer == mpi.AnySource) {
			return d.errf(row, "peer", "peer %d is not a rank of communicator %d (size %d)", e.Peer, e.Comm, size)
		}
		if e.Tag < 0 && !(recv && e.Tag == mpi.AnyTag) {
			return d.errf(row, "tag", "negative tag %d", e.Tag)
		}
	case k.IsRooted():
		if e.Peer < 0 || int(e.Peer) >= size {
			return d.errf(row, "peer", "root %d is not a rank of communicator %d (size %d)", e.Peer, e.Comm, size)
		}
	}
	return nil
}

// parseCollectives reads MetaCollectives: KIND=ALGORITHM items, each a
// collective given once. Which algorithms exist is lowering's to check.
func parseCollectives(spec string) (map[mpi.Kind]string, error) {
	m := map[mpi.Kind]string{}
	for _, item := range strings.Split(spec, ",") {
		k, a, ok := strings.Cut(item, "=")
		if !ok || a == "" {
			return nil, fmt.Errorf("item %q is not KIND=ALGORITHM", item)
		}
		kind, err := mpi.ParseKind(k)
		if err != nil || !kind.IsCollective() {
			return nil, fmt.Errorf("item %q: %q is not a collective", item, k)
		}
		if _, dup := m[kind]; dup {
			return nil, fmt.Errorf("%s given twice", kind)
		}
		m[kind] = a
	}
	return m, nil
}
