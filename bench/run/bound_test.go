package main

import (
	"testing"

	"github.com/capsim/capsim/scenarios"
)

// TestBeyond checks the LP tables' memory guard: a size is skipped only
// where its memory at the previous size's bytes a task is known and
// exceeds the machine's.
func TestBeyond(t *testing.T) {
	const gib = 1 << 30
	for _, c := range []struct {
		name    string
		perTask float64
		tasks   int
		mem     int64
		need    float64
		over    bool
	}{
		{"the stencil's 10^6 tasks at 59 KiB a task", 59 << 10, 1024000, 24 * gib, 59 << 10 * 1024000.0, true},
		{"the synthetic 10^7 tasks at 1.6 KiB a task", 1600, 10240000, 24 * gib, 1600 * 10240000.0, false},
		{"exactly the machine's memory", 1024, 1 << 20, gib, gib, false},
		{"no previous size", 0, 1 << 30, gib, 0, false},
		{"memory unknown", 1 << 20, 1 << 20, 0, 1 << 40, false},
	} {
		need, over := beyond(c.perTask, c.tasks, c.mem)
		if need != c.need || over != c.over {
			t.Errorf("%s: beyond(%g, %d, %d) = %g, %v; want %g, %v", c.name, c.perTask, c.tasks, c.mem, need, over, c.need, c.over)
		}
	}
}

// TestBoundScenariosLoad checks that every size of the LP tables writes a
// scenario that loads: its sweep's caps scaled with the ranks stay above
// the machine's idle floor.
func TestBoundScenariosLoad(t *testing.T) {
	dir := t.TempDir()
	for _, s := range boundSizes {
		path, _, err := boundScenario("../..", dir, s, "engine")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := scenarios.Load(path); err != nil {
			t.Errorf("%d tasks: %v", s.tasks(), err)
		}
	}
}
