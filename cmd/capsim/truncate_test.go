package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/traces/arrowtrace"
	"github.com/capsim/capsim/traces/mpi"
)

// TestTruncatedReceiveNamed: a receive smaller than the message it
// matches (MPI_ERR_TRUNCATE in an MPI run) fails every command that
// replays the trace, naming both calls in the trace's terms: rank, MPI
// call, sizes, peer, tag, communicator and where it was read (FILE:LINE, or the Arrow file's row; for a GOAL
// schedule, its rank and label). It replayed the message's bytes as if
// received before.
func TestTruncatedReceiveNamed(t *testing.T) {
	dir := t.TempDir()
	ti := filepath.Join(dir, "cut.ti")
	if err := os.WriteFile(ti, []byte("0 init\n1 init\n0 compute 1000\n0 send 1 7 16\n1 recv 0 7 8\n0 finalize\n1 finalize\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	goalFile := filepath.Join(dir, "cut.goal")
	if err := os.WriteFile(goalFile, []byte("num_ranks 2\nrank 0 {\nl1: send 100000b to 1 tag 7\n}\nrank 1 {\nl1: recv 4096b from 0 tag 7\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := mpi.NewTrace(2)
	tr.AppendCompute(0, "work", 1000)
	tr.Append(0, mpi.Event{Kind: mpi.Send, Peer: 1, Tag: 7, Bytes: 16})
	tr.Append(1, mpi.Event{Kind: mpi.Recv, Peer: 0, Tag: 7, Bytes: 8})
	arrow := filepath.Join(dir, "cut.arrow")
	if err := arrowtrace.WriteMPI(arrow, tr); err != nil {
		t.Fatal(err)
	}
	mpiParts := func(recvAt, sendAt string) []string {
		return []string{"a receive of 8 bytes matched a message of 16 bytes", "MPI_ERR_TRUNCATE",
			"receive: rank 1: MPI_Recv 8 bytes from 0 tag 7 on comm world (" + recvAt + ")",
			"message: rank 0: MPI_Send 16 bytes to 1 tag 7 on comm world (" + sendAt + ")"}
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"replay", ti}, mpiParts(ti+":5", ti+":4")},
		{[]string{"bound", "--cap", "300", ti}, mpiParts(ti+":5", ti+":4")},
		{[]string{"policy", "steering", "--cap", "300", ti}, mpiParts(ti+":5", ti+":4")},
		{[]string{"replay", arrow}, mpiParts(arrow+" row 2", arrow+" row 1")},
		{[]string{"replay", goalFile}, []string{"a receive of 4096 bytes matched a message of 100000 bytes",
			"receive: rank 1 l1: recv 4096b from 0 tag 7", "message: rank 0 l1: send 100000b to 1 tag 7"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, _, stderr := capsim(t, tc.args...)
			if code != 1 {
				t.Fatalf("exit %d, want 1; %q", code, stderr)
			}
			for _, part := range append(tc.want, tc.args[len(tc.args)-1]+": ") {
				if !strings.Contains(stderr, part) {
					t.Errorf("stderr %q lacks %q", stderr, part)
				}
			}
		})
	}
}
