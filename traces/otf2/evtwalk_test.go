package otf2

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
)

// libRead follows how the OTF2 library (3.0) reads the event file data
// (the local definitions file data with defs) forward, in its terms: chunk buffers of chunkSize bytes filled by one
// read each, records checked against the buffer's end. It reports the
// events it delivers, whether it reached the end-of-file record, and
// whether it ever looked at a byte the file did not supply (stale buffer
// memory, or past the buffer).
func libRead(data []byte, chunkSize int, defs bool) (events uint64, ok, stale bool) {
	var off, valid, pos int // chunk's file offset, bytes read into it, read position
	touch := func(i int) bool {
		if i >= valid || i >= chunkSize {
			stale = true
		}
		return !stale
	}
	load := func(at int) bool { // read the chunk at file offset at, then its header
		off, pos = at, 0
		valid = max(0, min(chunkSize, len(data)-at))
		for i := 0; i < evtHeaderSize; i++ {
			if !touch(i) {
				return false
			}
		}
		pos = evtHeaderSize
		return data[off] == evtChunkHeader && (data[off+1] == evtLittleEndian || data[off+1] == evtBigEndian)
	}
	at := func(i int) byte { return data[off+i] }
	// guaranteeRecord: a length and a payload, with room for a byte
	// after it in the buffer.
	guaranteeRecord := func() (int, bool) {
		if chunkSize-pos <= 1 || !touch(pos) {
			return 0, false
		}
		l := uint64(at(pos))
		pos++
		if l == 0xff {
			if chunkSize-pos <= 8 {
				return 0, false
			}
			for i := 0; i < 8; i++ {
				if !touch(pos + i) {
					return 0, false
				}
			}
			if at(1) == evtBigEndian {
				l = binary.BigEndian.Uint64(data[off+pos:])
			} else {
				l = binary.LittleEndian.Uint64(data[off+pos:])
			}
			pos += 8
		}
		if uint64(chunkSize-pos) <= l {
			return 0, false
		}
		for i := 0; i < int(l); i++ {
			if !touch(pos + i) {
				return 0, false
			}
		}
		return int(l), true
	}
	if !load(0) {
		return events, false, stale
	}
	for {
		if pos >= chunkSize || !touch(pos) {
			return events, false, stale
		}
		if !defs && at(pos) == evtTimestamp {
			for i := 1; i <= 8; i++ {
				if !touch(pos + i) {
					return events, false, stale
				}
			}
			pos += 9
		}
		if chunkSize-pos < 1 || !touch(pos) {
			return events, false, stale
		}
		t := at(pos)
		pos++
		switch t {
		case evtEndOfChunk:
			if !load(off + chunkSize) {
				return events, false, stale
			}
			continue
		case evtEndOfFile:
			return events, true, false
		}
		if max, single := evtSingleton(t); single && !defs {
			if chunkSize-pos <= 1 || !touch(pos) {
				return events, false, stale
			}
			s := int(at(pos))
			if s == 0xff {
				s = 0
			}
			if s > 8 || chunkSize-pos <= s+1 || s > max {
				return events, false, stale
			}
			for i := 1; i <= s; i++ {
				if !touch(pos + i) {
					return events, false, stale
				}
			}
			pos += 1 + s
			events++
			continue
		}
		l, good := guaranteeRecord()
		if !good {
			return events, false, stale
		}
		pos += l
		if defs || t != evtAttributeList {
			events++
		}
	}
}

// sharedDir is the folder of shared inputs.
func sharedDir(t *testing.T) string {
	if s := os.Getenv("CAPSIM_SHARED"); s != "" {
		return s
	}
	return filepath.Join(testenv.ModuleRoot(t), "..", "shared")
}

// allEventFiles returns the event files of the OTF2 traces in the shared
// traces folder and in testdata (all written with 1 MiB event chunks),
// or their local definitions files (ext ".def", each smaller than its
// chunk).
func allEventFiles(t *testing.T, ext string) []string {
	var files []string
	for _, pat := range []string{filepath.Join(sharedDir(t), "traces/otf2/*/traces/*"+ext), "testdata/dialects/*/traces/*" + ext} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Skip("no OTF2 event files")
	}
	return files
}

// TestWalkEventFiles walks every event file at hand: each is accepted,
// with the events the library delivers, and each of its truncations is
// refused as one.
func TestWalkEventFiles(t *testing.T) {
	for _, f := range allEventFiles(t, ".evt") {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n, err := walkEventBytes(data, 1<<20)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		want, ok, stale := libRead(data, 1<<20, false)
		if !ok || stale || n != want {
			t.Errorf("%s: walk counts %d events, the library's reading %d (ok %v, stale %v)", f, n, want, ok, stale)
		}
		end := endOfFileAt(data, func(b []byte) error { _, err := walkEventBytes(b, 1<<20); return err })
		step := 1 // every cut of a small file, a dense sample of a large one
		if len(data) > 4096 {
			step = 7
		}
		for cut := 0; cut < len(data); cut += step {
			if cut+64 > len(data) {
				step = 1
			}
			_, err := walkEventBytes(data[:cut], 1<<20)
			if cut > end {
				// What follows the end-of-file record is never read.
				if err != nil {
					t.Errorf("%s cut at %d after its end-of-file record at %d: %v", f, cut, end, err)
				}
				continue
			}
			var ee *evtError
			if !errors.As(err, &ee) {
				t.Errorf("%s cut at %d of %d: accepted (%v)", f, cut, len(data), err)
				break
			}
			if cut > 0 && !strings.Contains(err.Error(), "ends inside") {
				t.Errorf("%s cut at %d: %v", f, cut, err)
			}
		}
	}
}

// endOfFileAt returns the offset of the end-of-file record of the
// one-chunk file data (the last byte 2 that walk accepts data up to).
func endOfFileAt(data []byte, walk func([]byte) error) int {
	for i := len(data) - 1; i >= 0; i-- {
		if data[i] != evtEndOfFile {
			continue
		}
		if walk(data[:i+1]) == nil {
			return i
		}
	}
	return len(data)
}

// TestWalkDefFiles walks every definitions file at hand, local and
// global: each is accepted, and each of its cuts before its end-of-file
// record refused (a dense sample of a large one's).
func TestWalkDefFiles(t *testing.T) {
	files := allEventFiles(t, ".def")
	globals, _ := filepath.Glob(filepath.Join(sharedDir(t), "traces/otf2/*/traces.def"))
	dialects, _ := filepath.Glob("testdata/dialects/*/traces.def")
	globals = append(globals, dialects...)
	for _, f := range append(files, globals...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		kind := localDefFile
		if filepath.Base(f) == "traces.def" {
			kind = globalDefFile
		}
		if err := walkDefBytes(data, kind, 1<<22); err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		end := endOfFileAt(data, func(b []byte) error { return walkDefBytes(b, kind, 1<<22) })
		step := 1
		if len(data) > 4096 {
			step = 7
		}
		for cut := 0; cut <= end; cut += step {
			err := walkDefBytes(data[:cut], kind, 1<<22)
			if err == nil || !strings.HasSuffix(err.Error(), "a truncated or corrupted "+kind.String()) {
				t.Errorf("%s cut at %d of %d: %v", f, cut, len(data), err)
				break
			}
		}
	}
	t.Logf("%d local and %d global definitions files", len(files), len(globals))
}

// TestWalkEventsBroken checks the walk's refusals of broken files built
// by hand, each with what it names.
func TestWalkEventsBroken(t *testing.T) {
	head := []byte{evtChunkHeader, evtLittleEndian, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	file := func(recs ...byte) []byte { return append(append([]byte{}, head...), recs...) }
	enter := []byte{evtTimestamp, 1, 0, 0, 0, 0, 0, 0, 0, 12, 1, 3}
	for _, tc := range []struct {
		name  string
		data  []byte
		chunk uint64
		want  string // "" for accepted
		n     uint64
	}{
		{"one enter", file(append(enter, evtEndOfFile, 1)...), 64, "", 1},
		{"stray byte after the end", file(append(enter, evtEndOfFile, 1, 0x0a)...), 64, "", 1},
		{"empty", nil, 64, "is empty", 0},
		{"no header", []byte{7, 7, 7}, 64, "where a chunk header (0x03) starts", 0},
		{"bad endianness", append([]byte{3, 0x11}, head[2:]...), 64, "endianness byte 0x11", 0},
		{"header cut", head[:10], 64, "ends inside the record at byte 0", 0},
		{"no end of file", file(enter...), 64, "ends inside the record at byte 30 (the file has 30 bytes)", 0},
		{"end of chunk at the end", file(append(enter, evtEndOfChunk)...), 31, "ends at byte 31 after an end-of-chunk record", 0},
		{"singleton too wide", file(12, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9, 2), 64, "whose value claims 9 bytes", 0},
		{"region wider than 4 bytes", file(12, 5, 1, 2, 3, 4, 5, 2), 64, "whose value claims 5 bytes (at most 4)", 0},
		{"record past its chunk", file(14, 40, 2, 0, 0, 0, 0, 0, 0, 0, 0), 24, "runs past the end of its chunk at byte 24", 0},
		{"large length past the end", file(14, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 2, 2), 64, "ends inside the record at byte 18", 0},
		{"attribute list of 200 in 2 bytes", file(evtAttributeList, 2, 1, 200, 2), 64, "announcing more attributes than its 2 bytes hold", 0},
		{"attribute list undefined count", file(evtAttributeList, 1, 0xff, 2), 64, "announcing more attributes", 0},
		{"program begin of 4e9 arguments", file(evtProgramBegin, 6, 1, 3, 4, 0xff, 0xff, 0xff, 2), 64, "whose arguments do not fit", 0},
		{"program begin, undefined count", file(evtProgramBegin, 2, 1, 0xff, 2), 64, "whose arguments do not fit", 0},
		{"program begin with 2 arguments", file(evtProgramBegin, 6, 1, 3, 1, 2, 0, 0, 2), 64, "", 1},
		{"two chunks", append(append(file(append(enter, evtEndOfChunk, 0, 0, 0)...), head...), append(enter, evtEndOfFile)...), 34, "", 2},
		{"second chunk without a header", append(file(append(enter, evtEndOfChunk, 0, 0, 0)...), 9, 9), 34, "has 0x09 at byte 34 where a chunk header", 0},
		{"big endian large length", file(14, 0xff, 0, 0, 0, 0, 0, 0, 0, 2, 7, 7, 2), 64, "", 1},
		{"defs: a dense mapping table", file(defMappingTable, 7, 1, 1, 3, 0, 0, 0, 0, 2), 64, "", 0},
		{"defs: a mapping table of 200 in 3 bytes", file(defMappingTable, 6, 1, 1, 200, 0, 0, 0, 2), 64, "MappingTable record at byte 18 whose entries do not fit in its 6 bytes", 0},
		{"defs: a sparse one of 2 in 3 bytes", file(defMappingTable, 6, 1, 1, 2, 1, 0, 0, 2), 64, "whose entries do not fit", 0},
		{"defs: an undefined count", file(defMappingTable, 6, 1, 0xff, 0, 0, 0, 0, 2), 64, "whose entries do not fit", 0},
		{"defs: a byte 5 is no timestamp", file(defMappingTable, 3, 1, 0, 0, evtEndOfFile), 64, "", 0},
		{"global: a group of 2", file(defGroup, 10, 1, 1, 1, 2, 0, 1, 2, 1, 1, 0, 2), 64, "", 0},
		{"global: a group of 200 in 7 bytes", file(defGroup, 7, 1, 1, 1, 2, 0, 1, 200, 2), 64, "a Group record at byte 18 whose members do not fit in its 7 bytes", 0},
		{"global: a group of undefined size", file(defGroup, 5, 0, 0, 0, 0xff, 0, 2), 64, "whose members do not fit", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "big endian large length" {
				tc.data[1] = evtBigEndian
			}
			if kind, ok := map[string]fileKind{"defs": localDefFile, "global": globalDefFile}[strings.Split(tc.name, ":")[0]]; ok {
				err := walkDefBytes(tc.data, kind, tc.chunk)
				if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("got %v, want an error with %q", err, tc.want)
				}
				return
			}
			n, err := walkEventBytes(tc.data, tc.chunk)
			if tc.want == "" {
				if err != nil || n != tc.n {
					t.Fatalf("got %d events, %v; want %d events", n, err, tc.n)
				}
			} else if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error with %q", err, tc.want)
			}
			events, ok, stale := libRead(tc.data, int(tc.chunk), false)
			if err == nil && (!ok || stale || events != n) {
				t.Errorf("the library's reading differs: %d events, ok %v, stale %v", events, ok, stale)
			}
		})
	}
}

// FuzzWalkEvents checks the walk against libRead, the library's reading:
// it never panics, never accepts a file the library would read past its
// end (or fail on), and counts the events the library delivers. Chunks
// are small so that inputs span several; chunk's bit 0x4000 walks the
// data as a local definitions file, 0x2000 as a global one.
func FuzzWalkEvents(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, chunk uint16) {
		cs := evtHeaderSize + 2 + int(chunk%512)
		kind := eventFile
		switch {
		case chunk == 0xffff:
			cs = 1 << 20
		case chunk&0x4000 != 0:
			kind = localDefFile
		case chunk&0x2000 != 0:
			kind = globalDefFile
		}
		defs := kind != eventFile
		var n uint64
		var err error
		if defs {
			err = walkDefBytes(data, kind, uint64(cs))
		} else {
			n, err = walkEventBytes(data, uint64(cs))
		}
		events, ok, stale := libRead(data, cs, defs)
		if defs {
			n = events // the walk does not count definitions
		}
		if err == nil {
			if stale || !ok || events != n {
				t.Fatalf("accepted with %d events; the library's reading: %d events, end reached %v, stale bytes read %v", n, events, ok, stale)
			}
			return
		}
		var ee *evtError
		if !errors.As(err, &ee) {
			t.Fatalf("not a structural error: %v", err)
		}
		if ok && !stale && !strings.Contains(err.Error(), "attribute") && !strings.Contains(err.Error(), "ProgramBegin") &&
			!strings.Contains(err.Error(), "MappingTable") && !strings.Contains(err.Error(), "Group") {
			t.Fatalf("refused (%v) what the library reads cleanly (%d events)", err, events)
		}
	})
}
