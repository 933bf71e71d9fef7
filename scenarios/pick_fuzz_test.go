package scenarios

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// FuzzParsePick checks report --detail's ParsePick: no panic; an accepted pick prints back
// as a spec that parses to the same pick.
func FuzzParsePick(f *testing.F) {
	for _, s := range []string{"", "machine=a,policy=static,cap=300", "cap=-1", "cap=NaN", "foo", "machine=", "x=1", "cap=1e400",
		"policy=lp,policy=static", "cap=300,cap=320", "policy="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		p, err := ParsePick(spec)
		if err != nil {
			if !strings.Contains(err.Error(), "detail") {
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
		back, err := ParsePick(strings.Join(kv, ","))
		if err != nil || back != p {
			t.Fatalf("%q: round trip %+v → %+v, %v", spec, p, back, err)
		}
	})
}
