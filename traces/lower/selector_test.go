package lower

import (
	"reflect"
	"testing"

	"github.com/capsim/capsim/traces/mpi"
)

func TestSelectorChoices(t *testing.T) {
	cases := []struct {
		sel  string
		kind mpi.Kind
		p    int32
		n    int64
		want string
	}{
		// Open MPI 4.1's fixed rules.
		{SelectOpenMPI, mpi.Alltoall, 2, 100, "pairwise"},
		{SelectOpenMPI, mpi.Alltoall, 8, 1200, "linear"},
		{SelectOpenMPI, mpi.Alltoall, 6, 600000, "pairwise"},
		{SelectOpenMPI, mpi.Alltoall, 8, 600000, "linear"},
		{SelectOpenMPI, mpi.Alltoall, 24, 100, "bruck"},
		{SelectOpenMPI, mpi.Alltoall, 100, 300000, "pairwise"},
		{SelectOpenMPI, mpi.Allgather, 8, 100000, "recdoub"},
		{SelectOpenMPI, mpi.Allgather, 40, 100000, "ring"},
		{SelectOpenMPI, mpi.Allgather, 40, 2000, "neighbor"},
		{SelectOpenMPI, mpi.Allgather, 1024, 100000, "neighbor"},
		{SelectOpenMPI, mpi.Allgather, 300, 100, "bruck"},
		{SelectOpenMPI, mpi.Allreduce, 8, 12000, "rabenseifner"},
		{SelectOpenMPI, mpi.Allreduce, 16, 1000, "recdoub"},
		{SelectOpenMPI, mpi.Allreduce, 200, 1000, "reduce-bcast"},
		{SelectOpenMPI, mpi.Allreduce, 5000, 10000, "ring"}, // segmented ring
		{SelectOpenMPI, mpi.Allreduce, 5000, 20000, "recdoub"},
		{SelectOpenMPI, mpi.Bcast, 6, 12000, "linear"},
		{SelectOpenMPI, mpi.Bcast, 6, 2000000, "pipeline"},
		{SelectOpenMPI, mpi.Bcast, 20, 2000000, "scatter-rdb-allgather"},
		{SelectOpenMPI, mpi.Bcast, 100, 2000000, "binomial"}, // k-nomial
		{SelectOpenMPI, mpi.ReduceScatter, 16, 1000, "rechalving"},
		{SelectOpenMPI, mpi.ReduceScatter, 16, 1 << 20, "ring"},
		{SelectOpenMPI, mpi.ReduceScatter, 6, 4, "reduce-scatter"},
		{SelectOpenMPI, mpi.Gather, 300, 4000, "linear"},
		{SelectOpenMPI, mpi.Scan, 8, 8, "linear"},
		// MPICH 3.4's defaults.
		{SelectMPICH, mpi.Alltoall, 8, 100, "bruck"},
		{SelectMPICH, mpi.Alltoall, 4, 100, "linear"},
		{SelectMPICH, mpi.Alltoall, 8, 256, "bruck"},
		{SelectMPICH, mpi.Alltoall, 8, 257, "linear"},
		{SelectMPICH, mpi.Alltoall, 8, 32768, "linear"},
		{SelectMPICH, mpi.Alltoall, 8, 32769, "pairwise-xor"},
		{SelectMPICH, mpi.Allgather, 8, 1000, "recdoub"},
		{SelectMPICH, mpi.Allgather, 6, 1000, "bruck"},
		{SelectMPICH, mpi.Allgather, 6, 20000, "ring"},
		{SelectMPICH, mpi.Allgather, 8, 65536, "ring"},
		{SelectMPICH, mpi.Allreduce, 8, 2048, "recdoub"},
		{SelectMPICH, mpi.Allreduce, 8, 2056, "rabenseifner"},
		{SelectMPICH, mpi.Allreduce, 512, 4000, "recdoub"}, // 500 elements < 512
		{SelectMPICH, mpi.Bcast, 4, 1 << 20, "binomial"},
		{SelectMPICH, mpi.Bcast, 16, 12287, "binomial"},
		{SelectMPICH, mpi.Bcast, 16, 100000, "scatter-rdb-allgather"},
		{SelectMPICH, mpi.Bcast, 12, 100000, "scatter-ring-allgather"},
		{SelectMPICH, mpi.Bcast, 16, 524288, "scatter-ring-allgather"},
		{SelectMPICH, mpi.ReduceScatter, 8, 1000, "rechalving"},
		{SelectMPICH, mpi.ReduceScatter, 8, 524288, "pairwise"},
		{SelectMPICH, mpi.Barrier, 8, 0, "dissemination"},
		{SelectMPICH, mpi.Alltoallv, 8, 0, "linear"},
	}
	for _, c := range cases {
		if got := choose(c.sel, c.kind, c.p, c.n); got != c.want {
			t.Errorf("%s %s p=%d n=%d: %s, want %s", c.sel, c.kind, c.p, c.n, got, c.want)
		}
	}
}

// Every choice a selector can make is an algorithm of its kind.
func TestSelectorsChooseKnownAlgorithms(t *testing.T) {
	for _, sel := range []string{SelectOpenMPI, SelectMPICH} {
		for k := range algorithms {
			for p := int32(2); p <= 8192; p = p*2 + p%3 {
				for n := int64(0); n <= 1<<24; n = n*2 + 1 {
					if alg := choose(sel, k, p, n); !known(k, alg) || alg == SelectOpenMPI || alg == SelectMPICH {
						t.Fatalf("%s %s p=%d n=%d: %q", sel, k, p, n, alg)
					}
				}
			}
			if sel == SelectOpenMPI && len(openmpiRules[k]) == 0 {
				t.Errorf("openmpi: no rules for %s", k)
			}
		}
	}
}

// A selector lowers each call as the algorithm it chooses.
func TestSelectorLowersItsChoice(t *testing.T) {
	for _, sel := range []string{SelectOpenMPI, SelectMPICH} {
		for _, kind := range []mpi.Kind{mpi.Alltoall, mpi.Allgather, mpi.Allreduce, mpi.Bcast, mpi.ReduceScatter} {
			for _, p := range []int{6, 8, 16} {
				for _, n := range []int64{100, 12000, 1 << 20} {
					tr := collTrace(p, nil, kind, 0, n)
					a, err := Lower(tr, Options{Algorithm: map[mpi.Kind]string{kind: sel}})
					if err != nil {
						t.Fatal(err)
					}
					alg := choose(sel, kind, int32(p), n)
					b, err := Lower(tr, Options{Algorithm: map[mpi.Kind]string{kind: alg}})
					if err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(a, b) {
						t.Errorf("%s %s p=%d n=%d: differs from %s", sel, kind, p, n, alg)
					}
				}
			}
		}
	}
}

func TestParseAlgorithmsSelectors(t *testing.T) {
	all := func(v string) map[mpi.Kind]string {
		m := map[mpi.Kind]string{}
		for k := range algorithms {
			m[k] = v
		}
		return m
	}
	over := all(SelectMPICH)
	over[mpi.Alltoall] = "bruck"
	for _, c := range []struct {
		spec string
		want map[mpi.Kind]string
	}{
		{"openmpi", all(SelectOpenMPI)},
		{" mpich , alltoall=bruck", over},
		{"default", map[mpi.Kind]string{}},
		{"openmpi,default,bcast=linear", map[mpi.Kind]string{mpi.Bcast: "linear"}},
		{"allreduce=mpich", map[mpi.Kind]string{mpi.Allreduce: SelectMPICH}},
	} {
		got, err := ParseAlgorithms(c.spec)
		if err != nil {
			t.Errorf("%q: %v", c.spec, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %v, want %v", c.spec, got, c.want)
		}
	}
	for _, bad := range []string{"intel", "openmpi,alltoall=nope", "alltoall=rabenseifner"} {
		if _, err := ParseAlgorithms(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
