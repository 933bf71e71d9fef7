package scenarios

import (
	"context"
	"testing"

	"github.com/capsim/capsim/optimize/clp"
)

// TestCutsTight: the engine LP cut into blocks (bound.cuts) is a valid
// relaxation that stays close to the exact LP on the default stencil: cut
// at least 8 tasks apart where the fastest schedule loses at most 10⁻³
// of a block (18 cuts), it is at most 0.5 % below the exact LP (measured:
// 0.35 %, 0.29 % and 0.02 % at 300, 330 and 360 W) and never above it.
func TestCutsTight(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	var ns [2][]int64
	for j, cuts := range []string{"none", "8"} {
		sc, err := Parse("cuts.toml", append(Default(), "\n[bound]\ncuts = \""+cuts+"\"\n"...))
		if err != nil {
			t.Fatal(err)
		}
		tr, err := sc.Trace(nil)
		if err != nil {
			t.Fatal(err)
		}
		bd, err := sc.newBounder(tr, &sc.Machines[0], sc.Net())
		if err != nil {
			t.Fatal(err)
		}
		if got := bd.s.Stats().Cuts; (cuts == "none") != (got == 0) {
			t.Errorf("cuts %s: %d cuts", cuts, got)
		}
		for _, capW := range []float64{300, 330, 360} {
			v, err := bd.at(context.Background(), capW)
			if err != nil {
				t.Fatal(err)
			}
			ns[j] = append(ns[j], v)
		}
		bd.close()
	}
	for k := range ns[0] {
		exact, cut := ns[0][k], ns[1][k]
		if cut > exact || float64(exact-cut) > 0.005*float64(exact) {
			t.Errorf("cap %d: cut LP %d ns, exact %d ns: want at most 0.5 %% below", k, cut, exact)
		}
	}
	if _, err := Parse("bad.toml", append(Default(), "\n[bound]\ncuts = \"-3\"\n"...)); err == nil {
		t.Error("cuts = -3 accepted")
	}
}
