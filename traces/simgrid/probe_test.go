package simgrid

import (
	"strings"
	"testing"

	"github.com/capsim/capsim/traces/mpi"
)

// TestProbedReceives: a receive of negative size is one whose message
// SimGrid's replay probes for; it takes the size of the message MPI's
// matching order gives it. It was read as a receive of 0 bytes, which
// every replay then refused as truncating its message.
func TestProbedReceives(t *testing.T) {
	tr, err := Read(write(t, "0 init\n1 init\n0 send 1 7 8\n0 send 1 7 16\n0 isend 1 3 100\n1 recv 0 7 -1\n1 irecv 0 3 -1\n1 recv 0 7 -1\n1 wait 0 1 3\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, e := range tr.Ranks[1].Events {
		if e.Kind == mpi.Recv || e.Kind == mpi.Irecv {
			got = append(got, e.Bytes)
		}
	}
	if want := []int64{8, 100, 16}; len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("receive sizes %v, want %v", got, want)
	}
	for _, c := range []struct{ text, want string }{
		{"0 init\n1 init\n0 send 1 7 8\n1 recv -555 7 -1\n", ":4: recv: a receive of unknown size (-1) from any source or with any tag"},
		{"0 init\n1 init\n0 send 1 7 8\n0 send 1 7 8\n1 recv 0 7 -1\n1 recv 0 -444 8\n", ":5: recv: a receive of unknown size, on a rank that also receives from any source or with any tag ("},
		{"0 init\n1 init\n0 send 1 7 99999999999999\n", ":3: send: size 99999999999999 is past 2^40 (1099511627776) elements"},
	} {
		if _, err := Read(write(t, c.text), Options{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.text, err, c.want)
		}
	}
}
