package lower

import (
	"fmt"
	"testing"

	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/mpi"
)

// The symbolic test: each algorithm's data movement is stated as the
// pieces of data each rank sends in each of its messages (symAlg), and a
// symbolic run of the lowered graph moves those pieces along its messages
// in dependency order. It checks that every message's size is the size of
// what it carries, that a rank only forwards data it holds by then (its
// own, or received by operations the send depends on), and that every
// rank ends with what the collective's semantics require.
//
// A piece is an int. For copies (bcast, allgather, alltoall) a message
// carries the listed pieces; for reductions (allreduce, reduce_scatter)
// piece c·p+o is origin o's contribution to chunk c, a message lists
// chunks and carries every contribution to them the sender has combined.

// symAlg states one algorithm's data movement on p ranks with n bytes.
type symAlg struct {
	reduce bool
	// size is the bytes of piece (copies) or chunk (reductions) i.
	size func(i int) int64
	// init is what rank r holds at the start.
	init func(r int) []int
	// sends lists, per message rank r sends, in order, its pieces
	// (copies) or chunks (reductions).
	sends func(r int) [][]int
	// want is what rank r must hold at the end.
	want func(r int) []int
}

func seq(lo, hi int) []int {
	var s []int
	for i := lo; i < hi; i++ {
		s = append(s, i)
	}
	return s
}

func mod(a, p int) int { return ((a % p) + p) % p }

// allOrigins lists pieces c·p+o of chunks cs for every origin o.
func allOrigins(cs []int, p int) []int {
	var s []int
	for _, c := range cs {
		for o := 0; o < p; o++ {
			s = append(s, c*p+o)
		}
	}
	return s
}

// ownChunks lists rank r's contribution to chunks 0..k-1.
func ownChunks(r, k, p int) []int {
	var s []int
	for c := 0; c < k; c++ {
		s = append(s, c*p+r)
	}
	return s
}

// symAlgs returns the data movement of every algorithm checked.
func symAlgs(kind mpi.Kind, alg string, p int, n int64, root int) (symAlg, bool) {
	block := func(int) int64 { return n }
	switch kind {
	case mpi.Alltoall:
		a := symAlg{size: block,
			init: func(r int) []int { return seq(r*p, r*p+p) }, // piece i·p+j: from i to j
			want: func(r int) []int {
				var s []int
				for i := 0; i < p; i++ {
					s = append(s, i*p+r)
				}
				return s
			}}
		switch alg {
		case "pairwise", "pairwise-xor":
			a.sends = func(r int) [][]int {
				var out [][]int
				for k := 1; k < p; k++ {
					to := (r + k) % p
					if alg == "pairwise-xor" && isPow2(int32(p)) {
						to = r ^ k
					}
					out = append(out, []int{r*p + to})
				}
				return out
			}
		case "bruck":
			// Slot i of a rank's buffer holds a block bound i ranks ahead;
			// at distance d it moves d ranks on when i has bit d. At that
			// step rank r's slot i holds origin r − (i mod d)'s block.
			a.sends = func(r int) [][]int {
				var out [][]int
				for d := 1; d < p; d <<= 1 {
					var s []int
					for i := 1; i < p; i++ {
						if i&d != 0 {
							o := mod(r-i%d, p)
							s = append(s, o*p+(o+i)%p)
						}
					}
					out = append(out, s)
				}
				return out
			}
		default:
			return a, false
		}
		return a, true
	case mpi.Allgather:
		a := symAlg{size: block, init: func(r int) []int { return []int{r} }, want: func(int) []int { return seq(0, p) }}
		bruck := func(r int) [][]int {
			var out [][]int
			d := 1
			for ; d <= p/2; d <<= 1 {
				out = append(out, mods(seq(r, r+d), p))
			}
			if rem := p - d; rem > 0 {
				out = append(out, mods(seq(r, r+rem), p))
			}
			return out
		}
		switch alg {
		case "ring":
			a.sends = func(r int) [][]int {
				var out [][]int
				for k := 0; k < p-1; k++ {
					out = append(out, []int{mod(r-k, p)})
				}
				return out
			}
		case "shift":
			a.sends = func(r int) [][]int {
				var out [][]int
				for k := 0; k < p-1; k++ {
					out = append(out, []int{r})
				}
				return out
			}
		case "bruck":
			a.sends = bruck
		case "neighbor":
			// Open MPI's statement: the first step sends the own block;
			// then each step sends blocks from, from+1, where from
			// starts at the even rank of the first pair and moves on by
			// the receive offsets (+2, −2 for even ranks; −2, +2 for odd).
			a.sends = func(r int) [][]int {
				if p%2 != 0 {
					out := [][]int{}
					for k := 0; k < p-1; k++ {
						out = append(out, []int{mod(r-k, p)})
					}
					return out
				}
				recvFrom := [2]int{r, r}
				offset := [2]int{2, -2}
				from := r
				if r%2 != 0 {
					recvFrom = [2]int{mod(r-1, p), mod(r-1, p)}
					offset = [2]int{-2, 2}
					from = recvFrom[0]
				}
				out := [][]int{{r}}
				for i := 1; i < p/2; i++ {
					out = append(out, []int{from, (from + 1) % p})
					recvFrom[i%2] = mod(recvFrom[i%2]+offset[i%2], p)
					from = recvFrom[i%2]
				}
				return out
			}
		case "recdoub":
			a.sends = func(r int) [][]int {
				if !isPow2(int32(p)) {
					return bruck(r)
				}
				var out [][]int
				for d := 1; d < p; d <<= 1 {
					lo := r &^ (d - 1)
					out = append(out, seq(lo, lo+d))
				}
				return out
			}
		default:
			return a, false
		}
		return a, true
	case mpi.Bcast:
		ss := ceilDiv(n, int64(p))
		// Piece v is relative rank v's chunk of ⌈n/p⌉ bytes.
		chunk := func(v int) int64 { return max(0, min(n, int64(v+1)*ss)-int64(v)*ss) }
		rel := func(r int) int { return mod(r-root, p) }
		a := symAlg{size: chunk,
			init: func(r int) []int {
				if r == root {
					return seq(0, p)
				}
				return nil
			},
			want: func(int) []int {
				var s []int
				for v := 0; v < p; v++ {
					if chunk(v) > 0 {
						s = append(s, v)
					}
				}
				return s
			}}
		nonEmpty := func(vs []int) []int {
			var s []int
			for _, v := range vs {
				if chunk(v) > 0 {
					s = append(s, v)
				}
			}
			return s
		}
		switch alg {
		case "scatter-rdb-allgather", "scatter-ring-allgather":
			a.sends = func(r int) [][]int {
				v := rel(r)
				top := 1
				for top < p {
					top <<= 1
				}
				mask := top
				if v != 0 {
					mask = v & -v
				}
				var out [][]int
				for m := mask / 2; m > 0; m /= 2 {
					if v+m < p {
						if s := nonEmpty(seq(v+m, min(v+2*m, p))); len(s) > 0 {
							out = append(out, s)
						}
					}
				}
				if alg == "scatter-ring-allgather" || !isPow2(int32(p)) {
					for k := 0; k < p-1; k++ {
						out = append(out, nonEmpty([]int{mod(v-k, p)}))
					}
					return out
				}
				for m := 1; m < p; m <<= 1 {
					lo := v &^ (m - 1)
					out = append(out, nonEmpty(seq(lo, lo+m)))
				}
				return out
			}
		case "pipeline":
			seg := pipelineSegment(int32(p), n)
			nseg := int(max(1, ceilDiv(n, seg)))
			a.size = func(k int) int64 { return min(seg, n-int64(k)*seg) }
			a.init = func(r int) []int {
				if r == root {
					return seq(0, nseg)
				}
				return nil
			}
			a.want = func(int) []int { return seq(0, nseg) }
			a.sends = func(r int) [][]int {
				var out [][]int
				if rel(r) < p-1 {
					for k := 0; k < nseg; k++ {
						out = append(out, []int{k})
					}
				}
				return out
			}
		default:
			return a, false
		}
		return a, true
	case mpi.Allreduce:
		if alg != "rabenseifner" && alg != "recdoub" {
			return symAlg{}, false
		}
		pof2 := int(pof2Below(int32(p)))
		rem := p - pof2
		k := 1 // chunks
		if alg == "rabenseifner" {
			k = pof2
		}
		b := blocks{n, int64(k)}
		a := symAlg{reduce: true, size: func(c int) int64 { return b.size(int32(c)) },
			init: func(r int) []int { return ownChunks(r, k, p) },
			want: func(int) []int { return allOrigins(seq(0, k), p) }}
		a.sends = func(r int) [][]int {
			all := seq(0, k)
			var out [][]int
			newrank := r - rem
			if r < 2*rem {
				if r%2 == 0 {
					return [][]int{all} // fold; the result comes back
				}
				newrank = r / 2
			}
			if alg == "recdoub" {
				for m := 1; m < pof2; m <<= 1 {
					out = append(out, all)
				}
			} else {
				lo, hi := 0, pof2
				var stack [][2]int
				for m := 1; m < pof2; m <<= 1 {
					mid := lo + (hi-lo)/2
					stack = append(stack, [2]int{lo, hi})
					if newrank&m == 0 {
						out = append(out, seq(mid, hi))
						hi = mid
					} else {
						out = append(out, seq(lo, mid))
						lo = mid
					}
				}
				for i := len(stack) - 1; i >= 0; i-- {
					out = append(out, seq(lo, hi))
					lo, hi = stack[i][0], stack[i][1]
				}
			}
			if r < 2*rem {
				out = append(out, all) // unfold
			}
			return out
		}
		return a, true
	case mpi.ReduceScatter:
		b := blocks{n, int64(p)}
		a := symAlg{reduce: true, size: func(c int) int64 { return b.size(int32(c)) },
			init: func(r int) []int { return ownChunks(r, p, p) },
			want: func(r int) []int { return allOrigins([]int{r}, p) }}
		switch alg {
		case "pairwise":
			a.size = func(int) int64 { return ceilDiv(n, int64(p)) }
			a.sends = func(r int) [][]int {
				var out [][]int
				for k := 1; k < p; k++ {
					out = append(out, []int{(r + k) % p})
				}
				return out
			}
		case "rechalving":
			pof2 := int(pof2Below(int32(p)))
			rem := p - pof2
			// Folded rank i's share: blocks 2i, 2i+1 below rem, else i+rem.
			share := func(lo, hi int) []int {
				var s []int
				for i := lo; i < hi; i++ {
					if i < rem {
						s = append(s, 2*i, 2*i+1)
					} else {
						s = append(s, i+rem)
					}
				}
				return s
			}
			a.sends = func(r int) [][]int {
				if r < 2*rem && r%2 == 0 {
					return [][]int{seq(0, p)}
				}
				newrank := r - rem
				if r < 2*rem {
					newrank = r / 2
				}
				var out [][]int
				lo, hi := 0, pof2
				for m := pof2 / 2; m > 0; m /= 2 {
					mid := lo + m
					if newrank&m == 0 {
						out = append(out, share(mid, hi))
						hi = mid
					} else {
						out = append(out, share(lo, mid))
						lo = mid
					}
				}
				if r < 2*rem {
					out = append(out, []int{r - 1})
				}
				return out
			}
		default:
			return a, false
		}
		return a, true
	}
	return symAlg{}, false
}

func mods(s []int, p int) []int {
	for i := range s {
		s[i] = mod(s[i], p)
	}
	return s
}

// symRun moves a's pieces along g's messages and checks them (see above).
func symRun(g *graph.Graph, a symAlg, p int) error {
	// Pieces are small ints; sets are maps for clarity.
	type set = map[int]bool
	know := make([]set, g.NumOps())
	sends := make([][][]int, p)
	next := make([]int, p) // next send index per rank
	type pair struct{ from, to int }
	inflight := map[pair][]set{}
	pos := make([]int32, p)
	for r := range p {
		pos[r] = g.RankStart[r]
		sends[r] = a.sends(r)
	}
	for progress := true; progress; {
		progress = false
		for r := range p {
			for pos[r] < g.RankStart[r+1] {
				id := pos[r]
				k := set{}
				for _, x := range a.init(r) {
					k[x] = true
				}
				deps, _ := g.Deps(id)
				for _, d := range deps {
					for x := range know[d] {
						k[x] = true
					}
				}
				switch g.Kind[id] {
				case graph.Send:
					if next[r] >= len(sends[r]) {
						return fmt.Errorf("rank %d sends more messages than the algorithm (%d)", r, len(sends[r]))
					}
					list := sends[r][next[r]]
					next[r]++
					carried, bytes := set{}, int64(0)
					for _, x := range list {
						bytes += a.size(x)
						if !a.reduce {
							if !k[x] {
								return fmt.Errorf("rank %d send %d to %d forwards piece %d it does not hold yet", r, next[r]-1, g.Peer[id], x)
							}
							carried[x] = true
							continue
						}
						for o := 0; o < p; o++ {
							if k[x*p+o] {
								carried[x*p+o] = true
							}
						}
					}
					if bytes != g.Size[id] {
						return fmt.Errorf("rank %d send %d to %d: %d bytes, its pieces %v make %d", r, next[r]-1, g.Peer[id], g.Size[id], list, bytes)
					}
					q := pair{r, int(g.Peer[id])}
					inflight[q] = append(inflight[q], carried)
				case graph.Recv:
					q := pair{int(g.Peer[id]), r}
					if len(inflight[q]) == 0 {
						goto blocked
					}
					for x := range inflight[q][0] {
						k[x] = true
					}
					inflight[q] = inflight[q][1:]
				}
				know[id] = k
				pos[r]++
				progress = true
			}
		blocked:
		}
	}
	for r := range p {
		if pos[r] != g.RankStart[r+1] {
			return fmt.Errorf("rank %d stuck at %s", r, g.Describe(pos[r]))
		}
		if next[r] != len(sends[r]) {
			return fmt.Errorf("rank %d sends %d messages, the algorithm %d", r, next[r], len(sends[r]))
		}
		have := set{}
		for _, x := range a.init(r) {
			have[x] = true
		}
		for id := g.RankStart[r]; id < g.RankStart[r+1]; id++ {
			for x := range know[id] {
				have[x] = true
			}
		}
		for _, x := range a.want(r) {
			if !have[x] {
				return fmt.Errorf("rank %d ends without piece %d", r, x)
			}
		}
	}
	return nil
}

// TestDataMovement runs every algorithm symAlgs states on p = 1..17, with
// sizes that divide evenly and sizes that do not, and rooted collectives
// from two roots.
func TestDataMovement(t *testing.T) {
	algs := map[mpi.Kind][]string{
		mpi.Alltoall:      {"pairwise", "pairwise-xor", "bruck"},
		mpi.Allgather:     {"ring", "bruck", "recdoub", "neighbor", "shift"},
		mpi.Bcast:         {"scatter-rdb-allgather", "scatter-ring-allgather", "pipeline"},
		mpi.Allreduce:     {"recdoub", "rabenseifner"},
		mpi.ReduceScatter: {"pairwise", "rechalving"},
	}
	for kind, names := range algs {
		for _, alg := range names {
			for p := 1; p <= 17; p++ {
				for _, n := range []int64{0, 7, 1000, 40000} {
					for _, root := range []int{0, p / 2} {
						if root != 0 && kind != mpi.Bcast {
							continue
						}
						if kind == mpi.ReduceScatter && alg == "pairwise" && n%int64(p) != 0 {
							continue // sends ⌈n/p⌉ per block: not a split of n
						}
						a, ok := symAlgs(kind, alg, p, n, root)
						if !ok {
							t.Fatalf("%s/%s: no symbolic statement", kind, alg)
						}
						tr := collTrace(p, nil, kind, int32(root), n)
						g, err := Lower(tr, Options{Algorithm: map[mpi.Kind]string{kind: alg}, ReduceNsPerByte: 1})
						if err != nil {
							t.Fatal(err)
						}
						if p == 1 {
							a.sends = func(int) [][]int { return nil }
						}
						if err := symRun(g, a, p); err != nil {
							t.Errorf("%s/%s p=%d n=%d root=%d: %v", kind, alg, p, n, root, err)
						}
					}
				}
			}
		}
	}
}
