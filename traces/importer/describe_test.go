package importer

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/arrowtrace"
)

// A deadlock inside a collective is named by the MPI call the program
// made (the call, its communicator and which of that communicator's
// collectives it is on the rank), not only by the internal messages the
// collective was lowered to, for every MPI-level format (here SimGrid).
func TestOpDescriberNamesCollective(t *testing.T) {
	p := filepath.Join(t.TempDir(), "dl.txt")
	text := "0 init\n1 init\n0 barrier\n1 barrier\n0 recv 1 0 10\n0 barrier\n1 barrier\n1 send 0 0 10\n0 finalize\n1 finalize\n"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := Read(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := tr.Lower(nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = sim.Run(g, network.DefaultLogGOPS(), sim.Options{})
	var dl *sim.DeadlockError
	if !errors.As(err, &dl) {
		t.Fatalf("replay: %v, want a deadlock", err)
	}
	dl.Rewrite(tr.OpDescriber(nil))
	msg := err.Error()
	for _, want := range []string{"rank 1: MPI_Barrier 0 bytes on comm world", "collective call #2 on comm 0 of rank 1", "rank 0: MPI_Recv 10 bytes from 1"} {
		if !strings.Contains(msg, want) {
			t.Errorf("deadlock message lacks %q:\n%s", want, msg)
		}
	}
}

// A deadlock in an execution graph read from a file is named in the
// file's terms: a GOAL operation by the label written on its line (none
// where the line has none: not the l<n> capsim makes up, which may be
// another operation's label) and the line; an Arrow graph's by its label
// (none where the file's is null) and its row.
func TestGraphDeadlockInFileTerms(t *testing.T) {
	dir := t.TempDir()
	goalText := "num_ranks 2\nrank 0 {\n  l2: calc 5\n  recv 8b from 1 tag 6\n}\nrank 1 {\n  recvB: recv 8b from 0 tag 5\n}\n"
	goalPath := filepath.Join(dir, "dl.goal")
	if err := os.WriteFile(goalPath, []byte(goalText), 0o644); err != nil {
		t.Fatal(err)
	}
	gt, err := Read(goalPath, Options{})
	if err != nil {
		t.Fatal(err)
	}
	arrowPath := filepath.Join(dir, "dl.arrow")
	unlabeled := *gt.Graph
	unlabeled.Labels = nil
	if err := arrowtrace.WriteGraph(arrowPath, &unlabeled); err != nil {
		t.Fatal(err)
	}
	labeledPath := filepath.Join(dir, "labeled.arrow")
	if err := arrowtrace.WriteGraph(labeledPath, gt.Graph); err != nil {
		t.Fatal(err)
	}
	gz := func(p string) string {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(data)
		zw.Close()
		if err := os.WriteFile(p+".gz", b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p + ".gz"
	}
	goalGz, arrowGz := gz(goalPath), gz(arrowPath)
	for _, tc := range []struct {
		path      string
		want, not []string
	}{
		{goalGz, []string{"rank 0: recv 8b from 1 tag 6 (" + goalGz + ":4)"}, []string{"l2: recv"}},
		{arrowGz, []string{"rank 1: recv 8b from 0 tag 5 (" + arrowGz + " row 2)"}, []string{"l2: recv", "l1: recv"}},
		{goalPath, []string{"rank 0: recv 8b from 1 tag 6 (" + goalPath + ":4)", "rank 1 recvB: recv 8b from 0 tag 5 (" + goalPath + ":7)"}, []string{"l2: recv"}},
		{arrowPath, []string{"rank 0: recv 8b from 1 tag 6 (" + arrowPath + " row 1)", "rank 1: recv 8b from 0 tag 5 (" + arrowPath + " row 2)"}, []string{"l2: recv", "l1: recv"}},
		{labeledPath, []string{"rank 1 recvB: recv 8b from 0 tag 5 (" + labeledPath + " row 2)"}, []string{"l2: recv"}},
	} {
		tr, err := Read(tc.path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = sim.Run(tr.Graph, network.DefaultLogGOPS(), sim.Options{})
		var dl *sim.DeadlockError
		if !errors.As(err, &dl) {
			t.Fatalf("%s: replay: %v, want a deadlock", tc.path, err)
		}
		for _, describe := range []func(int32) string{tr.OpDescriber(nil), GraphDescriber(tc.path, tr.Graph)} {
			if describe == nil {
				t.Fatalf("%s: no describer", tc.path)
			}
			for _, want := range tc.want {
				if !strings.Contains(dlText(dl, describe), want) {
					t.Errorf("%s: deadlock lacks %q:\n%s", tc.path, want, dlText(dl, describe))
				}
			}
			for _, not := range tc.not {
				if strings.Contains(dlText(dl, describe), not) {
					t.Errorf("%s: deadlock names %q, a label the file does not give that operation:\n%s", tc.path, not, dlText(dl, describe))
				}
			}
		}
	}
}

// dlText is dl's message with its operations named by describe.
func dlText(dl *sim.DeadlockError, describe func(int32) string) string {
	c := *dl
	c.Rewrite(describe)
	return c.Error()
}
