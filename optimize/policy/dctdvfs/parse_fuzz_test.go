package dctdvfs

import "testing"

// FuzzParseStrategy checks that a name ParseStrategy accepts prints back unchanged.
func FuzzParseStrategy(f *testing.F) {
	for _, s := range []string{"dct-first", "combined", "", "X"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseStrategy(s)
		if err != nil {
			return
		}
		if s != "" && v.String() != s { // "" selects the default
			t.Fatalf("ParseStrategy(%q) = %v", s, v)
		}
	})
}

// FuzzParseGranularity checks that a name ParseGranularity accepts prints back unchanged.
func FuzzParseGranularity(f *testing.F) {
	for _, s := range []string{"one-phase", "per-phase", "", "X"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseGranularity(s)
		if err != nil {
			return
		}
		if s != "" && v.String() != s { // "" selects the default
			t.Fatalf("ParseGranularity(%q) = %v", s, v)
		}
	})
}

// FuzzParseObjective checks that a name ParseObjective accepts prints back unchanged.
func FuzzParseObjective(f *testing.F) {
	for _, s := range []string{"phase-only", "whole-interval", "", "X"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseObjective(s)
		if err != nil {
			return
		}
		if s != "" && v.String() != s { // "" selects the default
			t.Fatalf("ParseObjective(%q) = %v", s, v)
		}
	})
}
