//go:build cgo && !nootf2

package otf2

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
)

// copyTree copies the trace folder src into a new temporary folder.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func truncate(t *testing.T, path string, frac float64) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, int64(float64(st.Size())*frac)); err != nil {
		t.Fatal(err)
	}
}

// flipMiddleByte changes the byte in the middle of path, keeping its size:
// a bit flipped in transfer, or a file rewritten in place.
func flipMiddleByte(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 1
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCorruptedTraces damages a copy of a real Score-P trace in the ways a
// transfer or a crashed run does and checks that the import fails with an
// error naming the trace, instead of crashing or returning a trace. (Some
// corruptions inside a file's records make the OTF2 library abort the
// process on an internal assertion; none of those below do, and Anchor
// checks what it can before the library opens the archive.)
func TestCorruptedTraces(t *testing.T) {
	src := testenv.Shared(t, "traces/otf2/tracer-stencil4d-32")
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, dir string)
		want   string
	}{
		{"anchor emptied", func(t *testing.T, dir string) { truncate(t, filepath.Join(dir, "traces.otf2"), 0) }, "not an OTF2 anchor"},
		{"anchor truncated", func(t *testing.T, dir string) { truncate(t, filepath.Join(dir, "traces.otf2"), 0.5) }, "traces.otf2"},
		{"anchor garbage", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "traces.otf2"), []byte("#!/bin/sh\necho not a trace\n"), 0o644)
		}, "not an OTF2 anchor"},
		{"global definitions missing", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "traces.def")) }, "traces.def is missing"},
		{"global definitions truncated", func(t *testing.T, dir string) { truncate(t, filepath.Join(dir, "traces.def"), 0.5) }, "traces.otf2"},
		{"location folder missing", func(t *testing.T, dir string) { os.RemoveAll(filepath.Join(dir, "traces")) }, "traces/ is missing"},
		{"event file missing", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "traces", "5.evt")) }, "/traces/5.evt is missing"},
		{"event file truncated", func(t *testing.T, dir string) { truncate(t, filepath.Join(dir, "traces", "7.evt"), 0.5) }, "/traces/7.evt ends inside the record at byte"},
		{"event file emptied", func(t *testing.T, dir string) { truncate(t, filepath.Join(dir, "traces", "3.evt"), 0) }, "/traces/3.evt is empty"},
		{"local definitions truncated", func(t *testing.T, dir string) { truncate(t, filepath.Join(dir, "traces", "2.def"), 0.5) }, "rank 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyTree(t, src)
			tc.damage(t, dir)
			tr, err := Read(filepath.Join(dir, "traces.otf2"), Options{})
			if err == nil {
				t.Fatalf("no error; got a trace of %d ranks", len(tr.Ranks))
			}
			t.Log(err)
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), dir) {
				t.Errorf("error %q does not name the trace and %q", err, tc.want)
			}
		})
	}
}

// TestGarbledDefinitionsNamed: a global definitions file with one byte
// changed that the library cannot read is named in the error, not only
// the anchor ("reading the global definitions: Invalid or inconsistent
// record data").
func TestGarbledDefinitionsNamed(t *testing.T) {
	dir := copyTree(t, testenv.Shared(t, "traces/otf2/pipit-pingpong"))
	def := filepath.Join(dir, "traces.def")
	flipMiddleByte(t, def)
	_, err := Read(filepath.Join(dir, "traces.otf2"), Options{})
	if err == nil || !strings.Contains(err.Error(), def+":") {
		t.Errorf("read with a garbled %s: %v, want an error naming it", def, err)
	}
}
