package taskgraph

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var bigNumber = regexp.MustCompile(`[0-9]{3,}|[3-9][0-9]`)

// FuzzGenerate checks the task-graph spec parser (capsim schedule's
// GRAPH argument): no panic; errors quote the spec; an accepted Cholesky
// has the task count nt + nt(nt−1) + nt(nt−1)(nt−2)/6 (see Cholesky);
// every accepted graph survives the text round trip.
func FuzzGenerate(f *testing.F) {
	for _, s := range []string{"cholesky:4", "lu:3", "cg:2", "cg:2x3", "cg:2x", "cholesky:0", "lu:-1", "qr:4", "cholesky", "cg:x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		if bigNumber.MatchString(spec) {
			return // sizes up to MaxTiles are valid but too slow to fuzz
		}
		d, err := Generate(spec)
		if err != nil {
			if !strings.Contains(err.Error(), strconv.Quote(spec)) && !strings.Contains(err.Error(), "tile count") && !strings.Contains(err.Error(), "iteration") {
				t.Fatalf("%q: error says nothing of the spec: %v", spec, err)
			}
			return
		}
		if d.NumTasks() == 0 {
			t.Fatalf("%q: empty graph", spec)
		}
		if kind, arg, _ := strings.Cut(spec, ":"); kind == "cholesky" {
			nt, _ := strconv.Atoi(arg)
			if want := nt + nt*(nt-1) + nt*(nt-1)*(nt-2)/6; d.NumTasks() != want {
				t.Fatalf("%q: %d tasks, want %d", spec, d.NumTasks(), want)
			}
		}
		var b bytes.Buffer
		if err := Format(&b, d); err != nil {
			t.Fatal(err)
		}
		back, err := Parse(&b, spec)
		if err != nil || back.NumTasks() != d.NumTasks() || back.NumEdges() != d.NumEdges() {
			t.Fatalf("%q: text round trip: %v", spec, err)
		}
	})
}
