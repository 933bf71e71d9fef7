package dumpi

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// magic opens every .bin file and its index; footMagic opens the footer.
const (
	magic     uint64 = 0xffaadd44554d5049 // 0xffaadd44 then "UMPI"
	footMagic uint64 = 0xf007fee7
)

// Record mask bits (the byte after the function id).
const (
	maskStatus = 0x03 // statuses are stored
	maskCPU    = 0x04 // CPU start and stop times are stored
	maskWall   = 0x08 // wall-clock start and stop times are stored
	maskThread = 0x40 // a 2-byte thread index follows the mask
	maskPerf   = 0x80 // hardware-counter values follow the times
)

// Function ids with a meaning outside MPI.
const (
	idFunctionEnter = 291 // compiler-instrumented function entry
	idFunctionExit  = 292
	idEndOfStream   = 293 // written just before the header
	numFuncSlots    = 291 // call-count slots of the footer (ids 0..290)
)

// version is the tracer's version as major, minor, patch.
type version [3]uint8

// atLeast reports whether v is a, b, c or newer.
func (v version) atLeast(a, b, c uint8) bool {
	if v[0] != a {
		return v[0] > a
	}
	if v[1] != b {
		return v[1] > b
	}
	return v[2] >= c
}

func (v version) String() string { return fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2]) }

// binFile is one rank's .bin file with its tables loaded. Only the tables
// (header, datatype sizes, function labels, footer) are held in memory;
// the records are read sequentially through a bounded buffer.
type binFile struct {
	path string
	f    *os.File
	size int64

	// Offsets of the sections, from the index at the end of the file
	// (0: absent).
	sizeLbl, addrLbl, perfLbl, header, body, footer, keyval int64

	ver       version
	startTime int64
	hostname  string
	typeSizes []int64           // size in bytes of each predefined datatype id
	funcNames map[uint64]string // instrumented function address → name
	footCalls []uint32          // per function id, as counted by the tracer (nil: no footer)
}

// openBin opens a .bin file and reads its index and tables.
func openBin(path string) (*binFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	b := &binFile{path: path, f: f, size: st.Size()}
	if err := b.readTables(); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

func (b *binFile) Close() error { return b.f.Close() }

// at reads n bytes at offset off, checking they lie inside the file.
func (b *binFile) at(off int64, n int) ([]byte, error) {
	if off < 0 || n < 0 || off > b.size || int64(n) > b.size-off {
		return nil, fmt.Errorf("offset %d: %d bytes run past the end of the file (%d bytes)", off, n, b.size)
	}
	buf := make([]byte, n)
	if _, err := b.f.ReadAt(buf, off); err != nil {
		return nil, fmt.Errorf("offset %d: %w", off, err)
	}
	return buf, nil
}

// readTables reads the index, then the header, the datatype sizes, the
// function labels and the footer.
//
// The index is the last 64 bytes: the magic, then the offsets of the
// datatype-size table, the function-label table, the counter-label
// table, the header, the body, the footer and the key-value table, each
// 8 bytes big-endian. Files older than 0.6.6 lack the first offset (and
// older ones the next two), so the magic is looked for at 64, 56, 48 and
// 40 bytes before the end.
func (b *binFile) readTables() error {
	head, err := b.at(0, 8)
	if err != nil || binary.BigEndian.Uint64(head) != magic {
		return errors.New("not a DUMPI trace: the file does not start with DUMPI's magic bytes ff aa dd 44 55 4d 50 49")
	}
	var idx []byte
	for _, n := range []int{64, 56, 48, 40} {
		if int64(n) > b.size-8 {
			continue
		}
		buf, err := b.at(b.size-int64(n), n)
		if err != nil {
			return err
		}
		if binary.BigEndian.Uint64(buf) == magic {
			idx = buf[8:]
			break
		}
	}
	if idx == nil {
		return errors.New("no index at the end of the file (truncated trace?)")
	}
	offs := make([]int64, len(idx)/8)
	for i := range offs {
		offs[i] = int64(binary.BigEndian.Uint64(idx[8*i:]))
		if offs[i] < 0 || offs[i] >= b.size {
			return fmt.Errorf("index entry %d points to offset %d, outside the file (%d bytes)", i, offs[i], b.size)
		}
	}
	// Missing leading entries are the newest tables.
	for len(offs) < 7 {
		offs = append([]int64{0}, offs...)
	}
	b.sizeLbl, b.addrLbl, b.perfLbl, b.header, b.body, b.footer, b.keyval = offs[0], offs[1], offs[2], offs[3], offs[4], offs[5], offs[6]
	if b.body < 8 {
		return fmt.Errorf("index gives body offset %d", b.body)
	}
	if err := b.readHeader(); err != nil {
		return fmt.Errorf("header at offset %d: %w", b.header, err)
	}
	if err := b.readTypeSizes(); err != nil {
		return fmt.Errorf("datatype sizes at offset %d: %w", b.sizeLbl, err)
	}
	if err := b.readFuncLabels(); err != nil {
		return fmt.Errorf("function labels at offset %d: %w", b.addrLbl, err)
	}
	if err := b.readFooter(); err != nil {
		return fmt.Errorf("footer at offset %d: %w", b.footer, err)
	}
	return nil
}

// section returns a bounded big-endian reader from off to the end of the
// file.
func (b *binFile) section(off int64) *decoder {
	d := &decoder{}
	d.reset(io.NewSectionReader(b.f, off, b.size-off), off, b.size-off)
	return d
}

// readHeader reads the header: version (3 bytes), start time (8 bytes,
// seconds), host and user names (2-byte length then characters), and the
// mesh coordinates and, from 0.5 on, mesh sizes of the node (each a
// 4-byte count then 4-byte values).
func (b *binFile) readHeader() error {
	if b.header == 0 {
		return nil // written by a very old tracer: version 0.0.0
	}
	d := b.section(b.header)
	for i := range b.ver {
		b.ver[i] = d.u8()
	}
	b.startTime = int64(d.u64())
	b.hostname = d.str16()
	d.str16()
	return d.err
}

// readTypeSizes reads the size of every predefined datatype: a 4-byte
// count, then one 4-byte size per datatype id. Sizes are those of the
// recording machine (a Blue Gene/P has a 4-byte MPI_LONG).
func (b *binFile) readTypeSizes() error {
	if b.sizeLbl == 0 {
		b.typeSizes = lp64Sizes[:] // before 0.6.6: assume an LP64 machine
		return nil
	}
	d := b.section(b.sizeLbl)
	n := d.count(4)
	b.typeSizes = make([]int64, 0, n)
	for range n {
		b.typeSizes = append(b.typeSizes, int64(int32(d.u32())))
	}
	return d.err
}

// readFuncLabels reads the names of compiler-instrumented functions: a
// 4-byte count, then per function its 8-byte address and its name (2-byte
// length then characters).
func (b *binFile) readFuncLabels() error {
	if b.addrLbl == 0 {
		return nil
	}
	d := b.section(b.addrLbl)
	n := d.count(10)
	b.funcNames = make(map[uint64]string, n)
	for range n {
		a := d.u64()
		b.funcNames[a] = d.str16()
	}
	return d.err
}

// readFooter reads the footer: its magic (8 bytes), then for every
// function slot the number of calls the tracer saw, then the number it
// saw but did not record (4 bytes each). The slot count is that of the
// tracer's version: 291 for every version this package knows; other
// counts are accepted when the footer ends where the next table begins.
func (b *binFile) readFooter() error {
	if b.footer == 0 {
		return nil
	}
	d := b.section(b.footer)
	if m := d.u64(); d.err == nil && m != footMagic {
		return fmt.Errorf("footer magic %#x, want %#x", m, footMagic)
	}
	slots := numFuncSlots
	if rest := d.left; rest < int64(8*slots) {
		return fmt.Errorf("footer needs %d bytes, %d left", 8*slots, rest)
	}
	b.footCalls = make([]uint32, slots)
	for i := range b.footCalls {
		b.footCalls[i] = d.u32()
	}
	return d.err
}

// lp64Sizes are the predefined datatype sizes of an LP64 machine (x86-64
// Linux), by datatype id, for files older than the datatype-size table:
// error, null, char, signed char, unsigned char, byte, wchar, short,
// unsigned short, int, unsigned, long, unsigned long, float, double, long
// double, long long int, unsigned long long, long long, packed, lb, ub,
// float+int, double+int, long+int, short+int, 2 int, long double+int
// (the sizes of the parts, as the tracer records them on x86-64).
var lp64Sizes = [firstUserType]int64{0, 0, 1, 1, 1, 1, 4, 2, 2, 4, 4, 8, 8, 4, 8, 16, 8, 8, 8, 1, 0, 0, 8, 12, 12, 6, 8, 20}

// decoder reads big-endian values from a bounded section of a file. The
// first error sticks: later reads return zeros. Every length read from the
// file is checked against the bytes left before anything is allocated.
type decoder struct {
	r    *bufio.Reader
	off  int64 // file offset of the next byte
	left int64 // bytes left in the section
	err  error
	buf  [8]byte
}

func (d *decoder) reset(r io.Reader, off, n int64) {
	if d.r == nil {
		d.r = bufio.NewReaderSize(r, 64<<10)
	} else {
		d.r.Reset(r)
	}
	d.off, d.left, d.err = off, n, nil
}

func (d *decoder) fail(format string, a ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("offset %d: %s", d.off, fmt.Sprintf(format, a...))
	}
}

func (d *decoder) read(n int) []byte {
	if d.err != nil {
		return d.buf[:n:n]
	}
	if int64(n) > d.left {
		d.fail("%d bytes needed, %d left (truncated trace?)", n, d.left)
		clear(d.buf[:n])
		return d.buf[:n:n]
	}
	if _, err := io.ReadFull(d.r, d.buf[:n]); err != nil {
		d.fail("%v", err)
		clear(d.buf[:n])
	}
	d.off += int64(n)
	d.left -= int64(n)
	return d.buf[:n:n]
}

func (d *decoder) u8() uint8   { return d.read(1)[0] }
func (d *decoder) u16() uint16 { return binary.BigEndian.Uint16(d.read(2)) }
func (d *decoder) u32() uint32 { return binary.BigEndian.Uint32(d.read(4)) }
func (d *decoder) u64() uint64 { return binary.BigEndian.Uint64(d.read(8)) }

// skip discards n bytes.
func (d *decoder) skip(n int64) {
	if d.err != nil {
		return
	}
	if n < 0 || n > d.left {
		d.fail("%d bytes needed, %d left (corrupt length?)", n, d.left)
		return
	}
	if _, err := d.r.Discard(int(n)); err != nil {
		d.fail("%v", err)
		return
	}
	d.off += n
	d.left -= n
}

// count reads a 4-byte element count and checks that count elements of
// at least elem bytes each fit in what is left.
func (d *decoder) count(elem int64) int {
	v := int64(int32(d.u32()))
	if d.err != nil {
		return 0
	}
	if v < 0 {
		d.fail("negative count %d", v)
		return 0
	}
	if elem > 0 && v > d.left/elem {
		d.fail("count %d of %d-byte entries exceeds the %d bytes left (corrupt length?)", v, elem, d.left)
		return 0
	}
	return int(v)
}

// str16 reads a string stored as a 2-byte length then its characters.
func (d *decoder) str16() string {
	n := int64(d.u16())
	if d.err != nil {
		return ""
	}
	if n > d.left {
		d.fail("string of %d bytes exceeds the %d bytes left", n, d.left)
		return ""
	}
	s := make([]byte, n)
	if _, err := io.ReadFull(d.r, s); err != nil {
		d.fail("%v", err)
		return ""
	}
	d.off += n
	d.left -= n
	return string(s)
}
