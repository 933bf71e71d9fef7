package bound

import "sync"

// inParts runs searches that each append rows, item by item, for the
// items 0..n-1 split at bounds (0 = bounds[0] ≤ … ≤ bounds[len-1] = n)
// into runs of consecutive items, each run on a goroutine of its own.
// start is called once on each goroutine and returns its search of one
// item (with that goroutine's own work arrays): it appends the item's
// rows and reports how many events it visited. inParts then hands take
// the items' rows and visits in item order, as if the searches had run
// one after the other, until take returns false, and returns the item
// it stopped at (n where it never did). Budgets over all searches are
// applied in take, so the rows do not depend on the number of runs.
func inParts(bounds []int, start func() func(i int, rows []fixedEdge) ([]fixedEdge, int), take func(rows []fixedEdge, used int) bool) int {
	// Each part keeps, per item, where its rows start (at) and the
	// events it visited (used).
	type part struct {
		rows []fixedEdge
		at   []int32
		used []int
	}
	parts := make([]part, len(bounds)-1)
	var wg sync.WaitGroup
	for p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			search, pt := start(), &parts[p]
			for i := bounds[p]; i < bounds[p+1]; i++ {
				pt.at = append(pt.at, int32(len(pt.rows)))
				var used int
				pt.rows, used = search(i, pt.rows)
				pt.used = append(pt.used, used)
			}
			pt.at = append(pt.at, int32(len(pt.rows)))
		}()
	}
	wg.Wait()
	for p, pt := range parts {
		for j, used := range pt.used {
			if !take(pt.rows[pt.at[j]:pt.at[j+1]], used) {
				return bounds[p] + j
			}
		}
	}
	return bounds[len(bounds)-1]
}
