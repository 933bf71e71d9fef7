//go:build cgo && !nootf2

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/capsim/capsim/internal/otf2write"
)

// OTF2 archives for TestErrorsNameOTF2Records: a clock of 2.5 ticks per
// ns from a global offset, so that ticks and seconds differ.
const (
	owRes    = 2_500_000_000
	owOffset = 1_000_000
	owSend   = 0 // regions
	owRecv   = 1
	owBar    = 2
	owBcast  = 3
	owAllred = 4
)

// owCall is an MPI call of rank r: its region entered at tick at, rec
// (an MpiSend or MpiRecv record) 10 ticks later, left 10 after that.
type owCall struct {
	r      int
	region uint32
	at     uint64
	rec    otf2write.Event
}

// writeOTF2 writes a 2-rank archive of calls into a new folder of dir and
// returns its anchor file.
func writeOTF2(t *testing.T, dir, name string, calls []owCall) string {
	t.Helper()
	out := filepath.Join(dir, name)
	w, err := otf2write.Create(out, otf2write.Defs{Resolution: owRes, Offset: owOffset, Ranks: 2,
		Regions: []otf2write.Region{owSend: {Name: "MPI_Send", MPI: true}, owRecv: {Name: "MPI_Recv", MPI: true},
			owBar: {Name: "MPI_Barrier", MPI: true}, owBcast: {Name: "MPI_Bcast", MPI: true},
			owAllred: {Name: "MPI_Allreduce", MPI: true}},
		Comms: []otf2write.Comm{{Name: "MPI_COMM_WORLD", Members: []uint64{0, 1}}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range calls {
		rec := c.rec
		rec.Time = owOffset + c.at + 10
		for _, e := range []otf2write.Event{{Kind: otf2write.Enter, Region: c.region, Time: owOffset + c.at}, rec,
			{Kind: otf2write.Leave, Region: c.region, Time: owOffset + c.at + 20}} {
			if err := w.Write(c.r, e); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(out, "traces.otf2")
}

// owWhere matches where an OTF2 event was recorded in an error message,
// in the parentheses that hold it: its paths may hold spaces (a TMPDIR
// with them), not parentheses.
var owWhere = regexp.MustCompile(`\(([^()]+) location (\d+) \(([^()]+)\), time (\d+) ticks = (\d+)\.(\d{9}) s from the trace start`)

// TestErrorsNameOTF2Records: a deadlock, a truncated receive or a
// collective mismatch of an OTF2 trace names each MPI call by the archive, the location and its event
// file, and its record's timestamp in ticks and in seconds from the
// trace's start, in replay, bound, a policy replay and a sweep; each
// named record is one otf2-print lists at that location and tick.
func TestErrorsNameOTF2Records(t *testing.T) {
	dir := t.TempDir()
	recv := func(peer uint32, bytes uint64) otf2write.Event {
		return otf2write.Event{Kind: otf2write.Recv, Peer: peer, Tag: 7, Bytes: bytes}
	}
	send := func(peer uint32, bytes uint64) otf2write.Event {
		return otf2write.Event{Kind: otf2write.Send, Peer: peer, Tag: 7, Bytes: bytes}
	}
	// Each rank receives first: rank 0's MPI_Recv record at tick
	// 1,000,010 + 100, rank 1's at 1,000,010 + 250.
	dead := writeOTF2(t, dir, "dead", []owCall{
		{0, owRecv, 100, recv(1, 8)}, {0, owSend, 400, send(1, 8)},
		{1, owRecv, 250, recv(0, 8)}, {1, owSend, 500, send(0, 8)},
	})
	// Rank 1 receives 8 of the 4096 bytes rank 0 sends.
	cut := writeOTF2(t, dir, "cut", []owCall{{0, owSend, 100, send(1, 4096)}, {1, owRecv, 5000, recv(0, 8)}})
	// Rank 0 calls MPI_Barrier where rank 1 calls MPI_Bcast.
	kinds := writeOTF2(t, dir, "kinds", []owCall{
		{0, owBar, 100, otf2write.Event{Kind: otf2write.CollEnd, Op: 0, Root: ^uint32(0)}},
		{1, owBcast, 300, otf2write.Event{Kind: otf2write.CollEnd, Op: 1, Root: 0, Sent: 0, Recv: 8}},
	})
	// An allreduce of 8 bytes on rank 0 and 800,000 on rank 1, counted as
	// Score-P does (both ranks' blocks).
	sizes := writeOTF2(t, dir, "sizes", []owCall{
		{0, owAllred, 100, otf2write.Event{Kind: otf2write.CollEnd, Op: 11, Root: ^uint32(0), Sent: 16, Recv: 16}},
		{1, owAllred, 300, otf2write.Event{Kind: otf2write.CollEnd, Op: 11, Root: ^uint32(0), Sent: 1_600_000, Recv: 1_600_000}},
	})
	named := func(anchor string, loc int, tick uint64) string {
		ns := (tick - owOffset) * 2 / 5
		return fmt.Sprintf("%s location %d (%s), time %d ticks = 0.%09d s from the trace start",
			anchor, loc, filepath.Join(filepath.Dir(anchor), "traces", strconv.Itoa(loc)+".evt"), tick, ns)
	}
	_, def, _ := capsim(t, "scenario", "default")
	scen := func(name, trace string) string {
		s := regexp.MustCompile(`(?s)\[workload\].*?\[models\]`).ReplaceAllString(def, "[workload]\ntrace = \""+trace+"\"\n\n[models]")
		s = strings.Replace(s, "ranks_per_node = 8", "ranks_per_node = 1", 1)
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	deadWant := []string{
		"rank 0: MPI_Recv 8 bytes from 1 tag 7 on comm MPI_COMM_WORLD (" + named(dead, 0, owOffset+110) + ")",
		"rank 1: MPI_Recv 8 bytes from 0 tag 7 on comm MPI_COMM_WORLD (" + named(dead, 1, owOffset+260) + ")"}
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"deadlock", []string{"replay", dead}, deadWant},
		{"deadlock of the folder", []string{"replay", filepath.Dir(dead)}, deadWant},
		{"truncation", []string{"replay", cut}, []string{
			"receive: rank 1: MPI_Recv 8 bytes from 0 tag 7 on comm MPI_COMM_WORLD (" + named(cut, 1, owOffset+5010) + ")",
			"message: rank 0: MPI_Send 4096 bytes to 1 tag 7 on comm MPI_COMM_WORLD (" + named(cut, 0, owOffset+110) + ")"}},
		{"collective mismatch", []string{"replay", kinds}, []string{
			"rank 1 event 0 (" + named(kinds, 1, owOffset+310) + "): collective call #1 on communicator 0 is bcast (root 0) here but barrier on rank 0 (" + named(kinds, 0, owOffset+110) + ")"}},
		{"collective sizes", []string{"replay", sizes}, []string{
			"rank 0 event 0 (" + named(sizes, 0, owOffset+110) + "): collective call #1 on communicator 0, allreduce: rank 0 receives at most 16 bytes from rank 1, which sends it 800000 (" + named(sizes, 1, owOffset+310) + "): MPI_ERR_TRUNCATE"}},
		{"collective mismatch in bound", []string{"bound", "--cap", "300", kinds}, []string{
			"(" + named(kinds, 1, owOffset+310) + "): collective call #1"}},
		{"collective mismatch in a sweep", []string{"sweep", scen("kinds.toml", kinds), "-o", filepath.Join(dir, "kres"), "--progress", "never"}, []string{
			"(" + named(kinds, 1, owOffset+310) + "): collective call #1"}},
		{"deadlock in bound", []string{"bound", "--cap", "300", dead}, deadWant},
		{"deadlock in a scenario's bound", []string{"bound", "--cap", "300", "--scenario", scen("deadbound.toml", dead)}, deadWant},
		{"deadlock in a policy replay", []string{"policy", "dct-dvfs", dead}, deadWant},
		{"deadlock in a sweep", []string{"sweep", scen("dead.toml", dead), "-o", filepath.Join(dir, "res"), "--progress", "never"}, deadWant[:1]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := capsim(t, tc.args...)
			if code != 1 {
				t.Fatalf("exit %d, want 1; %q", code, stderr)
			}
			for _, part := range tc.want {
				if !strings.Contains(stderr, part) {
					t.Errorf("stderr %q lacks %q", stderr, part)
				}
			}
			checkOtf2Print(t, stderr)
		})
	}
}

// checkOtf2Print checks that every record msg names is an MPI_SEND,
// MPI_RECV or MPI_COLLECTIVE_END record otf2-print lists at that
// location and timestamp.
func checkOtf2Print(t *testing.T, msg string) {
	t.Helper()
	if _, err := exec.LookPath("otf2-print"); err != nil {
		t.Log("otf2-print not installed: records not checked against it")
		return
	}
	found := owWhere.FindAllStringSubmatch(msg, -1)
	if len(found) == 0 {
		t.Fatalf("no OTF2 record named in %q", msg)
	}
	for _, m := range found {
		out, err := exec.Command("otf2-print", m[1]).Output()
		if err != nil {
			t.Fatalf("otf2-print %s: %v", m[1], err)
		}
		ok := false
		for _, line := range strings.Split(string(out), "\n") {
			f := strings.Fields(line)
			if len(f) >= 3 && (f[0] == "MPI_SEND" || f[0] == "MPI_RECV" || f[0] == "MPI_COLLECTIVE_END") && f[1] == m[2] && f[2] == m[4] {
				ok = true
			}
		}
		if !ok {
			t.Errorf("otf2-print %s lists no MPI_SEND, MPI_RECV or MPI_COLLECTIVE_END at location %s, tick %s:\n%s", m[1], m[2], m[4], out)
		}
	}
}
