package dumpi

import "testing"

// layoutArgs gives test values for the fields of a layout (see funcInfo):
// every integer 2, every array two entries.
func layoutArgs(layout string) []any {
	var a []any
	for _, c := range layout {
		switch c {
		case 'b':
			a = append(a, u8(1))
		case 'h':
			a = append(a, h16(2))
		case 'i':
			a = append(a, i32(2))
		case 'l':
			a = append(a, u64(7))
		case 'I':
			a = append(a, ints{0, 1})
		case 'H':
			a = append(a, hs{9, 9})
		case 'B':
			a = append(a, str("\x01\x01"))
		case 'C':
			a = append(a, str("ab"))
		case 'S':
			a = append(a, strs{"ab", "cd"})
		case 'T':
			a = append(a, i32(2), strs{"ab", "cd"}, strs{"ef", "gh"})
		case 'J':
			a = append(a, rngs{{0, 1, 1}, {0, 1, 1}})
		case 's':
			a = append(a, sts(2))
		}
	}
	return a
}

// everyFunction writes one record of each of the 291 functions, with the
// root's extra fields where a function has them (every rank field is 2,
// so the caller is the root).
//
// The layouts are the reader's own (funcs), so this test alone is
// circular; the file it writes was also read by sst-dumpi's dumpi2ascii
// (built from its sources, outside this repository), which printed the
// same 291 functions in order with every field in place: the layouts
// agree with the reference reader's.
func everyFunction() (*binWriter, []uint16) {
	w := newBinWriter([3]byte{1, 1, 0})
	var ids []uint16
	for id, f := range funcs {
		if f.name == "" {
			continue
		}
		layout := f.layout
		switch id {
		case idGather, idScatter:
			layout += "ih"
		case idGatherv:
			layout = "iiihihIIh"
		case idScatterv:
			layout += "II"
		case idCommSpawn:
			layout += "CSihI"
		case idCommSpawnMultiple:
			layout += "iSTIHI"
		}
		w.call(uint16(id), 10, 10, layoutArgs(layout)...)
		ids = append(ids, uint16(id))
	}
	return w, ids
}

func TestEveryFunction(t *testing.T) {
	w, ids := everyFunction()
	meta := writeTrace(t, []*binWriter{w})
	b, err := openBin(meta[:len(meta)-len(".meta")] + "-0000.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	s := newStream(b)
	n := 0
	for s.next() {
		if s.rec.id != ids[n] {
			t.Fatalf("record %d: %s, want %s", n, s.rec.name(), funcName(ids[n]))
		}
		n++
	}
	if s.d.err != nil || n != len(ids) {
		t.Fatalf("read %d of %d records: %v", n, len(ids), s.d.err)
	}
	// Read as a trace, the file stops at the first unsupported call.
	if _, err := Read(meta, Options{}); err == nil {
		t.Error("no error for MPI_Intercomm_create and friends")
	}
}
