package arrowtrace

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/traces/goal"
)

// FuzzDetect feeds arbitrary file contents to Detect (seeded with a real
// graph file, a copy whose footer points outside the file, which panicked
// in arrow-go before, and truncations): it must never panic, errors must
// name the file, and what it detects must be what the readers accept.
func FuzzDetect(f *testing.F) {
	var buf bytes.Buffer
	g, _ := goal.Parse(strings.NewReader(sched), "s")
	EncodeGraph(&buf, g)
	good := buf.Bytes()
	f.Add(good)
	bad := append([]byte(nil), good...)
	copy(bad[len(bad)-20:], "00000000")
	f.Add(bad)
	f.Add(good[:len(good)/2])
	f.Add([]byte("ARROW1\x00\x00"))
	f.Add([]byte(sched))
	f.Add(streamOf(good))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "fuzz.arrow")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		kind, err := Detect(path)
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		switch kind {
		case KindGraph, KindMPI:
			if !Sniff(data) {
				t.Fatalf("detected %v without the Arrow file magic or stream marker", kind)
			}
		case KindGOAL:
			if len(data) >= 6 && bytes.HasPrefix(data, arrowMagic) {
				t.Fatal("Arrow magic detected as GOAL")
			}
		default:
			t.Fatalf("Detect returned %v without an error", kind)
		}
	})
}
