package report

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/capsim/capsim/optimize/frontier"
)

// Span is one bar of a Gantt chart: row Row is busy from Start to End
// (ns) doing something of class Class (an index into the chart's class
// names).
type Span struct {
	Row        int
	Start, End float64
	Class      int
}

// MaxSpans bounds the bars a Gantt chart draws. Beyond it, consecutive bars
// of a row and class closer than a pixel's worth of time are merged, so an
// SVG of a long replay stays small.
const MaxSpans = 20000

// gantt is a plot.Plotter of spans.
type gantt struct {
	spans  []Span
	colors []color.Color
	rows   int
	xmax   float64
	path   []Span // a path across the rows, drawn as a line over the bars
}

// pathStyle draws a Gantt chart's path.
var pathStyle = draw.LineStyle{Color: color.Black, Width: vg.Points(1.2)}

func (g *gantt) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, s := range g.spans {
		x0, x1 := trX(s.Start), trX(s.End)
		if x1-x0 < vg.Points(0.3) {
			x1 = x0 + vg.Points(0.3)
		}
		y0, y1 := trY(float64(s.Row)-0.4), trY(float64(s.Row)+0.4)
		c.FillPolygon(g.colors[s.Class], []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
	}
	if len(g.path) > 0 {
		// Along each segment's row, stepping between rows where the path
		// moves to another rank.
		pts := []vg.Point{{X: trX(g.path[0].Start), Y: trY(float64(g.path[0].Row))}}
		for i, s := range g.path {
			y := trY(float64(s.Row))
			if i > 0 && s.Row != g.path[i-1].Row {
				pts = append(pts, vg.Point{X: trX(s.Start), Y: y})
			}
			pts = append(pts, vg.Point{X: trX(s.End), Y: y})
		}
		c.StrokeLines(pathStyle, c.ClipLinesXY(pts)...)
	}
}

func (g *gantt) DataRange() (xmin, xmax, ymin, ymax float64) {
	return 0, g.xmax, -0.6, float64(g.rows) + 0.4 // a free row on top for the legend
}

// coarsen merges bars of the same row and class that are closer than
// eps, until at most MaxSpans remain. Spans must be sorted by row, then
// start.
func coarsen(spans []Span, xmax float64) []Span {
	for eps := xmax / 4000; len(spans) > MaxSpans; eps *= 2 {
		var out []Span
		for _, s := range spans {
			if n := len(out); n > 0 && out[n-1].Row == s.Row && out[n-1].Class == s.Class && s.Start-out[n-1].End <= eps {
				out[n-1].End = math.Max(out[n-1].End, s.End)
				continue
			}
			out = append(out, s)
		}
		spans = out
	}
	return spans
}

// Gantt draws what each row (rank) did over time: one coloured bar per
// span, coloured by class, with a legend of the class names. Spans must be
// sorted by row, then start; the time axis is in unit (see TimeUnit).
func Gantt(name, title string, rows int, classes []string, spans []Span, unit string) (Figure, error) {
	return GanttPath(name, title, rows, classes, spans, nil, "", unit)
}

// GanttPath is Gantt with a path drawn over the bars as a black line
// named pathName in the legend: path's spans (their Class is not used),
// in time order, each on its row, joined where the path changes rows (a
// critical path across ranks, say).
func GanttPath(name, title string, rows int, classes []string, spans, path []Span, pathName, unit string) (Figure, error) {
	if rows <= 0 {
		return Figure{}, fmt.Errorf("gantt %s: no rows", name)
	}
	ns, err := UnitNs(unit)
	if err != nil {
		return Figure{}, fmt.Errorf("gantt %s: %w", name, err)
	}
	g := &gantt{rows: rows}
	scaled := make([]Span, len(spans))
	for i, s := range spans {
		if s.Row < 0 || s.Row >= rows || s.Class < 0 || s.Class >= len(classes) || !(s.End >= s.Start) {
			return Figure{}, fmt.Errorf("gantt %s: bad span %+v", name, s)
		}
		s.Start, s.End = s.Start/ns, s.End/ns
		scaled[i] = s
		g.xmax = math.Max(g.xmax, s.End)
	}
	if g.xmax == 0 {
		g.xmax = 1
	}
	g.spans = coarsen(scaled, g.xmax)
	for i, s := range path {
		if s.Row < 0 || s.Row >= rows || !(s.End >= s.Start) || (i > 0 && s.Start < path[i-1].End) {
			return Figure{}, fmt.Errorf("gantt %s: bad path span %+v", name, s)
		}
		s.Start, s.End = s.Start/ns, s.End/ns
		// A run of spans on one row is one stretch of the line.
		if n := len(g.path); n > 0 && g.path[n-1].Row == s.Row {
			g.path[n-1].End = s.End
			continue
		}
		g.path = append(g.path, s)
	}
	p := newPlot(title)
	p.X.Label.Text = "time (" + unit + ")"
	p.Y.Label.Text = "rank"
	p.Add(g)
	leg := newLegend()
	for i, cl := range classes {
		col := Color(i)
		g.colors = append(g.colors, col)
		leg.Add(cl, boxOf(col))
	}
	if len(g.path) > 0 {
		leg.Add(pathName, &plotter.Line{LineStyle: pathStyle})
	}
	if rows <= 32 {
		var ticks []plot.Tick
		for r := 0; r < rows; r++ {
			ticks = append(ticks, plot.Tick{Value: float64(r), Label: fmt.Sprint(r)})
		}
		p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	}
	return Figure{Name: name, Title: title, Plot: p, Legend: leg}, nil
}

// box is a legend thumbnail: a filled square of colour col.
type box color.RGBA

func (b box) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Min.X, Y: c.Max.Y}}
	c.FillPolygon(color.RGBA(b), c.ClipPolygonY(pts))
}

func boxOf(col color.Color) box {
	r, g, b, a := col.RGBA()
	return box{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}
}

// UnitNs returns the length in ns of a time unit named as TimeUnit names
// them (µs may also be written us).
func UnitNs(unit string) (float64, error) {
	switch unit {
	case "ns":
		return 1, nil
	case "µs", "us":
		return 1e3, nil
	case "ms":
		return 1e6, nil
	case "s":
		return 1e9, nil
	}
	return 0, fmt.Errorf("unknown time unit %q (want ns, µs, ms or s)", unit)
}

// Series is a named power curve: Watts[i] holds from Times[i] (ns) until
// Times[i+1], and the last value until End.
type Series struct {
	Name  string
	Times []float64
	Watts []float64
	End   float64
}

func (s Series) steps(ns float64) plotter.XYs {
	var xy plotter.XYs
	for i, t := range s.Times {
		next := s.End
		if i+1 < len(s.Times) {
			next = s.Times[i+1]
		}
		xy = append(xy, plotter.XY{X: t / ns, Y: s.Watts[i]}, plotter.XY{X: next / ns, Y: s.Watts[i]})
	}
	return xy
}

func (s Series) check(name string) error {
	if len(s.Times) != len(s.Watts) {
		return fmt.Errorf("power plot %s: series %s has %d times and %d powers", name, s.Name, len(s.Times), len(s.Watts))
	}
	return nil
}

// PowerOverTime draws power curves against time (in unit), with the power
// cap as a dashed black line when capW > 0. Legends list at most 8 curves;
// for more, use PowerHeatMap.
func PowerOverTime(name, title string, series []Series, capW float64, unit string) (Figure, error) {
	ns, err := UnitNs(unit)
	if err != nil {
		return Figure{}, fmt.Errorf("power plot %s: %w", name, err)
	}
	p := newPlot(title)
	p.X.Label.Text = "time (" + unit + ")"
	p.Y.Label.Text = "power (W)"
	leg := newLegend()
	end := 0.0
	for i, s := range series {
		if err := s.check(name); err != nil {
			return Figure{}, err
		}
		if len(s.Times) == 0 {
			continue
		}
		l, err := plotter.NewLine(s.steps(ns))
		if err != nil {
			return Figure{}, fmt.Errorf("power plot %s: %w", name, err)
		}
		l.Color = Color(i)
		l.Width = vg.Points(1.5)
		p.Add(l)
		if len(series) <= 8 {
			leg.Add(s.Name, l)
		}
		end = math.Max(end, s.End/ns)
	}
	if capW > 0 && end > 0 {
		l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: capW}, {X: end, Y: capW}})
		if err != nil {
			return Figure{}, err
		}
		l.Color = color.Black
		l.Width = vg.Points(1.5)
		l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		p.Add(l)
		leg.Add(fmt.Sprintf("cap %s W", FormatNumber(capW, 6)), l)
	}
	p.Add(plotter.NewGrid())
	return Figure{Name: name, Title: title, Plot: p, Legend: leg}, nil
}

// A PowerHeatMap has at most HeatMapColumns time bins, and at most
// HeatMapCells cells in all (each a rectangle of the SVG).
const (
	HeatMapColumns = 400
	HeatMapCells   = 60000
)

// binPower averages each curve over cols equal time bins spanning the
// longest curve; it returns the bins, [curve][bin], and the bins' width.
func binPower(series []Series, cols int) ([][]float64, float64) {
	end := 0.0
	for _, s := range series {
		end = math.Max(end, s.End)
	}
	if end <= 0 {
		end = 1
	}
	binNs := end / float64(cols)
	out := make([][]float64, len(series))
	for k, s := range series {
		row := make([]float64, cols)
		for i, t := range s.Times { // each step's energy to the bins it covers
			next := s.End
			if i+1 < len(s.Times) {
				next = s.Times[i+1]
			}
			b0, b1 := max(0, int(t/binNs)), min(cols-1, int(next/binNs))
			for b := b0; b <= b1; b++ {
				lo, hi := math.Max(t, float64(b)*binNs), math.Min(next, float64(b+1)*binNs)
				if hi > lo {
					row[b] += s.Watts[i] * (hi - lo) / binNs
				}
			}
		}
		out[k] = row
	}
	return out, binNs
}

// viridis returns a colour map through the control points of matplotlib's
// viridis (van der Walt and Smith, 2015): perceptually uniform, readable
// in grey and with every common colour-vision deficiency.
func viridis() (palette.ColorMap, error) {
	return moreland.NewLuminance([]color.Color{
		color.NRGBA{0x44, 0x01, 0x54, 0xff},
		color.NRGBA{0x3B, 0x52, 0x8B, 0xff},
		color.NRGBA{0x21, 0x91, 0x8C, 0xff},
		color.NRGBA{0x5E, 0xC9, 0x62, 0xff},
		color.NRGBA{0xFD, 0xE7, 0x25, 0xff},
	})
}

// powerGrid is a rank × time grid of time-averaged power (plotter.GridXYZ).
type powerGrid struct {
	w    [][]float64 // [rank][bin]
	bin  float64     // bin width, in the axis unit
	rows int
}

func (g *powerGrid) Dims() (c, r int)   { return len(g.w[0]), g.rows }
func (g *powerGrid) Z(c, r int) float64 { return g.w[r][c] }
func (g *powerGrid) X(c int) float64    { return (float64(c) + 0.5) * g.bin }
func (g *powerGrid) Y(r int) float64    { return float64(r) }

// PowerHeatMap draws one power curve per row (a rank's) as a heat map:
// rank against time (in unit), colour the power averaged over each time
// bin (HeatMapColumns, fewer when there are many ranks), on a perceptually
// uniform colour map that reads in grey and with colour-blind eyes
// (viridis); the legend gives the colour scale.
func PowerHeatMap(name, title string, series []Series, unit string) (Figure, error) {
	ns, err := UnitNs(unit)
	if err != nil {
		return Figure{}, fmt.Errorf("heat map %s: %w", name, err)
	}
	if len(series) == 0 {
		return Figure{}, fmt.Errorf("heat map %s: no series", name)
	}
	for _, s := range series {
		if err := s.check(name); err != nil {
			return Figure{}, err
		}
	}
	cols := min(HeatMapColumns, max(50, HeatMapCells/len(series)))
	w, binNs := binPower(series, cols)
	g := &powerGrid{w: w, bin: binNs / ns, rows: len(series)}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, row := range w {
		for b, v := range row {
			v = math.Round(v*1e6) / 1e6 // watts resolve to the µW; the rest is summation noise
			row[b] = v
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	constant := hi <= lo
	if constant {
		lo, hi = lo-0.5, hi+0.5
	}
	cm, err := viridis()
	if err != nil {
		return Figure{}, err
	}
	cm.SetMin(lo)
	cm.SetMax(hi)
	h := plotter.NewHeatMap(g, cm.Palette(256))
	h.Min, h.Max = lo, hi
	p := newPlot(title)
	p.X.Label.Text = "time (" + unit + ")"
	p.Y.Label.Text = "rank"
	p.Add(h)
	leg := newLegend()
	// enough digits that the five levels print apart
	digits := 3 + max(0, int(math.Ceil(math.Log10(math.Max(math.Abs(lo), math.Abs(hi))/(hi-lo)))))
	for k := 4; k >= 0; k-- {
		v := lo + (hi-lo)*float64(k)/4
		if constant && k != 2 {
			continue // one level: every rank draws the same power throughout
		}
		col, err := cm.At(v)
		if err != nil {
			return Figure{}, err
		}
		leg.Add(FormatNumber(v, digits)+" W", boxOf(col))
	}
	if len(series) <= 32 {
		var ticks []plot.Tick
		for r := range series {
			ticks = append(ticks, plot.Tick{Value: float64(r), Label: fmt.Sprint(r)})
		}
		p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	}
	return Figure{Name: name, Title: title, Plot: p, Legend: leg}, nil
}

// Frontier draws a task's configurations in (time, power) with their
// Pareto frontier and its lower convex hull, the set the LP mixes from.
func Frontier(name, title string, configs []frontier.Config) (Figure, error) {
	pareto, err := frontier.Pareto(configs)
	if err != nil {
		return Figure{}, fmt.Errorf("frontier plot %s: %w", name, err)
	}
	hull, err := frontier.Hull(configs)
	if err != nil {
		return Figure{}, fmt.Errorf("frontier plot %s: %w", name, err)
	}
	p := newPlot(title)
	leg := newLegend()
	maxT := 0.0
	for _, c := range configs {
		maxT = math.Max(maxT, c.Time)
	}
	unit, ns := TimeUnit(maxT * 1e9)
	scale := 1e9 / ns
	xy := func(cs []frontier.Config) plotter.XYs {
		out := make(plotter.XYs, len(cs))
		for i, c := range cs {
			out[i] = plotter.XY{X: c.Time * scale, Y: c.Power}
		}
		return out
	}
	p.X.Label.Text = "time (" + unit + ")"
	p.Y.Label.Text = "power (W)"
	all, err := plotter.NewScatter(xy(configs))
	if err != nil {
		return Figure{}, err
	}
	all.Color = Color(2)
	all.Radius = vg.Points(3)
	all.Shape = draw.CrossGlyph{}
	pl, ps, err := plotter.NewLinePoints(xy(pareto))
	if err != nil {
		return Figure{}, err
	}
	pl.Color, ps.Color = Color(0), Color(0)
	pl.Width = vg.Points(1.5)
	hl, err := plotter.NewLine(xy(hull))
	if err != nil {
		return Figure{}, err
	}
	hl.Color = Color(1)
	hl.Width = vg.Points(2)
	hl.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	p.Add(all, pl, ps, hl)
	leg.Add("configurations", all)
	leg.Add("Pareto frontier", pl, ps)
	leg.Add("lower convex hull", hl)
	var labels plotter.XYLabels
	for _, c := range configs {
		if c.Label != "" {
			labels.XYs = append(labels.XYs, plotter.XY{X: c.Time * scale, Y: c.Power})
			labels.Labels = append(labels.Labels, c.Label)
		}
	}
	if len(labels.Labels) > 0 {
		l, err := plotter.NewLabels(labels)
		if err != nil {
			return Figure{}, err
		}
		for i := range l.TextStyle {
			l.TextStyle[i].Font = font.From(sans, vg.Points(9))
			l.TextStyle[i].XAlign = draw.XLeft
			l.Offset = vg.Point{X: vg.Points(4), Y: vg.Points(2)}
		}
		p.Add(l)
	}
	p.Add(plotter.NewGrid())
	return Figure{Name: name, Title: title, Plot: p, Legend: leg}, nil
}
