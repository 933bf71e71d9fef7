package scenarios

import (
	"strings"
	"testing"

	"github.com/capsim/capsim/scenarios/results"
)

// TestHeadlineNeverOverCap: the fastest schedule at 300 W went over its
// cap, so the headline names the runner-up within it as the best and
// lists the one over it in its note.
func TestHeadlineNeverOverCap(t *testing.T) {
	s := results.Schema{{Name: "machine", Type: results.String}, {Name: "policy", Type: results.String},
		{Name: "cap_w", Type: results.Float64}, {Name: "makespan_ns", Type: results.Int64},
		{Name: "bound_ns", Type: results.Int64}, {Name: "over_cap_ns", Type: results.Int64}}
	var rows []results.Row
	add := func(p string, c float64, ms, over int64) {
		rows = append(rows, results.Row{Index: len(rows), Values: []any{"pal", p, c, ms, int64(1e6), over}})
	}
	add("static", 300, 1.0e6, 7000) // fastest, but over the cap
	add("lp", 300, 1.2e6, 0)
	add("conductor", 300, 1.5e6, 0)
	add("static", 400, 0.9e6, 0)
	sec := headline(s, rows, "ms", nil)
	if len(sec.Rows) != 2 {
		t.Fatalf("%d headline rows, want 2: %v", len(sec.Rows), sec.Rows)
	}
	if got := sec.Rows[0][3]; got != "lp" {
		t.Errorf("best at 300 W: %s, want lp (static went over the cap)", got)
	}
	if !strings.Contains(sec.Rows[0][7], "conductor") {
		t.Errorf("next best at 300 W: %s, want conductor", sec.Rows[0][7])
	}
	if !strings.Contains(sec.Text, "pal static at 300 W") {
		t.Errorf("headline note %q does not list static over its 300 W cap", sec.Text)
	}
	if strings.Contains(sec.Text, "400") {
		t.Errorf("headline note %q lists a schedule within its cap", sec.Text)
	}
}

// TestHeadlineNoPolicyWithinCap: at 200 W static went over the cap and
// the LP has no schedule (an empty row), so the cap still has its row,
// saying why no policy is the best there, and the note lists the LP's
// caps without a schedule.
func TestHeadlineNoPolicyWithinCap(t *testing.T) {
	s := results.Schema{{Name: "machine", Type: results.String}, {Name: "policy", Type: results.String},
		{Name: "cap_w", Type: results.Float64}, {Name: "makespan_ns", Type: results.Int64},
		{Name: "bound_ns", Type: results.Int64}, {Name: "over_cap_ns", Type: results.Int64}}
	rows := []results.Row{
		{Index: 0, Values: []any{"pal", "static", 200.0, int64(1.4e6), nil, int64(1.4e6)}},
		{Index: 1, Values: []any{"pal", "static", 400.0, int64(1.0e6), nil, int64(0)}},
		{Index: 2, Values: []any{"pal", "lp", 200.0, nil, nil, nil}},
		{Index: 3, Values: []any{"pal", "lp", 400.0, int64(0.9e6), int64(0.9e6), int64(0)}},
	}
	sec := headline(s, rows, "ms", nil)
	if len(sec.Rows) != 2 {
		t.Fatalf("%d headline rows, want one per cap (2): %v", len(sec.Rows), sec.Rows)
	}
	if r := sec.Rows[0]; r[2] != "200" || r[3] != "none within the cap" ||
		!strings.Contains(r[7], "static: over the cap") || !strings.Contains(r[7], "lp: no schedule") {
		t.Errorf("row at 200 W: %q, want none within the cap with static over it and lp without a schedule", r)
	}
	if r := sec.Rows[1]; r[2] != "400" || r[3] != "lp" {
		t.Errorf("row at 400 W: %q, want lp best", r)
	}
	if !strings.Contains(sec.Text, "No schedule exists") || !strings.Contains(sec.Text, "pal lp at 200 W") {
		t.Errorf("headline note %q does not list lp without a schedule at 200 W", sec.Text)
	}
}
