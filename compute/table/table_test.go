package table

import (
	"bytes"
	"strings"
	"testing"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/dvfs"
)

// Two tasks with two configurations each, small enough to solve the LP by
// hand: a = (10 s, 50 W), (20 s, 30 W);
// b = (5 s, 50 W), (10 s, 30 W); fast = 2.6 GHz × 8, slow = 1.2 GHz × 8.
const lpCSV = `# two tasks, two configurations each
key,cpu_ghz,threads,seconds,watts
a,2.6,8,10,50
a,1.2,8,20,30
b,2.6,8,5,50
b,1.2,8,10,30
`

var (
	fast = compute.Config{CPUFreqGHz: 2.6, Threads: 8}
	slow = compute.Config{CPUFreqGHz: 1.2, Threads: 8}
)

func TestReadCSVAndPredict(t *testing.T) {
	tb, err := ReadCSV(strings.NewReader(lpCSV), "lp.csv")
	if err != nil {
		t.Fatal(err)
	}
	if got := tb.Keys(); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Fatalf("keys %v", got)
	}
	a, err := tb.Model("a")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		at, to  compute.Config
		rec     float64
		s, w, e float64
	}{
		{fast, slow, 10, 20, 30, 600},
		{slow, fast, 20, 10, 50, 500},
		{fast, fast, 2.5, 2.5, 50, 125}, // part of the task: ratio method
	}
	for _, tc := range tests {
		p, err := a.Predict(compute.Work{Seconds: tc.rec, At: tc.at}, tc.to)
		if err != nil {
			t.Fatal(err)
		}
		if p.Seconds != tc.s || p.Watts != tc.w || p.Energy() != tc.e || p.Kind != compute.KindTable {
			t.Errorf("%s→%s: %+v, want %g s %g W %g J", tc.at, tc.to, p, tc.s, tc.w, tc.e)
		}
	}
	if _, err := a.Predict(compute.Work{Seconds: 1, At: fast}, compute.Config{CPUFreqGHz: 2.0, Threads: 8}); err == nil {
		t.Error("missing target row: want error")
	}
	var buf bytes.Buffer
	if err := tb.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := ReadCSV(&buf, "roundtrip")
	if err != nil || len(back.Rows) != 4 || back.Rows[3] != tb.Rows[3] {
		t.Errorf("round trip: %v %+v", err, back)
	}
}

func TestReadCSVErrors(t *testing.T) {
	tests := map[string]string{
		"empty":           "",
		"unknown column":  "key,seconds,volts\na,1,2\n",
		"missing seconds": "key,watts\na,1\n",
		"bad number":      "key,seconds\na,fast\n",
		"zero time":       "key,seconds\na,0\n",
		"duplicate":       "key,cpu_ghz,seconds\na,2,1\na,2.0,3\n",
		"bad threads":     "key,threads,seconds\na,-1,1\n",
		"short row":       "key,seconds\na\n",
		"huge power":      "key,seconds,watts\na,1,1e308\n", // overflowed the LP's coefficients
	}
	for name, in := range tests {
		_, err := ReadCSV(strings.NewReader(in), "t.csv")
		if err == nil {
			t.Errorf("%s: want error", name)
		} else if !strings.Contains(err.Error(), "t.csv") {
			t.Errorf("%s: error %q does not name the file", name, err)
		}
	}
	// A time past 31.7 years and a clock in MHz were read as given; a
	// byte-order mark made "\ufeffkey" an unknown column.
	for in, want := range map[string]string{
		"key,seconds\na,1\nb,1e308\n":       "t.csv: line 3: column seconds: 1e+308 s is past 1e+09 s",
		"key,cpu_ghz,seconds\na,2100,1\n":   "t.csv: line 2: column cpu_ghz: 2100 GHz is past 100 GHz",
		"\ufeffkey,seconds\na,1\nb,1e308\n": "t.csv: line 3: column seconds",
	} {
		if _, err := ReadCSV(strings.NewReader(in), "t.csv"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want %q", in, err, want)
		}
	}
	_, err := ReadCSV(strings.NewReader("key,seconds\na,1\nb,x\n"), "t.csv")
	if err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("error %v should name line 3", err)
	}
}

func TestGrid(t *testing.T) {
	m := &dvfs.Model{Beta: 1, RefGHz: 2.6}
	tb, err := Grid("a", m, compute.Work{Seconds: 10, At: fast}, []compute.Config{fast, {CPUFreqGHz: 1.3, Threads: 8}})
	if err != nil {
		t.Fatal(err)
	}
	if len(tb.Rows) != 2 || tb.Rows[1].Seconds != 20 {
		t.Errorf("grid %+v, want 10 s and 20 s", tb.Rows)
	}
}

func FuzzReadCSV(f *testing.F) {
	f.Add(lpCSV)
	f.Add("key,seconds\na,1e-3\n")
	f.Add("key,device,seconds\nk,gpu0,NaN\n")
	f.Add("key,seconds,watts\na,1,1e308\n")
	f.Fuzz(func(t *testing.T, in string) {
		tb, err := ReadCSV(strings.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		if err := tb.Validate(); err != nil {
			t.Fatalf("accepted table fails validation: %v", err)
		}
		var buf bytes.Buffer
		if err := tb.WriteCSV(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := ReadCSV(&buf, "again")
		if err != nil {
			t.Fatalf("re-read: %v", err)
		}
		if len(back.Rows) != len(tb.Rows) {
			t.Fatalf("rows %d → %d", len(tb.Rows), len(back.Rows))
		}
	})
}
