package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/capsim/capsim/traces/arrowtrace"
	"github.com/capsim/capsim/traces/mpi"
)

// TestReplayMessageCounts checks replay --json's per-rank message counts
// on a generated stencil against the trace's own sends and receives: the
// point-to-point counts equal the trace's, and the allreduces add
// collective messages that every rank both sends and receives.
func TestReplayMessageCounts(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "stencil.arrow")
	if code, _, stderr := capsim(t, "gen", "stencil", "--dims", "2x3", "--iterations", "3", "-o", trace); code != 0 {
		t.Fatal(stderr)
	}
	tr, err := arrowtrace.ReadMPI(trace)
	if err != nil {
		t.Fatal(err)
	}
	code, out, stderr := capsim(t, "replay", trace, "--json")
	if code != 0 {
		t.Fatal(stderr)
	}
	var r struct {
		Ranks []map[string]int64 `json:"ranks"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Ranks) != len(tr.Ranks) {
		t.Fatalf("%d ranks in the JSON, %d in the trace", len(r.Ranks), len(tr.Ranks))
	}
	var collSent, collRecv int64
	for rank, rk := range tr.Ranks {
		var sent, sentB, recv, recvB int64
		for _, e := range rk.Events {
			switch e.Kind {
			case mpi.Send, mpi.Isend:
				sent++
				sentB += e.Bytes
			case mpi.Recv, mpi.Irecv:
				recv++
				recvB += e.Bytes
			}
		}
		got := r.Ranks[rank]
		if sent == 0 || got["msgs_sent"] != sent || got["bytes_sent"] != sentB || got["msgs_recv"] != recv || got["bytes_recv"] != recvB {
			t.Errorf("rank %d: replay sent %d (%d B), received %d (%d B); the trace sends %d (%d B), receives %d (%d B)",
				rank, got["msgs_sent"], got["bytes_sent"], got["msgs_recv"], got["bytes_recv"], sent, sentB, recv, recvB)
		}
		collSent += got["coll_msgs_sent"]
		collRecv += got["coll_msgs_recv"]
	}
	if collSent == 0 || collSent != collRecv {
		t.Errorf("collective messages: %d sent, %d received", collSent, collRecv)
	}
}
