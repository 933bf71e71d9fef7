package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/capsim/capsim/scenarios/results"
)

// Section is a block of the report: a heading, optional text, a table and
// figures.
type Section struct {
	Heading string
	Text    string
	Columns []string // nil with Rows: a table of keys and values, no header
	Rows    [][]string
	Figures []Figure
}

// Page is a report: its title, the summary sections that open it (what
// was simulated, the headline), the sweep's figures, further sections
// (comparisons, one point in detail) and the results table, formatted
// with units (the exact values stay in results.arrow and results.csv).
type Page struct {
	Title    string
	Summary  []Section
	Figures  []Figure
	Sections []Section
	Schema   results.Schema
	Rows     []results.Row
}

type pageSection struct {
	Section
	SVGs []pageFig
}

type pageFig struct {
	Number int // in page order, from 1
	Title  string
	SVG    template.HTML
}

type pageData struct {
	Title    string
	Summary  []pageSection
	Figures  []pageFig
	Sections []pageSection
	Results  pageSection
}

var pageTmpl = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:80em;padding:0 1em;color:#222;line-height:1.4}
h1{font-size:1.6em} h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;font-size:.85em;margin:1em 0;font-variant-numeric:tabular-nums}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right}
th{background:#f0f0f0} td:first-child,th:first-child{text-align:left}
table.kv td{text-align:left} table.kv td:first-child{font-weight:600;white-space:nowrap}
figure{margin:1.5em 0} figure svg{width:100%;height:auto} figcaption{color:#555;font-size:.9em} figcaption b{color:#222}
</style></head><body>
<h1>{{.Title}}</h1>
{{define "section"}}<h2>{{.Heading}}</h2>{{if .Text}}<p>{{.Text}}</p>{{end}}
{{if .Columns}}<table><tr>{{range .Columns}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>{{else if .Rows}}<table class="kv">
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>{{end}}
{{range .SVGs}}<figure>{{.SVG}}<figcaption><b>Figure {{.Number}}:</b> {{.Title}}</figcaption></figure>
{{end}}{{end}}
{{range .Summary}}{{template "section" .}}{{end}}
{{if .Figures}}<h2>Sweep</h2>{{end}}
{{range .Figures}}<figure>{{.SVG}}<figcaption><b>Figure {{.Number}}:</b> {{.Title}}</figcaption></figure>
{{end}}
{{range .Sections}}{{template "section" .}}{{end}}
{{template "section" .Results}}
</body></html>
`))

// Write writes the page as self-contained HTML: figures inline as SVG, no
// script, no network.
func (p *Page) Write(w io.Writer) error {
	d := pageData{Title: p.Title}
	var err error
	n := 0 // figures are numbered in page order
	conv := func(in []Section) ([]pageSection, error) {
		var out []pageSection
		for _, sec := range in {
			ps := pageSection{Section: sec}
			if ps.SVGs, err = inline(sec.Figures, &n); err != nil {
				return nil, err
			}
			out = append(out, ps)
		}
		return out, nil
	}
	if d.Summary, err = conv(p.Summary); err != nil {
		return err
	}
	if d.Figures, err = inline(p.Figures, &n); err != nil {
		return err
	}
	if d.Sections, err = conv(p.Sections); err != nil {
		return err
	}
	d.Results.Heading = "Results"
	d.Results.Columns, d.Results.Rows = FormatTable(p.Schema, p.Rows)
	return pageTmpl.Execute(w, d)
}

func inline(figs []Figure, n *int) ([]pageFig, error) {
	var out []pageFig
	for _, f := range figs {
		svg, err := Render(f, "svg")
		if err != nil {
			return nil, err
		}
		*n++
		out = append(out, pageFig{Number: *n, Title: f.Title, SVG: template.HTML(stripXMLHeader(svg))})
	}
	return out, nil
}

// FormatTable formats a results table for reading: times in one unit
// chosen by the largest (see TimeUnit) with the unit in the header, watts
// to 0.1 W, energy to 4 significant digits, gaps to 0.01 %, absent values
// as "–". Columns it does not know are printed as they are.
func FormatTable(s results.Schema, rows []results.Row) (columns []string, cells [][]string) {
	unit, ns := ResultsTimeUnit(s, rows)
	columns = []string{"point"}
	for _, c := range s {
		columns = append(columns, header(c.Name, unit))
	}
	for _, r := range rows {
		line := []string{fmt.Sprint(r.Index)}
		for i, v := range r.Values {
			line = append(line, FormatCell(s[i].Name, v, ns))
		}
		cells = append(cells, line)
	}
	return columns, cells
}

// header is a column's heading with its unit.
func header(name, unit string) string {
	switch {
	case strings.HasSuffix(name, "_ns"):
		return strings.TrimSuffix(name, "_ns") + " (" + unit + ")"
	case strings.HasSuffix(name, "_w"):
		return strings.TrimSuffix(name, "_w") + " (W)"
	case strings.HasSuffix(name, "_j"):
		return strings.TrimSuffix(name, "_j") + " (J)"
	case strings.HasSuffix(name, "_pct"):
		return strings.TrimSuffix(name, "_pct") + " (%)"
	case strings.HasPrefix(name, "param."):
		return strings.TrimPrefix(name, "param.")
	}
	return name
}

// FormatCell formats value v of column name for reading, with times in
// units of unitNs ns.
func FormatCell(name string, v any, unitNs float64) string {
	x, isNum := num(v)
	switch {
	case v == nil:
		return "–"
	case !isNum:
		return results.FormatValue(v)
	case strings.HasSuffix(name, "_ns"):
		return fmt.Sprintf("%.*f", decimals(unitNs), x/unitNs)
	case strings.HasSuffix(name, "_w"):
		return fmt.Sprintf("%.1f", x)
	case strings.HasSuffix(name, "_j"):
		return FormatNumber(x, 4)
	case strings.HasSuffix(name, "_pct"):
		return fmt.Sprintf("%.2f", x)
	}
	return results.FormatValue(v)
}

// decimals is how many decimals a time in units of unitNs ns shows: to the
// µs for ms and s, to the ns for µs.
func decimals(unitNs float64) int {
	switch unitNs {
	case 1e9:
		return 6
	case 1e6:
		return 3
	case 1e3:
		return 3
	}
	return 0
}

// stripXMLHeader drops the XML declaration so the SVG can sit inside HTML.
func stripXMLHeader(svg []byte) []byte {
	if i := bytes.Index(svg, []byte("<svg")); i > 0 {
		return svg[i:]
	}
	return svg
}
