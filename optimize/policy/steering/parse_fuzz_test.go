package steering_test

import (
	"testing"

	"github.com/capsim/capsim/optimize/policy/steering"
)

// FuzzParsePrediction checks that a name ParsePrediction accepts prints back unchanged.
func FuzzParsePrediction(f *testing.F) {
	for _, s := range []string{"oracle", "previous", "", "X"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := steering.ParsePrediction(s)
		if err != nil {
			return
		}
		if s != "" && v.String() != s { // "" selects the default
			t.Fatalf("ParsePrediction(%q) = %v", s, v)
		}
	})
}
