package aggregate

import (
	"fmt"
	"math"
	"sort"
)

// PairTime is the estimated communication time between tasks I and J
// when they share a node (Intra) and when they do not (Inter), in one
// time unit chosen by the caller (Li, 2011, §4.2: the unit matters, as the
// edge costs mix time and 1/time).
type PairTime struct {
	I, J         int
	Intra, Inter float64
}

// EdgeCosts builds the symmetric cost matrix of Li, 2011, §4.2, for tasks tasks
// grouped k to a node: a pair that gains from sharing a node (Intra ≤
// Inter) costs C + (Inter − Intra), one that gains from being apart costs
// 1/(Intra − Inter), and pairs that never communicate cost 0. C = k²·Δt
// (Eq. 4.4), Δt the largest 1/(Intra − Inter); when no pair gains from
// being apart Δt is undefined in the thesis, and EdgeCosts takes Δt = 1
// (our choice).
func EdgeCosts(tasks, k int, pairs []PairTime) ([][]float64, error) {
	if tasks < 1 || k < 1 {
		return nil, fmt.Errorf("aggregate: edge costs of %d tasks, %d per node", tasks, k)
	}
	c := make([][]float64, tasks)
	for i := range c {
		c[i] = make([]float64, tasks)
	}
	seen := make(map[[2]int]bool, len(pairs))
	dt := 0.0
	for n, p := range pairs {
		i, j := p.I, p.J
		if i < 0 || j < 0 || i >= tasks || j >= tasks || i == j {
			return nil, fmt.Errorf("aggregate: pair %d (%d,%d): tasks must differ and lie in [0,%d)", n, i, j, tasks)
		}
		if !(p.Intra >= 0) || !(p.Inter >= 0) || math.IsInf(p.Intra, 0) || math.IsInf(p.Inter, 0) {
			return nil, fmt.Errorf("aggregate: pair %d (%d,%d): times %g, %g must be finite and non-negative", n, i, j, p.Intra, p.Inter)
		}
		if i > j {
			i, j = j, i
		}
		if seen[[2]int{i, j}] {
			return nil, fmt.Errorf("aggregate: pair %d (%d,%d) given twice", n, i, j)
		}
		seen[[2]int{i, j}] = true
		if p.Intra > p.Inter {
			dt = math.Max(dt, 1/(p.Intra-p.Inter))
		}
	}
	if dt == 0 {
		dt = 1
	}
	C := float64(k*k) * dt
	for _, p := range pairs {
		v := C + (p.Inter - p.Intra)
		if p.Intra > p.Inter {
			v = 1 / (p.Intra - p.Inter)
		}
		c[p.I][p.J], c[p.J][p.I] = v, v
	}
	return c, nil
}

// Cut is the total cost of the edges between different groups.
func Cut(cost [][]float64, groups [][]int) float64 {
	part := make([]int, len(cost))
	for g, m := range groups {
		for _, v := range m {
			part[v] = g
		}
	}
	s := 0.0
	for i := range cost {
		for j := i + 1; j < len(cost); j++ {
			if part[i] != part[j] {
				s += cost[i][j]
			}
		}
	}
	return s
}

func checkSquare(cost [][]float64, k int) error {
	n := len(cost)
	for i, r := range cost {
		if len(r) != n {
			return fmt.Errorf("aggregate: cost row %d has %d entries, want %d", i, len(r), n)
		}
	}
	if k < 1 || n == 0 || n%k != 0 {
		return fmt.Errorf("aggregate: %d tasks do not split into groups of %d", n, k)
	}
	return nil
}

// Partition splits the tasks of the symmetric cost matrix into groups of
// k, minimising the cut, by Kernighan–Lin (Li, 2011, §4.2): starting from
// consecutive ranks, it runs 2-way KL passes on every pair of groups until
// no pass lowers the cut. Each group is sorted and the groups are ordered
// by their first task; ties break towards lower task numbers, so the
// result is deterministic.
func Partition(cost [][]float64, k int) ([][]int, error) {
	if err := checkSquare(cost, k); err != nil {
		return nil, err
	}
	n := len(cost)
	groups := make([][]int, n/k)
	for v := 0; v < n; v++ {
		groups[v/k] = append(groups[v/k], v)
	}
	const maxRounds = 1000
	for round := 0; round < maxRounds; round++ {
		improved := false
		for a := 0; a < len(groups); a++ {
			for b := a + 1; b < len(groups); b++ {
				for klPass(cost, groups[a], groups[b]) {
					improved = true
				}
			}
		}
		if !improved {
			break
		}
	}
	return normalise(groups), nil
}

// klPass is one Kernighan–Lin pass between A and B (swapped in place); it
// reports whether it lowered the cut between them.
func klPass(cost [][]float64, A, B []int) bool {
	m := len(A)
	D := make(map[int]float64, 2*m)
	for _, x := range A {
		for _, y := range A {
			D[x] -= cost[x][y]
		}
		for _, y := range B {
			D[x] += cost[x][y]
		}
	}
	for _, x := range B {
		for _, y := range B {
			D[x] -= cost[x][y]
		}
		for _, y := range A {
			D[x] += cost[x][y]
		}
	}
	// A gain counts when it is above the rounding error of the D values
	// it is computed from: measured against the gains alone, swaps
	// "gaining" the roundoff of costs of 10^11 cycled for ever.
	scale := 0.0
	for _, d := range D {
		scale = math.Max(scale, math.Abs(d))
	}
	lockA, lockB := make([]bool, m), make([]bool, m)
	type swap struct{ i, j int }
	var swaps []swap
	var gains []float64
	for step := 0; step < m; step++ {
		bi, bj, bg := -1, -1, math.Inf(-1)
		for i, a := range A {
			if lockA[i] {
				continue
			}
			for j, b := range B {
				if lockB[j] {
					continue
				}
				if g := D[a] + D[b] - 2*cost[a][b]; g > bg {
					bi, bj, bg = i, j, g
				}
			}
		}
		lockA[bi], lockB[bj] = true, true
		swaps = append(swaps, swap{bi, bj})
		gains = append(gains, bg)
		a, b := A[bi], B[bj]
		for i, x := range A {
			if !lockA[i] {
				D[x] += 2*cost[x][a] - 2*cost[x][b]
			}
		}
		for j, y := range B {
			if !lockB[j] {
				D[y] += 2*cost[y][b] - 2*cost[y][a]
			}
		}
	}
	best, bestM, sum := 0.0, 0, 0.0
	for i, g := range gains {
		sum += g
		if sum > best+1e-12*(1+math.Abs(best)+scale) {
			best, bestM = sum, i+1
		}
	}
	for _, s := range swaps[:bestM] {
		A[s.i], B[s.j] = B[s.j], A[s.i]
	}
	return bestM > 0
}

func normalise(groups [][]int) [][]int {
	for _, g := range groups {
		sort.Ints(g)
	}
	sort.Slice(groups, func(i, j int) bool { return groups[i][0] < groups[j][0] })
	return groups
}

// PartitionCount is the number of ways to split n tasks into unordered
// groups of k, n!/((k!)^(n/k)·(n/k)!), saturated at math.MaxInt64.
func PartitionCount(n, k int) int64 {
	if k < 1 || n%k != 0 {
		return 0
	}
	// Product over groups of C(remaining−1, k−1): the lowest task left
	// picks its k−1 companions.
	r := int64(1)
	for left := n; left > 0; left -= k {
		c := Groupings(left-1, k-1)
		if c != 0 && r > math.MaxInt64/c {
			return math.MaxInt64
		}
		r *= c
	}
	return r
}

// Exhaustive returns a partition of minimal cut into groups of k by trying
// every one; it refuses when there are more than limit partitions. Among
// equal cuts it keeps the first in lexicographic order, so the result is
// deterministic.
func Exhaustive(cost [][]float64, k int, limit int64) ([][]int, error) {
	if err := checkSquare(cost, k); err != nil {
		return nil, err
	}
	n := len(cost)
	if c := PartitionCount(n, k); c > limit {
		return nil, fmt.Errorf("aggregate: %d tasks in groups of %d have %d partitions, over the limit of %d", n, k, c, limit)
	}
	used := make([]bool, n)
	cur := make([][]int, 0, n/k)
	var best [][]int
	bestCut := math.Inf(1)
	var rec func(acc float64)
	rec = func(acc float64) {
		if acc >= bestCut-1e-12*(1+math.Abs(bestCut)) {
			return
		}
		first := -1
		for v := 0; v < n; v++ {
			if !used[v] {
				first = v
				break
			}
		}
		if first < 0 {
			bestCut = acc
			best = make([][]int, len(cur))
			for i, g := range cur {
				best[i] = append([]int(nil), g...)
			}
			return
		}
		g := []int{first}
		used[first] = true
		var pick func(from int)
		pick = func(from int) {
			if len(g) == k {
				// The group's external cost: edges to every task outside it
				// that is still free count once here, edges to earlier groups
				// were counted when those were closed.
				ext := 0.0
				for _, x := range g {
					for y := 0; y < n; y++ {
						if !used[y] {
							ext += cost[x][y]
						}
					}
				}
				cur = append(cur, append([]int(nil), g...))
				rec(acc + ext)
				cur = cur[:len(cur)-1]
				return
			}
			for v := from; v < n; v++ {
				if used[v] {
					continue
				}
				used[v] = true
				g = append(g, v)
				pick(v + 1)
				g = g[:len(g)-1]
				used[v] = false
			}
		}
		pick(first + 1)
		used[first] = false
	}
	rec(0)
	return best, nil
}
