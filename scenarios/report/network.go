package report

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// LinkUse is one network link's traffic over a replay under the flow
// model (see LinkUtilisation).
type LinkUse struct {
	Name      string  // the link's label, e.g. "link 17"
	Bandwidth float64 // bytes per ns (GB/s)
	Bytes     int64   // bytes of the flows that crossed it
	BusyNs    int64   // time during which at least one flow crossed it
	Peak      int32   // most flows crossing it at once
}

// MaxLinkBars is how many links LinkUtilisation draws at most: the
// busiest.
const MaxLinkBars = 16

// ByteUnit returns the binary unit (B, KiB, MiB, GiB, TiB) that shows
// sizes up to maxBytes with one to four digits before the point, and its
// size in bytes.
func ByteUnit(maxBytes float64) (name string, size float64) {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	size = 1
	for _, u := range units[:len(units)-1] {
		if maxBytes < 1024*size {
			return u, size
		}
		size *= 1024
	}
	return units[len(units)-1], size
}

// LinkUtilisation draws the links that carried the most data relative to
// their capacity (at most MaxLinkBars of them, the busiest at the top) as
// pairs of horizontal bars: the link's utilisation, bytes / (bandwidth ×
// makespan), and the share of the makespan during which at least one flow
// crossed it, both in percent. Each link is labelled with its name, the
// bytes it carried (in one binary unit for all, chosen by magnitude) and
// its peak number of concurrent flows. Links that carried nothing are
// left out; there must be at least one that carried something.
func LinkUtilisation(name, title string, links []LinkUse, makespanNs float64) (Figure, error) {
	rows, err := linkRows(links, makespanNs)
	if err != nil {
		return Figure{}, fmt.Errorf("link utilisation %s: %w", name, err)
	}
	n := len(rows)
	util, busy := make(plotter.Values, n), make(plotter.Values, n)
	labels := make([]string, n)
	for i, r := range rows {
		// A leading space keeps the widest label clear of the edge.
		util[i], busy[i], labels[i] = r.util, r.busy, " "+r.label
	}
	p := newPlot(title)
	p.X.Label.Text = "% of the makespan"
	p.X.Min = 0
	leg := newLegend()
	w := vg.Points(math.Min(9, 0.3*float64(Height.Points())/float64(n)))
	for k, s := range []struct {
		name string
		v    plotter.Values
	}{{"utilisation", util}, {"busy (≥ 1 flow)", busy}} {
		b, err := plotter.NewBarChart(s.v, w)
		if err != nil {
			return Figure{}, fmt.Errorf("link utilisation %s: %w", name, err)
		}
		b.Horizontal = true
		b.Color = Color(k)
		b.LineStyle.Width = 0
		b.Offset = w * vg.Length(1-2*k) / 2 // utilisation above busy
		p.Add(b)
		leg.Add(s.name, b)
	}
	p.Y.Tick.Label.Font.Size = vg.Points(9)
	p.NominalY(labels...)
	p.Y.Min, p.Y.Max = -0.6, float64(n)-0.4 // room for the outer bars
	grid := plotter.NewGrid()
	grid.Horizontal.Width = 0 // the rows are links, not values
	p.Add(grid)
	if p.X.Max < 100 {
		p.X.Max = math.Min(100, p.X.Max*1.05)
	}
	return Figure{Name: name, Title: title, Plot: p, Legend: leg}, nil
}

// linkRow is one row of LinkUtilisation: a link's label and its
// utilisation and busy share, in percent.
type linkRow struct {
	label      string
	util, busy float64
}

// linkRows returns LinkUtilisation's rows from the bottom up: the links
// that carried something, busiest (by utilisation, then busy time) last,
// at most MaxLinkBars.
func linkRows(links []LinkUse, makespanNs float64) ([]linkRow, error) {
	if !(makespanNs > 0) {
		return nil, fmt.Errorf("makespan %g ns", makespanNs)
	}
	type use struct {
		LinkUse
		util, busy float64
	}
	var used []use
	for _, l := range links {
		if !(l.Bandwidth > 0) || l.Bytes < 0 || l.BusyNs < 0 {
			return nil, fmt.Errorf("link %q: bandwidth %g, %d bytes, busy %d ns", l.Name, l.Bandwidth, l.Bytes, l.BusyNs)
		}
		if l.Bytes == 0 && l.BusyNs == 0 {
			continue
		}
		used = append(used, use{l, 100 * float64(l.Bytes) / (l.Bandwidth * makespanNs), 100 * float64(l.BusyNs) / makespanNs})
	}
	if len(used) == 0 {
		return nil, fmt.Errorf("no link carried data")
	}
	sort.SliceStable(used, func(i, j int) bool {
		if used[i].util != used[j].util {
			return used[i].util > used[j].util
		}
		return used[i].busy > used[j].busy
	})
	used = used[:min(len(used), MaxLinkBars)]
	var maxBytes float64
	for _, u := range used {
		maxBytes = math.Max(maxBytes, float64(u.Bytes))
	}
	unit, size := ByteUnit(maxBytes)
	rows := make([]linkRow, len(used))
	for i, u := range used {
		rows[len(used)-1-i] = linkRow{fmt.Sprintf("%s (%s %s, peak %d)", u.Name, FormatNumber(float64(u.Bytes)/size, 3), unit, u.Peak), u.util, u.busy}
	}
	return rows, nil
}
