package topo

import (
	"strings"
	"testing"
)

// Link bandwidths take a plain number of GB/s or a bandwidth with a unit.
func TestBandwidthUnits(t *testing.T) {
	for _, tc := range []struct{ spec, same string }{
		{"fattree:k=4,n=2,bw=100Gb/s", "fattree:k=4,n=2,bw=12.5"},
		{"torus:dims=4x4,bw=25GB/s", "torus:dims=4x4,bw=25"},
		{"torus:dims=4x4,bw=1GiB/s", "torus:dims=4x4,bw=1.073741824"},
		{"dragonfly:groups=3,routers=2,hosts=2,global=1,global_bw=200Gb/s,local_bw=400Gb/s", "dragonfly:groups=3,routers=2,hosts=2,global=1,global_bw=25,local_bw=50"},
	} {
		a, err := Parse(tc.spec)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.spec, err)
		}
		b, err := Parse(tc.same)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.same, err)
		}
		if a.String() != b.String() {
			t.Errorf("%q = %s, want %s", tc.spec, a, b)
		}
		for l := range a.NumLinks() {
			if a.Link(int32(l)) != b.Link(int32(l)) {
				t.Fatalf("%q: link %d is %+v, want %+v", tc.spec, l, a.Link(int32(l)), b.Link(int32(l)))
			}
		}
	}
	for _, tc := range []struct{ spec, err string }{
		{"torus:dims=4,bw=0Gb/s", `bw="0Gb/s": bandwidth 0Gb/s is not positive`},
		{"torus:dims=4,bw=5parsec/s", `bw="5parsec/s": "5parsec/s" is not a bandwidth like 12.5GB/s`},
		{"torus:dims=4,bw=100Gb", `bw="100Gb" is not a positive number`},
	} {
		if _, err := Parse(tc.spec); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("Parse(%q) err = %v, want %q", tc.spec, err, tc.err)
		}
	}
}
