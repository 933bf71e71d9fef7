package sched

import (
	"reflect"
	"strings"
	"testing"

	"github.com/capsim/capsim/traces/taskgraph"
)

func TestParsePolicies(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  bool
	}{
		{"all", Names, false},
		{"fs,SAS", []string{"fs", "sas"}, false},
		{" pas ", []string{"pas"}, false},
		{"fs,edf", nil, true},
	} {
		got, err := ParsePolicies(tc.in, Options{})
		if (err != nil) != tc.err || !tc.err && !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: %v, %v; want %v (error %v)", tc.in, got, err, tc.want, tc.err)
		}
	}
}

// Compare runs every graph, cap and policy; FS is the reference of the
// relative performance, and the best policy of each graph and cap has no
// gap.
func TestCompare(t *testing.T) {
	d, err := taskgraph.Generate("cholesky:4")
	if err != nil {
		t.Fatal(err)
	}
	prof := taskgraph.DefaultProfiles()
	var tl strings.Builder
	rows, err := Compare([]*taskgraph.DAG{d}, prof, prof.Machine.Threads, []float64{40, 80}, Names, Options{}, &tl)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2*len(Names) {
		t.Fatalf("%d rows, want %d", len(rows), 2*len(Names))
	}
	for c := 0; c < 2; c++ {
		best := 1e9
		for _, r := range rows[c*len(Names) : (c+1)*len(Names)] {
			if r.Policy == "fs" && r.RelPerf != 1 {
				t.Errorf("fs at %g W: relative performance %g", r.CapW, r.RelPerf)
			}
			if r.MakespanNs <= 0 || r.GapBestPct < 0 || r.Tasks != d.NumTasks() {
				t.Errorf("row %+v", r)
			}
			best = min(best, r.GapBestPct)
		}
		if best != 0 {
			t.Errorf("cap %d: least gap %g, want 0", c, best)
		}
	}
	if n := strings.Count(tl.String(), "\n"); n < len(rows) || !strings.HasPrefix(tl.String(), d.Name+",40,fs,") {
		t.Errorf("timeline: %d lines, starting %.40q", n, tl.String())
	}
	var table strings.Builder
	if err := WriteTable(&table, rows, prof, prof.Machine.Threads); err != nil || strings.Count(table.String(), "\n") != len(rows)+2 {
		t.Errorf("table (%v):\n%s", err, table.String())
	}
}
