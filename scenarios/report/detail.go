package report

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/capsim/capsim/optimize/frontier"
)

// Span is one bar of a Gantt chart: row Row is busy from Start to End
// (seconds) doing something of class Class (an index into the chart's
// class names).
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
}

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

// Gantt draws what each row (rank) did over time: one colored bar per span,
// colored by class, with a legend of the class names. Spans must be sorted
// by row, then start.
func Gantt(name, title string, rows int, classes []string, spans []Span) (Figure, error) {
	if rows <= 0 {
		return Figure{}, fmt.Errorf("gantt %s: no rows", name)
	}
	g := &gantt{rows: rows}
	for _, s := range spans {
		if s.Row < 0 || s.Row >= rows || s.Class < 0 || s.Class >= len(classes) || !(s.End >= s.Start) {
			return Figure{}, fmt.Errorf("gantt %s: bad span %+v", name, s)
		}
		g.xmax = math.Max(g.xmax, s.End)
	}
	if g.xmax == 0 {
		g.xmax = 1
	}
	g.spans = coarsen(spans, g.xmax)
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "time (s)"
	p.Y.Label.Text = "rank"
	p.Add(g)
	p.Legend.Top = true
	for i, cl := range classes {
		col := plotutil.Color(i)
		g.colors = append(g.colors, col)
		box, err := plotter.NewPolygon(plotter.XYs{{}, {}, {}})
		if err != nil {
			return Figure{}, err
		}
		box.Color = col
		box.LineStyle.Width = 0
		p.Legend.Add(cl, box)
	}
	if rows <= 32 {
		var ticks []plot.Tick
		for r := 0; r < rows; r++ {
			ticks = append(ticks, plot.Tick{Value: float64(r), Label: fmt.Sprint(r)})
		}
		p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	}
	return Figure{Name: name, Title: title, Plot: p}, nil
}

// Series is a named power curve: Watts[i] holds from Times[i] (seconds)
// until Times[i+1], and the last value until End.
type Series struct {
	Name  string
	Times []float64
	Watts []float64
	End   float64
}

func (s Series) steps() plotter.XYs {
	var xy plotter.XYs
	for i, t := range s.Times {
		next := s.End
		if i+1 < len(s.Times) {
			next = s.Times[i+1]
		}
		xy = append(xy, plotter.XY{X: t, Y: s.Watts[i]}, plotter.XY{X: next, Y: s.Watts[i]})
	}
	return xy
}

// PowerOverTime draws power curves against time, with the power cap as a
// dashed line when capW > 0. Legends are drawn for at most 8 curves.
func PowerOverTime(name, title string, series []Series, capW float64) (Figure, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "time (s)"
	p.Y.Label.Text = "power (W)"
	p.Legend.Top = true
	end := 0.0
	for i, s := range series {
		if len(s.Times) != len(s.Watts) {
			return Figure{}, fmt.Errorf("power plot %s: series %s has %d times and %d powers", name, s.Name, len(s.Times), len(s.Watts))
		}
		if len(s.Times) == 0 {
			continue
		}
		l, err := plotter.NewLine(s.steps())
		if err != nil {
			return Figure{}, fmt.Errorf("power plot %s: %w", name, err)
		}
		l.Color = plotutil.Color(i)
		p.Add(l)
		if len(series) <= 8 {
			p.Legend.Add(s.Name, l)
		}
		end = math.Max(end, s.End)
	}
	if capW > 0 && end > 0 {
		l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: capW}, {X: end, Y: capW}})
		if err != nil {
			return Figure{}, err
		}
		l.Color = color.Black
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("cap %g W", capW), l)
	}
	p.Add(plotter.NewGrid())
	return Figure{Name: name, Title: title, Plot: p}, nil
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
	xy := func(cs []frontier.Config) plotter.XYs {
		out := make(plotter.XYs, len(cs))
		for i, c := range cs {
			out[i] = plotter.XY{X: c.Time, Y: c.Power}
		}
		return out
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "time (s)"
	p.Y.Label.Text = "power (W)"
	p.Legend.Top = true
	all, err := plotter.NewScatter(xy(configs))
	if err != nil {
		return Figure{}, err
	}
	all.Color = plotutil.Color(2)
	all.Shape = draw.CrossGlyph{}
	pl, ps, err := plotter.NewLinePoints(xy(pareto))
	if err != nil {
		return Figure{}, err
	}
	pl.Color, ps.Color = plotutil.Color(0), plotutil.Color(0)
	hl, err := plotter.NewLine(xy(hull))
	if err != nil {
		return Figure{}, err
	}
	hl.Color = plotutil.Color(1)
	hl.Width = vg.Points(2)
	hl.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	p.Add(all, pl, ps, hl)
	p.Legend.Add("configurations", all)
	p.Legend.Add("Pareto frontier", pl, ps)
	p.Legend.Add("lower convex hull", hl)
	var labels plotter.XYLabels
	for _, c := range configs {
		if c.Label != "" {
			labels.XYs = append(labels.XYs, plotter.XY{X: c.Time, Y: c.Power})
			labels.Labels = append(labels.Labels, c.Label)
		}
	}
	if len(labels.Labels) > 0 {
		l, err := plotter.NewLabels(labels)
		if err != nil {
			return Figure{}, err
		}
		for i := range l.TextStyle {
			l.TextStyle[i].XAlign = draw.XLeft
			l.Offset = vg.Point{X: vg.Points(4), Y: vg.Points(2)}
		}
		p.Add(l)
	}
	p.Add(plotter.NewGrid())
	return Figure{Name: name, Title: title, Plot: p}, nil
}
