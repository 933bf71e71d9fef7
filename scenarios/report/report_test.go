package report

import (
	"bytes"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"

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
	_, pts, flat, _ := series(schema, groupRows(schema, sample())[0], "makespan_ns", 1e-6, true)
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
	pg := &Page{Title: "Demo", Figures: figs, Sections: sec, Schema: schema, Rows: sample()}
	if err := pg.Write(&a); err != nil {
		t.Fatal(err)
	}
	figs2, _ := Figures(schema, sample())
	pg2 := &Page{Title: "Demo", Figures: figs2, Sections: sec, Schema: schema, Rows: sample()}
	pg2.Write(&b)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("HTML report not deterministic")
	}
	h := a.String()
	if strings.Count(h, "<svg") != len(figs) || strings.Contains(h, "<?xml") || !strings.Contains(h, "x &lt; y") ||
		strings.Contains(h, "<script") {
		t.Errorf("HTML: %d svgs for %d figures", strings.Count(h, "<svg"), len(figs))
	}
	// The table shows times in ms (the largest, 6.67 s, is under 10 s)
	// and absent values as a dash.
	for _, want := range []string{"<th>makespan (ms)</th>", "<th>energy (J)</th>", "<td>6666.667</td>", "<td>–</td>"} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks %s", want)
		}
	}
}

// TestRenderSize checks the PNGs' pixel size (1600 × 900) and that a
// figure's legend is drawn outside its plot's data area.
func TestRenderSize(t *testing.T) {
	figs, err := Figures(schema, sample())
	if err != nil {
		t.Fatal(err)
	}
	b, err := Render(figs[0], "png")
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if sz := img.Bounds().Size(); sz.X != 1600 || sz.Y != 900 {
		t.Errorf("PNG %v, want 1600 × 900", sz)
	}
	if figs[0].Legend == nil {
		t.Fatal("makespan figure has no legend")
	}
}

func TestFormatNumbers(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{FormatCell("avg_power_w", 288.79999999999995, 1e6), "288.8"},
		{FormatCell("makespan_ns", int64(60188546), 1e6), "60.189"},
		{FormatCell("bound_ns", nil, 1e6), "–"},
		{FormatCell("energy_j", 20.314755648, 1e6), "20.31"},
		{FormatCell("gap_pct", 6.6049, 1e6), "6.60"},
		{FormatCell("policy", "lp", 1e6), "lp"},
		{FormatNumber(288.79999999999995, 6), "288.8"},
		{FormatNumber(0.5, 3), "0.5"},
		{FormatNumber(1e-9, 3), "1e-09"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	for _, c := range []struct {
		ns   float64
		want string
	}{{5, "ns"}, {5e4, "µs"}, {6e7, "ms"}, {9.9e9, "ms"}, {2e10, "s"}} {
		if u, _ := TimeUnit(c.ns); u != c.want {
			t.Errorf("TimeUnit(%g) = %s, want %s", c.ns, u, c.want)
		}
	}
}

// TestPowerHeatMap checks that the heat map's bins keep each curve's
// energy (steps that start and end on bin edges computed in floating
// point made the binning loop spin forever once), and its colour legend.
func TestPowerHeatMap(t *testing.T) {
	end := 1e7 / 3
	var series []Series
	for r := 0; r < 3; r++ {
		s := Series{Name: fmt.Sprint(r), End: end}
		for i := 0; i < 400; i += 1 + r {
			s.Times = append(s.Times, float64(i)*end/400)
			s.Watts = append(s.Watts, float64(i%7+r))
		}
		series = append(series, s)
	}
	w, bin := binPower(series, HeatMapColumns)
	if len(w) != 3 || len(w[0]) != HeatMapColumns || math.Abs(bin-end/HeatMapColumns) > 1e-9 {
		t.Fatalf("grid %d × %d, bins of %g", len(w), len(w[0]), bin)
	}
	for k, s := range series {
		want := 0.0
		for i, tm := range s.Times {
			next := s.End
			if i+1 < len(s.Times) {
				next = s.Times[i+1]
			}
			want += s.Watts[i] * (next - tm)
		}
		got := 0.0
		for _, v := range w[k] {
			got += v * bin
		}
		if math.Abs(got-want) > 1e-9*want {
			t.Errorf("rank %d: bins hold %g J·ns, curve %g", k, got, want)
		}
	}
	f, err := PowerHeatMap("h", "heat", series, "ms")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Render(f, "svg"); err != nil {
		t.Fatal(err)
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

// TestGanttPath checks the path drawn over a Gantt chart: the legend
// names it, it adds a line to the chart, and a path
// going back in time or off the rows is refused.
func TestGanttPath(t *testing.T) {
	spans := []Span{{Row: 0, Start: 0, End: 10e3, Class: 0}, {Row: 1, Start: 12e3, End: 20e3, Class: 0}}
	path := []Span{{Row: 0, Start: 0, End: 10e3}, {Row: 0, Start: 10e3, End: 11e3}, {Row: 1, Start: 11e3, End: 20e3}}
	f, err := GanttPath("g", "path", 2, []string{"compute"}, spans, path, "critical path", "us")
	if err != nil {
		t.Fatal(err)
	}
	svg, err := Render(f, "svg")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(svg, []byte("critical path")) {
		t.Error("the legend does not name the path")
	}
	plain, err := Gantt("g", "path", 2, []string{"compute"}, spans, "us")
	if err != nil {
		t.Fatal(err)
	}
	without, err := Render(plain, "svg")
	if err != nil {
		t.Fatal(err)
	}
	// The path is one polyline of 4 points: along row 0, the step, along
	// row 1; the plain chart has none.
	if n, m := bytes.Count(svg, []byte("<path")), bytes.Count(without, []byte("<path")); n <= m {
		t.Errorf("%d SVG paths with the critical path, %d without", n, m)
	}
	for _, bad := range [][]Span{
		{{Row: 0, Start: 5, End: 10}, {Row: 1, Start: 3, End: 4}},
		{{Row: 2, Start: 0, End: 1}},
	} {
		if _, err := GanttPath("g", "path", 2, []string{"compute"}, spans, bad, "p", "us"); err == nil {
			t.Errorf("path %v accepted", bad)
		}
	}
}

// TestSingleCapBoundMarked: the LP bound of a sweep with one cap is one
// point, through which a line draws nothing; it is marked (a filled grey
// square) so that the figure shows it.
func TestSingleCapBoundMarked(t *testing.T) {
	pts := map[string]plotter.XYs{boundName: {{X: 330, Y: 12}}, "static": {{X: 330, Y: 13}}}
	p, leg, err := linePlot("Makespan vs power cap: pal", "makespan (ms)", []string{boundName, "static"}, pts, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	svg, err := Render(Figure{Name: "m", Title: "m", Plot: p, Legend: leg}, "svg")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(svg), "fill:#606060") {
		t.Errorf("the bound's single point is not drawn")
	}
}
