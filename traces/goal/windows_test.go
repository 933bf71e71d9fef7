package goal

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/internal/graphcheck"
	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/traces/graph"
)

// sameWindows compares src's windows of at most max operations with g's.
func sameWindows(t testing.TB, g *graph.Graph, src graph.Source, max int) {
	t.Helper()
	if err := graphcheck.SameWindows(g, src, max); err != nil {
		t.Fatal(err)
	}
}

// pointsBack reports whether g has no declaration order and every
// dependency is on an earlier operation, which Write writes in windowed
// form.
func pointsBack(g *graph.Graph) bool {
	for id := int32(0); id < int32(g.NumOps()); id++ {
		deps, _ := g.Deps(id)
		for _, d := range deps {
			if d >= id {
				return false
			}
		}
	}
	return g.DepOrder == nil
}

func writeTemp(t testing.TB, text string) string {
	p := filepath.Join(t.TempDir(), "s.goal")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// windowed is a schedule in windowed form with what the reader must get
// right: comments, blank lines, CRLF, wide tags, cpu and nic, irequires,
// a rank without a block, blocks out of rank order and a last line
// without a break.
const windowed = "num_ranks 4\r\n/* a comment\nacross lines */\nrank 2 {\n" +
	"l1: recv 8b from 0 tag 18446744072636809792\n" +
	"l2: calc 5 cpu 1 // two CPUs\n\n" +
	"l3: send 8b to 0 tag 3 cpu 0 nic 1\r\nl3 requires l1\nl3 irequires l2\n" +
	"l4: recv 8b from -1 tag -1\n" +
	"/* one line */ l5: calc 7\nl5 requires l4\nl5 requires l2\n}\n" +
	"rank 0 {\nl1: send 8b to 2 tag 18446744072636809792\nl2: recv 8b from 2 tag 3\nl2 requires l1\nl3: send 8b to 2 tag 9\n}\n" +
	"rank 1 {\n}"

// declared declares dependencies out of their operations' order, within
// the lag windowed form allows, and on a later operation.
const declared = "num_ranks 1\nrank 0 {\nl1: calc 1\nl2: calc 2\nl3: calc 3\nl3 requires l1\nl2 requires l1\nl4: calc 4\nl1 irequires l4\nl3 requires l2\n}\n"

// TestWindows reads schedules in windowed form window by window, with
// windows of one operation, a few and whole ranks, in order and again
// from the start, and compares them with ReadFile's graph; the shared
// conformance schedules (schedgen's output) and Write's output are in
// windowed form.
func TestWindows(t *testing.T) {
	files := []string{writeTemp(t, windowed), writeTemp(t, declared)}
	conf, _ := filepath.Glob(filepath.Join(testenv.Shared(t, "conformance/loggopsim"), "*.goal"))
	if len(conf) == 0 {
		t.Fatal("no conformance schedules")
	}
	files = append(files, conf...)
	for _, f := range files {
		g, err := ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := Write(&buf, g); err != nil {
			t.Fatal(err)
		}
		for k, p := range []string{f, writeTemp(t, buf.String())} {
			w, err := OpenWindows(p)
			if k == 1 && errors.Is(err, ErrNotWindowed) && !pointsBack(g) {
				continue // Write puts a dependency on a later operation before its line
			}
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if w.NumOps() != g.NumOps() || w.NumDeps() != g.NumDeps() {
				t.Errorf("%s: %d operations and %d dependencies, want %d and %d", f, w.NumOps(), w.NumDeps(), g.NumOps(), g.NumDeps())
			}
			for _, max := range []int{1, 3, 1 << 20, 2} {
				sameWindows(t, g, w, max)
			}
			if _, err := w.Window(0, -1, 1); err == nil {
				t.Error("a window before the rank's first operation accepted")
			}
			if _, err := w.Window(g.NumRanks(), 0, 1); err == nil {
				t.Error("a window of a rank past the last accepted")
			}
			w.Close()
		}
	}
}

// TestWindowsNotWindowed: files outside windowed form are named
// ErrNotWindowed (ReadFile reads them), and malformed ones get
// ReadFile's error.
func TestWindowsNotWindowed(t *testing.T) {
	for _, text := range []string{
		"num_ranks 1\nrank 0 {\nl1: calc 1\nl1 requires l2\nl2: calc 2\n}\n",             // a label used before its line
		"num_ranks 1\nrank 0 {\na: calc 1\nb: calc 2\nb requires a\n}\n",                 // labels of its own
		"num_ranks 1\nrank 0 { l1: calc 1\n}\n",                                          // an operation on the rank line
		"num_ranks 1\nrank 0 {\nl1: calc 1 /* a comment\nover lines */\nl2: calc 2\n}\n", // a comment across lines in a block
		"num_ranks 1\nrank 0 {\nl1: calc 1\nl2: calc 2\nl2 requires l2\n}\n",             // on itself (ReadFile rejects it too)
	} {
		_, err := OpenWindows(writeTemp(t, text))
		if !errors.Is(err, ErrNotWindowed) {
			if _, rerr := ReadFile(writeTemp(t, text)); rerr == nil || err == nil {
				t.Errorf("%q: %v, want ErrNotWindowed", text, err)
			}
		}
	}
	bad := writeTemp(t, "num_ranks 1\nrank 0 {\nl1: calc x\n}\n")
	_, err := OpenWindows(bad)
	_, want := ReadFile(bad)
	if err == nil || want == nil || err.Error() != want.Error() {
		t.Errorf("malformed: %v, want %v", err, want)
	}
	if _, err := OpenWindows(filepath.Join(t.TempDir(), "none.goal")); err == nil || !strings.Contains(err.Error(), "none.goal") {
		t.Errorf("a missing file: %v", err)
	}
}

// TestWindowsFileChanged: a file cut after it was opened gives an error,
// not a wrong window.
func TestWindowsFileChanged(t *testing.T) {
	p := writeTemp(t, windowed)
	w, err := OpenWindows(p)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := os.Truncate(p, int64(strings.Index(windowed, "l3: send"))); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Window(2, 0, 100); err == nil {
		t.Error("a cut file read without error")
	}
}

// FuzzWindows checks that a file OpenWindows accepts reads, window by
// window, as ReadFile's graph.
func FuzzWindows(f *testing.F) {
	f.Add([]byte(windowed))
	f.Add([]byte(sample))
	f.Add([]byte("num_ranks 2\nrank 0 {\nl1: send 1b to 1\n}\nrank 1 {\nl1: recv 1b from 0\nl2: calc 3\nl2 requires l1\n}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := writeTemp(t, string(data))
		w, err := OpenWindows(p)
		if err != nil {
			return
		}
		defer w.Close()
		g, err := ReadFile(p)
		if err != nil {
			// The pass checks the text as ReadFile does; the graph's own
			// checks come with the whole graph.
			if !errors.Is(err, graph.ErrInvalid) {
				t.Fatalf("OpenWindows accepts what ReadFile rejects: %v", err)
			}
			return
		}
		if g.NumRanks() > 1<<10 {
			return
		}
		sameWindows(t, g, w, 2)
	})
}
