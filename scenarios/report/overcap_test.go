package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/capsim/capsim/scenarios/results"
)

var overSchema = results.Schema{{Name: "machine", Type: results.String}, {Name: "policy", Type: results.String},
	{Name: "cap_w", Type: results.Float64}, {Name: "makespan_ns", Type: results.Int64},
	{Name: "gap_pct", Type: results.Float64}, {Name: "bound_ns", Type: results.Int64},
	{Name: "over_cap_ns", Type: results.Int64}}

// overRows: static exceeds its 300 W cap; lp has a gap only from 400 W.
func overRows() []results.Row {
	var rows []results.Row
	add := func(p string, c float64, ms int64, gap any, over int64) {
		rows = append(rows, results.Row{Index: len(rows), Values: []any{"pal", p, c, ms, gap, int64(1e6), over}})
	}
	add("static", 300, 2e6, 100.0, 5000)
	add("static", 400, 1.5e6, 50.0, 0)
	add("lp", 300, 3e6, nil, 0)
	add("lp", 400, 1e6, 0.0, 0)
	return rows
}

// TestOverCapRinged: a point whose schedule went over its cap is ringed
// and named in the legend; points within it are not.
func TestOverCapRinged(t *testing.T) {
	_, _, _, over := series(overSchema, groupRows(overSchema, overRows())[0], "makespan_ns", 1, true)
	if len(over["static"]) != 1 || over["static"][0].X != 300 || len(over["lp"]) != 0 {
		t.Fatalf("over the cap: %v, want static at 300 W only", over)
	}
	figs, err := Figures(overSchema, overRows())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range figs {
		svg, err := Render(f, "svg")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(svg, []byte(overName)) {
			t.Errorf("%s: legend has no %q entry", f.Name, overName)
		}
		if !bytes.Contains(svg, []byte(svgFamily)) || bytes.Contains(svg, []byte("Serif")) {
			t.Errorf("%s: figure text is not in the sans-serif family", f.Name)
		}
	}
}

// TestPanelsShareCapAxis: the gap panel, whose first point is at 400 W,
// spans the same caps as the makespan panel.
func TestPanelsShareCapAxis(t *testing.T) {
	figs, err := Figures(overSchema, overRows())
	if err != nil {
		t.Fatal(err)
	}
	if len(figs) != 2 {
		t.Fatalf("%d figures, want makespan and gap", len(figs))
	}
	for _, f := range figs {
		if f.Plot.X.Min != figs[0].Plot.X.Min || f.Plot.X.Max != figs[0].Plot.X.Max || !(f.Plot.X.Min < 300) {
			t.Errorf("%s: caps %g to %g W, want %s's %g to %g, from below 300",
				f.Name, f.Plot.X.Min, f.Plot.X.Max, figs[0].Name, figs[0].Plot.X.Min, figs[0].Plot.X.Max)
		}
	}
	if !strings.HasPrefix(figs[1].Name, "gap") {
		t.Errorf("second figure %s, want the gap", figs[1].Name)
	}
}
