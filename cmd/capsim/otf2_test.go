package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/scenarios"
	"github.com/capsim/capsim/traces/otf2"
)

// TestReplayOTF2MessageCounts replays every Score-P trace in
// ../shared/traces/otf2 and checks that the per-rank messages and bytes
// replay --json reports equal the MPI_SEND/ISEND and MPI_RECV/IRECV
// records otf2-print lists (the numbers in
// traces/otf2/testdata/otf2print.json, which the traces/otf2 tests check
// against otf2-print itself).
func TestReplayOTF2MessageCounts(t *testing.T) {
	if !otf2.Available {
		t.Skip("built without the OTF2 library")
	}
	dir := testenv.Shared(t, "traces/otf2")
	b, err := os.ReadFile(filepath.Join("..", "..", "traces", "otf2", "testdata", "otf2print.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref map[string][]struct {
		Sends     int64 `json:"sends"`
		SendBytes int64 `json:"send_bytes"`
		Recvs     int64 `json:"recvs"`
		RecvBytes int64 `json:"recv_bytes"`
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref) == 0 {
		t.Fatal("no reference counts")
	}
	for name, want := range ref {
		t.Run(name, func(t *testing.T) {
			code, out, errs := capsim(t, "replay", filepath.Join(dir, name, "traces.otf2"), "--json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			var got scenarios.ReplayReport
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatal(err)
			}
			if len(got.Ranks) != len(want) {
				t.Fatalf("%d ranks, want %d", len(got.Ranks), len(want))
			}
			for r, w := range want {
				g := got.Ranks[r]
				if g.MsgsSent != w.Sends || g.BytesSent != w.SendBytes || g.MsgsRecv != w.Recvs || g.BytesRecv != w.RecvBytes {
					t.Errorf("rank %d: sent %d msgs %d B, received %d msgs %d B; otf2-print: %d, %d, %d, %d",
						r, g.MsgsSent, g.BytesSent, g.MsgsRecv, g.BytesRecv, w.Sends, w.SendBytes, w.Recvs, w.RecvBytes)
				}
			}
		})
	}
}

// TestReplayOTF2Folder replays a trace given by its folder, as a new user
// would type it.
func TestReplayOTF2Folder(t *testing.T) {
	if !otf2.Available {
		t.Skip("built without the OTF2 library")
	}
	dir := testenv.Shared(t, "traces/otf2/pipit-pingpong")
	code, out, errs := capsim(t, "replay", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if len(out) == 0 {
		t.Fatal("no output")
	}
}
