package policy

import (
	"fmt"
	"strings"
	"testing"
)

// TestLookup checks the registry's names and what each policy needs, and
// that an unknown name's error lists the known ones.
func TestLookup(t *testing.T) {
	for _, tc := range []struct {
		name                          string
		capped, onDAG, needsLP, sweep bool
	}{
		{Uncapped, false, false, false, true},
		{Static, true, false, false, true},
		{StaticRAPL, true, false, false, true},
		{LP, true, true, true, true},
		{Conductor, true, true, false, true},
		{MinEnergy, true, true, true, true},
		{Steering, true, false, false, false},
		{DCTDVFS, true, false, false, false},
	} {
		p, err := Lookup(tc.name)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if p.Name != tc.name || p.Capped != tc.capped || p.OnDAG != tc.onDAG || p.NeedsLP != tc.needsLP || p.Sweep != tc.sweep || p.Summary == "" {
			t.Errorf("%s: %+v", tc.name, p)
		}
		if IsCapped(tc.name) != tc.capped || IsOnDAG(tc.name) != tc.onDAG || NeedsSolver(tc.name) != tc.needsLP {
			t.Errorf("%s: Is* disagree with %+v", tc.name, p)
		}
	}
	_, err := Lookup("rapl")
	if err == nil || !strings.Contains(err.Error(), `"rapl"`) || !strings.Contains(err.Error(), strings.Join(Names(func(Policy) bool { return true }), ", ")) {
		t.Errorf("unknown policy: %v", err)
	}
	if IsCapped("rapl") || IsOnDAG("rapl") || NeedsSolver("rapl") {
		t.Error("an unknown policy has properties")
	}
	if got := fmt.Sprint(SweepNames()); got != "[uncapped static static-rapl lp conductor min-energy]" {
		t.Errorf("SweepNames = %s", got)
	}
}

func ExampleLookup() {
	p, err := Lookup("conductor")
	fmt.Println(p.Name, p.Capped, p.OnDAG, p.NeedsLP, err)
	_, err = Lookup("rapl")
	fmt.Println(err)
	// Output:
	// conductor true true false <nil>
	// unknown policy "rapl" (want one of uncapped, static, static-rapl, lp, conductor, min-energy, steering, dct-dvfs)
}
