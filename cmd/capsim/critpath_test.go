package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplayCriticalPath replays a GOAL schedule whose critical path is
// known by hand under LogGOPSim's default parameters (L=2500 o=1500 g=1000
// G=6 O=0): rank 0 computes 10 µs and sends 1000 B to rank 1, which
// receives it (o + 999·G = 7494 ns after it arrives at 10000 + o + L) and
// computes 5 µs.
func TestReplayCriticalPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "two.goal")
	os.WriteFile(path, []byte(`num_ranks 2
rank 0 {
l1: calc 10000
l2: send 1000b to 1
l2 requires l1
}
rank 1 {
l1: recv 1000b from 0
l2: calc 5000
l2 requires l1
}
`), 0o644)
	code, out, stderr := capsim(t, "replay", path, "--critical-path", "--json")
	if code != 0 {
		t.Fatal(stderr)
	}
	var r struct {
		MakespanNs   int64 `json:"makespan_ns"`
		CriticalPath struct {
			LengthNs  int64 `json:"length_ns"`
			ComputeNs int64 `json:"compute_ns"`
			CommNs    int64 `json:"comm_ns"`
			WaitNs    int64 `json:"wait_ns"`
			Segments  []struct {
				Rank    int32
				Peer    *int32
				Kind    string
				StartNs int64 `json:"start_ns"`
				Ns      int64
			}
		} `json:"critical_path"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	cp := r.CriticalPath
	if r.MakespanNs != 26494 || cp.LengthNs != 26494 || cp.ComputeNs != 15000 || cp.CommNs != 11494 || cp.WaitNs != 0 {
		t.Errorf("makespan %d ns, path %d ns = compute %d + comm %d + wait %d; want 26494 = 15000 + 11494 + 0",
			r.MakespanNs, cp.LengthNs, cp.ComputeNs, cp.CommNs, cp.WaitNs)
	}
	var got []string
	for _, s := range cp.Segments {
		got = append(got, fmt.Sprintf("%d %s %d+%d", s.Rank, s.Kind, s.StartNs, s.Ns))
	}
	want := "0 compute 0+10000, 0 send 10000+1500, 0 message 11500+2500, 1 recv 14000+7494, 1 compute 21494+5000"
	if strings.Join(got, ", ") != want {
		t.Errorf("segments\n%s\nwant\n%s", strings.Join(got, ", "), want)
	}
	code, out, _ = capsim(t, "replay", path, "--critical-path")
	if code != 0 || !strings.Contains(out, "critical path: 5 segments, 26494 ns: compute 56.6 %, communication 43.4 %, wait 0.0 %") {
		t.Errorf("text output:\n%s", out)
	}
}
