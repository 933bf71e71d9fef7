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
// the first cut after a, as a dynamic program over the events in order
// (searchRowsCut's lengths, summed backwards, to rounding). The searches
// on 1 and 3 goroutines give the same rows, also where the visit budget
// runs out part-way (then the rows are those of the searches made in
// order).
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
			got, ok := searchRowsCut(sg, key, nil, 1<<40)
			if !ok || !sameRows(got, want, 1e-14) {
				t.Fatalf("case %d (%d events, %d cuts): searchRowsCut: %d rows (ok %v), want %d", k, n, len(cuts), len(got), ok, len(want))
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

// sameRows says whether two lists of rows have the same ends, in order,
// and lengths within tol (relative, at least absolute).
func sameRows(got, want []fixedEdge, tol float64) bool {
	if len(got) != len(want) {
		return false
	}
	for j := range got {
		g, w := got[j], want[j]
		if g.from != w.from || g.to != w.to || g.task != w.task || math.Abs(g.w-w.w) > tol*max(1, math.Abs(w.w)) {
			return false
		}
	}
	return true
}

// TestSearchRowsDominated checks searchRowsCut on random event graphs
// with a chain through the chained events (each one key, as power events
// are) and cuts: its rows are the longest paths of the definition less
// those to a chained head that a chained head before it reaches by a path
// at least as long, and pruneRows keeps the same rows from them as from
// every row of the definition (the left-out rows are implied by the chain).
// Lengths are multiples of 1/64, so that every sum is exact.
func TestSearchRowsDominated(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	dropped := 0
	for k := 0; k < 300; k++ {
		n := 2 + rng.Intn(600)
		key, chained := make([]bool, n), make([]bool, n)
		key[0], key[n-1], chained[0], chained[n-1] = true, true, true, true
		for e := 1; e < n-1; e++ {
			switch rng.Intn(8) {
			case 0:
				key[e], chained[e] = true, true
			case 1:
				key[e] = true
			}
		}
		var cuts []int32
		for e := 1; e < n-1; e++ {
			if chained[e] && rng.Intn(6) == 0 {
				cuts = append(cuts, int32(e))
			}
		}
		var edges []fixedEdge
		for e := 0; e+1 < n; e++ {
			for j := rng.Intn(3); j >= 0; j-- {
				to := e + 1 + rng.Intn(min(n-e-1, 1+rng.Intn(30)))
				edges = append(edges, fixedEdge{from: int32(e), to: int32(to), w: float64(rng.Intn(64)) / 64})
			}
		}
		g := newEventGraph(n, chained, edges)
		sg := newSearchGraph(g, key, cuts)
		all := searchRows(sg, key, n, 1<<40, cuts, 1) // the definition (TestSearchRows)
		var want []fixedEdge
		for lo := 0; lo < len(all); {
			hi := lo
			mx := math.Inf(-1)
			for ; hi < len(all) && all[hi].from == all[lo].from; hi++ {
				r := all[hi]
				if chained[r.to] && r.w <= mx {
					continue
				}
				want = append(want, r)
				if chained[r.to] {
					mx = r.w
				}
			}
			lo = hi
		}
		got, ok := searchRowsCut(sg, key, chained, 1<<40)
		if !ok || !reflect.DeepEqual(got, want) && len(got)+len(want) > 0 {
			t.Fatalf("case %d (%d events, %d cuts): %d rows (ok %v), want %d", k, n, len(cuts), len(got), ok, len(want))
		}
		dropped += len(all) - len(got)
		if p, q := pruneRows(n, got, nil, 1<<62, 1), pruneRows(n, all, nil, 1<<62, 1); !reflect.DeepEqual(p, q) {
			t.Fatalf("case %d: pruned, %d rows from the dominant ones, %d from all", k, len(p), len(q))
		}
	}
	if dropped == 0 {
		t.Fatal("no row was dominated")
	}
}

// TestPruneRowsWorkers checks pruneRows against its definition, a row
// kept unless a path of two or more rows and tasks, or a task alone, from
// its tail to its head is at least as long (longest paths by dynamic
// programming over the events in order), and that the rows it returns do
// not depend on its goroutines, also where the budget runs out part way.
func TestPruneRowsWorkers(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for k := range 200 {
		n := 20 + rng.Intn(400)
		var cand, tasks []fixedEdge
		for a := 0; a+1 < n; a++ {
			if rng.Intn(3) == 0 {
				continue
			}
			seen := map[int]bool{}
			for j := rng.Intn(6); j >= 0; j-- {
				b := a + 1 + rng.Intn(min(n-a-1, 12))
				if !seen[b] {
					seen[b] = true
					cand = append(cand, fixedEdge{from: int32(a), to: int32(b), w: float64(rng.Intn(16))})
				}
			}
			if rng.Intn(4) == 0 {
				b := a + 1 + rng.Intn(min(n-a-1, 6))
				tasks = append(tasks, fixedEdge{from: int32(a), to: int32(b), w: float64(rng.Intn(16)), task: true})
			}
		}
		slices.SortFunc(cand, func(x, y fixedEdge) int {
			if x.from != y.from {
				return int(x.from - y.from)
			}
			return int(x.to - y.to)
		})
		// The definition, on the graph of every candidate and task.
		all := append(slices.Clone(cand), tasks...)
		var want []fixedEdge
		one, two := make([]float64, n), make([]float64, n)
		for lo := 0; lo < len(cand); {
			a := int(cand[lo].from)
			for v := range one {
				one[v], two[v] = -1, -1
			}
			direct := map[int32]float64{}
			for v := a; v < n; v++ { // edges go forward: v's paths are final
				for _, e := range all {
					if int(e.from) != v || (v != a && one[v] < 0) {
						continue
					}
					if v == a {
						one[e.to] = max(one[e.to], e.w)
						if e.task {
							direct[e.to] = max(direct[e.to], e.w)
						}
						continue
					}
					one[e.to] = max(one[e.to], one[v]+e.w)
					two[e.to] = max(two[e.to], one[v]+e.w)
				}
			}
			for ; lo < len(cand) && int(cand[lo].from) == a; lo++ {
				r := cand[lo]
				if d, ok := direct[r.to]; two[r.to] >= r.w || ok && d >= r.w {
					continue
				}
				want = append(want, r)
			}
		}
		if got := pruneRows(n, cand, tasks, 1<<62, 1); !reflect.DeepEqual(got, want) && len(got)+len(want) > 0 {
			t.Fatalf("case %d (%d events, %d candidates): %d rows, want %d", k, n, len(cand), len(got), len(want))
		}
		for _, budget := range []int{1 << 62, 1, n / 3, n} {
			one := pruneRows(n, cand, tasks, budget, 1)
			for _, w := range []int{2, 3, 8} {
				if got := pruneRows(n, cand, tasks, budget, w); !reflect.DeepEqual(got, one) {
					t.Fatalf("case %d, budget %d: %d rows on %d goroutines, %d on one", k, budget, len(got), w, len(one))
				}
			}
		}
	}
}
