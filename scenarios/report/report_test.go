package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/scenarios/results"
)

var schema = results.Schema{{Name: "machine", Type: results.String}, {Name: "policy", Type: results.String},
	{Name: "cap_w", Type: results.Float64}, {Name: "makespan_ns", Type: results.Int64},
	{Name: "energy_j", Type: results.Float64}, {Name: "bound_ns", Type: results.Int64}}

func sample() []results.Row {
	var rows []results.Row
	add := func(m, p string, c any, ms int64, e float64, b any) {
		rows = append(rows, results.Row{Index: len(rows), Values: []any{m, p, c, ms, e, b}})
	}
	add("pal", "uncapped", nil, int64(9e6), 10, nil)
	for _, c := range []float64{300, 350, 400} {
		add("pal", "static", c, int64(2e9/c*1e3), c/30, nil)
		add("pal", "lp", c, int64(1.8e9/c*1e3), c/31, int64(1.7e9/c*1e3))
	}
	add("big", "static", 300.0, int64(5e6), 3, nil)
	return rows
}

func TestFiguresGroupsAndSeries(t *testing.T) {
	figs, err := Figures(schema, sample())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range figs {
		names = append(names, f.Name)
	}
	if strings.Join(names, ",") != "makespan_0,energy_0,makespan_1,energy_1" {
		t.Fatalf("figures %v", names)
	}
	_, pts, flat := series(schema, groupRows(schema, sample())[0], "makespan_ns", 1e-6, true)
	if len(pts["static"]) != 3 || len(pts["LP bound"]) != 3 || flat["uncapped"] != 9 {
		t.Fatalf("series: %v flat %v", pts, flat)
	}
	if pts["LP bound"][0].X != 300 || pts["LP bound"][2].Y >= pts["LP bound"][0].Y {
		t.Fatalf("bound series not sorted by cap: %v", pts["LP bound"])
	}
}

func TestSaveAndHTMLDeterministic(t *testing.T) {
	figs, err := Figures(schema, sample())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := SaveFigures(dir, figs); err != nil {
		t.Fatal(err)
	}
	png, err := os.ReadFile(filepath.Join(dir, "makespan_0.png"))
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("png: %v", err)
	}
	var a, b bytes.Buffer
	sec := []Section{{Heading: "Replay", Text: "x < y", Columns: []string{"rank"}, Rows: [][]string{{"0"}}}}
	if err := WriteHTML(&a, "Demo", schema, sample(), figs, sec); err != nil {
		t.Fatal(err)
	}
	figs2, _ := Figures(schema, sample())
	WriteHTML(&b, "Demo", schema, sample(), figs2, sec)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("HTML report not deterministic")
	}
	h := a.String()
	if strings.Count(h, "<svg") != 4 || strings.Contains(h, "<?xml") || !strings.Contains(h, "x &lt; y") ||
		strings.Contains(h, "http://") && strings.Contains(h, "<script") {
		t.Errorf("HTML: %d svgs", strings.Count(h, "<svg"))
	}
}

// A results table lacking the columns a report plots is an error naming
// them (a table without policy or cap_w panicked with an index out of
// range).
func TestFiguresMissingColumns(t *testing.T) {
	for _, tc := range []struct {
		drop []string
		want string
	}{
		{[]string{"policy"}, "lacks column(s) policy that"},
		{[]string{"cap_w", "policy"}, "lacks column(s) policy, cap_w that"},
		{[]string{"makespan_ns", "energy_j"}, "lacks column(s) makespan_ns or energy_j"},
	} {
		var s results.Schema
		var keep []int
		for i, c := range schema {
			dropped := false
			for _, d := range tc.drop {
				dropped = dropped || c.Name == d
			}
			if !dropped {
				s = append(s, c)
				keep = append(keep, i)
			}
		}
		var rows []results.Row
		for _, r := range sample() {
			var v []any
			for _, i := range keep {
				v = append(v, r.Values[i])
			}
			rows = append(rows, results.Row{Index: r.Index, Values: v})
		}
		_, err := Figures(s, rows)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("without %v: err %v, want %q", tc.drop, err, tc.want)
		}
	}
}
