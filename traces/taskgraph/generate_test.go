package taskgraph

import (
	"sort"
	"strings"
	"testing"
)

// Task and edge counts of the tiled graphs for NT = 2, 3, 4, 5, 8, worked
// out by hand from the tile accesses (Cholesky 4×4: 20 tasks, 30 edges,
// the graph of Anger's thesis Fig. 19).
func TestNoteCounts(t *testing.T) {
	for _, c := range []struct {
		gen          func(int) (*DAG, error)
		nt           int
		tasks, edges int
	}{
		{Cholesky, 2, 4, 3}, {Cholesky, 3, 10, 12}, {Cholesky, 4, 20, 30}, {Cholesky, 5, 35, 60}, {Cholesky, 8, 120, 252},
		{LU, 3, 14, 21}, {LU, 4, 30, 54}, {LU, 5, 55, 110}, {LU, 8, 204, 476},
	} {
		d, err := c.gen(c.nt)
		if err != nil {
			t.Fatal(err)
		}
		if d.NumTasks() != c.tasks || d.NumEdges() != c.edges {
			t.Errorf("%s: %d tasks, %d edges; note says %d, %d", d.Name, d.NumTasks(), d.NumEdges(), c.tasks, c.edges)
		}
	}
}

// Closed forms (derived from the tile accesses, see the generators) and the
// unit-weight critical path 3NT−2 for every size 1..40 (Cholesky 4×4 and
// LU 4×4 have critical path 10 with unit weights).
func TestClosedForms(t *testing.T) {
	for n := 1; n <= 40; n++ {
		ch, err := Cholesky(n)
		if err != nil {
			t.Fatal(err)
		}
		tasks := n + n*(n-1) + n*(n-1)*(n-2)/6
		edges := n*(n-1) + (n-1)*(n-2) + (n - 1) + n*(n-1)*(n-2)/3 + (n-1)*(n-2)*(n-3)/6
		if n < 3 {
			edges = n*(n-1) + (n - 1) // the cubic terms vanish
		}
		check(t, ch, tasks, edges, 3*n-2)
		lu, err := LU(n)
		if err != nil {
			t.Fatal(err)
		}
		gemm := (n - 1) * n * (2*n - 1) / 6
		gemmK := 0
		if n >= 2 {
			gemmK = (n - 2) * (n - 1) * (2*n - 3) / 6
		}
		tasks = n + n*(n-1) + gemm
		edges = (n - 1) + n*(n-1) + (n-1)*(n-2) + 2*gemm + gemmK
		check(t, lu, tasks, edges, 3*n-2)
	}
	for _, nb := range []int{1, 2, 5, 16} {
		for _, it := range []int{1, 3} {
			cg, err := CG(nb, it)
			if err != nil {
				t.Fatal(err)
			}
			check(t, cg, it*(6*nb+2), it*8*nb+(it-1)*(3*nb-2), 7*it)
		}
	}
	// 40×40 Cholesky: the 11,480 tasks.
	if d, _ := Cholesky(40); d.NumTasks() != 11480 {
		t.Errorf("cholesky:40 has %d tasks, want 11480", d.NumTasks())
	}
}

func check(t *testing.T, d *DAG, tasks, edges, cp int) {
	t.Helper()
	if d.NumTasks() != tasks || d.NumEdges() != edges {
		t.Errorf("%s: %d tasks, %d edges; want %d, %d", d.Name, d.NumTasks(), d.NumEdges(), tasks, edges)
	}
	w := make([]float64, d.NumTasks())
	for i := range w {
		w[i] = 1
	}
	got, _, err := d.LongestPath(w)
	if err != nil {
		t.Fatal(err)
	}
	if int(got) != cp {
		t.Errorf("%s: critical path %v tasks, want %d", d.Name, got, cp)
	}
	if n := transitiveEdges(d); n != 0 {
		t.Errorf("%s: %d edges are implied by other paths", d.Name, n)
	}
}

// transitiveEdges counts edges u→v for which another path u⇝v exists.
func transitiveEdges(d *DAG) int {
	if d.NumTasks() > 400 {
		return 0
	}
	n := d.NumTasks()
	reach := make([][]bool, n) // reach[u][v]: v reachable from u by a path of ≥ 1 edge
	order, _ := d.Topological()
	for i := n - 1; i >= 0; i-- {
		u := order[i]
		reach[u] = make([]bool, n)
		for _, s := range d.Successors(u) {
			reach[u][s] = true
			for v, ok := range reach[s] {
				if ok {
					reach[u][v] = true
				}
			}
		}
	}
	bad := 0
	for u := 0; u < n; u++ {
		for _, v := range d.Successors(int32(u)) {
			for _, s := range d.Successors(int32(u)) {
				if s != v && reach[s][v] {
					bad++
					break
				}
			}
		}
	}
	return bad
}

// The 4×4 Cholesky edge list, worked out by hand from the tile accesses of
// the tiled right-looking algorithm (the graph of Anger, PhD thesis,
// Georgia Tech 2016, §4.2.2.2, Fig. 19): 20 tasks, 30 edges.
const cholesky4 = `
POTRF(0)->TRSM(1,0) POTRF(0)->TRSM(2,0) POTRF(0)->TRSM(3,0)
TRSM(1,0)->SYRK(1,0) TRSM(1,0)->GEMM(2,1,0) TRSM(1,0)->GEMM(3,1,0)
TRSM(2,0)->SYRK(2,0) TRSM(2,0)->GEMM(2,1,0) TRSM(2,0)->GEMM(3,2,0)
TRSM(3,0)->SYRK(3,0) TRSM(3,0)->GEMM(3,1,0) TRSM(3,0)->GEMM(3,2,0)
SYRK(1,0)->POTRF(1) SYRK(2,0)->SYRK(2,1) GEMM(2,1,0)->TRSM(2,1)
SYRK(3,0)->SYRK(3,1) GEMM(3,1,0)->TRSM(3,1) GEMM(3,2,0)->GEMM(3,2,1)
POTRF(1)->TRSM(2,1) POTRF(1)->TRSM(3,1) TRSM(2,1)->SYRK(2,1) TRSM(2,1)->GEMM(3,2,1)
TRSM(3,1)->SYRK(3,1) TRSM(3,1)->GEMM(3,2,1) SYRK(2,1)->POTRF(2) SYRK(3,1)->SYRK(3,2)
GEMM(3,2,1)->TRSM(3,2) POTRF(2)->TRSM(3,2) TRSM(3,2)->SYRK(3,2) SYRK(3,2)->POTRF(3)
`

func TestCholesky4EdgeList(t *testing.T) {
	d, err := Cholesky(4)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for u := int32(0); int(u) < d.NumTasks(); u++ {
		for _, v := range d.Successors(u) {
			got = append(got, d.Label(u)+"->"+d.Label(v))
		}
	}
	want := strings.Fields(cholesky4)
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("edges differ from the hand-worked list:\n got %v\nwant %v", got, want)
	}
	kinds := map[string]int{}
	for t := int32(0); int(t) < d.NumTasks(); t++ {
		kinds[d.KernelName(t)]++
	}
	if kinds[POTRF] != 4 || kinds[TRSM] != 6 || kinds[SYRK] != 6 || kinds[GEMM] != 4 {
		t.Errorf("kernel counts %v, want 4 POTRF, 6 TRSM, 6 SYRK, 4 GEMM", kinds)
	}
}

func TestGenerateSpecs(t *testing.T) {
	for _, c := range []struct {
		spec  string
		tasks int
		err   string
	}{
		{"cholesky:4", 20, ""},
		{"lu:4", 30, ""},
		{"cg:2", 10 * 14, ""},
		{"cg:4x3", 3 * 26, ""},
		{"cholesky", 0, "want cholesky:NT"},
		{"cholesky:0", 0, "outside 1..200"},
		{"lu:x", 0, "not an integer"},
		{"cg:4x0", 0, "iteration count 0"},
		{"qr:4", 0, "unknown graph"},
	} {
		d, err := Generate(c.spec)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want one containing %q", c.spec, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.spec, err)
			continue
		}
		if d.NumTasks() != c.tasks {
			t.Errorf("%s: %d tasks, want %d", c.spec, d.NumTasks(), c.tasks)
		}
	}
}

func TestBuilderErrors(t *testing.T) {
	b := NewBuilder("cycle")
	x := b.Add("A", Coord{-1, -1, -1})
	y := b.Add("B", Coord{-1, -1, -1})
	b.Edge(x, y)
	b.Edge(y, x)
	if _, err := b.Build(); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("cycle: %v", err)
	}
	b = NewBuilder("self")
	x = b.Add("A", Coord{-1, -1, -1})
	b.Edge(x, x)
	if _, err := b.Build(); err == nil {
		t.Error("self edge accepted")
	}
	if _, err := NewBuilder("empty").Build(); err == nil {
		t.Error("empty graph accepted")
	}
}

// (3n − 2)³ nonzeros: 4³ → 1000, 8³ → 10,648, 16³ → 97,336;
// checked against a direct count of in-grid neighbours.
func TestStencilNNZ(t *testing.T) {
	for _, c := range []struct{ n, want int }{{4, 1000}, {8, 10648}, {16, 97336}} {
		if got := StencilNNZ(c.n, c.n, c.n); got != c.want {
			t.Errorf("%d³: %d nonzeros, want %d", c.n, got, c.want)
		}
		count := 0
		n := c.n
		for x := 0; x < n; x++ {
			for y := 0; y < n; y++ {
				for z := 0; z < n; z++ {
					for dx := -1; dx <= 1; dx++ {
						for dy := -1; dy <= 1; dy++ {
							for dz := -1; dz <= 1; dz++ {
								if x+dx >= 0 && x+dx < n && y+dy >= 0 && y+dy < n && z+dz >= 0 && z+dz < n {
									count++
								}
							}
						}
					}
				}
			}
		}
		if count != c.want {
			t.Errorf("%d³: direct count %d", n, count)
		}
	}
}
