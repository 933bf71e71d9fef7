package importer_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/arrowtrace"
	"github.com/capsim/capsim/traces/gen"
	"github.com/capsim/capsim/traces/goal"
	"github.com/capsim/capsim/traces/importer"
)

// TestGOALToArrowMatchesParse streams GOAL schedules into Arrow graphs and
// checks each equals what Parse builds (operations, labels, every
// operation's dependency lists) and replays to the same finish times.
func TestGOALToArrowMatchesParse(t *testing.T) {
	texts := map[string]string{
		"wide tags": "num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 18446744072636809792\nl2: calc 5\nl1 requires l2\n}\nrank 1 {\nrecv 8b from 0 tag 18446744073709551615\n}\n",
		"labels":    "num_ranks 1\nrank 0 {\nl2: calc 1\nx: calc 2\nl3: calc 3\ncalc 4\nl5 requires x\nl5: calc 5\nl3 requires l2\n}\n",
		"late deps": "num_ranks 2\nrank 0 {\nl3 requires l1\nl1: calc 5\nl2: calc 7\nl3: send 1b to 1\nl3 irequires l2\n}\nrank 1 {\nl1: recv 1b from 0\n}\n",
	}
	g, err := gen.GeneratePattern(gen.Dissemination, gen.PatternOptions{Ranks: 9, Bytes: 100000})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	goal.Write(&b, g)
	texts["dissemination"] = b.String()
	// LogGOPSim's conformance schedules, where ../shared is present.
	files, _ := filepath.Glob(filepath.Join(testenv.ModuleRoot(t), "..", "shared", "conformance", "loggopsim", "*.goal"))
	for _, f := range files[:min(len(files), 6)] {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts[filepath.Base(f)] = string(data)
	}
	for name, text := range texts {
		want, err := goal.Parse(strings.NewReader(text), name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var out bytes.Buffer
		st, err := importer.GOALToArrow(strings.NewReader(text), name, &out)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if st.Ops != int64(want.NumOps()) || st.Deps != int64(want.NumDeps()) {
			t.Errorf("%s: stats %+v, want %d ops %d deps", name, st, want.NumOps(), want.NumDeps())
		}
		got, err := arrowtrace.DecodeGraph(out.Bytes(), name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got.NumOps() != want.NumOps() || got.NumDeps() != want.NumDeps() {
			t.Fatalf("%s: %d ops %d deps, want %d %d", name, got.NumOps(), got.NumDeps(), want.NumOps(), want.NumDeps())
		}
		for id := int32(0); id < int32(want.NumOps()); id++ {
			if got.Describe(id) != want.Describe(id) || got.Label(id) != want.Label(id) {
				t.Fatalf("%s: op %d is %s (%s), want %s (%s)", name, id, got.Describe(id), got.Label(id), want.Describe(id), want.Label(id))
			}
			gd, gk := got.Deps(id)
			wd, wk := want.Deps(id)
			if len(gd) != len(wd) {
				t.Fatalf("%s: op %d has %d dependencies, want %d", name, id, len(gd), len(wd))
			}
			for j := range gd {
				if gd[j] != wd[j] || gk[j] != wk[j] {
					t.Fatalf("%s: op %d dependency %d differs", name, id, j)
				}
			}
		}
		r1, err1 := sim.Run(want, network.DefaultLogGOPS(), sim.Options{})
		r2, err2 := sim.Run(got, network.DefaultLogGOPS(), sim.Options{})
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("%s: replay errors differ: %v, %v", name, err1, err2)
		}
		if err1 == nil && r1.Makespan != r2.Makespan {
			t.Errorf("%s: makespan %d, want %d", name, r2.Makespan, r1.Makespan)
		}
	}
}

func TestGOALToArrowRankOrder(t *testing.T) {
	var out bytes.Buffer
	_, err := importer.GOALToArrow(strings.NewReader("num_ranks 2\nrank 1 {\n}\nrank 0 {\n}\n"), "r.goal", &out)
	if !errors.Is(err, importer.ErrRankOrder) {
		t.Errorf("err = %v, want ErrRankOrder", err)
	}
	if _, err := importer.GOALToArrow(strings.NewReader("num_ranks 2\nrank 0 {\nl1: frob\n}\n"), "b.goal", &out); err == nil || !strings.Contains(err.Error(), "b.goal:3") {
		t.Errorf("syntax error: %v", err)
	}
}
