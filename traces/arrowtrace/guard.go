package arrowtrace

import (
	"encoding/binary"
	"errors"
	"io"
)

// arrow-go trusts the vector lengths in a file's flatbuffer metadata and
// allocates them before checking them against the data, so a corrupt file
// can make it request terabytes and abort the process. checkFooter walks
// the footer's schema first and rejects any vector that cannot fit in the
// footer's bytes.

var errCorrupt = errors.New("corrupt Arrow file footer")

type fb struct{ b []byte }

func (f fb) u32(pos int) (int, bool) {
	if pos < 0 || pos+4 > len(f.b) {
		return 0, false
	}
	return int(binary.LittleEndian.Uint32(f.b[pos:])), true
}

// field returns the position of field i of the table at t, or 0 if absent.
func (f fb) field(t, i int) (int, bool) {
	if t < 0 || t+4 > len(f.b) {
		return 0, false
	}
	vt := t - int(int32(binary.LittleEndian.Uint32(f.b[t:])))
	if vt < 0 || vt+4 > len(f.b) {
		return 0, false
	}
	vsize := int(binary.LittleEndian.Uint16(f.b[vt:]))
	at := vt + 4 + 2*i
	if at+2 > vt+vsize || at+2 > len(f.b) {
		return 0, true // field not present in this (older) table
	}
	off := int(binary.LittleEndian.Uint16(f.b[at:]))
	if off == 0 {
		return 0, true
	}
	return t + off, t+off < len(f.b)
}

// ref follows the offset stored at pos.
func (f fb) ref(pos int) (int, bool) {
	o, ok := f.u32(pos)
	if !ok || pos+o >= len(f.b) {
		return 0, false
	}
	return pos + o, true
}

// vector returns the start and length of the vector field i of table t,
// checking that n elements of elemSize bytes fit.
func (f fb) vector(t, i, elemSize int) (start, n int, ok bool) {
	p, ok := f.field(t, i)
	if !ok {
		return 0, 0, false
	}
	if p == 0 {
		return 0, 0, true
	}
	v, ok := f.ref(p)
	if !ok {
		return 0, 0, false
	}
	n, ok = f.u32(v)
	if !ok || n > (len(f.b)-v-4)/elemSize {
		return 0, 0, false
	}
	return v + 4, n, true
}

func (f fb) checkField(t, depth int) bool {
	if depth > 64 {
		return false
	}
	if _, _, ok := f.vector(t, 6, 4); !ok { // custom_metadata
		return false
	}
	start, n, ok := f.vector(t, 5, 4) // children
	if !ok {
		return false
	}
	for k := 0; k < n; k++ {
		c, ok := f.ref(start + 4*k)
		if !ok || !f.checkField(c, depth+1) {
			return false
		}
	}
	return true
}

// checkFooter validates the schema vectors in the footer of an Arrow IPC
// file read through r.
func checkFooter(r io.ReaderAt, size int64) error {
	if size < 6+4+6 {
		return errCorrupt
	}
	var tail [10]byte
	if _, err := r.ReadAt(tail[:], size-10); err != nil {
		return err
	}
	flen := int64(int32(binary.LittleEndian.Uint32(tail[:4])))
	if string(tail[4:]) != "ARROW1" || flen <= 0 || flen > size-16 {
		return errCorrupt
	}
	buf := make([]byte, flen)
	if _, err := r.ReadAt(buf, size-10-flen); err != nil {
		return err
	}
	f := fb{buf}
	root, ok := f.u32(0)
	if !ok {
		return errCorrupt
	}
	for _, vf := range []struct{ field, size int }{{2, 24}, {3, 24}, {4, 4}} { // dictionaries, record batches, metadata
		if _, _, ok := f.vector(root, vf.field, vf.size); !ok {
			return errCorrupt
		}
	}
	sp, ok := f.field(root, 1)
	if !ok || sp == 0 {
		return errCorrupt
	}
	if !f.checkSchema(sp) {
		return errCorrupt
	}
	return nil
}

// checkSchema validates the Schema table referenced from position sp.
func (f fb) checkSchema(sp int) bool {
	schema, ok := f.ref(sp)
	if !ok {
		return false
	}
	if _, _, ok := f.vector(schema, 2, 4); !ok { // custom_metadata
		return false
	}
	if _, _, ok := f.vector(schema, 3, 8); !ok { // features
		return false
	}
	start, n, ok := f.vector(schema, 1, 4) // fields
	if !ok {
		return false
	}
	for k := 0; k < n; k++ {
		c, ok := f.ref(start + 4*k)
		if !ok || !f.checkField(c, 0) {
			return false
		}
	}
	return true
}

// checkStreamSchema validates the first message of the Arrow IPC stream
// of size bytes read through r, which must be its schema, as checkFooter
// does for files.
func checkStreamSchema(r io.ReaderAt, size int64) error {
	var head [8]byte
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return errCorrupt
	}
	mlen := int64(int32(binary.LittleEndian.Uint32(head[4:])))
	if mlen <= 0 || mlen > size-8 {
		return errCorrupt
	}
	buf := make([]byte, mlen)
	if _, err := r.ReadAt(buf, 8); err != nil {
		return errCorrupt
	}
	f := fb{buf}
	root, ok := f.u32(0)
	if !ok {
		return errCorrupt
	}
	if _, _, ok := f.vector(root, 4, 4); !ok { // the message's custom_metadata
		return errCorrupt
	}
	tp, ok := f.field(root, 1) // header_type: 1 is Schema
	if !ok || tp == 0 || tp >= len(buf) || buf[tp] != 1 {
		return errors.New("the stream does not start with a schema")
	}
	hp, ok := f.field(root, 2)
	if !ok || hp == 0 || !f.checkSchema(hp) {
		return errCorrupt
	}
	return nil
}

// sizer is what the decoders read from: an io.ReaderAt that knows its size.
type sizer interface {
	io.Reader
	io.ReaderAt
	io.Seeker
}

func sizeOf(r sizer) (int64, error) {
	n, err := r.Seek(0, io.SeekEnd)
	if err != nil {
		return 0, err
	}
	_, err = r.Seek(0, io.SeekStart)
	return n, err
}
