package report

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Size of saved figures: 8 × 4.5 inches; PNGs at DPI dots per inch are
// 1600 × 900 pixels.
const (
	Width  = 8 * vg.Inch
	Height = 4.5 * vg.Inch
	DPI    = 200
)

// okabeIto is the Okabe–Ito palette, distinguishable with every common
// form of colour blindness (Okabe and Ito, "Color Universal Design",
// 2008), in the order series take it; black comes last, for the LP bound.
var okabeIto = []color.Color{
	color.RGBA{0x00, 0x72, 0xB2, 0xff}, // blue
	color.RGBA{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	color.RGBA{0x00, 0x9E, 0x73, 0xff}, // bluish green
	color.RGBA{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
	color.RGBA{0xE6, 0x9F, 0x00, 0xff}, // orange
	color.RGBA{0x56, 0xB4, 0xE9, 0xff}, // sky blue
	color.RGBA{0xF0, 0xE4, 0x42, 0xff}, // yellow
	color.Black,
}

// Color returns the i-th colour of the report's colour-blind-safe palette.
func Color(i int) color.Color { return okabeIto[i%(len(okabeIto)-1)] }

// sans is the report's typeface, Liberation Sans (metric-compatible with
// Arial and Helvetica), so that figures match the page's sans-serif text.
// gonum/plot's font cache holds the Liberation collection.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// svgFamily is the font-family SVG figures name: Liberation Sans, else
// the metric-compatible Arial or Helvetica, else the reader's sans-serif.
const svgFamily = "font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"

// newPlot returns a plot with the report's fonts and title.
func newPlot(title string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(sans, vg.Points(13))
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, vg.Points(11))
		a.Tick.Label.Font = font.From(sans, vg.Points(10))
	}
	return p
}

// newLegend returns an empty legend in the report's style. Figures keep
// their legend apart from the plot (Figure.Legend): Render draws it to the
// right of the data, never over it.
func newLegend() *plot.Legend {
	l := plot.NewLegend()
	l.TextStyle.Font = font.From(sans, vg.Points(10))
	l.Top = true
	l.Left = true
	return &l
}

// Render returns the figure in the given format ("svg" or "png"), Width ×
// Height, PNGs at DPI, with the legend (if any) in a column right of the
// plot.
func Render(f Figure, format string) ([]byte, error) {
	var c interface {
		vg.CanvasWriterTo
	}
	switch format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(Width, Height), vgimg.UseDPI(DPI), vgimg.UseBackgroundColor(color.White))}
	case "svg":
		c = vgsvg.New(Width, Height)
	default:
		return nil, fmt.Errorf("render %s: unknown format %q", f.Name, format)
	}
	dc := draw.New(c)
	if f.Legend != nil {
		pad := vg.Points(8)
		lw := f.Legend.Rectangle(dc).Size().X + pad
		if lw > Width/3 {
			lw = Width / 3
		}
		f.Plot.Draw(draw.Crop(dc, 0, -lw, 0, 0))
		top := dc.Max.Y - f.Plot.Title.TextStyle.Height(f.Plot.Title.Text) - 2*pad
		lc := draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: dc.Max.X - lw + pad/2, Y: dc.Min.Y},
			Max: vg.Point{X: dc.Max.X, Y: top},
		}}
		f.Legend.Draw(lc)
	} else {
		f.Plot.Draw(dc)
	}
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("render %s: %w", f.Name, err)
	}
	if format == "svg" {
		return bytes.ReplaceAll(b.Bytes(), []byte("font-family:Liberation Sans;"), []byte(svgFamily)), nil
	}
	return b.Bytes(), nil
}

var _ io.WriterTo = vgimg.PngCanvas{}

// TimeUnit returns the unit that shows times up to maxNs nanoseconds with
// one to three digits before the point: its name and its length in ns.
// A report uses one unit for all its times.
func TimeUnit(maxNs float64) (name string, ns float64) {
	switch {
	case maxNs >= 1e10:
		return "s", 1e9
	case maxNs >= 1e7:
		return "ms", 1e6
	case maxNs >= 1e4:
		return "µs", 1e3
	}
	return "ns", 1
}

// FormatNumber formats v with digits significant digits, without
// exponent for magnitudes from 1e-3 to 1e9, trimming trailing zeros after
// the point.
func FormatNumber(v float64, digits int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	a := math.Abs(v)
	if a != 0 && (a < 1e-3 || a >= 1e9) {
		return strconv.FormatFloat(v, 'g', digits, 64)
	}
	dec := 0
	if a != 0 {
		dec = digits - 1 - int(math.Floor(math.Log10(a)))
	}
	if dec < 0 {
		dec = 0
	}
	s := strconv.FormatFloat(v, 'f', dec, 64)
	if dec > 0 {
		for s[len(s)-1] == '0' {
			s = s[:len(s)-1]
		}
		if s[len(s)-1] == '.' {
			s = s[:len(s)-1]
		}
	}
	return s
}
