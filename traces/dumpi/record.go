package dumpi

import "fmt"

// record is one decoded record of a rank's stream. Its slices are reused
// by the next record.
type record struct {
	id      uint16
	off     int64 // file offset of the function id
	mask    uint8
	thread  uint16
	cpu     [2]int64 // start, stop in ns (valid when mask&maskCPU)
	wall    [2]int64 // start, stop in ns (valid when mask&maskWall)
	v       []int64  // scalar fields (b, h, i, l) in layout order
	arr     [][]int32
	narr    int // arrays used in arr (I, H and J fields in layout order)
	nStatus int // statuses stored by the record
}

// array returns the k-th array field.
func (r *record) array(k int) []int32 { return r.arr[k] }

func (r *record) name() string { return funcName(r.id) }

func funcName(id uint16) string {
	if int(id) < len(funcs) && funcs[id].name != "" {
		return funcs[id].name
	}
	return fmt.Sprintf("function id %d", id)
}

// stream reads the records of one rank's body in order.
type stream struct {
	b        *binFile
	d        *decoder
	cpuOff   int64    // seconds added to the 2-byte seconds of CPU times
	wallOff  int64    // the same for wall-clock times
	wraps    [2]int64 // times the 2-byte seconds of each clock wrapped
	last     [2]int64 // each clock's previous time
	end      int64    // offset where the body ends (the header or footer)
	finished bool     // MPI_Finalize was read (older tracers end the stream there)
	rec      record
}

// newStream positions a reader at the body: two 4-byte offsets (CPU then
// wall-clock seconds subtracted from every timestamp), then the records.
func newStream(b *binFile) *stream {
	s := &stream{b: b, d: b.section(b.body)}
	s.cpuOff = int64(int32(s.d.u32()))
	s.wallOff = int64(int32(s.d.u32()))
	s.end = b.size
	for _, o := range []int64{b.header, b.footer} {
		if o > b.body && o < s.end {
			s.end = o
		}
	}
	return s
}

// next decodes the next record. It returns false at the end of the
// stream or on error (s.d.err).
//
// A record is: the 2-byte function id; a 1-byte mask; the 2-byte thread
// index when the mask says so; CPU then wall-clock start and stop times
// when the mask says so, each as 2-byte seconds (relative to the body's
// offsets) and 4-byte nanoseconds; when the mask has the counter bit, a
// 1-byte counter count and two 8-byte values (entry, exit) per counter;
// then the function's arguments (funcs). The stream ends at the
// end-of-stream id that precedes the header, at the header or footer
// offset, or, for tracers older than 0.6, with id 0 after MPI_Finalize.
func (s *stream) next() bool {
	d := s.d
	if d.err != nil || d.off >= s.end {
		return false
	}
	r := &s.rec
	r.off = d.off
	r.id = d.u16()
	if d.err != nil || r.id == idEndOfStream {
		return false
	}
	if s.finished && r.id == 0 && !s.b.ver.atLeast(0, 6, 0) {
		return false
	}
	if int(r.id) >= len(funcs) || funcs[r.id].name == "" {
		d.err = fmt.Errorf("offset %d: unknown function id %d (not a function DUMPI records)", r.off, r.id)
		return false
	}
	r.mask = d.u8()
	r.thread = 0
	if r.mask&maskThread != 0 {
		r.thread = d.u16()
	}
	if r.mask&maskCPU != 0 {
		r.cpu[0] = s.time(0)
		r.cpu[1] = s.time(0)
	}
	if r.mask&maskWall != 0 {
		r.wall[0] = s.time(1)
		r.wall[1] = s.time(1)
	}
	if r.mask&maskPerf != 0 {
		n := int64(d.u8())
		d.skip(16 * n)
	}
	r.v, r.narr, r.nStatus = r.v[:0], 0, 0
	s.decodeArgs(r)
	if d.err != nil {
		return false
	}
	if r.id == idFinalize {
		s.finished = true
	}
	return true
}

// time reads one timestamp of clock c (0: CPU, 1: wall): 2-byte seconds
// plus the body's offset, then 4-byte nanoseconds. The seconds wrap after
// 65536 s (18.2 hours): a time more than half that before the clock's
// previous one has wrapped, and the clock moves on by 65536 s.
func (s *stream) time(c int) int64 {
	off := s.cpuOff
	if c == 1 {
		off = s.wallOff
	}
	sec := int64(s.d.u16()) + off + s.wraps[c]*65536
	t := sec*1e9 + int64(s.d.u32())
	if s.last[c]-t > 32768e9 {
		s.wraps[c]++
		t += 65536e9
	}
	s.last[c] = t
	return t
}

// decodeArgs reads the arguments of r.id, including the functions whose
// fields depend on other fields or on the version:
//   - MPI_Gather and MPI_Scatter store the root's receive (send) count and
//     type only on the root, MPI_Gatherv and MPI_Scatterv the root's count
//     and displacement arrays only on the root; the caller's rank in the
//     communicator is their first field, the root their fourth (Gather,
//     Scatter), fifth (Gatherv) or sixth (Scatterv).
//   - MPI_Comm_spawn(_multiple) store the command lines only on the root.
//   - MPI_Init wrote argc twice before 0.6.2; MPI_Type_struct stored one
//     displacement instead of the array before 0.6.9 and MPI_Cart_get one
//     coordinate before 0.6.8.
func (s *stream) decodeArgs(r *record) {
	f := funcs[r.id]
	if !f.special {
		s.fields(r, f.layout)
		return
	}
	v := s.b.ver
	switch r.id {
	case idInit:
		if v.atLeast(0, 6, 2) {
			s.fields(r, "S")
		} else {
			argc := s.d.count(8) // argc, then the same again, then argc strings
			s.fields(r, "i")
			for i := 0; i < argc && s.d.err == nil; i++ {
				s.fields(r, "C")
			}
		}
	case idGather, idScatter:
		s.fields(r, "iihih")
		if r.v[0] == r.v[3] {
			s.fields(r, "ih")
		}
	case idGatherv:
		s.fields(r, "iiihih")
		if r.v[0] == r.v[4] {
			s.fields(r, "II")
		}
		s.fields(r, "h")
	case idScatterv:
		s.fields(r, "iihihih")
		if r.v[0] == r.v[5] {
			s.fields(r, "II")
		}
	case idCommSpawn:
		s.fields(r, "iihh")
		if r.v[0] == r.v[1] {
			s.fields(r, "CSihI")
		}
	case idCommSpawnMultiple:
		s.fields(r, "iiihh")
		if r.v[1] == r.v[2] {
			s.fields(r, "iSTIHI")
		}
	case idTypeStruct:
		if v.atLeast(0, 6, 9) {
			s.fields(r, "iIIHh")
		} else {
			s.fields(r, "iIiHh")
		}
	case idCartGet:
		if v.atLeast(0, 6, 8) {
			s.fields(r, "ihiIII")
		} else {
			s.fields(r, "ihiIIi")
		}
	default:
		s.fields(r, f.layout)
	}
}

// nextArray returns the next array slot of r, emptied.
func (r *record) nextArray() *[]int32 {
	if r.narr == len(r.arr) {
		r.arr = append(r.arr, nil)
	}
	a := &r.arr[r.narr]
	*a = (*a)[:0]
	r.narr++
	return a
}

// fields reads the fields of layout (see funcInfo) into r.
func (s *stream) fields(r *record, layout string) {
	d := s.d
	for i := 0; i < len(layout) && d.err == nil; i++ {
		switch layout[i] {
		case 'b':
			r.v = append(r.v, int64(d.u8()))
		case 'h':
			r.v = append(r.v, int64(d.u16()))
		case 'i':
			r.v = append(r.v, int64(int32(d.u32())))
		case 'l':
			r.v = append(r.v, int64(d.u64()))
		case 'I':
			a := r.nextArray()
			n := d.count(4)
			for range n {
				*a = append(*a, int32(d.u32()))
			}
		case 'H':
			a := r.nextArray()
			n := d.count(2)
			for range n {
				*a = append(*a, int32(d.u16()))
			}
		case 'J':
			a := r.nextArray()
			n := d.count(4)
			for range n {
				m := d.count(4)
				for range m {
					*a = append(*a, int32(d.u32()))
				}
			}
		case 'B', 'C':
			d.skip(int64(d.count(1)))
		case 'S':
			n := d.count(4)
			for range n {
				d.skip(int64(d.count(1)))
			}
		case 'T':
			n := d.count(4)
			for range n {
				m := d.count(4)
				for range m {
					d.skip(int64(d.count(1)))
				}
			}
		case 's':
			if r.mask&maskStatus == 0 {
				continue
			}
			size := int64(14)
			if !s.b.ver.atLeast(0, 6, 3) {
				size = 10
			}
			n := d.count(size)
			r.nStatus += n
			d.skip(int64(n) * size)
		default:
			panic("dumpi: bad layout letter " + string(layout[i])) // a bug in funcs, not bad input
		}
	}
}
