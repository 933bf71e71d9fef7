package report

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// FrontierName is the legend entry of the energy–time frontier.
const FrontierName = "frontier"

// FrontierPlot draws the energy–time frontier, makespan (x, in units of
// ns nanoseconds named unit) against energy (y, joules), as a line
// through curve (extended level to the largest replayed makespan: a later
// deadline needs no more energy), and every policy's replayed points as
// markers of the policy's colour and shape, in names' order (the order
// the cap figures give them colours in), with a black ring around the
// points in over (schedules that exceeded their cap).
func FrontierPlot(name, title, unit string, ns float64, curve plotter.XYs, names []string, pts map[string]plotter.XYs, over plotter.XYs) (Figure, error) {
	p := newPlot(title)
	leg := newLegend()
	p.X.Label.Text = "makespan (" + unit + ")"
	p.Y.Label.Text = "energy (J)"
	scale := func(xy plotter.XYs) plotter.XYs {
		out := make(plotter.XYs, len(xy))
		for i, q := range xy {
			out[i] = plotter.XY{X: q.X / ns, Y: q.Y}
		}
		return out
	}
	xmax := math.Inf(-1)
	for _, n := range names {
		for _, q := range pts[n] {
			xmax = math.Max(xmax, q.X)
		}
	}
	if len(curve) > 0 {
		c := append(plotter.XYs(nil), curve...)
		if last := c[len(c)-1]; xmax > last.X {
			c = append(c, plotter.XY{X: xmax, Y: last.Y})
		}
		l, err := plotter.NewLine(scale(c))
		if err != nil {
			return Figure{}, fmt.Errorf("figure %s: frontier: %w", name, err)
		}
		l.Color = color.Gray{Y: 0x60}
		l.Width = vg.Points(3)
		p.Add(l)
		leg.Add(FrontierName, l)
	}
	for k, n := range names {
		if len(pts[n]) == 0 {
			continue
		}
		s, err := plotter.NewScatter(scale(pts[n]))
		if err != nil {
			return Figure{}, fmt.Errorf("figure %s: %s: %w", name, n, err)
		}
		s.Color = Color(k)
		s.Shape = plotutil.Shape(k)
		s.Radius = vg.Points(3.5)
		p.Add(s)
		leg.Add(n, s)
	}
	if len(over) > 0 {
		s, err := plotter.NewScatter(scale(over))
		if err != nil {
			return Figure{}, fmt.Errorf("figure %s: over the cap: %w", name, err)
		}
		s.Shape = draw.RingGlyph{}
		s.Radius = vg.Points(7)
		s.Color = color.Black
		p.Add(s)
		thumb := *s
		thumb.Radius = vg.Points(4)
		leg.Add(overName, &thumb)
	}
	p.Add(plotter.NewGrid())
	// A margin of 4 % of the energies' range below and above, so that the
	// frontier's level stretch does not lie on the axis.
	// Makespans alike by 2 %, so that no marker is cut at an edge.
	lo, hi := math.Inf(1), math.Inf(-1)
	xlo, xhi := math.Inf(1), math.Inf(-1)
	for _, xy := range append([]plotter.XYs{curve, over}, valuesOf(pts, names)...) {
		for _, q := range xy {
			lo, hi = math.Min(lo, q.Y), math.Max(hi, q.Y)
			xlo, xhi = math.Min(xlo, q.X/ns), math.Max(xhi, q.X/ns)
		}
	}
	if lo < hi {
		pad := 0.04 * (hi - lo)
		p.Y.Min, p.Y.Max = lo-pad, hi+pad
	}
	if xlo < xhi {
		pad := 0.02 * (xhi - xlo)
		p.X.Min, p.X.Max = xlo-pad, xhi+pad
	}
	return Figure{Name: name, Title: title, Plot: p, Legend: leg}, nil
}

func valuesOf(pts map[string]plotter.XYs, names []string) []plotter.XYs {
	out := make([]plotter.XYs, 0, len(names))
	for _, n := range names {
		out = append(out, pts[n])
	}
	return out
}
