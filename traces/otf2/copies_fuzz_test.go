package otf2

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// writeLocs writes the event files of locations 0, 1, … with the given
// contents (nil: no file) into a new archive folder and returns its
// anchor path.
func writeLocs(t *testing.T, contents ...[]byte) (string, []uint64) {
	t.Helper()
	dir := t.TempDir()
	anchor := filepath.Join(dir, "traces.otf2")
	if err := os.MkdirAll(filepath.Join(dir, "traces"), 0o755); err != nil {
		t.Fatal(err)
	}
	locs := make([]uint64, len(contents))
	for i, c := range contents {
		locs[i] = uint64(i)
		if c == nil {
			continue
		}
		if err := os.WriteFile(evtFile(anchor, uint64(i)), c, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return anchor, locs
}

// TestCopyOf: copyOf pairs each event file with an earlier one of the
// same bytes only, however far into the files they differ.
func TestCopyOf(t *testing.T) {
	long := bytes.Repeat([]byte("0123456789abcdef"), 10000) // 160 000 bytes: past the head and several reads
	other := bytes.Clone(long)
	other[len(other)-1] = 'x'
	head := bytes.Clone(long)
	head[10] = 'x'
	for _, tc := range []struct {
		name  string
		files [][]byte
		want  []int
	}{
		{"all differ", [][]byte{[]byte("a"), []byte("b"), []byte("cc")}, []int{-1, -1, -1}},
		{"a copy", [][]byte{[]byte("a"), long, []byte("b"), long}, []int{-1, -1, -1, 1}},
		{"the last byte differs", [][]byte{long, other}, []int{-1, -1}},
		{"the head differs", [][]byte{long, head}, []int{-1, -1}},
		{"three the same", [][]byte{long, long, long}, []int{-1, 0, 0}},
		{"two pairs", [][]byte{[]byte("ab"), []byte("cd"), []byte("cd"), []byte("ab")}, []int{-1, -1, 1, 0}},
		{"empty files", [][]byte{{}, {}}, []int{-1, 0}},
		{"a missing file", [][]byte{nil, []byte("a"), nil}, []int{-1, -1, -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			anchor, locs := writeLocs(t, tc.files...)
			got, err := copyOf(anchor, locs)
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("copies %v, want %v", got, tc.want)
					break
				}
			}
		})
	}
}

// FuzzCopyOf: two event files are a copy exactly when their bytes are
// the same, whatever they hold and wherever after a shared prefix of pad
// bytes they differ.
func FuzzCopyOf(f *testing.F) {
	f.Add([]byte("abc"), []byte("abc"), uint16(0))
	f.Add([]byte("abc"), []byte("abd"), uint16(5000))
	f.Add([]byte{}, []byte{0}, uint16(65535))
	f.Fuzz(func(t *testing.T, a, b []byte, pad uint16) {
		prefix := bytes.Repeat([]byte{7}, int(pad)*2)
		x, y := append(bytes.Clone(prefix), a...), append(bytes.Clone(prefix), b...)
		anchor, locs := writeLocs(t, x, y)
		got, err := copyOf(anchor, locs)
		if err != nil {
			t.Fatal(err)
		}
		if want := bytes.Equal(x, y); (got[1] == 0) != want || got[0] != -1 {
			t.Fatalf("copyOf = %v; same bytes: %v", got, want)
		}
	})
}
