package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// FuzzParsePick checks --detail: no panic; an accepted pick prints back
// as a spec that parses to the same pick.
func FuzzParsePick(f *testing.F) {
	for _, s := range []string{"", "machine=a,policy=static,cap=300", "cap=-1", "cap=NaN", "foo", "machine=", "x=1", "cap=1e400"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		p, err := parsePick(spec)
		if err != nil {
			if !strings.Contains(err.Error(), "--detail") {
				t.Fatalf("error does not name the flag: %v", err)
			}
			return
		}
		if p.CapW < 0 || math.IsNaN(p.CapW) || math.IsInf(p.CapW, 0) {
			t.Fatalf("%q: cap %g", spec, p.CapW)
		}
		if strings.ContainsAny(p.Machine, ",") || strings.ContainsAny(p.Policy, ",") {
			t.Fatalf("%q: value holds a separator: %+v", spec, p)
		}
		var kv []string
		if p.Machine != "" {
			kv = append(kv, "machine="+p.Machine)
		}
		if p.Policy != "" {
			kv = append(kv, "policy="+p.Policy)
		}
		if p.CapW != 0 {
			kv = append(kv, "cap="+strconv.FormatFloat(p.CapW, 'g', -1, 64))
		}
		back, err := parsePick(strings.Join(kv, ","))
		if err != nil || back != p {
			t.Fatalf("%q: round trip %+v → %+v, %v", spec, p, back, err)
		}
	})
}

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
