package arrowtrace

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/capsim/capsim/traces/mpi"
)

// TestCollectivesRoundTrip: an MPI trace's format collective algorithms
// survive WriteMPI and ReadMPI; a malformed capsim.collectives value is
// refused naming the file and the key.
func TestCollectivesRoundTrip(t *testing.T) {
	tr := mpi.NewTrace(2)
	tr.Algorithms = map[mpi.Kind]string{mpi.Barrier: "schedgen", mpi.Allreduce: "schedgen"}
	for r := range tr.Ranks {
		tr.Ranks[r].Events = []mpi.Event{{Kind: mpi.Barrier, Comm: mpi.World}}
	}
	path := filepath.Join(t.TempDir(), "t.arrow")
	if err := WriteMPI(path, tr); err != nil {
		t.Fatal(err)
	}
	got, err := ReadMPI(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Algorithms, tr.Algorithms) {
		t.Errorf("algorithms %v, want %v", got.Algorithms, tr.Algorithms)
	}
	for _, tc := range []struct{ spec, want string }{
		{"barrier", "not KIND=ALGORITHM"},
		{"barrier=", "not KIND=ALGORITHM"},
		{"", "not KIND=ALGORITHM"},
		{"send=ring", "not a collective"},
		{"nokind=ring", "not a collective"},
		{"barrier=schedgen,barrier=ring", "barrier given twice"},
	} {
		if _, err := parseCollectives(tc.spec); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.spec, err, tc.want)
		}
	}
	if got, err := parseCollectives(collectivesSpec(tr.Algorithms)); err != nil || !reflect.DeepEqual(got, tr.Algorithms) {
		t.Errorf("spec %q: %v, %v", collectivesSpec(tr.Algorithms), got, err)
	}
}
