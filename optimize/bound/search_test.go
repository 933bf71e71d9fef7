package bound

import (
	"math"
	"math/rand"
	"reflect"
	"slices"
	"testing"
)

// TestSearchRows checks the row searches on random forward event graphs
// with cuts against the definition: from every key event a, the longest
// path to every key event b through events that are not key, none past
// the first cut after a, as a dynamic program over the events in order.
// The searches on 1 and 3 goroutines give the same rows, also where the
// visit budget runs out part-way (then the rows are those of the searches
// made in order).
func TestSearchRows(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	for k := 0; k < 300; k++ {
		n := 2 + rng.Intn(1200)
		key := make([]bool, n)
		key[0], key[n-1] = true, true
		for e := range key {
			if rng.Intn(6) == 0 {
				key[e] = true
			}
		}
		var cuts []int32
		if k%4 != 0 {
			for e := 1; e < n-1; e++ {
				if key[e] && rng.Intn(8) == 0 {
					cuts = append(cuts, int32(e))
				}
			}
		}
		var edges []fixedEdge
		for e := 0; e+1 < n; e++ {
			for j := rng.Intn(3); j >= 0; j-- {
				to := e + 1 + rng.Intn(min(n-e-1, 1+rng.Intn(40)))
				edges = append(edges, fixedEdge{from: int32(e), to: int32(to), w: float64(rng.Intn(1000)) * 1e-7})
			}
		}
		g := byTail(n, edges)
		sg := newSearchGraph(g, key, cuts)
		var want []fixedEdge
		dist := make([]float64, n)
		for a := range int32(n) {
			if !key[a] {
				continue
			}
			lim := int32(n - 1)
			if c := slices.IndexFunc(cuts, func(c int32) bool { return c > a }); c >= 0 {
				lim = cuts[c]
			}
			for e := range dist {
				dist[e] = math.Inf(-1)
			}
			dist[a] = 0
			for u := a; u <= lim; u++ {
				if math.IsInf(dist[u], -1) || u != a && key[u] {
					continue
				}
				for _, e := range g.out(u) {
					if e.to <= lim {
						dist[e.to] = math.Max(dist[e.to], dist[u]+e.w)
					}
				}
			}
			for b := a + 1; b <= lim; b++ {
				if key[b] && !math.IsInf(dist[b], -1) {
					want = append(want, fixedEdge{from: a, to: b, w: dist[b]})
				}
			}
		}
		visits := n
		if len(cuts) == 0 {
			visits = 1 << 30
		}
		for _, w := range []int{1, 3} {
			got := searchRows(sg, key, visits, 1<<40, cuts, w)
			if !reflect.DeepEqual(got, want) && len(got)+len(want) > 0 {
				t.Fatalf("case %d (%d events, %d cuts), %d goroutines: %d rows, want %d", k, n, len(cuts), w, len(got), len(want))
			}
		}
		if len(cuts) > 0 {
			for _, w := range []int{1, 3} {
				got, ok := searchRowsCut(sg, key, 1<<40, w)
				if !ok || !reflect.DeepEqual(got, want) && len(got)+len(want) > 0 {
					t.Fatalf("case %d (%d events, %d cuts), %d goroutines: searchRowsCut: %d rows (ok %v), want %d", k, n, len(cuts), w, len(got), ok, len(want))
				}
			}
		}
		// A budget that runs out: the searches one after the other, the
		// later ones visiting at most 64 events (here 5 before).
		budget := rng.Intn(4 * n)
		var ref []fixedEdge
		sr, work := newSearcher(sg, key), budget
		for a := range int32(n) {
			if !key[a] {
				continue
			}
			left := 5
			if len(cuts) > 0 {
				left = n
			}
			if work <= 0 {
				left = 5
			}
			var used int
			ref, used = sr.from(a, left, ref)
			work -= used
		}
		for _, w := range []int{1, 3} {
			if got := searchRows(sg, key, 5, budget, cuts, w); !reflect.DeepEqual(got, ref) {
				t.Fatalf("case %d: budget %d, %d goroutines: %d rows, one search after the other %d", k, budget, w, len(got), len(ref))
			}
		}
	}
}
