package frontier

import (
	"math"
	"testing"
)

// A hand-checkable hull: three points, one of them above the hull.
func TestExampleD(t *testing.T) {
	cs := []Config{{10, 50, "g1"}, {12, 44, "g2"}, {14, 41, "g3"}, {20, 30, "g4"}, {15, 55, "g5"}, {25, 31, "g6"}}
	h, err := Hull(cs)
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, c := range h {
		labels = append(labels, c.Label)
	}
	if len(h) != 3 || labels[0] != "g1" || labels[1] != "g2" || labels[2] != "g4" {
		t.Fatalf("hull %v, want g1 g2 g4 (g5, g6 dominated; g3 above g2–g4)", labels)
	}
	if Slope(h, 0) != -3 || Slope(h, 1) != -1.75 {
		t.Errorf("slopes %v %v, want -3 and -1.75", Slope(h, 0), Slope(h, 1))
	}
	if got := PowerAt(h, 14); got != 40.5 {
		t.Errorf("hull at 14 s = %v W, want 40.5 (< g3's 41)", got)
	}
	d := TimeAt(h, 40)
	if math.Abs(d-100.0/7) > 1e-12 {
		t.Errorf("time at 40 W = %v, want 100/7", d)
	}
	k, frac := Mix(h, d)
	if k != 1 || math.Abs(frac-5.0/7) > 1e-12 {
		t.Errorf("mix at 100/7: segment %d, %v in g2; want 1 and 5/7", k, frac)
	}
}

func TestHullPostconditions(t *testing.T) {
	var cs []Config
	for _, tp := range [][2]float64{{1, 100}, {2, 60}, {3, 45}, {4, 40}, {5, 39}, {2.5, 70}, {6, 38.5}, {1, 120}} {
		cs = append(cs, Config{Time: tp[0], Power: tp[1]})
	}
	h, err := Hull(cs)
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k+1 < len(h); k++ {
		if !(h[k+1].Time > h[k].Time) || !(h[k+1].Power < h[k].Power) {
			t.Fatalf("hull not strictly monotone: %v", h)
		}
		if k+2 < len(h) && !(Slope(h, k+1) > Slope(h, k)) {
			t.Fatalf("slopes not increasing: %v", h)
		}
	}
	if _, err := Hull([]Config{{Time: 0, Power: 1}}); err == nil {
		t.Error("zero time accepted")
	}
	if h, _ := Hull([]Config{{Time: 3, Power: 10}}); len(h) != 1 || TimeAt(h, 1) != 3 || PowerAt(h, 9) != 10 {
		t.Error("single-point hull")
	}
}

func TestParetoKeepsUndominated(t *testing.T) {
	cs := []Config{{Time: 3, Power: 8}, {Time: 1, Power: 10}, {Time: 2, Power: 9}, {Time: 2, Power: 8}, {Time: 4, Power: 3}, {Time: 5, Power: 3}}
	p, err := Pareto(cs)
	if err != nil {
		t.Fatal(err)
	}
	want := []Config{{Time: 1, Power: 10}, {Time: 2, Power: 8}, {Time: 4, Power: 3}}
	if len(p) != len(want) {
		t.Fatalf("Pareto = %v, want %v", p, want)
	}
	for i := range want {
		if p[i] != want[i] {
			t.Fatalf("Pareto = %v, want %v", p, want)
		}
	}
	// (2, 8) lies above the segment (1, 10)–(4, 3) (7.67 W at t = 2): the hull drops it.
	h, err := Hull(cs)
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 2 || h[0] != want[0] || h[1] != want[2] {
		t.Fatalf("Hull = %v, want [(1,10) (4,3)]", h)
	}
	if _, err := Pareto(nil); err == nil {
		t.Fatal("Pareto(nil) succeeded")
	}
}
