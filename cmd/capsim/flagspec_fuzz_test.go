package main

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

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
