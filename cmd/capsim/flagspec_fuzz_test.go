package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// FuzzParseCaps checks --cap lists and ranges: accepted caps are finite
// and positive, and a list prints back to the same caps.
func FuzzParseCaps(f *testing.F) {
	for _, s := range []string{"60", "35,60,90", "35:250:5", "0", "-1", "1,,2", "Inf", "1:2", "1e308,1e-308"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		caps, err := parseCaps(s)
		if err != nil {
			return
		}
		if len(caps) == 0 {
			t.Fatalf("%q: no caps and no error", s)
		}
		var parts []string
		for _, c := range caps {
			if !(c > 0) || math.IsInf(c, 0) {
				t.Fatalf("%q: cap %g", s, c)
			}
			parts = append(parts, strconv.FormatFloat(c, 'g', -1, 64))
		}
		back, err := parseCaps(strings.Join(parts, ","))
		if err != nil || fmt.Sprint(back) != fmt.Sprint(caps) {
			t.Fatalf("%q: round trip %v → %v, %v", s, caps, back, err)
		}
	})
}

// FuzzParseDims checks --dims: no panic; accepted extents print back to
// the same extents; errors are usage errors naming the flag.
func FuzzParseDims(f *testing.F) {
	for _, s := range []string{"4x4", "2x3x2", "4", "x", "4x", "-1x2", "99999999999999999999x1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		dims, err := parseDims(s)
		if err != nil {
			if _, ok := err.(usageError); !ok || !strings.Contains(err.Error(), "--dims") {
				t.Fatalf("%q: %T %v", s, err, err)
			}
			return
		}
		var parts []string
		for _, d := range dims {
			parts = append(parts, strconv.Itoa(d))
		}
		back, err := parseDims(strings.Join(parts, "x"))
		if err != nil || fmt.Sprint(back) != fmt.Sprint(dims) {
			t.Fatalf("%q: round trip %v → %v, %v", s, dims, back, err)
		}
	})
}
