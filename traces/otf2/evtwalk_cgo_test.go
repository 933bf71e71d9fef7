//go:build cgo && !nootf2

package otf2

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/internal/otf2write"
	"github.com/capsim/capsim/internal/testenv"
)

// TestTruncatedEventFileRefused cuts one event file (or definitions
// file) of a trace at every byte (a dense sample of a larger one) and
// reads the trace: every cut before the file's end-of-file record is
// refused by the walk, before the library reads the file, with an error
// naming the rank and the file; a cut after it (the trailing
// end-of-buffer byte) reads as the whole file does. The writer that announces no event counts leaves
// only the walk to catch a cut.
func TestTruncatedEventFileRefused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		anchor func(t *testing.T) string
		loc    string
		rank   string
		step   int
	}{
		{"fixture", func(t *testing.T) string { return writeFixture(t) }, "traces/1.evt", "rank 1", 1},
		{"fixture without counts", func(t *testing.T) string {
			return writeFixture(t, func(d *otf2write.Defs) { d.NoCounts = true })
		}, "traces/1.evt", "rank 1", 1},
		{"Score-P", func(t *testing.T) string {
			return copyTrace(t, testenv.Shared(t, "traces/otf2/tracer-stencil4d-32"))
		}, "traces/7.evt", "rank 7", 23},
		{"Score-P local definitions", func(t *testing.T) string {
			return copyTrace(t, testenv.Shared(t, "traces/otf2/tracer-stencil4d-32"))
		}, "traces/2.def", "rank 2", 1},
		{"Score-P global definitions", func(t *testing.T) string {
			return copyTrace(t, testenv.Shared(t, "traces/otf2/tracer-stencil4d-32"))
		}, "traces.def", "", 29},
	} {
		t.Run(tc.name, func(t *testing.T) {
			anchor := tc.anchor(t)
			whole, err := Read(anchor, Options{})
			if err != nil {
				t.Fatal(err)
			}
			f := filepath.Join(filepath.Dir(anchor), tc.loc)
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			end := len(data) - 1 // Score-P and our writer end with 02 01
			if data[end] != 1 || data[end-1] != evtEndOfFile {
				t.Fatalf("%s does not end with the end-of-file and end-of-buffer records", f)
			}
			cuts := 0
			for cut, step := 0, tc.step; cut < len(data); cut += step {
				if cut+64 > len(data) {
					step = 1
				}
				if err := os.WriteFile(f, data[:cut], 0o644); err != nil {
					t.Fatal(err)
				}
				tr, err := Read(anchor, Options{})
				cuts++
				if cut == end {
					if err != nil || len(tr.Ranks) != len(whole.Ranks) || len(tr.Ranks[1].Events) != len(whole.Ranks[1].Events) ||
						len(tr.Ranks[2].Events) != len(whole.Ranks[2].Events) {
						t.Errorf("cut before the end-of-buffer byte: %v", err)
					}
					continue
				}
				if err == nil {
					t.Fatalf("cut at byte %d of %d: read", cut, len(data))
				}
				want, end := tc.rank+": its event file "+f+" ", "a truncated or corrupted event file"
				switch {
				case tc.rank == "" && cut == 0: // Anchor's check
					want, end = "the global definitions file traces.def is missing or empty", "empty"
				case tc.rank == "":
					want, end = "traces.otf2: its global definitions file "+f+" ", "a truncated or corrupted global definitions file"
				case strings.HasSuffix(f, ".def"):
					want, end = tc.rank+": its local definitions file "+f+" ", "a truncated or corrupted local definitions file"
				}
				if !strings.Contains(err.Error(), want) || !strings.HasSuffix(err.Error(), end) {
					t.Fatalf("cut at byte %d of %d: %v; want the walk's error naming %q", cut, len(data), err, want)
				}
			}
			t.Logf("%d cuts of %s (%d bytes)", cuts, f, len(data))
		})
	}
}

// TestEventFileOfSeveralChunks writes a location whose events span three
// chunks of 1 MiB: the walk counts what the library reads, and refuses
// the file cut after its first chunk (which ends with an end-of-chunk
// record, so that the library would read a second chunk the file lacks)
// or inside its second.
func TestEventFileOfSeveralChunks(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 5 MB")
	}
	dir := t.TempDir()
	w, err := otf2write.Create(dir, otf2write.Defs{Resolution: 1e9, Ranks: 2, Regions: fxRegions, NoCounts: true})
	if err != nil {
		t.Fatal(err)
	}
	const pairs = 110_000
	for r := 0; r < 2; r++ {
		for i := uint64(0); i < pairs; i++ {
			w.Write(r, otf2write.Event{Kind: otf2write.Enter, Region: fxSolve, Time: 10 * i})
			if err := w.Write(r, otf2write.Event{Kind: otf2write.Leave, Region: fxSolve, Time: 10*i + 5}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	anchor := filepath.Join(dir, "traces.otf2")
	if _, err := Read(anchor, Options{}); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(dir, "traces", "0.evt")
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) <= 2<<20 {
		t.Fatalf("%s has %d bytes, not three chunks", f, len(data))
	}
	n, err := walkEventBytes(data, 1<<20)
	if err != nil || n != 2*pairs {
		t.Fatalf("walk: %d events, %v; want %d", n, err, 2*pairs)
	}
	for _, tc := range []struct {
		cut  int
		want string
	}{
		{1 << 20, "ends at byte 1048576 after an end-of-chunk record"},
		{2 << 20, "ends at byte 2097152 after an end-of-chunk record"},
		{1<<20 + 1, "ends inside the record at byte 1048576"},
		{1<<20 + 5000, "ends inside the record at byte"},
	} {
		if err := os.WriteFile(f, data[:tc.cut], 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Read(anchor, Options{})
		if err == nil || !strings.Contains(err.Error(), "its event file "+f+" "+tc.want) {
			t.Errorf("cut at %d: %v; want %q", tc.cut, err, tc.want)
		}
	}
}

// BenchmarkEventWalk compares the walk of a trace's per-location files
// (walk) with the whole import, walk included (read).
func BenchmarkEventWalk(b *testing.B) {
	for _, name := range []string{"tracer-stencil4d-64", "sstmacro-otf2test"} {
		dir := testenv.Shared(b, "traces/otf2/"+name)
		files, _ := filepath.Glob(filepath.Join(dir, "traces", "*"))
		kinds := map[bool]fileKind{false: eventFile, true: localDefFile}
		b.Run(name+"/walk", func(b *testing.B) {
			var buf []byte
			for i := 0; i < b.N; i++ {
				for _, f := range files {
					if _, err := checkFile(f, kinds[strings.HasSuffix(f, ".def")], 1<<20, &buf); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
		b.Run(name+"/read", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := Read(dir, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
