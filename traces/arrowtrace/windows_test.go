package arrowtrace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/capsim/capsim/internal/graphcheck"
	"github.com/capsim/capsim/traces/gen"
	"github.com/capsim/capsim/traces/goal"
	"github.com/capsim/capsim/traces/graph"
)

// sameWindows checks that every window of at most max operations src
// gives equals g's, but for regions, which windows read from a file
// leave out.
func sameWindows(t testing.TB, g *graph.Graph, src graph.Source, max int) {
	t.Helper()
	if err := graphcheck.SameWindows(g, src, max); err != nil {
		t.Fatal(err)
	}
}

// TestGraphWindows reads files of capsim's writers window by window, with
// windows inside one record batch and across several, and compares every
// window with the graph ReadGraph reads.
func TestGraphWindows(t *testing.T) {
	perm, err := gen.GeneratePattern(gen.RandomPermutation, gen.PatternOptions{Ranks: 3, Rounds: 30000, Bytes: 8, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, g := range map[string]*graph.Graph{"sample": sampleGraph(t), "perm": perm} {
		path := filepath.Join(dir, name+".arrow")
		if err := WriteGraph(path, g); err != nil {
			t.Fatal(err)
		}
		read, err := ReadGraph(path)
		if err != nil {
			t.Fatal(err)
		}
		gw, err := OpenGraphWindows(path)
		if err != nil {
			t.Fatal(err)
		}
		if gw.NumOps() != int64(g.NumOps()) {
			t.Errorf("%s: %d operations, want %d", name, gw.NumOps(), g.NumOps())
		}
		for _, max := range []int{1, 7, 1023, 1 << 17} {
			sameWindows(t, read, gw, max)
		}
		gw.Close()
	}
}

// TestGraphWindowsCutShort checks that a file cut short after it was
// opened gives an error.
func TestGraphWindowsCutShort(t *testing.T) {
	g, err := gen.GeneratePattern(gen.RandomPermutation, gen.PatternOptions{Ranks: 4, Rounds: 20000, Bytes: 8, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "perm.arrow")
	if err := WriteGraph(path, g); err != nil {
		t.Fatal(err)
	}
	gw, err := OpenGraphWindows(path)
	if err != nil {
		t.Fatal(err)
	}
	defer gw.Close()
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := gw.Window(3, 0, 1023); err == nil {
		t.Errorf("a window of a file cut short reads")
	}
}

// TestGraphWindowsNotWindowed checks that an Arrow stream is refused with
// ErrNotWindowed (ReadGraph reads it).
func TestGraphWindowsNotWindowed(t *testing.T) {
	var buf bytes.Buffer
	if err := EncodeGraph(&buf, sampleGraph(t)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.arrows")
	if err := os.WriteFile(path, streamOf(buf.Bytes(), ipc.WithLZ4()), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenGraphWindows(path); !errors.Is(err, ErrNotWindowed) {
		t.Errorf("got %v, want ErrNotWindowed", err)
	}
}

// FuzzGraphWindows: opening and reading never panics, errors are
// FormatErrors or ErrNotWindowed, and where ReadGraph reads the file too
// every window equals its graph's.
func FuzzGraphWindows(f *testing.F) {
	var buf bytes.Buffer
	g, _ := goal.Parse(strings.NewReader(sched), "s")
	EncodeGraph(&buf, g)
	f.Add(buf.Bytes())
	f.Add([]byte("ARROW1\x00\x00"))
	f.Add([]byte{})
	buf.Reset()
	EncodeGraph(&buf, sampleGraph(f))
	f.Add(buf.Bytes())
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "fuzz.arrow")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		gw, err := OpenGraphWindows(path)
		var fe *FormatError
		if err != nil {
			if !errors.As(err, &fe) && !errors.Is(err, ErrNotWindowed) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		defer gw.Close()
		g, err := DecodeGraph(data, "fuzz.arrow")
		if err != nil {
			for r := 0; r < gw.NumRanks(); r++ {
				for first := int32(0); ; {
					w, err := gw.Window(r, first, 5)
					if err != nil || w.Len() == 0 {
						break
					}
					first += int32(w.Len())
				}
			}
			return
		}
		sameWindows(t, g, gw, 3)
	})
}

// BenchmarkGraphWindows reads a random permutation of 64 ranks and 8,000
// rounds window by window: reading allocates nothing per window.
func BenchmarkGraphWindows(b *testing.B) {
	g, err := gen.GeneratePattern(gen.RandomPermutation, gen.PatternOptions{Ranks: 64, Rounds: 8000, Bytes: 8, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "perm.arrow")
	if err := WriteGraph(path, g); err != nil {
		b.Fatal(err)
	}
	gw, err := OpenGraphWindows(path)
	if err != nil {
		b.Fatal(err)
	}
	defer gw.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for r := 0; r < gw.NumRanks(); r++ {
			for first := int32(0); ; {
				w, err := gw.Window(r, first, 1023)
				if err != nil {
					b.Fatal(err)
				}
				if w.Len() == 0 {
					break
				}
				first += int32(w.Len())
			}
		}
	}
	b.ReportMetric(float64(g.NumOps())*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

// TestGraphWindowsBadRows patches values of rank 0's rows in a file and
// checks that its window reports an error that ReadGraph reports too: where
// several rows are bad, the first bad row of the first column in the
// schema's order.
func TestGraphWindowsBadRows(t *testing.T) {
	type patch struct {
		buf   int
		elem  int64 // element of the buffer
		value int64
	}
	cases := []struct {
		name    string
		patches []patch
		field   string
		row     int64
	}{
		{"kind", []patch{{bufKind, 2, 9}, {bufPeer, 1, 99}}, "kind", 2},
		{"size before cpu", []patch{{bufCPU, 0, 300}, {bufSize, 2, -1}}, "size", 2},
		{"send peer", []patch{{bufPeer, 2, 4}}, "peer", 2},
		{"send tag", []patch{{bufTag, 1, -3}, {bufNIC, 0, 256}}, "tag", 1},
		{"cpu before nic", []patch{{bufNIC, 0, 256}, {bufCPU, 2, -1}}, "cpu", 2},
		{"nic", []patch{{bufNIC, 1, 256}}, "nic", 1},
		{"requires itself", []patch{{bufReqVals, 0, 1}}, "requires", 1},
		{"irequires outside the rank", []patch{{bufIreqVals, 0, 3}}, "irequires", 2},
	}
	var buf bytes.Buffer
	if err := EncodeGraph(&buf, sampleGraph(t)); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, "bad.arrow")
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			gw, err := OpenGraphWindows(path)
			if err != nil {
				t.Fatal(err)
			}
			defer gw.Close()
			data := bytes.Clone(buf.Bytes())
			for _, p := range c.patches {
				b, w := gw.batches[0].buf[p.buf], bufWidth[p.buf]
				at := data[b.off+p.elem*w : b.off+(p.elem+1)*w]
				switch w {
				case 1:
					at[0] = byte(p.value)
				case 4:
					binary.LittleEndian.PutUint32(at, uint32(p.value))
				case 8:
					binary.LittleEndian.PutUint64(at, uint64(p.value))
				}
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, werr := gw.Window(0, 0, 7)
			var fe *FormatError
			if !errors.As(werr, &fe) || fe.Field != c.field || fe.Row != c.row {
				t.Fatalf("got %v, want an error in %s of row %d", werr, c.field, c.row)
			}
			if _, rerr := ReadGraph(path); rerr == nil {
				t.Errorf("ReadGraph reads the file the window refuses (%v)", werr)
			}
		})
	}
}
