// Package report turns a sweep's results table into pictures (PNG and SVG,
// drawn with gonum/plot) and a self-contained HTML page with the tables and
// the plots inlined as SVG, so it opens without a network.
package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/capsim/capsim/internal/atomicfile"
	"github.com/capsim/capsim/scenarios/results"
)

// Figure is one plot with the file name stem it is saved under.
type Figure struct {
	Name  string // file name without extension, e.g. "makespan_pal"
	Title string
	Plot  *plot.Plot
}

// Size of saved figures.
const (
	Width  = 16 * vg.Centimeter
	Height = 10 * vg.Centimeter
)

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
func series(s results.Schema, g group, metric string, scale float64, withBound bool) (names []string, pts map[string]plotter.XYs, flat map[string]float64) {
	pc, cc, mc, bc := col(s, "policy"), col(s, "cap_w"), col(s, metric), col(s, "bound_ns")
	pts = map[string]plotter.XYs{}
	flat = map[string]float64{}
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
	return names, pts, flat
}

func linePlot(title, ylabel string, names []string, pts map[string]plotter.XYs, flat map[string]float64) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "power cap (W)"
	p.Y.Label.Text = ylabel
	p.Legend.Top = true
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for i, n := range names {
		l, s, err := plotter.NewLinePoints(pts[n])
		if err != nil {
			return nil, fmt.Errorf("plot %s: %w", n, err)
		}
		l.Color = plotutil.Color(i)
		s.Color = plotutil.Color(i)
		s.Shape = plotutil.Shape(i)
		if n == "LP bound" {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
			l.Width = vg.Points(1.5)
		}
		p.Add(l, s)
		p.Legend.Add(n, l, s)
		for _, q := range pts[n] {
			xmin, xmax = math.Min(xmin, q.X), math.Max(xmax, q.X)
		}
	}
	fnames := make([]string, 0, len(flat))
	for n := range flat {
		fnames = append(fnames, n)
	}
	sort.Strings(fnames)
	for i, n := range fnames {
		if math.IsInf(xmin, 0) {
			xmin, xmax = 0, 1
		}
		l, err := plotter.NewLine(plotter.XYs{{X: xmin, Y: flat[n]}, {X: xmax, Y: flat[n]}})
		if err != nil {
			return nil, err
		}
		l.Color = plotutil.Color(len(names) + i)
		l.Dashes = []vg.Length{vg.Points(1), vg.Points(3)}
		p.Add(l)
		p.Legend.Add(n+" (no cap)", l)
	}
	p.Add(plotter.NewGrid())
	return p, nil
}

// Figures builds the standard sweep figures: makespan against cap per
// policy with the LP bound, and energy against cap per policy, one pair
// per machine and parameter combination.
//
// The table needs the columns policy and cap_w and at least one of
// makespan_ns and energy_j; an error names the ones missing.
func Figures(s results.Schema, rows []results.Row) ([]Figure, error) {
	if err := CheckColumns(s); err != nil {
		return nil, err
	}
	var figs []Figure
	for gi, g := range groupRows(s, rows) {
		suffix := fmt.Sprintf("_%d", gi)
		title := g.key
		for _, m := range []struct {
			metric, label, name string
			scale               float64
			bound               bool
		}{
			{"makespan_ns", "makespan (ms)", "makespan", 1e-6, true},
			{"energy_j", "energy (J)", "energy", 1, false},
		} {
			if col(s, m.metric) < 0 {
				continue
			}
			names, pts, flat := series(s, g, m.metric, m.scale, m.bound)
			if len(names) == 0 && len(flat) == 0 {
				continue
			}
			p, err := linePlot(fmt.Sprintf("%s vs power cap: %s", strings.SplitN(m.label, " ", 2)[0], title), m.label, names, pts, flat)
			if err != nil {
				return nil, err
			}
			figs = append(figs, Figure{Name: m.name + suffix, Title: p.Title.Text, Plot: p})
		}
	}
	return figs, nil
}

// Render returns the figure in the given format ("svg" or "png").
func Render(f Figure, format string) ([]byte, error) {
	wt, err := f.Plot.WriterTo(Width, Height, format)
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", f.Name, err)
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("render %s: %w", f.Name, err)
	}
	return b.Bytes(), nil
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

// page is the data of the HTML template.
type page struct {
	Title   string
	Columns []string
	Rows    [][]string
	Figures []pageFig
	Extra   []pageSection
}

type pageSection struct {
	Section
	SVGs []pageFig
}

type pageFig struct {
	Title string
	SVG   template.HTML
}

// Section is an extra block of the report: a heading, optional text, a
// table and figures.
type Section struct {
	Heading string
	Text    string
	Columns []string
	Rows    [][]string
	Figures []Figure
}

var pageTmpl = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em;max-width:70em;color:#222}
table{border-collapse:collapse;font-size:.85em;margin:1em 0}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right}
th{background:#f0f0f0} td:first-child,th:first-child{text-align:left}
figure{margin:1em 0} figure svg{max-width:100%;height:auto}
</style></head><body>
<h1>{{.Title}}</h1>
{{range .Figures}}<figure>{{.SVG}}<figcaption>{{.Title}}</figcaption></figure>
{{end}}
{{range .Extra}}<h2>{{.Heading}}</h2>{{if .Text}}<p>{{.Text}}</p>{{end}}
{{range .SVGs}}<figure>{{.SVG}}<figcaption>{{.Title}}</figcaption></figure>
{{end}}{{if .Columns}}<table><tr>{{range .Columns}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>{{end}}
{{end}}
<h2>Results</h2>
<table><tr>{{range .Columns}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
</body></html>
`))

// WriteHTML writes the report page to w: the figures inline as SVG, any
// extra sections, then the results table.
func WriteHTML(w io.Writer, title string, s results.Schema, rows []results.Row, figs []Figure, extra []Section) error {
	pg := page{Title: title, Columns: []string{"point"}}
	for _, c := range s {
		pg.Columns = append(pg.Columns, c.Name)
	}
	for _, r := range rows {
		cells := []string{fmt.Sprint(r.Index)}
		for _, v := range r.Values {
			cells = append(cells, results.FormatValue(v))
		}
		pg.Rows = append(pg.Rows, cells)
	}
	var err error
	if pg.Figures, err = inline(figs); err != nil {
		return err
	}
	for _, sec := range extra {
		ps := pageSection{Section: sec}
		if ps.SVGs, err = inline(sec.Figures); err != nil {
			return err
		}
		pg.Extra = append(pg.Extra, ps)
	}
	return pageTmpl.Execute(w, pg)
}

func inline(figs []Figure) ([]pageFig, error) {
	var out []pageFig
	for _, f := range figs {
		svg, err := Render(f, "svg")
		if err != nil {
			return nil, err
		}
		out = append(out, pageFig{Title: f.Title, SVG: template.HTML(stripXMLHeader(svg))})
	}
	return out, nil
}

// stripXMLHeader drops the XML declaration so the SVG can sit inside HTML.
func stripXMLHeader(svg []byte) []byte {
	if i := bytes.Index(svg, []byte("<svg")); i > 0 {
		return svg[i:]
	}
	return svg
}
