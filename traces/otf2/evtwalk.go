package otf2

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
)

// The on-disk layout of an OTF2 event file, as the OTF2 library (3.0)
// writes and reads it (its OTF2_Buffer.c, OTF2_EvtReader.c and the
// generated OTF2_EvtReader_inc.c):
//
//   - The file is a sequence of chunks of the archive's event chunk size;
//     the last one stops where its data stops. The library reads chunk k
//     from byte k·size into a buffer of that size, whatever the file
//     holds there: bytes the file lacks keep what the buffer held before.
//   - A chunk starts with an 18-byte header: the byte 3, the endianness
//     byte (0x42 little, 0x23 big endian: that of every multi-byte value
//     in the chunk) and two 8-byte event numbers.
//   - Then records, each an optional timestamp (the byte 5 and 8 bytes)
//     and a type byte. Type 0 ends the chunk (reading goes on in the next
//     one), type 2 ends the file (reading stops; what follows is never
//     read), type 6 is an attribute list that belongs to the next event.
//   - Ten event types (Enter, Leave, MpiIsendComplete, MpiIrecvRequest,
//     MpiRequestTest, MpiRequestCancelled, OmpFork, OmpTaskCreate,
//     OmpTaskSwitch, OmpTaskComplete) hold a single compressed integer:
//     a size byte (0xff stands for the undefined value and has no
//     payload) and that many bytes. Every other record, the attribute
//     list and types the reader does not know included, has a length
//     (one byte, or 0xff and 8 bytes) and that many bytes of payload.
//
// The library checks a record against the end of its chunk buffer, not
// against the end of the file's data: a truncated file makes it read the
// stale rest of the buffer as records, and an end-of-chunk record at the
// file's end makes it read a chunk the file does not have.
const (
	evtEndOfChunk    = 0
	evtEndOfFile     = 2
	evtChunkHeader   = 3
	evtTimestamp     = 5
	evtAttributeList = 6
	evtProgramBegin  = 83
	evtLittleEndian  = 0x42
	evtBigEndian     = 0x23
	evtHeaderSize    = 18
)

// evtSingleton reports whether records of type t hold one compressed
// integer without a length, and its largest size in bytes.
func evtSingleton(t byte) (max int, ok bool) {
	switch t {
	case 12, 13, 24: // Enter, Leave (region), OmpFork (thread count): uint32
		return 4, true
	case 16, 17, 20, 21, 28, 29, 30: // request and task ids: uint64
		return 8, true
	}
	return 0, false
}

// Definition files, local (LOCATION.def) and global (the anchor's .def),
// have the same chunks, with the archive's definition chunk size, and
// records without timestamps, each with a length. The library sizes a
// local MappingTable's ID map, and a global Group's member list, by the
// count the record announces before it reads the entries.
const (
	defMappingTable = 5
	defGroup        = 18
)

// fileKind is the kind of an OTF2 file the walk reads.
type fileKind uint8

const (
	eventFile fileKind = iota
	localDefFile
	globalDefFile
)

func (k fileKind) String() string {
	return [...]string{"event file", "local definitions file", "global definitions file"}[k]
}

// evtError is a structural defect of an event or definitions file.
type evtError struct {
	msg  string
	kind fileKind
}

func (e *evtError) Error() string { return e.msg + ": a truncated or corrupted " + e.kind.String() }

// evtWalker walks the chunks of one file of its kind, counting the
// events of an event file.
type evtWalker struct {
	size   int64 // bytes in the file
	kind   fileKind
	events uint64
}

// fail returns the structural error msg of the walked file.
func (w *evtWalker) fail(format string, a ...any) error {
	return &evtError{msg: fmt.Sprintf(format, a...), kind: w.kind}
}

// walkEventBytes checks the structure of the event file data, written
// with chunks of chunkSize bytes, and returns its number of events.
func walkEventBytes(data []byte, chunkSize uint64) (uint64, error) {
	return walkChunks(evtWalker{size: int64(len(data))}, chunkSize, func(base int64) ([]byte, error) {
		return data[base:min(base+int64(chunkSize), int64(len(data)))], nil
	})
}

// walkDefBytes checks the structure of the definitions file data of kind
// (localDefFile or globalDefFile), written with chunks of chunkSize
// bytes.
func walkDefBytes(data []byte, kind fileKind, chunkSize uint64) error {
	_, err := walkChunks(evtWalker{size: int64(len(data)), kind: kind}, chunkSize, func(base int64) ([]byte, error) {
		return data[base:min(base+int64(chunkSize), int64(len(data)))], nil
	})
	return err
}

// checkFile checks the structure of the file of kind at path, as
// walkEventBytes does, reading one chunk at a time into *buf, and returns
// its number of events.
func checkFile(path string, kind fileKind, chunkSize uint64, buf *[]byte) (uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := st.Size()
	if chunkSize <= math.MaxInt32 && uint64(cap(*buf)) < min(chunkSize, uint64(size)) {
		*buf = make([]byte, min(chunkSize, uint64(size)))
	}
	return walkChunks(evtWalker{size: size, kind: kind}, chunkSize, func(base int64) ([]byte, error) {
		b := (*buf)[:min(int64(chunkSize), size-base)]
		if _, err := io.ReadFull(f, b); err != nil {
			return nil, fmt.Errorf("reading byte %d: %w", base, err)
		}
		return b, nil
	})
}

// walkChunks walks the file of w.size bytes whose chunk at byte base
// chunk returns, and returns its number of events.
func walkChunks(w evtWalker, chunkSize uint64, chunk func(base int64) ([]byte, error)) (uint64, error) {
	if chunkSize < evtHeaderSize+2 || chunkSize > math.MaxInt32 {
		return 0, fmt.Errorf("cannot be walked: the archive's chunk size %d is out of range", chunkSize)
	}
	size := w.size
	if size == 0 {
		return 0, w.fail("is empty")
	}
	for base := int64(0); ; base += int64(chunkSize) {
		if base >= size {
			return 0, w.fail("ends at byte %d after an end-of-chunk record, without an end-of-file record", size)
		}
		c, err := chunk(base)
		if err != nil {
			return 0, err
		}
		eof, err := w.chunk(c, base)
		if err != nil {
			return 0, err
		}
		if eof {
			return w.events, nil
		}
	}
}

// chunk walks the chunk c, which starts at byte base of the file: it
// reports whether the chunk ends the file (an end-of-file record).
func (w *evtWalker) chunk(c []byte, base int64) (bool, error) {
	n := len(c)
	if c[0] != evtChunkHeader {
		return false, w.fail("has %#02x at byte %d where a chunk header (0x03) starts", c[0], base)
	}
	if n < evtHeaderSize {
		return false, w.short(base, base, n)
	}
	var order binary.ByteOrder
	switch c[1] {
	case evtLittleEndian:
		order = binary.LittleEndian
	case evtBigEndian:
		order = binary.BigEndian
	default:
		return false, w.fail("has the endianness byte %#02x at byte %d (0x42 or 0x23 expected)", c[1], base+1)
	}
	for p := evtHeaderSize; ; {
		at := p // the record's first byte
		if w.kind == eventFile && p < n && c[p] == evtTimestamp {
			p += 9
		}
		if p >= n {
			return false, w.short(base, base+int64(at), n)
		}
		t := c[p]
		p++
		switch t {
		case evtEndOfChunk:
			return false, nil
		case evtEndOfFile:
			return true, nil
		}
		var err error
		if max, ok := evtSingleton(t); ok && w.kind == eventFile {
			p, err = w.singleton(c, p, max, base, at)
		} else {
			p, err = w.record(c, p, order, base, at)
		}
		if err != nil {
			return false, err
		}
	}
}

// singleton walks the value of the singleton record at byte at of the
// chunk c (from base), of at most max bytes, which starts at c[p], and
// returns where the record ends.
func (w *evtWalker) singleton(c []byte, p, max int, base int64, at int) (int, error) {
	if p >= len(c) {
		return 0, w.short(base, base+int64(at), len(c))
	}
	s := int(c[p])
	if s == 0xff {
		s = 0
	}
	if s > max {
		return 0, w.fail("has a record of type %d at byte %d whose value claims %d bytes (at most %d)", c[p-1], base+int64(at), s, max)
	}
	if p+1+s > len(c) {
		return 0, w.short(base, base+int64(at), len(c))
	}
	w.events++
	return p + 1 + s, nil
}

// record walks the record at byte at of the chunk c (from base), whose
// length starts at c[p] (its type is c[p-1]), checks the counts in its
// payload that size the library's allocations, and returns where the
// record ends.
func (w *evtWalker) record(c []byte, p int, order binary.ByteOrder, base int64, at int) (int, error) {
	n, t := len(c), c[p-1]
	if p >= n {
		return 0, w.short(base, base+int64(at), n)
	}
	l := uint64(c[p])
	p++
	if l == 0xff {
		if p+8 > n {
			return 0, w.short(base, base+int64(at), n)
		}
		l = order.Uint64(c[p:])
		p += 8
	}
	if l > uint64(n-p) {
		return 0, w.short(base, base+int64(at), n)
	}
	body := c[p : p+int(l)]
	switch {
	case w.kind == localDefFile:
		if t == defMappingTable && !idMapFits(body, order) {
			return 0, w.fail("has a MappingTable record at byte %d whose entries do not fit in its %d bytes", base+int64(at), l)
		}
		return p + int(l), nil
	case w.kind == globalDefFile:
		if t == defGroup && !groupFits(body, order) {
			return 0, w.fail("has a Group record at byte %d whose members do not fit in its %d bytes", base+int64(at), l)
		}
		return p + int(l), nil
	case t == evtAttributeList:
		// The library reads the announced number of attributes and adds
		// each to a list: more than the record's bytes can hold is
		// corruption. The list belongs to the next event.
		cnt, _, ok := compressed(body, order)
		if !ok || cnt > l {
			return 0, w.fail("has an attribute list at byte %d announcing more attributes than its %d bytes hold", base+int64(at), l)
		}
		return p + int(l), nil
	case t == evtProgramBegin:
		// The library allocates the announced number of arguments (4
		// bytes each) before it reads them: they must fit in the record.
		if !programBeginFits(body, order) {
			return 0, w.fail("has a ProgramBegin record at byte %d whose arguments do not fit in its %d bytes", base+int64(at), l)
		}
	}
	w.events++
	return p + int(l), nil
}

// short is the error for the record at byte at that runs past the data of
// its chunk (n bytes from base): past the file's end, or past a full
// chunk.
func (w *evtWalker) short(base, at int64, n int) error {
	if base+int64(n) >= w.size {
		return w.fail("ends inside the record at byte %d (the file has %d bytes)", at, w.size)
	}
	return w.fail("has a record at byte %d that runs past the end of its chunk at byte %d", at, base+int64(n))
}

// compressed decodes an OTF2 compressed unsigned integer at the start of
// b: a size byte and that many low-order bytes (0xff alone is the
// undefined value, all ones). It returns the value and its length in
// bytes.
func compressed(b []byte, order binary.ByteOrder) (uint64, int, bool) {
	if len(b) == 0 {
		return 0, 0, false
	}
	s := int(b[0])
	if s == 0xff {
		return math.MaxUint64, 1, true
	}
	if s > 8 || 1+s > len(b) {
		return 0, 0, false
	}
	var v [8]byte
	if order == binary.BigEndian {
		copy(v[8-s:], b[1:1+s])
	} else {
		copy(v[:s], b[1:1+s])
	}
	return order.Uint64(v[:]), 1 + s, true
}

// programBeginFits reports whether the payload b of a ProgramBegin
// record holds its program name and all the arguments it announces.
func programBeginFits(b []byte, order binary.ByteOrder) bool {
	_, k, ok := compressed(b, order)
	if !ok {
		return false
	}
	b = b[k:]
	nargs, k, ok := compressed(b, order)
	if !ok || nargs == math.MaxUint64 || nargs > uint64(len(b)) {
		return false
	}
	b = b[k:]
	for i := uint64(0); i < nargs; i++ {
		_, k, ok := compressed(b, order)
		if !ok {
			return false
		}
		b = b[k:]
	}
	return true
}

// idMapFits reports whether the payload b of a MappingTable record (a
// mapping type, then an ID map: a count, a mode, and the count's entries,
// dense, or pairs, sparse) holds the entries it announces, each at least
// a byte.
func idMapFits(b []byte, order binary.ByteOrder) bool {
	if len(b) < 1 {
		return false
	}
	size, k, ok := compressed(b[1:], order)
	if !ok || 1+k >= len(b) {
		return false
	}
	mode, rest := b[1+k], uint64(len(b)-2-k)
	switch mode {
	case 0: // dense: one global id per local one
		return size <= rest
	case 1: // sparse: local and global id pairs
		return size <= rest/2
	}
	return false
}

// groupFits reports whether the payload b of a global Group record (its
// id, name, a type byte, then a count of members) holds the members it
// announces, each at least a byte.
func groupFits(b []byte, order binary.ByteOrder) bool {
	for i := 0; i < 2; i++ { // self, name
		_, k, ok := compressed(b, order)
		if !ok {
			return false
		}
		b = b[k:]
	}
	if len(b) < 1 {
		return false
	}
	n, k, ok := compressed(b[1:], order)
	return ok && n <= uint64(len(b)-1-k)
}
