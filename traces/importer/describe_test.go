package importer

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/sim"
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
