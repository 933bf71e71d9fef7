package scenarios

import (
	"strings"
	"testing"

	"github.com/capsim/capsim/optimize/clp"
)

// A point that finishes before the bound says why: over the cap, or the
// first order of the engine LP its replay changed (bound.Net.Check); the
// reason lands in the results row's below_bound column.
func TestBelowBound(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	sc, _, g, m, bd := defaultBounder(t)
	net := sc.Net()
	met, rec, err := sc.replay(g, m, net, nil, "static", 330)
	if err != nil {
		t.Fatal(err)
	}
	// Static's P-states differ from the reference replay's fastest ones,
	// and its ranks meet their messages in another order.
	if why := bd.belowBound(g, met, rec.opts, rec.net); !strings.HasPrefix(why, "order changed: ") {
		t.Errorf("static at 330 W: %q, want the order it changed", why)
	}
	// The uncapped replay is the reference: it keeps every order.
	met, rec, err = sc.replay(g, m, net, nil, "uncapped", 0)
	if err != nil {
		t.Fatal(err)
	}
	if why := bd.belowBound(g, met, rec.opts, rec.net); !strings.HasPrefix(why, "kept the LP's orders") {
		t.Errorf("uncapped: %q, want the orders kept", why)
	}
	met.OverCapNs = 42
	if why := bd.belowBound(g, met, rec.opts, rec.net); why != "over the cap for 42 ns" {
		t.Errorf("over the cap: %q", why)
	}
	row := sc.Row(Point{Policy: "static", CapW: 330}, Metrics{MakespanNs: 1, BoundNs: 2, BelowBound: "over the cap for 42 ns"})
	if got := row.Values[len(row.Values)-1]; got != "over the cap for 42 ns" {
		t.Errorf("row's below_bound %v", got)
	}
	if got := sc.Row(Point{Policy: "static", CapW: 330}, Metrics{MakespanNs: 3, BoundNs: 2}).Values; got[len(got)-1] != nil {
		t.Errorf("a point above the bound has below_bound %v", got[len(got)-1])
	}
}

// capsim bound flags a replay below its bound with the sweep's reason and
// says whether it left the LP's order; a replay at or after the bound has
// neither.
func TestBoundRunBelow(t *testing.T) {
	if !clp.Available() {
		t.Skip("no LP solver")
	}
	sc, _, g, m, bd := defaultBounder(t)
	r := &boundRun{sc: sc, m: m, net: sc.Net(), g: g, plan: bd.n}
	st, err := r.replayed("static", 330)
	if err != nil {
		t.Fatal(err)
	}
	ns := st.met.MakespanNs
	if why, changed := r.below(st, ns); why != "" || changed {
		t.Errorf("at the bound: %q, %v; want no flag", why, changed)
	}
	why, changed := r.below(st, ns+1)
	if !changed || !OrderChanged(why) || !strings.HasPrefix(why, "order changed: ") {
		t.Errorf("below the bound: %q, %v; want the order it changed", why, changed)
	}
	unc, err := r.replayed("uncapped", 0)
	if err != nil {
		t.Fatal(err)
	}
	if why, changed := r.below(unc, unc.met.MakespanNs+1); changed || OrderChanged(why) {
		t.Errorf("uncapped below a bound: %q flagged as an order change", why)
	}
}
