package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAggregateCommand(t *testing.T) {
	tr := filepath.Join(t.TempDir(), "st.arrow")
	if code, _, stderr := capsim(t, "gen", "stencil", "--dims", "4x4", "--iterations", "2", "--halo-bytes", "4096", "-o", tr); code != 0 {
		t.Fatal(stderr)
	}
	// 3 GiB tasks on 8 GiB nodes: at most 2 a node, and the ranking takes
	// the 2-per-node pattern on one die (P4) when intra-node messages are
	// cheaper than inter-node ones.
	csvPath := filepath.Join(t.TempDir(), "agg.csv")
	code, out, stderr := capsim(t, "aggregate", tr, "--task-mem-gb", "3", "--node-power", "base=200,core=20,sleep=10", "--replay", "--csv", csvPath)
	if code != 0 {
		t.Fatal(stderr)
	}
	data, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(data)), "\n"); len(lines) != 9 || !strings.HasPrefix(lines[4], "4,2,1,1,2,1,8,") {
		t.Errorf("csv has %d lines, P4 row %q:\n%s", len(lines), lines[min(4, len(lines)-1)], data)
	}
	for _, want := range []string{"P5 infeasible", "P8 infeasible", "Eq. 4.5 and the ranking (Li, PhD thesis 2011, §4.4): P4 ", "least replayed energy: P"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, tc := range []struct {
		args    []string
		code    int
		errPart string
	}{
		{[]string{"--sockets", "2x2"}, 2, "SOCKETSxDIESxCORES"},
		{[]string{"--ipc", "1=2"}, 1, "IPC of P2"},
		{[]string{"--ipc", "1=-2"}, 2, "positive IPC"},
		{[]string{"--node-power", "base=x"}, 2, "power entry"},
		{[]string{"--interference", "on-die/1/0=2"}, 2, "class \"on-die\""},
		{[]string{"--intra", "loggops:Q=1"}, 2, "Q"},
		{[]string{"--nodes", "-1"}, 2, "--nodes"},
	} {
		code, _, stderr := capsim(t, append([]string{"aggregate", tr}, tc.args...)...)
		if code != tc.code || !strings.Contains(stderr, tc.errPart) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.code, tc.errPart)
		}
	}
}

// The names aggregate used before a flag name meant one thing in every
// command still work: they set the same values as the new names (equal
// output) and print a deprecation notice on the standard error only.
func TestAggregateDeprecatedNames(t *testing.T) {
	tr := filepath.Join(t.TempDir(), "st.arrow")
	if code, _, stderr := capsim(t, "gen", "stencil", "--dims", "2x2", "--iterations", "2", "-o", tr); code != 0 {
		t.Fatal(stderr)
	}
	_, want, _ := capsim(t, "aggregate", tr, "--sockets", "2x2x1", "--node-power", "base=200,core=20,sleep=10")
	code, got, stderr := capsim(t, "aggregate", tr, "--topology", "2x2x1", "--power", "base=200,core=20,sleep=10")
	if code != 0 || got != want {
		t.Fatalf("old names: exit %d, stderr %q, output\n%s\nwant\n%s", code, stderr, got, want)
	}
	for _, n := range []string{"--topology has been deprecated, use --sockets", "--power has been deprecated, use --node-power"} {
		if !strings.Contains(stderr, n) {
			t.Errorf("stderr lacks %q: %q", n, stderr)
		}
	}
	if strings.Contains(got, "deprecated") {
		t.Errorf("deprecation notice on stdout:\n%s", got)
	}
	_, help, _ := capsim(t, "aggregate", "--help")
	if strings.Contains(help, "--topology") || strings.Contains(help, "--power ") || !strings.Contains(help, "--sockets") {
		t.Errorf("help lists the deprecated names or lacks the new:\n%s", help)
	}
}

// gen coll's old --kind (a name fit keeps for its model kind) still
// picks the collective, with a notice.
func TestGenCollDeprecatedKind(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.arrow"), filepath.Join(dir, "b.arrow")
	if code, _, stderr := capsim(t, "gen", "coll", "--collective", "bcast", "--ranks", "4", "-o", a); code != 0 {
		t.Fatal(stderr)
	}
	code, _, stderr := capsim(t, "gen", "coll", "--kind", "bcast", "--ranks", "4", "-o", b)
	if code != 0 || !strings.Contains(stderr, "--kind has been deprecated, use --collective") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	da, _ := os.ReadFile(a)
	db, _ := os.ReadFile(b)
	if len(da) == 0 || string(da) != string(db) {
		t.Errorf("--kind wrote %d bytes, --collective %d", len(db), len(da))
	}
}
