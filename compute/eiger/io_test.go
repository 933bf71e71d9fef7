package eiger

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

func TestReadCSVErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "s.csv: empty file"},
		{"a,b\n1,2\n3,x\n", "s.csv:3: column 2 (b): \"x\" is not a finite number"},
		{"a,b\n1,2\n3\n", "s.csv:3: column"},
		{"a,a\n", "s.csv:1: column 2: name \"a\" repeats column 1"},
		{"a,b\n1,NaN\n", "s.csv:2: column 2 (b)"},
	} {
		_, err := ReadCSV(strings.NewReader(c.in), "s.csv")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err %v, want containing %q", c.in, err, c.want)
		}
	}
}

func TestCSVFitJSONRoundTrip(t *testing.T) {
	var b strings.Builder
	b.WriteString("x1, x2, time\n")
	X, y := grid([]float64{2, 3, 4, 5, 6}, []float64{10, 20, 30}, func(x1, x2 float64) float64 { return 10 + 2*x1*x2 })
	for i := range X {
		b.WriteString(strings.Join([]string{ftoa(X[i][0]), ftoa(X[i][1]), ftoa(y[i])}, ",") + "\n")
	}
	s, err := ReadCSV(strings.NewReader(b.String()), "t.csv")
	if err != nil {
		t.Fatal(err)
	}
	X2, y2, err := s.Split([]string{"x1", "x2"}, "time")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Fit([]string{"x1", "x2"}, X2, y2, Options{Threshold: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := m.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	m2, err := ReadModel(&buf, "m.json")
	if err != nil {
		t.Fatal(err)
	}
	v, _ := m2.NewPredictor().Predict([]float64{7, 40})
	near(t, "predict", v, 570, 1e-8)
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func FuzzReadCSV(f *testing.F) {
	f.Add("a,b\n1,2\n")
	f.Add("x1, x2, time\n1,2,3\n4,5,6\n")
	f.Add("a,\"b\n")
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ReadCSV(strings.NewReader(in), "f.csv")
		if err != nil {
			return
		}
		for _, r := range s.Rows {
			if len(r) != len(s.Names) {
				t.Fatalf("row width %d != %d", len(r), len(s.Names))
			}
		}
	})
}

func FuzzReadModel(f *testing.F) {
	f.Add(`{"version":1,"names":["a"],"params":[0],"mean":[1],"std":[1],"clusters":[{"center":[0],"terms":[{"kind":3,"i":0}],"beta":[1,2],"stats":{}}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		m, err := ReadModel(strings.NewReader(in), "f.json")
		if err != nil {
			return
		}
		x := make([]float64, len(m.Names))
		if _, err := m.NewPredictor().Predict(x); err != nil {
			t.Fatal(err)
		}
	})
}

// An input column given twice, or the output among the inputs, is
// refused: a regression on two copies of one column cannot tell their
// coefficients apart, and the output among the inputs fits itself.
func TestSplitRefusesRepeatedColumns(t *testing.T) {
	s, err := ReadCSV(strings.NewReader("x1,x2,time\n1,2,3\n4,5,6\n"), "s.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		inputs []string
		output string
		want   string
	}{
		{[]string{"x1", "x1"}, "time", `input column "x1" given twice`},
		{[]string{"x1", "time"}, "time", `column "time" is both an input and the output`},
		{[]string{"x1", "x3"}, "time", `no column "x3"`},
	} {
		if _, _, err := s.Split(c.inputs, c.output); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v → %s: %v, want %q", c.inputs, c.output, err, c.want)
		}
	}
	if _, _, err := s.Split([]string{"x1", "x2"}, "time"); err != nil {
		t.Errorf("x1, x2 → time: %v", err)
	}
}
