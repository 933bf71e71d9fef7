package chakra

// reduceWorkLimit bounds the word operations of reduce; larger files keep
// every dependency.
const reduceWorkLimit = 4 << 30

// reduceMemWords bounds the reachability bitsets reduce holds at once, in
// 64-bit words (32 MiB).
const reduceMemWords = 4 << 20

// reduce returns deps without the dependencies that others imply: node
// i's dependency on d is dropped when d is also reached from another of
// i's dependencies. order is a topological order of deps (dependencies
// first). Kept dependencies keep their order. The second result is false,
// and deps is returned as is, where the file is too large to reduce within
// reduceWorkLimit.
//
// Dropping such an edge leaves every replay as it was: the engine
// releases an operation's dependents at or after the operation starts,
// and an operation starts only after every operation it depends on has
// released it, so the release of i's other dependency b comes after d's,
// in time and in the engine's order of events, and i is freed by the
// same event at the same time.
//
// Reachability is computed by blocks of topological positions, each a
// bitset per node, so memory stays within reduceMemWords.
func reduce(deps [][]int32, order []int32) ([][]int32, bool) {
	n := len(deps)
	var edges int
	for _, ds := range deps {
		edges += len(ds)
	}
	if n == 0 || edges == 0 {
		return deps, true
	}
	words := max(1, min((n+63)/64, reduceMemWords/n))
	blocks := (n + 64*words - 1) / (64 * words)
	if int64(blocks)*int64(words)*int64(edges+n) > reduceWorkLimit {
		return deps, false
	}
	pos := make([]int32, n)
	for p, i := range order {
		pos[i] = int32(p)
	}
	start := make([]int, n+1) // per node, where its edges start in drop
	for i, ds := range deps {
		start[i+1] = start[i] + len(ds)
	}
	drop := make([]bool, edges)
	reach := make([]uint64, n*words) // per node, the strict ancestors in the block
	union := make([]uint64, words)
	for lo := 0; lo < n; lo += 64 * words {
		clear(reach)
		for _, i := range order {
			clear(union)
			for _, d := range deps[i] {
				or(union, reach[int(d)*words:int(d+1)*words])
			}
			mine := reach[int(i)*words : int(i+1)*words]
			copy(mine, union)
			for j, d := range deps[i] {
				p := int(pos[d]) - lo
				if p < 0 || p >= 64*words {
					continue
				}
				w, bit := p/64, uint64(1)<<(p%64)
				if union[w]&bit != 0 {
					drop[start[i]+j] = true
				}
				mine[w] |= bit
			}
		}
	}
	out := make([][]int32, n)
	for i, ds := range deps {
		kept := 0
		for j := range ds {
			if !drop[start[i]+j] {
				kept++
			}
		}
		if kept == len(ds) {
			out[i] = ds
			continue
		}
		out[i] = make([]int32, 0, kept)
		for j, d := range ds {
			if !drop[start[i]+j] {
				out[i] = append(out[i], d)
			}
		}
	}
	return out, true
}

// or sets dst to dst | src.
func or(dst, src []uint64) {
	for k, v := range src {
		dst[k] |= v
	}
}
