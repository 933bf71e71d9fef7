// Package report turns a sweep's results table into pictures (PNG and SVG,
// drawn with gonum/plot) and a self-contained HTML page with the tables and
// the plots inlined as SVG, so it opens without a network.
package report

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/capsim/capsim/internal/atomicfile"
	"github.com/capsim/capsim/scenarios/results"
)

// Figure is one plot with the file name stem it is saved under.
type Figure struct {
	Name  string // file name without extension, e.g. "makespan_pal"
	Title string
	Plot  *plot.Plot
	// Legend, when not nil, is drawn right of the plot (see Render).
	Legend *plot.Legend
}

// group is the set of rows that share machine and parameter values.
type group struct {
	key  string
	rows []results.Row
}

// groupRows splits rows by every column that is neither policy, cap nor a
// metric, in first-appearance order.
func groupRows(s results.Schema, rows []results.Row) []group {
	var keyCols []int
	for i, c := range s {
		if c.Name == "machine" || strings.HasPrefix(c.Name, "param.") {
			keyCols = append(keyCols, i)
		}
	}
	var gs []group
	idx := map[string]int{}
	for _, r := range rows {
		var parts []string
		for _, c := range keyCols {
			name := s[c].Name
			if name != "machine" {
				name = strings.TrimPrefix(name, "param.") + "="
			} else {
				name = ""
			}
			parts = append(parts, name+results.FormatValue(r.Values[c]))
		}
		k := strings.Join(parts, " ")
		i, ok := idx[k]
		if !ok {
			i = len(gs)
			idx[k] = i
			gs = append(gs, group{key: k})
		}
		gs[i].rows = append(gs[i].rows, r)
	}
	return gs
}

func col(s results.Schema, name string) int { return s.Index(name) }

// CheckColumns reports the columns a report needs that s lacks: policy
// and cap_w, and one of makespan_ns and energy_j.
func CheckColumns(s results.Schema) error {
	var missing []string
	for _, c := range []string{"policy", "cap_w"} {
		if col(s, c) < 0 {
			missing = append(missing, c)
		}
	}
	if col(s, "makespan_ns") < 0 && col(s, "energy_j") < 0 {
		missing = append(missing, "makespan_ns or energy_j")
	}
	if len(missing) == 0 {
		return nil
	}
	have := make([]string, len(s))
	for i, c := range s {
		have[i] = c.Name
	}
	return fmt.Errorf("results table lacks column(s) %s that a report needs (it has %s)", strings.Join(missing, ", "), strings.Join(have, ", "))
}

func num(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, !math.IsNaN(x)
	}
	return 0, false
}

// series collects (cap, metric) points per policy for one group, plus the
// LP bound as its own series.
//
// over holds, per policy, its points whose schedule exceeded the cap at
// some instant (over_cap_ns > 0).
func series(s results.Schema, g group, metric string, scale float64, withBound bool) (names []string, pts map[string]plotter.XYs, flat map[string]float64, over map[string]plotter.XYs) {
	pc, cc, mc, bc, oc := col(s, "policy"), col(s, "cap_w"), col(s, metric), col(s, "bound_ns"), col(s, "over_cap_ns")
	pts = map[string]plotter.XYs{}
	flat = map[string]float64{}
	over = map[string]plotter.XYs{}
	add := func(name string, x, y float64) {
		if _, ok := pts[name]; !ok {
			names = append(names, name)
		}
		pts[name] = append(pts[name], plotter.XY{X: x, Y: y})
	}
	bound := map[float64]float64{}
	for _, r := range g.rows {
		pol, _ := r.Values[pc].(string)
		y, ok := num(r.Values[mc])
		if !ok {
			continue
		}
		capW, capped := num(r.Values[cc])
		if !capped {
			flat[pol] = y * scale
			continue
		}
		add(pol, capW, y*scale)
		if oc >= 0 {
			if o, ok := num(r.Values[oc]); ok && o > 0 {
				over[pol] = append(over[pol], plotter.XY{X: capW, Y: y * scale})
			}
		}
		if withBound && bc >= 0 {
			if b, ok := num(r.Values[bc]); ok {
				bound[capW] = b * scale
			}
		}
	}
	if len(bound) > 0 {
		caps := make([]float64, 0, len(bound))
		for c := range bound {
			caps = append(caps, c)
		}
		sort.Float64s(caps)
		for _, c := range caps {
			add("LP bound", c, bound[c])
		}
	}
	for _, n := range names {
		sort.Slice(pts[n], func(i, j int) bool { return pts[n][i].X < pts[n][j].X })
	}
	return names, pts, flat, over
}

// boundName is the LP bound's series: a wide grey dashed line without
// markers, drawn under the policies' so that a policy at the bound (lp)
// stays visible on it.
const boundName = "LP bound"

// overName is the legend entry of the points over the cap.
const overName = "over the cap"

// linePlot draws one line per named series (the LP bound's beneath the
// others), a dotted level line per uncapped policy in flat, and a black
// ring around every point in over (schedules that exceeded their cap).
func linePlot(title, ylabel string, names []string, pts map[string]plotter.XYs, flat map[string]float64, over map[string]plotter.XYs) (*plot.Plot, *plot.Legend, error) {
	p := newPlot(title)
	leg := newLegend()
	p.X.Label.Text = "power cap (W)"
	p.Y.Label.Text = ylabel
	xmin, xmax := math.Inf(1), math.Inf(-1)
	k := 0
	if b, ok := pts[boundName]; ok {
		l, err := plotter.NewLine(b)
		if err != nil {
			return nil, nil, fmt.Errorf("plot %s: %w", boundName, err)
		}
		l.Color = color.Gray{Y: 0x60}
		l.Width = vg.Points(3)
		l.Dashes = []vg.Length{vg.Points(7), vg.Points(4)}
		p.Add(l)
		leg.Add(boundName, l)
		if len(b) == 1 {
			// A line through one point draws nothing: mark the bound
			// of a sweep with one cap.
			sc, err := plotter.NewScatter(b)
			if err != nil {
				return nil, nil, fmt.Errorf("plot %s: %w", boundName, err)
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: l.Color, Radius: vg.Points(5), Shape: draw.BoxGlyph{}}
			p.Add(sc)
		}
	}
	for _, n := range names {
		for _, q := range pts[n] {
			xmin, xmax = math.Min(xmin, q.X), math.Max(xmax, q.X)
		}
		if n == boundName {
			continue
		}
		l, s, err := plotter.NewLinePoints(pts[n])
		if err != nil {
			return nil, nil, fmt.Errorf("plot %s: %w", n, err)
		}
		l.Color, s.Color = Color(k), Color(k)
		s.Shape = plotutil.Shape(k)
		k++
		l.Width = vg.Points(1.5)
		s.Radius = vg.Points(3)
		p.Add(l, s)
		leg.Add(n, l, s)
	}
	var ring *plotter.Scatter
	for _, n := range names {
		if len(over[n]) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(over[n])
		if err != nil {
			return nil, nil, fmt.Errorf("plot %s over the cap: %w", n, err)
		}
		sc.Shape = draw.RingGlyph{}
		sc.Radius = vg.Points(7)
		sc.Color = color.Black
		p.Add(sc)
		ring = sc
	}
	if ring != nil {
		// The legend's ring fits its row: the plot's would overlap the
		// entries above and below.
		thumb := *ring
		thumb.Radius = vg.Points(4)
		leg.Add(overName, &thumb)
	}
	fnames := make([]string, 0, len(flat))
	for n := range flat {
		fnames = append(fnames, n)
	}
	sort.Strings(fnames)
	for _, n := range fnames {
		if math.IsInf(xmin, 0) {
			xmin, xmax = 0, 1
		}
		l, err := plotter.NewLine(plotter.XYs{{X: xmin, Y: flat[n]}, {X: xmax, Y: flat[n]}})
		if err != nil {
			return nil, nil, err
		}
		l.Color = Color(k)
		k++
		l.Width = vg.Points(1.5)
		l.Dashes = []vg.Length{vg.Points(1), vg.Points(3)}
		p.Add(l)
		leg.Add(n+" (no cap)", l)
	}
	p.Add(plotter.NewGrid())
	return p, leg, nil
}

// Figures builds the standard sweep figures, one set per machine and
// parameter combination: makespan against cap per policy with the LP
// bound, each policy's gap to the bound against cap, and energy against
// cap. Times are shown in one unit for the whole report, chosen by the
// largest (see TimeUnit).
//
// The table needs the columns policy and cap_w and at least one of
// makespan_ns and energy_j; an error names the ones missing.
func Figures(s results.Schema, rows []results.Row) ([]Figure, error) {
	if err := CheckColumns(s); err != nil {
		return nil, err
	}
	unit, ns := ResultsTimeUnit(s, rows)
	xmin, xmax := capRange(s, rows)
	var figs []Figure
	for gi, g := range groupRows(s, rows) {
		suffix := fmt.Sprintf("_%d", gi)
		title := g.key
		for _, m := range []struct {
			metric, label, name, what string
			scale                     float64
			bound                     bool
		}{
			{"makespan_ns", "makespan (" + unit + ")", "makespan", "Makespan", 1 / ns, true},
			{"gap_pct", "gap to the LP bound (%)", "gap", "Gap to the LP bound", 1, false},
			{"energy_j", "energy (J)", "energy", "Energy", 1, false},
		} {
			if col(s, m.metric) < 0 {
				continue
			}
			names, pts, flat, over := series(s, g, m.metric, m.scale, m.bound)
			if m.name == "gap" {
				flat = nil // the uncapped policy has no bound to be compared with
			}
			if len(names) == 0 && len(flat) == 0 {
				continue
			}
			p, leg, err := linePlot(fmt.Sprintf("%s vs power cap: %s", m.what, title), m.label, names, pts, flat, over)
			if err != nil {
				return nil, err
			}
			if xmin < xmax {
				// Every panel spans the sweep's caps, so that they line
				// up (a policy without a value at some caps, such as a
				// gap without a bound, leaves them empty).
				p.X.Min, p.X.Max = xmin, xmax
			}
			if m.name == "gap" {
				zero := plotter.NewFunction(func(float64) float64 { return 0 })
				zero.Color = color.Black
				zero.Width = vg.Points(0.75)
				p.Add(zero)
			}
			figs = append(figs, Figure{Name: m.name + suffix, Title: p.Title.Text, Plot: p, Legend: leg})
		}
	}
	return figs, nil
}

// capRange returns the least and the greatest cap of rows (0, 0 when no
// row has one), padded by 2 % of the range on each side.
func capRange(s results.Schema, rows []results.Row) (lo, hi float64) {
	c := col(s, "cap_w")
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, r := range rows {
		if v, ok := num(r.Values[c]); ok {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	if math.IsInf(lo, 0) {
		return 0, 0
	}
	pad := 0.02 * (hi - lo)
	return lo - pad, hi + pad
}

// ResultsTimeUnit is the time unit (TimeUnit) of a results table: chosen
// by its largest makespan or bound.
func ResultsTimeUnit(s results.Schema, rows []results.Row) (name string, ns float64) {
	return TimeUnit(maxTime(s, rows))
}

// maxTime returns the largest makespan or bound in rows, in ns.
func maxTime(s results.Schema, rows []results.Row) float64 {
	m := 0.0
	for _, name := range []string{"makespan_ns", "bound_ns"} {
		c := col(s, name)
		if c < 0 {
			continue
		}
		for _, r := range rows {
			if v, ok := num(r.Values[c]); ok {
				m = math.Max(m, v)
			}
		}
	}
	return m
}

// SaveFigures writes every figure as NAME.png and NAME.svg into dir,
// atomically, and returns the SVG texts in order.
func SaveFigures(dir string, figs []Figure) ([][]byte, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var svgs [][]byte
	for _, f := range figs {
		for _, ext := range []string{"png", "svg"} {
			b, err := Render(f, ext)
			if err != nil {
				return nil, err
			}
			if err := atomicfile.WriteFile(filepath.Join(dir, f.Name+"."+ext), b); err != nil {
				return nil, err
			}
			if ext == "svg" {
				svgs = append(svgs, b)
			}
		}
	}
	return svgs, nil
}

// Lines draws one line with markers per named series of (x, y) points,
// sorted by x, in the report's style with the legend beside the plot.
func Lines(name, title, xlabel, ylabel string, names []string, pts map[string]plotter.XYs) (Figure, error) {
	sorted := make(map[string]plotter.XYs, len(pts))
	for n, xy := range pts {
		c := append(plotter.XYs(nil), xy...)
		sort.Slice(c, func(i, j int) bool { return c[i].X < c[j].X })
		sorted[n] = c
	}
	p, leg, err := linePlot(title, ylabel, names, sorted, nil, nil)
	if err != nil {
		return Figure{}, fmt.Errorf("figure %s: %w", name, err)
	}
	p.X.Label.Text = xlabel
	return Figure{Name: name, Title: title, Plot: p, Legend: leg}, nil
}
