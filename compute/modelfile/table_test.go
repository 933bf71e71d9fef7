package modelfile

import (
	"bytes"
	"strings"
	"testing"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/arrowtab"
)

func TestSamplesFromTable(t *testing.T) {
	tab := &arrowtab.Table{Rows: 2, Columns: []arrowtab.Column{
		{Name: "region", Strings: []string{"solve", "solve"}},
		{Name: "cpu_ghz", Numbers: []float64{2, 1}},
		{Name: "threads", Numbers: []float64{8, 8}},
		{Name: "seconds", Numbers: []float64{10, 16}},
		{Name: "watts", Numbers: []float64{100, 60}},
	}}
	ss, err := SamplesFromTable(tab, "runs.arrow")
	if err != nil {
		t.Fatal(err)
	}
	want := Sample{Region: "solve", Config: compute.Config{CPUFreqGHz: 1, Threads: 8}, Seconds: 16, Watts: 60}
	if len(ss) != 2 || ss[1] != want {
		t.Fatalf("samples %+v", ss)
	}
	// The same runs as the CSV example fit the same DVFS model (β = 0.6).
	f, _, err := Fit(ss, FitOptions{Kind: compute.KindDVFS, Recorded: compute.Config{CPUFreqGHz: 2}})
	if err != nil || !strings.Contains(string(f.Regions[0].Params), `"beta":0.6`) {
		t.Errorf("fit: %v %s", err, f.Regions[0].Params)
	}
	bad := []struct {
		col  arrowtab.Column
		want string
	}{
		{arrowtab.Column{Name: "volts", Numbers: []float64{1, 1}}, `unknown column "volts"`},
		{arrowtab.Column{Name: "device", Numbers: []float64{1, 1}}, `"device" must be a string`},
		{arrowtab.Column{Name: "mem_ghz", Numbers: []float64{1, -1}}, "mem_ghz row 2"},
	}
	for _, b := range bad {
		tb := *tab
		tb.Columns = append(append([]arrowtab.Column(nil), tab.Columns...), b.col)
		if _, err := SamplesFromTable(&tb, "runs.arrow"); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: %v, want %q", b.col.Name, err, b.want)
		}
	}
	tb := *tab
	tb.Columns = append([]arrowtab.Column(nil), tab.Columns...)
	tb.Columns[2] = arrowtab.Column{Name: "threads", Numbers: []float64{8, 2.5}}
	if _, err := SamplesFromTable(&tb, "runs.arrow"); err == nil || !strings.Contains(err.Error(), "threads row 2") {
		t.Errorf("fractional threads: %v", err)
	}
}

func FuzzSamplesFromArrow(f *testing.F) {
	var buf bytes.Buffer
	tab := &arrowtab.Table{Rows: 1, Columns: []arrowtab.Column{
		{Name: "region", Strings: []string{"solve"}},
		{Name: "threads", Numbers: []float64{8}},
		{Name: "seconds", Numbers: []float64{1.5}},
	}}
	if err := arrowtab.Encode(&buf, tab); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := arrowtab.Decode(data, "fuzz.arrow")
		if err != nil {
			return
		}
		ss, err := SamplesFromTable(tab, "fuzz.arrow")
		if err != nil {
			return
		}
		for _, s := range ss {
			if s.Region == "" || !(s.Seconds > 0) || s.Config.Threads < 0 {
				t.Fatalf("accepted invalid sample %+v", s)
			}
		}
	})
}
