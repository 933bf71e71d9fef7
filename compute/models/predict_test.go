package models

import (
	"errors"
	"math"
	"testing"

	"github.com/capsim/capsim/compute"
)

func TestPredictRegion(t *testing.T) {
	rec := compute.Config{CPUFreqGHz: 2.6}
	file, _, err := FitFile("testdata/eiger_two_terms.csv", FitFileOptions{Kind: KindEiger, Recorded: rec, Region: "solve"})
	if err != nil {
		t.Fatal(err)
	}
	set, err := file.Set(Decoders())
	if err != nil {
		t.Fatal(err)
	}
	base, err := PredictRegion(set, "solve", 2, compute.Config{}, nil)
	if err != nil || base.Pattern != "solve" || base.Config != rec || math.Abs(base.Pred.Seconds-2) > 1e-9 {
		t.Fatalf("recorded configuration: %+v, %v; want 2 s", base, err)
	}
	// The samples are 5 + 3·log2(x1) + 0.25·x2², fixed at their means.
	big, err := PredictRegion(set, "solve", 2, compute.Config{}, []string{"x1=8", "x2=4"})
	if err != nil {
		t.Fatal(err)
	}
	want := 2 * (5 + 3*3 + 0.25*16) / (5 + 3*math.Log2(6.2) + 0.25*6.25)
	if math.Abs(big.Pred.Seconds-want) > 1e-9*want {
		t.Errorf("x1=8, x2=4: %g s, want %g", big.Pred.Seconds, want)
	}
	for _, p := range [][]string{{"x3=1"}, {"x1"}, {"x1=NaN"}} {
		if _, err := PredictRegion(set, "solve", 1, compute.Config{}, p); !errors.Is(err, ErrOption) {
			t.Errorf("%v: error %v, want ErrOption", p, err)
		}
	}
}
