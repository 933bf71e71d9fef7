package taskgraph

import "testing"

// Anger's thesis §4.2.1–4.2.2: 112 threads, idle 106.9 W, and every
// kernel's cheapest frontier point at most 35 W (§5.2.3: the power cap
// "starts at 35 Watts"); GEMM and SPMV have long frontiers, DAXPY and POTRF short
// ones (Fig. 20).
func TestDefaultProfiles(t *testing.T) {
	p := DefaultProfiles()
	if p.Machine.Threads != 112 || p.Machine.IdleW != 106.9 {
		t.Errorf("machine %+v, want 112 threads and 106.9 W idle", p.Machine)
	}
	front := map[string]int{}
	for _, k := range p.Kernels() {
		f := p.Pareto(k)
		cs := p.Kernel(k)
		if cheapest := cs[f[0]].Power; cheapest > 35 {
			t.Errorf("%s: cheapest frontier point %g W > 35 W", k, cheapest)
		}
		front[k] = len(f)
	}
	for _, k := range []string{GEMM, SPMV} {
		if front[k] < 50 {
			t.Errorf("%s: %d Pareto points, want a long frontier (≥ 50)", k, front[k])
		}
	}
	for _, k := range []string{DAXPY, POTRF, DDOT} {
		if front[k] > front[GEMM]/2 {
			t.Errorf("%s: %d Pareto points, want a short frontier (GEMM has %d)", k, front[k], front[GEMM])
		}
	}
	if front[REDUCE] != 1 {
		t.Errorf("REDUCE: %d Pareto points, want 1 (serial)", front[REDUCE])
	}
	// 112 threads of GEMM: 56 cores × 1.2 W + 112 × 1.0 W.
	if c := p.Kernel(GEMM)[111]; c.Power != 179.2 {
		t.Errorf("GEMM on 112 threads draws %g W, want 179.2", c.Power)
	}
	// Every generated kernel has a profile.
	for _, spec := range []string{"cholesky:3", "lu:3", "cg:3x1"} {
		d, _ := Generate(spec)
		for _, k := range d.Kernels {
			if len(p.Kernel(k)) == 0 {
				t.Errorf("%s: kernel %s has no default profile", spec, k)
			}
		}
	}
}

func TestProfilesAdd(t *testing.T) {
	p := NewProfiles(Machine{Threads: 4})
	for _, c := range []struct {
		k   string
		c   ProfileConfig
		bad bool
	}{
		{"A", ProfileConfig{Threads: 2, Time: 1, Power: 1}, false},
		{"A", ProfileConfig{Threads: 1, Time: 2, Power: 0.5}, false},
		{"A", ProfileConfig{Threads: 1, Time: 2, Power: 0.5}, true},
		{"A", ProfileConfig{Threads: 5, Time: 1, Power: 1}, true},
		{"A", ProfileConfig{Threads: 0, Time: 1, Power: 1}, true},
		{"A", ProfileConfig{Threads: 3, Time: 0, Power: 1}, true},
		{"A", ProfileConfig{Threads: 3, Time: 1, Power: -1}, true},
		{"", ProfileConfig{Threads: 3, Time: 1, Power: 1}, true},
	} {
		if err := p.Add(c.k, c.c); (err != nil) != c.bad {
			t.Errorf("Add(%q, %+v): %v", c.k, c.c, err)
		}
	}
	if cs := p.Kernel("A"); len(cs) != 2 || cs[0].Threads != 1 || cs[1].Threads != 2 {
		t.Errorf("configs %+v not ordered by threads", cs)
	}
}
