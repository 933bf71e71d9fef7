package report

import (
	"bytes"
	"image/png"
	"math"
	"strings"
	"testing"
)

func TestByteUnit(t *testing.T) {
	for _, c := range []struct {
		max  float64
		unit string
		size float64
	}{
		{0, "B", 1}, {1023, "B", 1}, {1024, "KiB", 1024}, {3 << 20, "MiB", 1 << 20},
		{1 << 30, "GiB", 1 << 30}, {5 << 40, "TiB", 1 << 40}, {1 << 60, "TiB", 1 << 40},
	} {
		if u, s := ByteUnit(c.max); u != c.unit || s != c.size {
			t.Errorf("ByteUnit(%g) = %s, %g; want %s, %g", c.max, u, s, c.unit, c.size)
		}
	}
}

// TestLinkUtilisation: a link of 1 GB/s that carried 250 MB in a 1 s run
// is 25 % utilised; the busiest link is on top, unused links are left
// out, at most MaxLinkBars are drawn, bytes are labelled in one unit and
// the figure renders at 1600 px wide.
func TestLinkUtilisation(t *testing.T) {
	links := []LinkUse{
		{Name: "link 0", Bandwidth: 1, Bytes: 250e6, BusyNs: 500e6, Peak: 2},
		{Name: "link 1", Bandwidth: 1},                                         // unused
		{Name: "link 2", Bandwidth: 0.5, Bytes: 400e6, BusyNs: 900e6, Peak: 3}, // 80 %
		{Name: "link 3", Bandwidth: 2, Bytes: 1 << 20, BusyNs: 1e6, Peak: 1},
	}
	for i := 4; i < 40; i++ {
		links = append(links, LinkUse{Name: "small", Bandwidth: 1, Bytes: 1000, BusyNs: 1000, Peak: 1})
	}
	f, err := LinkUtilisation("links", "Link utilisation", links, 1e9)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := linkRows(links, 1e9)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != MaxLinkBars {
		t.Fatalf("%d rows, want %d", len(rows), MaxLinkBars)
	}
	top := rows[MaxLinkBars-1]
	if math.Abs(top.util-80) > 1e-9 || math.Abs(top.busy-90) > 1e-9 || top.label != "link 2 (381 MiB, peak 3)" {
		t.Errorf("top row %+v, want link 2 80 %% utilised, 90 %% busy", top)
	}
	if r := rows[MaxLinkBars-2]; math.Abs(r.util-25) > 1e-9 || r.label != "link 0 (238 MiB, peak 2)" {
		t.Errorf("second row %+v, want link 0 25 %% utilised", r)
	}
	svg, err := Render(f, "svg")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"link 2 (381 MiB, peak 3)", "link 0 (238 MiB, peak 2)", "link 3 (1 MiB, peak 1)", "% of the makespan"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if strings.Contains(string(svg), "link 1 ") {
		t.Error("the unused link is drawn")
	}
	b, err := Render(f, "png")
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if w := img.Bounds().Dx(); w < 1600 {
		t.Errorf("PNG %d px wide, want ≥ 1600", w)
	}
	for _, bad := range [][]LinkUse{nil, {{Name: "x", Bandwidth: 1}}, {{Name: "x", Bandwidth: 0, Bytes: 1}}} {
		if _, err := LinkUtilisation("links", "", bad, 1e9); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	if _, err := LinkUtilisation("links", "", links, 0); err == nil {
		t.Error("makespan 0 accepted")
	}
}
