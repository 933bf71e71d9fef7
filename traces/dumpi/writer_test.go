package dumpi

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The test writer builds .bin files byte by byte from the format's
// description (see the package comment), independently of the reader's
// decoding tables: each argument is given as a Go value whose type says
// how it is stored. The files of TestWrittenRecords (4 ranks × versions
// 0.6.0, 1.0, 1.1, 8.1, 89 to 96 records each) were also read by
// sst-dumpi's dumpi2ascii, built from its sources outside this repository:
// it read every record, with the values written, in all 16 files.
type (
	u8   uint8    // 1 byte
	h16  uint16   // a 2-byte handle
	i32  int32    // 4 bytes
	u64  uint64   // 8 bytes
	ints []int32  // 4-byte length, then 4-byte values
	hs   []uint16 // 4-byte length, then 2-byte handles
	str  string   // 4-byte length, then characters
	strs []string // 4-byte count, then str values
	rngs [][3]int32
	sts  int // that many statuses (when the writer stores statuses)
)

// binWriter writes one rank's .bin file.
type binWriter struct {
	ver      [3]byte
	body     bytes.Buffer
	clock    int64 // ns, wall clock; the CPU clock runs at half its speed
	statuses bool
	counts   [numFuncSlots]uint32
	sizes    []int32 // datatype-size table (nil: none written)
	labels   map[uint64]string
}

func newBinWriter(ver [3]byte) *binWriter {
	w := &binWriter{ver: ver, statuses: true, clock: 5e9}
	// The predefined datatype sizes of an LP64 machine, but a 4-byte
	// MPI_LONG (id 11) as on a Blue Gene/P.
	w.sizes = []int32{0, 0, 1, 1, 1, 1, 4, 2, 2, 4, 4, 4, 8, 4, 8, 16, 0, 8, 8, 1, 0, 0, 8, 12, 12, 6, 8, 20}
	return w
}

func (w *binWriter) put(v any) {
	be := binary.BigEndian
	b := &w.body
	switch x := v.(type) {
	case u8:
		b.WriteByte(byte(x))
	case h16:
		b.Write(be.AppendUint16(nil, uint16(x)))
	case i32:
		b.Write(be.AppendUint32(nil, uint32(x)))
	case int:
		b.Write(be.AppendUint32(nil, uint32(int32(x))))
	case u64:
		b.Write(be.AppendUint64(nil, uint64(x)))
	case ints:
		w.put(i32(len(x)))
		for _, y := range x {
			w.put(i32(y))
		}
	case hs:
		w.put(i32(len(x)))
		for _, y := range x {
			w.put(h16(y))
		}
	case str:
		w.put(i32(len(x)))
		b.WriteString(string(x))
	case strs:
		w.put(i32(len(x)))
		for _, y := range x {
			w.put(str(y))
		}
	case rngs:
		w.put(i32(len(x)))
		for _, y := range x {
			w.put(ints(y[:]))
		}
	case sts:
		if !w.statuses {
			return
		}
		w.put(i32(x))
		for i := 0; i < int(x); i++ {
			// bytes, source, cancelled, error, and the tag from 0.6.3 on;
			// garbage values, as some tracers store.
			w.put(i32(-1606419960))
			w.put(i32(9))
			w.put(u8(0))
			w.put(u8(96))
			if w.ver[0] > 0 || w.ver[1] > 6 || w.ver[1] == 6 && w.ver[2] >= 3 {
				w.put(i32(9))
			}
		}
	default:
		panic(fmt.Sprintf("test writer: %T", v))
	}
}

// call writes a record of function id that starts gap ns after the
// previous one ended and lasts dur ns.
func (w *binWriter) call(id uint16, gap, dur int64, args ...any) {
	if int(id) < numFuncSlots-1 {
		w.counts[id]++
	}
	w.counts[numFuncSlots-1]++ // the last slot holds the total
	w.put(h16(id))
	mask := u8(maskCPU | maskWall | maskThread)
	if w.statuses {
		mask |= maskStatus
	}
	w.put(mask)
	w.put(h16(0)) // thread
	start := w.clock + gap
	stop := start + dur
	for _, t := range []int64{start / 2, stop / 2, start, stop} { // CPU, then wall
		w.put(h16(t / 1e9))
		w.put(i32(t % 1e9))
	}
	w.clock = stop
	for _, a := range args {
		w.put(a)
	}
}

// bytes finishes the file: end-of-stream, header, footer, tables, index.
func (w *binWriter) bytes() []byte {
	var f bytes.Buffer
	be := binary.BigEndian
	u32 := func(v uint32) { f.Write(be.AppendUint32(nil, v)) }
	u64 := func(v uint64) { f.Write(be.AppendUint64(nil, v)) }
	s16 := func(s string) { f.Write(be.AppendUint16(nil, uint16(len(s)))); f.WriteString(s) }
	u64(magic)
	body := int64(f.Len())
	u32(0) // CPU seconds offset
	u32(0) // wall seconds offset
	f.Write(w.body.Bytes())
	f.Write(be.AppendUint16(nil, idEndOfStream))
	header := int64(f.Len())
	f.Write(w.ver[:])
	u64(1296777956)
	s16("testhost")
	s16("tester")
	u32(0) // mesh coordinates
	if w.ver[0] > 0 || w.ver[1] > 4 {
		u32(0) // mesh sizes
	}
	footer := int64(f.Len())
	u64(footMagic)
	for _, c := range w.counts {
		u32(c)
	}
	for range w.counts {
		u32(0)
	}
	var sizeLbl int64
	if w.sizes != nil {
		sizeLbl = int64(f.Len())
		u32(uint32(len(w.sizes)))
		for _, s := range w.sizes {
			u32(uint32(s))
		}
	}
	perfLbl := int64(f.Len())
	u32(0)
	addrLbl := int64(f.Len())
	u32(uint32(len(w.labels)))
	for _, a := range slices.Sorted(maps.Keys(w.labels)) {
		u64(a)
		s16(w.labels[a])
	}
	u64(magic)
	if w.sizes != nil {
		u64(uint64(sizeLbl))
	}
	for _, o := range []int64{addrLbl, perfLbl, header, body, footer, 0} {
		u64(uint64(o))
	}
	return f.Bytes()
}

// writeTrace writes the ranks' files and a .meta file into a new folder
// and returns the .meta file's path.
func writeTrace(t testing.TB, ranks []*binWriter) string {
	t.Helper()
	dir := t.TempDir()
	v := ranks[0].ver
	m := fmt.Sprintf("hostname=testhost\nnumprocs=%d\nusername=tester\nstartime=1296777956\nfileprefix=run\nversion=%d\nsubversion=%d\nsubsubversion=%d\n",
		len(ranks), v[0], v[1], v[2])
	meta := filepath.Join(dir, "run.meta")
	if err := os.WriteFile(meta, []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	for r, w := range ranks {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("run-%04d.bin", r)), w.bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return meta
}
