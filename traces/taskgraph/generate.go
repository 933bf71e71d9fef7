package taskgraph

import (
	"fmt"
	"strconv"
	"strings"
)

// Kernel names of the generated graphs (the MKL kernels of Anger, PhD
// thesis, Georgia Tech 2016, §4.2.2.2).
const (
	POTRF  = "POTRF"
	TRSM   = "TRSM"
	SYRK   = "SYRK"
	GEMM   = "GEMM"
	GETRF  = "GETRF"
	SPMV   = "SPMV"
	DDOT   = "DDOT"
	DAXPY  = "DAXPY"
	REDUCE = "REDUCE"
)

// MaxTiles bounds the tile (or block) count of the generators, so that a
// spec cannot ask for more tasks than fit in memory: 200×200 Cholesky
// tiles are 1.35 million tasks, LU 2.7 million.
const MaxTiles = 200

// MaxIterations bounds the CG iteration count.
const MaxIterations = 10000

// tracker derives dependencies from tile accesses, as a task runtime does:
// a read depends on the tile's last writer (RAW); a write depends on the
// last writer (WAW) and on every reader since (WAR).
type tracker struct {
	b       *Builder
	writer  map[[2]int32]int32
	readers map[[2]int32][]int32
}

func newTracker(name string) *tracker {
	return &tracker{b: NewBuilder(name), writer: map[[2]int32]int32{}, readers: map[[2]int32][]int32{}}
}

// task adds a task that reads the tiles in r and reads and writes tile w.
func (tr *tracker) task(kernel string, c Coord, w [2]int32, r ...[2]int32) {
	t := tr.b.Add(kernel, c)
	for _, x := range r {
		if p, ok := tr.writer[x]; ok {
			tr.b.Edge(p, t)
		}
		tr.readers[x] = append(tr.readers[x], t)
	}
	if p, ok := tr.writer[w]; ok {
		tr.b.Edge(p, t)
	}
	for _, p := range tr.readers[w] {
		if p != t {
			tr.b.Edge(p, t)
		}
	}
	tr.writer[w] = t
	delete(tr.readers, w)
}

func checkTiles(what string, nt int) error {
	if nt < 1 || nt > MaxTiles {
		return fmt.Errorf("%s: tile count %d outside 1..%d", what, nt, MaxTiles)
	}
	return nil
}

// Cholesky returns the tiled right-looking Cholesky factorization of an
// nt×nt-tile matrix (Anger's thesis §4.2.2.2; Buttari et al., Parallel
// Computing 35(1), 2009): POTRF(k), TRSM(i,k), SYRK(i,k) and
// GEMM(i,j,k) for i > j > k, with the dependencies of their tile accesses.
// It has nt + nt(nt−1) + nt(nt−1)(nt−2)/6 tasks; 4×4 tiles give 20 tasks
// and 30 edges.
func Cholesky(nt int) (*DAG, error) {
	if err := checkTiles("cholesky", nt); err != nil {
		return nil, err
	}
	tr := newTracker("cholesky:" + strconv.Itoa(nt))
	n := int32(nt)
	for k := int32(0); k < n; k++ {
		tr.task(POTRF, Coord{k, -1, -1}, [2]int32{k, k})
		for i := k + 1; i < n; i++ {
			tr.task(TRSM, Coord{i, k, -1}, [2]int32{i, k}, [2]int32{k, k})
		}
		for i := k + 1; i < n; i++ {
			tr.task(SYRK, Coord{i, k, -1}, [2]int32{i, i}, [2]int32{i, k})
			for j := k + 1; j < i; j++ {
				tr.task(GEMM, Coord{i, j, k}, [2]int32{i, j}, [2]int32{i, k}, [2]int32{j, k})
			}
		}
	}
	return tr.b.Build()
}

// LU returns the tiled right-looking LU factorization without pivoting
// across tiles of an nt×nt-tile matrix (Anger's thesis §4.2.2.2): GETRF(k), the row
// panel TRSM(k,j), the column panel TRSM(i,k) and GEMM(i,j,k). It has
// nt + nt(nt−1) + (nt−1)nt(2nt−1)/6 tasks; 4×4 tiles give 30 tasks and 54
// edges.
func LU(nt int) (*DAG, error) {
	if err := checkTiles("lu", nt); err != nil {
		return nil, err
	}
	tr := newTracker("lu:" + strconv.Itoa(nt))
	n := int32(nt)
	for k := int32(0); k < n; k++ {
		tr.task(GETRF, Coord{k, -1, -1}, [2]int32{k, k})
		for j := k + 1; j < n; j++ {
			tr.task(TRSM, Coord{k, j, -1}, [2]int32{k, j}, [2]int32{k, k})
		}
		for i := k + 1; i < n; i++ {
			tr.task(TRSM, Coord{i, k, -1}, [2]int32{i, k}, [2]int32{k, k})
		}
		for i := k + 1; i < n; i++ {
			for j := k + 1; j < n; j++ {
				tr.task(GEMM, Coord{i, j, k}, [2]int32{i, j}, [2]int32{i, k}, [2]int32{k, j})
			}
		}
	}
	return tr.b.Build()
}

// CG returns iters iterations of unpreconditioned conjugate gradient on a
// 27-point stencil matrix split into nb row blocks (the HPCG-derived CG of
// Anger's thesis §4.2.2.2, which gives the kernels but no graph; this
// per-iteration graph is ours). Per iteration and block b:
//
//	SPMV(b):      q_b = A_b·p        after the p updates of blocks b−1, b, b+1
//	DDOT(b):      p_b·q_b            then REDUCE gives α
//	DAXPY(b,x):   x_b += α·p_b       DAXPY(b,r): r_b −= α·q_b
//	DDOT(b):      r_b·r_b            then REDUCE gives β
//	DAXPY(b,p):   p_b = r_b + β·p_b  after DAXPY(b,x), which reads p_b
//
// The reductions of the block dot products are REDUCE tasks. A task's
// Coord is (block, iteration, step) with step 0..7 in the order above
// (REDUCE has block −1). The graph has iters·(6nb+2) tasks and
// iters·8nb + (iters−1)·(3nb−2) edges, all of them needed: it
// is transitively reduced.
func CG(nb, iters int) (*DAG, error) {
	if err := checkTiles("cg", nb); err != nil {
		return nil, err
	}
	if iters < 1 || iters > MaxIterations {
		return nil, fmt.Errorf("cg: iteration count %d outside 1..%d", iters, MaxIterations)
	}
	b := NewBuilder(fmt.Sprintf("cg:%dx%d", nb, iters))
	n := int32(nb)
	prevP := make([]int32, nb) // p update of the previous iteration, per block
	spmv := make([]int32, nb)
	dots := make([]int32, nb)
	xs := make([]int32, nb)
	for it := int32(0); it < int32(iters); it++ {
		for blk := int32(0); blk < n; blk++ {
			spmv[blk] = b.Add(SPMV, Coord{blk, it, 0})
			if it > 0 {
				for nbr := max(0, blk-1); nbr <= min(n-1, blk+1); nbr++ {
					b.Edge(prevP[nbr], spmv[blk])
				}
			}
		}
		for blk := int32(0); blk < n; blk++ {
			dots[blk] = b.Add(DDOT, Coord{blk, it, 1})
			b.Edge(spmv[blk], dots[blk])
		}
		alpha := b.Add(REDUCE, Coord{-1, it, 2})
		for _, d := range dots {
			b.Edge(d, alpha)
		}
		for blk := int32(0); blk < n; blk++ {
			xs[blk] = b.Add(DAXPY, Coord{blk, it, 3})
			b.Edge(alpha, xs[blk])
		}
		for blk := int32(0); blk < n; blk++ {
			r := b.Add(DAXPY, Coord{blk, it, 4})
			b.Edge(alpha, r)
			dots[blk] = b.Add(DDOT, Coord{blk, it, 5})
			b.Edge(r, dots[blk])
		}
		beta := b.Add(REDUCE, Coord{-1, it, 6})
		for _, d := range dots {
			b.Edge(d, beta)
		}
		for blk := int32(0); blk < n; blk++ {
			p := b.Add(DAXPY, Coord{blk, it, 7})
			b.Edge(beta, p)
			b.Edge(xs[blk], p)
			prevP[blk] = p
		}
	}
	return b.Build()
}

// DefaultCGIterations is the iteration count of a "cg:NB" spec.
const DefaultCGIterations = 10

// Generate builds the graph a spec names: "cholesky:NT", "lu:NT", "cg:NB"
// or "cg:NBxITERS" (DefaultCGIterations when ITERS is omitted).
func Generate(spec string) (*DAG, error) {
	kind, arg, ok := strings.Cut(spec, ":")
	if !ok {
		return nil, fmt.Errorf("task graph spec %q: want cholesky:NT, lu:NT or cg:NB[xITERS]", spec)
	}
	iters := DefaultCGIterations
	if kind == "cg" {
		if a, it, ok := strings.Cut(arg, "x"); ok {
			v, err := strconv.Atoi(it)
			if err != nil {
				return nil, fmt.Errorf("task graph spec %q: iteration count %q is not an integer", spec, it)
			}
			arg, iters = a, v
		}
	}
	nt, err := strconv.Atoi(arg)
	if err != nil {
		return nil, fmt.Errorf("task graph spec %q: tile count %q is not an integer", spec, arg)
	}
	switch kind {
	case "cholesky":
		return Cholesky(nt)
	case "lu":
		return LU(nt)
	case "cg":
		return CG(nt, iters)
	}
	return nil, fmt.Errorf("task graph spec %q: unknown graph %q (want cholesky, lu or cg)", spec, kind)
}

// StencilNNZ returns the nonzeros of the 27-point stencil matrix of an
// nx×ny×nz grid with ±1 connectivity in each dimension (Anger's thesis
// §4.2.2.2):
// (3nx−2)(3ny−2)(3nz−2); interior rows have 27.
func StencilNNZ(nx, ny, nz int) int {
	f := func(n int) int {
		if n < 1 {
			return 0
		}
		return 3*n - 2
	}
	return f(nx) * f(ny) * f(nz)
}
