// Package schedplot draws the results of sched.Compare: each policy's
// performance relative to the Fair Scheduler against the power cap.
package schedplot

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/capsim/capsim/internal/atomicfile"
	"github.com/capsim/capsim/optimize/sched"
)

// Format returns the image format of path, "png" or "svg", from its
// extension, or an error naming path for any other.
func Format(path string) (string, error) {
	ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	if ext != "png" && ext != "svg" {
		return "", fmt.Errorf("--plot %s: want a .png or .svg file", path)
	}
	return ext, nil
}

// WriteFile draws the relative performance of rows against the cap,
// one panel per graph and one line per policy of pols other than fs
// (which is 1 by definition): the shape of Fig. 25 of Anger's thesis
// (Georgia Tech 2016). path ends in .png or .svg (Format).
func WriteFile(path string, rows []sched.Row, pols []string) error {
	ext, err := Format(path)
	if err != nil {
		return err
	}
	var graphs []string
	seen := map[string]bool{}
	for _, r := range rows {
		if !seen[r.Graph] {
			seen[r.Graph] = true
			graphs = append(graphs, r.Graph)
		}
	}
	var panels []*plot.Plot
	for _, g := range graphs {
		p := plot.New()
		p.Title.Text = g
		p.X.Label.Text = "power cap (W over idle)"
		p.Y.Label.Text = "performance relative to FS"
		p.Add(plotter.NewGrid())
		var lines []any
		for _, name := range pols {
			if name == "fs" {
				continue
			}
			var xy plotter.XYs
			for _, r := range rows {
				if r.Graph == g && r.Policy == name {
					xy = append(xy, plotter.XY{X: r.CapW, Y: r.RelPerf})
				}
			}
			lines = append(lines, strings.ToUpper(name), xy)
		}
		if err := plotutil.AddLinePoints(p, lines...); err != nil {
			return err
		}
		p.Legend.Top = true
		panels = append(panels, p)
	}
	if len(panels) == 0 {
		return nil
	}
	w := vg.Length(len(panels)) * 12 * vg.Centimeter
	h := 10 * vg.Centimeter
	var c vg.CanvasWriterTo
	if ext == "png" {
		c = vgimg.PngCanvas{Canvas: vgimg.New(w, h)}
	} else {
		c = vgsvg.New(w, h)
	}
	dc := draw.New(c)
	tiles := draw.Tiles{Rows: 1, Cols: len(panels), PadX: vg.Centimeter, PadY: vg.Centimeter / 2,
		PadLeft: vg.Centimeter / 2, PadRight: vg.Centimeter / 2, PadTop: vg.Centimeter / 2, PadBottom: vg.Centimeter / 2}
	grid := [][]*plot.Plot{panels}
	cs := plot.Align(grid, tiles, dc)
	for j, p := range panels {
		p.Draw(cs[0][j])
	}
	return atomicfile.Write(path, func(wr io.Writer) error {
		_, err := c.WriteTo(wr)
		return err
	})
}
