package arrowtrace

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/endian"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/capsim/capsim/traces/graph"
)

// ErrNotWindowed reports an execution-graph file that GraphWindows cannot
// read column by column (compressed buffers, columns of other types or in
// another order, nulls where capsim's writers write none): ReadGraph
// reads it whole.
var ErrNotWindowed = errors.New("not readable window by window")

// GraphWindows reads an Arrow execution-graph file window by window: a
// graph.Source that holds the file's layout (where each record batch's
// column buffers are) and each rank's first row, and reads the rows of a
// window from their columns when asked, so that its memory does not grow
// with the file. It reads the files capsim's writers write (EncodeGraph,
// GraphWriter): uncompressed record batches of the graph schema's columns
// in order, without nulls but in region and label. Windows do not carry
// regions (Window.Region is nil). Its checks are ReadGraph's, per window.
type GraphWindows struct {
	// Recorded is the recorded run the file's metadata holds, as
	// ReadGraph gives it (graph.Graph.Recorded).
	Recorded *graph.Recorded

	f        *os.File
	name     string
	numRanks int
	kinds    []graph.OpKind // the kind dictionary's entries
	batches  []batchLayout
	start    []int64 // per rank, its first row; one past the last rank

	// raw holds per read buffer the bytes last read from it, reused.
	raw [numWindowBufs][]byte

	// The current window's columns, reused.
	kind            []graph.OpKind
	size            []int64
	peer, tag       []int32
	cpu, nic        []uint8
	depStart, depOp []int32
	depKind         []graph.DepKind
}

// batchLayout is where one record batch's rows and buffers are.
type batchLayout struct {
	first, rows int64
	buf         [numWindowBufs]bufferAt
}

type bufferAt struct{ off, len int64 }

// The buffers GraphWindows reads, in the order of the record batch's
// buffer list for the graph schema (validity buffers in between).
const (
	bufRank = iota
	bufKind
	bufSize
	bufPeer
	bufTag
	bufCPU
	bufNIC
	bufReqOff
	bufReqVals
	bufIreqOff
	bufIreqVals
	numWindowBufs
)

// batchBuffer is each read buffer's index in the record batch's buffer
// list, bufWidth the bytes of each of its elements, and nullable which
// field nodes may have nulls (region, label).
var (
	batchBuffer = [numWindowBufs]int{1, 3, 5, 7, 9, 11, 13, 17, 19, 21, 23}
	bufWidth    = [numWindowBufs]int64{4, 1, 8, 4, 4, 4, 4, 4, 4, 4, 4}
	nullable    = map[int]bool{7: true, 12: true}
)

// OpenGraphWindows opens the execution-graph file at path for reading
// window by window; an error wrapping ErrNotWindowed means ReadGraph must
// read it. Close the result when done.
func OpenGraphWindows(path string) (gw *GraphWindows, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer func() {
		if p := recover(); p != nil {
			err = &FormatError{File: path, Row: -1, Msg: fmt.Sprintf("malformed Arrow data: %v", p)}
		}
		if err != nil {
			f.Close()
		}
	}()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	size := st.Size()
	if isStream(f) {
		return nil, fmt.Errorf("%s: an Arrow stream: %w", path, ErrNotWindowed)
	}
	if err := checkFooter(f, size); err != nil {
		return nil, &FormatError{File: path, Row: -1, Msg: "not a readable Arrow IPC file: " + err.Error()}
	}
	fr, err := ipc.NewFileReader(f, ipc.WithMetadataSizeLimit(size), ipc.WithBodySizeLimit(size))
	if err != nil {
		return nil, &FormatError{File: path, Row: -1, Msg: "not an Arrow IPC file: " + err.Error()}
	}
	defer fr.Close()
	gw = &GraphWindows{f: f, name: path}
	if gw.numRanks, err = header(fr.Schema(), path, FormatGraph, "execution graph"); err != nil {
		return nil, err
	}
	if gw.Recorded, err = readRecorded(fr.Schema().Metadata(), gw.numRanks, path); err != nil {
		return nil, err
	}
	if causal, err := readCausal(fr.Schema().Metadata(), path); err != nil {
		return nil, err
	} else if causal {
		// The engine streams windows under LogGOPSim's release order.
		return nil, fmt.Errorf("%s: a causal graph (%s): %w", path, MetaCausal, ErrNotWindowed)
	}
	if !windowedSchema(fr.Schema()) {
		return nil, fmt.Errorf("%s: columns other than capsim's graph schema: %w", path, ErrNotWindowed)
	}
	if fr.NumRecords() > 0 {
		if gw.kinds, err = kindTable(fr, path); err != nil {
			return nil, err
		}
	}
	if err := gw.layout(size); err != nil {
		return nil, err
	}
	if err := gw.index(); err != nil {
		return nil, err
	}
	return gw, nil
}

// windowedSchema reports whether sc is the graph schema as capsim's
// writers write it.
func windowedSchema(sc *arrow.Schema) bool {
	want := graphSchemaFor(0, -1, -1, sc.NumFields() > 10).Fields()
	if sc.NumFields() != len(want) || sc.Endianness() != endian.LittleEndian {
		return false
	}
	for i, f := range sc.Fields() {
		if f.Name != want[i].Name || !arrow.TypeEqual(f.Type, want[i].Type) {
			return false
		}
	}
	return true
}

// kindTable maps the kind column's dictionary indices to kinds.
func kindTable(fr *ipc.FileReader, path string) ([]graph.OpKind, error) {
	rec, err := fr.RecordBatch(0)
	if err != nil {
		return nil, &FormatError{File: path, Row: 0, Msg: err.Error()}
	}
	dict, ok := rec.Column(1).(*array.Dictionary)
	if !ok {
		return nil, fmt.Errorf("%s: kind column: %w", path, ErrNotWindowed)
	}
	names, ok := dict.Dictionary().(*array.String)
	if !ok {
		return nil, fmt.Errorf("%s: kind dictionary: %w", path, ErrNotWindowed)
	}
	table := make([]graph.OpKind, names.Len())
	for i := range table {
		table[i] = graph.OpKind(255)
		for k, n := range kindNames {
			if names.IsValid(i) && names.Value(i) == n {
				table[i] = graph.OpKind(k)
			}
		}
	}
	return table, nil
}

// layout reads the footer's record batch blocks and each batch's buffer
// list.
func (gw *GraphWindows) layout(size int64) error {
	var tail [10]byte
	if _, err := gw.f.ReadAt(tail[:], size-10); err != nil {
		return err
	}
	flen := int64(binary.LittleEndian.Uint32(tail[:4]))
	foot := make([]byte, flen)
	if _, err := gw.f.ReadAt(foot, size-10-flen); err != nil {
		return err
	}
	f := fb{foot}
	root, _ := f.u32(0)
	start, n, ok := f.vector(root, 3, 24) // recordBatches: Block{offset, metaDataLength, bodyLength}
	if !ok {
		return &FormatError{File: gw.name, Row: -1, Msg: "corrupt footer"}
	}
	var row int64
	for k := 0; k < n; k++ {
		b := foot[start+24*k:]
		off := int64(binary.LittleEndian.Uint64(b))
		meta := int64(int32(binary.LittleEndian.Uint32(b[8:])))
		body := int64(binary.LittleEndian.Uint64(b[16:]))
		if off < 0 || meta <= 0 || body < 0 || off+meta+body > size {
			return &FormatError{File: gw.name, Row: row, Msg: fmt.Sprintf("batch %d lies outside the file", k)}
		}
		bl, err := gw.batch(off, meta, body)
		if err != nil {
			return err
		}
		bl.first = row
		row += bl.rows
		gw.batches = append(gw.batches, bl)
	}
	return nil
}

// batch reads the layout of the record batch whose message is at off.
func (gw *GraphWindows) batch(off, meta, body int64) (batchLayout, error) {
	var bl batchLayout
	msg := make([]byte, meta)
	if _, err := gw.f.ReadAt(msg, off); err != nil {
		return bl, err
	}
	if len(msg) >= 8 && binary.LittleEndian.Uint32(msg) == 0xFFFFFFFF {
		msg = msg[8:]
	} else if len(msg) >= 4 {
		msg = msg[4:]
	}
	bad := func(what string) error {
		return &FormatError{File: gw.name, Row: -1, Msg: "record batch at byte " + fmt.Sprint(off) + ": " + what}
	}
	f := fb{msg}
	root, ok := f.u32(0)
	if !ok {
		return bl, bad("no message")
	}
	tp, ok := f.field(root, 1) // header_type: 3 is RecordBatch
	if !ok || tp == 0 || msg[tp] != 3 {
		return bl, bad("not a record batch")
	}
	hp, ok := f.field(root, 2)
	if !ok || hp == 0 {
		return bl, bad("no header")
	}
	rb, ok := f.ref(hp)
	if !ok {
		return bl, bad("corrupt header")
	}
	if cp, ok := f.field(rb, 3); !ok || cp != 0 {
		return bl, fmt.Errorf("%s: compressed record batches: %w", gw.name, ErrNotWindowed)
	}
	if lp, ok := f.field(rb, 0); ok && lp != 0 && lp+8 <= len(msg) {
		bl.rows = int64(binary.LittleEndian.Uint64(msg[lp:]))
	}
	ns, nn, ok := f.vector(rb, 1, 16) // nodes: FieldNode{length, null_count}
	if !ok || nn < 12 {
		return bl, bad("too few field nodes")
	}
	for k := 0; k < nn; k++ {
		if nulls := int64(binary.LittleEndian.Uint64(msg[ns+16*k+8:])); nulls != 0 && !nullable[k] {
			return bl, fmt.Errorf("%s: nulls in column node %d: %w", gw.name, k, ErrNotWindowed)
		}
	}
	bs, bn, ok := f.vector(rb, 2, 16) // buffers: Buffer{offset, length}
	if !ok || bn < 24 {
		return bl, bad("too few buffers")
	}
	for i, k := range batchBuffer {
		o := int64(binary.LittleEndian.Uint64(msg[bs+16*k:]))
		l := int64(binary.LittleEndian.Uint64(msg[bs+16*k+8:]))
		if o < 0 || l < 0 || o+l > body {
			return bl, bad(fmt.Sprintf("buffer %d lies outside the batch", k))
		}
		bl.buf[i] = bufferAt{off + meta + o, l}
	}
	return bl, nil
}

// index reads the rank column of every batch to find each rank's rows.
func (gw *GraphWindows) index() error {
	gw.start = make([]int64, gw.numRanks+1)
	prev := int32(0)
	var rows int64
	for _, bl := range gw.batches {
		col, err := gw.int32s(&bl, bufRank, 0, bl.rows)
		if err != nil {
			return err
		}
		for i, r := range col {
			row := bl.first + int64(i)
			if r < 0 || int(r) >= gw.numRanks {
				return &FormatError{File: gw.name, Row: row, Field: "rank", Msg: fmt.Sprintf("rank %d outside 0..%d", r, gw.numRanks-1)}
			}
			if r < prev {
				return &FormatError{File: gw.name, Row: row, Field: "rank", Msg: fmt.Sprintf("rank %d after rank %d: rows must be grouped by rank in increasing order", r, prev)}
			}
			for ; prev < r; prev++ {
				gw.start[prev+1] = row
			}
		}
		rows = bl.first + bl.rows
	}
	for ; int(prev) < gw.numRanks; prev++ {
		gw.start[prev+1] = rows
	}
	for r := 0; r < gw.numRanks; r++ {
		if gw.start[r+1]-gw.start[r] > math.MaxInt32 {
			return &FormatError{File: gw.name, Row: gw.start[r], Field: "rank", Msg: fmt.Sprintf("rank %d has more than %d operations", r, math.MaxInt32)}
		}
	}
	return nil
}

// readAt reads elements i..i+n of read buffer c of batch bl into
// gw.raw[c], valid until the next read of that buffer.
func (gw *GraphWindows) readAt(bl *batchLayout, c int, i, n int64) ([]byte, error) {
	b, width := bl.buf[c], bufWidth[c]
	if (i+n)*width > b.len {
		return nil, &FormatError{File: gw.name, Row: -1, Msg: "a column buffer is shorter than its rows"}
	}
	if int64(cap(gw.raw[c])) < n*width {
		gw.raw[c] = make([]byte, n*width)
	}
	raw := gw.raw[c][:n*width]
	if _, err := gw.f.ReadAt(raw, b.off+i*width); err != nil {
		return nil, fmt.Errorf("read %s: %w", gw.name, err)
	}
	return raw, nil
}

// int32s reads elements i..i+n of the int32 read buffer c of batch bl,
// valid until the next read of that buffer.
func (gw *GraphWindows) int32s(bl *batchLayout, c int, i, n int64) ([]int32, error) {
	raw, err := gw.readAt(bl, c, i, n)
	if err != nil {
		return nil, err
	}
	return arrow.Int32Traits.CastFromBytes(raw), nil
}

// Close closes the file.
func (gw *GraphWindows) Close() error { return gw.f.Close() }

// NumRanks returns the number of ranks.
func (gw *GraphWindows) NumRanks() int { return gw.numRanks }

// NumOps returns the number of operations (rows).
func (gw *GraphWindows) NumOps() int64 { return gw.start[gw.numRanks] }

// Window returns at most max operations of rank r from its rank-relative
// operation first on, read from the file. Its slices are valid until the
// next call.
func (gw *GraphWindows) Window(r int, first int32, max int) (graph.Window, error) {
	if r < 0 || r >= gw.numRanks {
		return graph.Window{}, fmt.Errorf("%s: window of rank %d, the file has %d ranks", gw.name, r, gw.numRanks)
	}
	lo, end := gw.start[r], gw.start[r+1]
	if first < 0 || int64(first) > end-lo || max < 1 {
		return graph.Window{}, fmt.Errorf("%s: window at %d (max %d) of rank %d, which has %d operations", gw.name, first, max, r, end-lo)
	}
	a := lo + int64(first)
	b := min(a+int64(max), end)
	gw.kind, gw.size, gw.peer, gw.tag = gw.kind[:0], gw.size[:0], gw.peer[:0], gw.tag[:0]
	gw.cpu, gw.nic = gw.cpu[:0], gw.nic[:0]
	gw.depStart, gw.depOp, gw.depKind = append(gw.depStart[:0], 0), gw.depOp[:0], gw.depKind[:0]
	k := sort.Search(len(gw.batches), func(k int) bool { return gw.batches[k].first+gw.batches[k].rows > a })
	for ; a < b; k++ {
		bl := &gw.batches[k]
		n := min(b, bl.first+bl.rows) - a
		if err := gw.segment(bl, a-bl.first, n, lo, end-lo); err != nil {
			return graph.Window{}, err
		}
		a += n
	}
	return graph.Window{Rank: r, First: first, Kind: gw.kind, Size: gw.size, Peer: gw.peer, Tag: gw.tag,
		CPU: gw.cpu, NIC: gw.nic, DepStart: gw.depStart, DepOp: gw.depOp, DepKind: gw.depKind}, nil
}

// segment appends rows i..i+n of batch bl, of a rank whose first row is
// rankRow and which has rankOps operations, to the window's columns,
// checking them as ReadGraph does.
func (gw *GraphWindows) segment(bl *batchLayout, i, n, rankRow, rankOps int64) error {
	var col [bufReqOff][]byte
	for c := bufKind; c < bufReqOff; c++ {
		var err error
		if col[c], err = gw.readAt(bl, c, i, n); err != nil {
			if cerr := gw.checkRows(bl, i, col); cerr != nil {
				return cerr
			}
			return err
		}
	}
	if !gw.rows(col) {
		if err := gw.checkRows(bl, i, col); err != nil {
			return err
		}
		return &FormatError{File: gw.name, Row: bl.first + i, Msg: "rows that fail no check failed one"}
	}
	return gw.deps(bl, i, n, rankRow, rankOps)
}

// rows appends the rows of the read buffers col (kind to NIC) to the
// window's columns and reports whether they pass ReadGraph's checks; where
// one does not, checkRows names it.
func (gw *GraphWindows) rows(col [bufReqOff][]byte) bool {
	kinds := col[bufKind]
	n := len(kinds)
	base := len(gw.kind)
	gw.kind, gw.size = slices.Grow(gw.kind, n)[:base+n], slices.Grow(gw.size, n)[:base+n]
	gw.peer, gw.tag = slices.Grow(gw.peer, n)[:base+n], slices.Grow(gw.tag, n)[:base+n]
	gw.cpu, gw.nic = slices.Grow(gw.cpu, n)[:base+n], slices.Grow(gw.nic, n)[:base+n]
	kind, size := gw.kind[base:], gw.size[base:base+n]
	peer, tag := gw.peer[base:base+n], gw.tag[base:base+n]
	cpu, nic := gw.cpu[base:base+n], gw.nic[base:base+n]
	sizes := arrow.Int64Traits.CastFromBytes(col[bufSize])[:n]
	peers := arrow.Int32Traits.CastFromBytes(col[bufPeer])[:n]
	tags := arrow.Int32Traits.CastFromBytes(col[bufTag])[:n]
	cpus := arrow.Int32Traits.CastFromBytes(col[bufCPU])[:n]
	nics := arrow.Int32Traits.CastFromBytes(col[bufNIC])[:n]
	table, nr := gw.kinds, int32(gw.numRanks)
	for k, x := range kinds {
		if int(x) >= min(len(table), 128) {
			return false
		}
		p, t := peers[k], tags[k]
		switch kd := table[x]; kd {
		case graph.Calc:
			p, t = -1, 0
		case graph.Send:
			if p < 0 || p >= nr || t < 0 {
				return false
			}
		case graph.Recv:
			if p < graph.AnySource || p >= nr || t < graph.AnyTag {
				return false
			}
		default:
			return false
		}
		s, c, m := sizes[k], cpus[k], nics[k]
		if s < 0 || uint32(c) > graph.MaxCPU || uint32(m) > graph.MaxNIC {
			return false
		}
		kind[k], size[k], peer[k], tag[k], cpu[k], nic[k] = table[x], s, p, t, uint8(c), uint8(m)
	}
	return true
}

// checkRows returns the error of the first row of the read buffers col,
// rows i.. of batch bl, that fails ReadGraph's checks, checking them
// column by column in ReadGraph's order up to the first buffer not read
// (nil), or nil if none fails.
func (gw *GraphWindows) checkRows(bl *batchLayout, i int64, col [bufReqOff][]byte) error {
	errf := func(k int, field, format string, a ...any) error {
		return &FormatError{File: gw.name, Row: bl.first + i + int64(k), Field: field, Msg: fmt.Sprintf(format, a...)}
	}
	for k, x := range col[bufKind] {
		if int(int8(x)) < 0 || int(int8(x)) >= len(gw.kinds) || gw.kinds[x] > graph.Recv {
			return errf(k, "kind", "kind index %d is not calc, send or recv", int8(x))
		}
	}
	for k, s := range arrow.Int64Traits.CastFromBytes(col[bufSize]) {
		if s < 0 {
			return errf(k, "size", "negative size %d", s)
		}
	}
	tags := arrow.Int32Traits.CastFromBytes(col[bufTag])
	if col[bufTag] == nil {
		return nil
	}
	nr := int32(gw.numRanks)
	for k, p := range arrow.Int32Traits.CastFromBytes(col[bufPeer]) {
		t := tags[k]
		switch gw.kinds[col[bufKind][k]] {
		case graph.Send:
			if p < 0 || p >= nr {
				return errf(k, "peer", "peer %d is not a rank (0..%d)", p, nr-1)
			}
			if t < 0 {
				return errf(k, "tag", "send tag %d is negative", t)
			}
		case graph.Recv:
			if p < graph.AnySource || p >= nr {
				return errf(k, "peer", "peer %d is not a rank (0..%d) or -1 (any source)", p, nr-1)
			}
			if t < graph.AnyTag {
				return errf(k, "tag", "recv tag %d is below -1 (any tag)", t)
			}
		}
	}
	for _, c := range []struct {
		buf   int
		field string
		max   int32
	}{{bufCPU, "cpu", graph.MaxCPU}, {bufNIC, "nic", graph.MaxNIC}} {
		for k, v := range arrow.Int32Traits.CastFromBytes(col[c.buf]) {
			if v < 0 || v > c.max {
				return errf(k, c.field, "%s %d outside 0..%d", c.field, v, c.max)
			}
		}
	}
	return nil
}

// deps appends the requires, then the irequires, of rows i..i+n of batch
// bl to the window's dependencies.
func (gw *GraphWindows) deps(bl *batchLayout, i, n, rankRow, rankOps int64) error {
	var off, vals [2][]int32
	for l, c := range [2]int{bufReqOff, bufIreqOff} {
		o, err := gw.int32s(bl, c, i, n+1)
		if err != nil {
			return err
		}
		for k := int64(0); k < n; k++ {
			if o[k] > o[k+1] || o[k] < 0 {
				return &FormatError{File: gw.name, Row: bl.first + i + k, Field: depField[l], Msg: "list offsets decrease"}
			}
		}
		if vals[l], err = gw.int32s(bl, c+1, int64(o[0]), int64(o[n]-o[0])); err != nil {
			return err
		}
		off[l] = o
	}
	m := len(vals[0]) + len(vals[1])
	ops, kinds := slices.Grow(gw.depOp, m), slices.Grow(gw.depKind, m)
	starts := slices.Grow(gw.depStart, int(n))
	ro, io, rv, iv := off[0], off[1], vals[0], vals[1]
	for k := range n {
		self := int32(bl.first + i + k - rankRow)
		for _, d := range rv[ro[k]-ro[0] : ro[k+1]-ro[0]] {
			if d < 0 || d == self || int64(d) >= rankOps {
				return gw.depError(bl.first+i+k, 0, d, rankOps)
			}
			ops, kinds = append(ops, d), append(kinds, graph.Requires)
		}
		if len(iv) == 0 {
			starts = append(starts, int32(len(ops)))
			continue
		}
		for _, d := range iv[io[k]-io[0] : io[k+1]-io[0]] {
			if d < 0 || d == self || int64(d) >= rankOps {
				return gw.depError(bl.first+i+k, 1, d, rankOps)
			}
			ops, kinds = append(ops, d), append(kinds, graph.Irequires)
		}
		starts = append(starts, int32(len(ops)))
	}
	gw.depOp, gw.depKind, gw.depStart = ops, kinds, starts
	return nil
}

// depError reports dependency d of row, in list l (requires, irequires),
// which is not another operation of the row's rank of rankOps operations.
func (gw *GraphWindows) depError(row int64, l int, d int32, rankOps int64) error {
	return &FormatError{File: gw.name, Row: row, Field: depField[l], Msg: fmt.Sprintf("operation index %d: not another operation of the rank's %d", d, rankOps)}
}

// depField names the dependency lists' columns.
var depField = [2]string{"requires", "irequires"}
