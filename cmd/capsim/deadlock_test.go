package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/traces/arrowtrace"
	"github.com/capsim/capsim/traces/mpi"
)

// TestDeadlockInMPITerms: a deadlocked MPI trace (each rank receives from
// the other first) is reported by its MPI calls: rank, call, peer, tag,
// communicator and trace row. It was reported as lowered graph operations
// ("rank 0 l2: recv 8b from 1 tag 7") before.
func TestDeadlockInMPITerms(t *testing.T) {
	tr := mpi.NewTrace(2)
	for r := 0; r < 2; r++ {
		tr.AppendCompute(r, "work", 1000)
		tr.Append(r, mpi.Event{Kind: mpi.Recv, Peer: int32(1 - r), Tag: 7, Bytes: 8})
		tr.Append(r, mpi.Event{Kind: mpi.Send, Peer: int32(1 - r), Tag: 7, Bytes: 8})
	}
	p := filepath.Join(t.TempDir(), "dead.arrow")
	if err := arrowtrace.WriteMPI(p, tr); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := capsim(t, "replay", p)
	if code != 1 {
		t.Fatalf("exit %d, want 1; %q", code, stderr)
	}
	for _, part := range []string{"dead.arrow", "2 rank(s) blocked",
		"rank 0: MPI_Recv 8 bytes from 1 tag 7 on comm world (trace row 1)",
		"rank 1: MPI_Recv 8 bytes from 0 tag 7 on comm world (trace row 4)",
		"no matching message"} {
		if !strings.Contains(stderr, part) {
			t.Errorf("stderr %q lacks %q", stderr, part)
		}
	}
}
