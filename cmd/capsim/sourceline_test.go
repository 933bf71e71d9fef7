package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestErrorsNameFileAndLine: a deadlock, a truncated receive and a
// collective mismatch name each MPI call they are about by the file and
// line it was read from, for every text format with per-call lines
// (SimGrid TI, liballprof, GOAL), in replay, bound, policies and a sweep, so
// that the user can open the trace at the call.
func TestErrorsNameFileAndLine(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dead := write("dead.ti", "0 init\n1 init\n# each rank receives first\n0 recv 1 7 8\n1 recv 0 7 8\n0 send 1 7 8\n1 send 0 7 8\n0 finalize\n1 finalize\n")
	cut := write("cut.ti", "0 init\n1 init\n0 compute 1000\n0 send 1 7 16\n\n1 recv 0 7 8\n0 finalize\n1 finalize\n")
	sized := write("sized.ti", "0 init\n1 init\n0 allreduce 8 0\n1 compute 10\n1 allreduce 800000 0\n0 finalize\n1 finalize\n")
	kinds := write("kinds.ti", "0 init\n1 init\n0 barrier\n1 bcast 8 0\n0 finalize\n1 finalize\n")
	// Per-rank SimGrid files listed by an index.
	write("ranks/r0.txt", "0 init\n0 recv 1 7 8\n0 send 1 7 8\n0 finalize\n")
	write("ranks/r1.txt", "1 init\n1 compute 100\n1 recv 0 7 8\n1 send 0 7 8\n1 finalize\n")
	// The index names its rank files relative to its folder: a TI index
	// is one path a line, which an absolute path under a TMPDIR with
	// spaces would break.
	index := write("ranks/index.txt", "r0.txt\nr1.txt\n")

	goalDead := write("dead.goal", "num_ranks 2\nrank 0 {\nl1: recv 8b from 1 tag 7\nl2: send 8b to 1 tag 7\nl2 requires l1\n}\nrank 1 {\n\nl1: recv 8b from 0 tag 7\nl2: send 8b to 0 tag 7\nl2 requires l1\n}\n")
	goalCut := write("cut.goal", "num_ranks 2\nrank 0 {\nl1: send 100000b to 1 tag 7\n}\nrank 1 {\n/* a comment */\nl1: recv 4096b from 0 tag 7\n}\n")

	// liballprof: copies of the 4-rank point-to-point trace, rank 1's
	// MPI_Recv from rank 0 (line 9) edited.
	src := "../../traces/liballprof/testdata/p2p"
	lap := func(name, old, repl string) string {
		for r := 0; r < 4; r++ {
			f := filepath.Join(src, "trace_p2p-"+string(rune('0'+r))+".dat")
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			text := string(b)
			if r == 1 {
				if !strings.Contains(text, old) {
					t.Fatalf("%s lacks %q", f, old)
				}
				text = strings.Replace(text, old, repl, 1)
			}
			write(filepath.Join(name, filepath.Base(f)), text)
		}
		return filepath.Join(dir, name, "trace_p2p-0.dat")
	}
	lapDead := lap("lapdead", "MPI_Recv:9.5:5648928:1250:10,4,4:0:7:", "MPI_Recv:9.5:5648928:1250:10,4,4:0:8:")
	lapCut := lap("lapcut", "MPI_Recv:9.5:5648928:1250:10,4,4:0:7:", "MPI_Recv:9.5:5648928:100:10,4,4:0:7:")
	lapDir := func(name, file string) string { return filepath.Join(dir, name, file) }

	_, def, _ := capsim(t, "scenario", "default")
	scen := func(name, trace string) string {
		s := regexp.MustCompile(`(?s)\[workload\].*?\[models\]`).ReplaceAllString(def, "[workload]\ntrace = \""+trace+"\"\n\n[models]")
		s = strings.Replace(s, "ranks_per_node = 8", "ranks_per_node = 1", 1)
		return write(name, s)
	}

	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"simgrid deadlock", []string{"replay", dead}, []string{
			"rank 0: MPI_Recv 8 bytes from 1 tag 7 on comm world (" + dead + ":4)",
			"rank 1: MPI_Recv 8 bytes from 0 tag 7 on comm world (" + dead + ":5)"}},
		{"simgrid deadlock in bound", []string{"bound", "--cap", "300", dead}, []string{
			"(" + dead + ":4)", "(" + dead + ":5)"}},
		{"simgrid truncation", []string{"replay", cut}, []string{
			"receive: rank 1: MPI_Recv 8 bytes from 0 tag 7 on comm world (" + cut + ":6)",
			"message: rank 0: MPI_Send 16 bytes to 1 tag 7 on comm world (" + cut + ":4)"}},
		{"simgrid size mismatch", []string{"replay", sized}, []string{
			"rank 1 event 1 (" + sized + ":5): collective call #1 on communicator 0 (allreduce) passes 800000 bytes on rank 1 but 8 bytes on rank 0 (" + sized + ":3)"}},
		{"simgrid call mismatch", []string{"replay", kinds}, []string{
			"rank 1 event 0 (" + kinds + ":4): collective call #1 on communicator 0 is bcast (root 0) here but barrier on rank 0 (" + kinds + ":3)"}},
		{"simgrid rank files", []string{"replay", index}, []string{
			"rank 0: MPI_Recv 8 bytes from 1 tag 7 on comm world (" + filepath.Join(dir, "ranks/r0.txt") + ":2)",
			"rank 1: MPI_Recv 8 bytes from 0 tag 7 on comm world (" + filepath.Join(dir, "ranks/r1.txt") + ":3)"}},
		{"liballprof deadlock", []string{"replay", lapDead}, []string{
			"rank 1: MPI_Recv 5000 bytes from 0 tag 8 on comm world (" + lapDir("lapdead", "trace_p2p-1.dat") + ":9)"}},
		{"liballprof truncation", []string{"replay", lapCut}, []string{
			"receive: rank 1: MPI_Recv 400 bytes from 0 tag 7 on comm world (" + lapDir("lapcut", "trace_p2p-1.dat") + ":9)",
			"message: rank 0: MPI_Send 5000 bytes to 1 tag 7 on comm world (" + lapDir("lapcut", "trace_p2p-0.dat") + ":9)"}},
		{"goal deadlock", []string{"replay", goalDead}, []string{
			"rank 0 l1: recv 8b from 1 tag 7 (" + goalDead + ":3): no matching message",
			"rank 1 l1: recv 8b from 0 tag 7 (" + goalDead + ":9): no matching message"}},
		{"goal truncation", []string{"replay", goalCut}, []string{
			"receive: rank 1 l1: recv 4096b from 0 tag 7 (" + goalCut + ":7)",
			"message: rank 0 l1: send 100000b to 1 tag 7 (" + goalCut + ":3)"}},
		{"goal deadlock in bound", []string{"bound", "--cap", "300", goalDead}, []string{
			"rank 0 l1: recv 8b from 1 tag 7 (" + goalDead + ":3): no matching message",
			"rank 1 l1: recv 8b from 0 tag 7 (" + goalDead + ":9): no matching message"}},
		{"goal deadlock in a policy replay", []string{"policy", "steering", goalDead}, []string{
			"rank 0 l1: recv 8b from 1 tag 7 (" + goalDead + ":3): no matching message"}},
		{"goal truncation in a policy replay", []string{"policy", "steering", goalCut}, []string{
			"receive: rank 1 l1: recv 4096b from 0 tag 7 (" + goalCut + ":7)"}},
		{"goal deadlock in a sweep", []string{"sweep", scen("goaldead.toml", goalDead), "-o", filepath.Join(dir, "goalres"), "--progress", "never"}, []string{
			"rank 0 l1: recv 8b from 1 tag 7 (" + goalDead + ":3): no matching message"}},
		{"goal deadlock in a sweep's bound", []string{"bound", "--cap", "300", "--scenario", scen("goalbound.toml", goalDead)}, []string{
			"rank 1 l1: recv 8b from 0 tag 7 (" + goalDead + ":9): no matching message"}},
		{"sweep deadlock", []string{"sweep", scen("dead.toml", dead), "-o", filepath.Join(dir, "res"), "--progress", "never"}, []string{
			"rank 0: MPI_Recv 8 bytes from 1 tag 7 on comm world (" + dead + ":4)"}},
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
		})
	}
}
