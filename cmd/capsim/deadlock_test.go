package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/capsim/capsim/traces/arrowtrace"
	"github.com/capsim/capsim/traces/mpi"
)

// TestDeadlockInMPITerms: a deadlocked MPI trace (each rank receives from
// the other first) is reported by its MPI calls: rank, call, peer, tag,
// communicator and where it was read. It was reported as lowered graph operations
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
		"rank 0: MPI_Recv 8 bytes from 1 tag 7 on comm world (" + p + " row 1)",
		"rank 1: MPI_Recv 8 bytes from 0 tag 7 on comm world (" + p + " row 4)",
		"no matching message"} {
		if !strings.Contains(stderr, part) {
			t.Errorf("stderr %q lacks %q", stderr, part)
		}
	}
}

// TestDeadlockNamedInEveryCommand: every command that replays an MPI
// trace names a deadlock by the MPI calls, also from a pipe: bound and
// frontier (their LP's reference replay; the rewritten error was
// wrapped, and its text fixed, before it was named), the steering and
// DCT+DVFS policies (their baseline replay), and replay from a pipe (the
// pipe was read again to name the calls, and was empty).
func TestDeadlockNamedInEveryCommand(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "dead.ti")
	if err := os.WriteFile(p, []byte("0 init\n1 init\n0 recv 1 7 8\n1 recv 0 7 8\n0 send 1 7 8\n1 send 0 7 8\n0 finalize\n1 finalize\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	for _, args := range [][]string{
		{"replay", fifo},
		{"bound", "--cap", "300", p},
		{"frontier", p},
		{"policy", "steering", "--cap", "300", p},
		{"policy", "dct-dvfs", "--cap", "300", p},
	} {
		t.Run(strings.Join(args[:len(args)-1], " "), func(t *testing.T) {
			if args[len(args)-1] == fifo {
				go func() {
					f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
					if err != nil {
						return
					}
					data, _ := os.ReadFile(p)
					f.Write(data)
					f.Close()
				}()
			}
			code, _, stderr := capsim(t, args...)
			if code != 1 {
				t.Fatalf("exit %d, want 1; %q", code, stderr)
			}
			for _, part := range []string{args[len(args)-1] + ": ", "2 rank(s) blocked",
				"rank 0: MPI_Recv 8 bytes from 1 tag 7 on comm world (" + args[len(args)-1] + ":3)",
				"rank 1: MPI_Recv 8 bytes from 0 tag 7 on comm world (" + args[len(args)-1] + ":4)"} {
				if !strings.Contains(stderr, part) {
					t.Errorf("stderr %q lacks %q", stderr, part)
				}
			}
		})
	}
}

// TestTimeLimitInMPITerms: a replay whose time would pass
// graph.MaxTimeNs names the MPI call that drove it there, in every
// command that replays; it named only the lowered message ("rank 0 l1:
// send 2305843009213693952b to 1 tag 1073741824", the tag an internal
// one of the collective's lowering).
func TestTimeLimitInMPITerms(t *testing.T) {
	tr := mpi.NewTrace(2)
	for r := 0; r < 2; r++ {
		tr.Append(r, mpi.Event{Kind: mpi.Allreduce, Bytes: 1 << 61})
	}
	p := filepath.Join(t.TempDir(), "huge.arrow")
	if err := arrowtrace.WriteMPI(p, tr); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"replay"}, {"bound", "--cap", "300"}, {"policy", "steering", "--cap", "300"}} {
		code, _, stderr := capsim(t, append(args, p)...)
		if code != 1 {
			t.Fatalf("%v: exit %d, want 1; %q", args, code, stderr)
		}
		for _, part := range []string{"rank 0: MPI_Allreduce 2305843009213693952 bytes on comm world (" + p + " row 0)", "exceeds 1000000000000000000 ns"} {
			if !strings.Contains(stderr, part) {
				t.Errorf("%v: stderr %q lacks %q", args, stderr, part)
			}
		}
	}
}

// TestPolicyTraceErrorNamesTrace: a trace that the steering and DCT+DVFS
// policies cannot read is named by its file and line alone; its error
// was put down to the --policy flag ("--policy: w.ti:3: …").
func TestPolicyTraceErrorNamesTrace(t *testing.T) {
	p := filepath.Join(t.TempDir(), "w.ti")
	if err := os.WriteFile(p, []byte("0 init\n1 init\n0 wait 0 1 7\n1 compute 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"steering", "dct-dvfs"} {
		code, _, stderr := capsim(t, "policy", name, "--cap", "300", p)
		if code != 1 || !strings.Contains(stderr, "capsim: "+p+":3: wait: no request of rank 0 is pending") || strings.Contains(stderr, "--policy") {
			t.Errorf("policy %s: exit %d, stderr %q; want 1 and the trace's line, not --policy", name, code, stderr)
		}
	}
}

// TestGraphDeadlockNamedInEveryCommand: every command that replays an
// execution graph names a deadlock's operations as the file does: a GOAL
// operation by the label written on its line (none for a line without
// one, where capsim's own l<n> is no label of the file) and the line, an
// Arrow graph's by its row. frontier named them only as capsim does.
func TestGraphDeadlockNamedInEveryCommand(t *testing.T) {
	dir := t.TempDir()
	g := filepath.Join(dir, "dead.goal")
	if err := os.WriteFile(g, []byte("num_ranks 2\nrank 0 {\n  recv 8b from 1 tag 6\n}\nrank 1 {\n  wait: recv 8b from 0 tag 5\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := filepath.Join(dir, "dead.arrow")
	if code, _, stderr := capsim(t, "import", "goal", g, "-o", a); code != 0 {
		t.Fatalf("import: %s", stderr)
	}
	for _, tc := range []struct{ path, op0, op1 string }{
		{g, "rank 0: recv 8b from 1 tag 6 (" + g + ":3)", "rank 1 wait: recv 8b from 0 tag 5 (" + g + ":6)"},
		{a, "rank 0: recv 8b from 1 tag 6 (" + a + " row 0)", "rank 1 wait: recv 8b from 0 tag 5 (" + a + " row 1)"},
	} {
		for _, args := range [][]string{
			{"replay"},
			{"bound", "--cap", "300"},
			{"frontier"},
			{"policy", "steering", "--cap", "300"},
		} {
			t.Run(filepath.Ext(tc.path)+" "+strings.Join(args, " "), func(t *testing.T) {
				code, _, stderr := capsim(t, append(args, tc.path)...)
				if code != 1 {
					t.Fatalf("exit %d, want 1; %q", code, stderr)
				}
				for _, part := range []string{"2 rank(s) blocked", tc.op0, tc.op1} {
					if !strings.Contains(stderr, part) {
						t.Errorf("stderr %q lacks %q", stderr, part)
					}
				}
			})
		}
	}
}
