package simgrid

import (
	"reflect"
	"strings"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// TestLegacyDialect reads a trace in the TI dialect of SimGrid 3.16 and
// older (built from its replay's argument layout): point-to-point without
// tags, Isend/Irecv, wait and test without arguments completing the last
// request, camel-case collectives, a size-less datatype meaning MPI_BYTE.
func TestLegacyDialect(t *testing.T) {
	tr, err := Read(write(t, `# smpi/host-speed: 1Gf
0 init
1 init
0 compute 1e6
1 compute 2.5e+06
0 Isend 1 1024
0 Isend 1 2048
0 send 1 16 1
1 Irecv 0 1024
1 Irecv 0 2048
1 test
1 recv 0 16 1
1 wait
1 wait
0 wait
0 allReduce 100 5e3
1 allReduce 100 5e3
0 allToAll 10 10
1 allToAll 10 10
0 allGatherV 3 3 5
1 allGatherV 5 3 5
0 bcast 8 1 0
1 bcast 8 1 0
0 reduceScatter 4 4 0
1 reduceScatter 4 4 0
0 waitAll
1 waitAll
0 finalize
1 finalize
`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	W := mpi.World
	want0 := []mpi.Event{
		{Kind: mpi.Compute, Region: 1, Duration: 1e6}, // 1e6 flops at 1 Gflop/s
		{Kind: mpi.Isend, Comm: W, Peer: 1, Bytes: 1024, Req: 0},
		{Kind: mpi.Isend, Comm: W, Peer: 1, Bytes: 2048, Req: 1},
		{Kind: mpi.Send, Comm: W, Peer: 1, Bytes: 64}, // 16 MPI_INT
		{Kind: mpi.Wait, Comm: W, Req: 1},             // the last request started
		{Kind: mpi.Allreduce, Comm: W, Bytes: 100},
		{Kind: mpi.Compute, Region: 1, Duration: 5000},
		{Kind: mpi.Alltoall, Comm: W, Bytes: 10},
		{Kind: mpi.Allgather, Comm: W, Bytes: 4},
		{Kind: mpi.Bcast, Comm: W, Peer: 1, Bytes: 64}, // 8 MPI_DOUBLE
		{Kind: mpi.ReduceScatter, Comm: W, Bytes: 8},
		{Kind: mpi.Waitall, Comm: W, ListOff: 0, ListLen: 1},
	}
	got := tr.Ranks[0].Events
	if !reflect.DeepEqual(got, want0) {
		t.Errorf("rank 0 events\n got %+v\nwant %+v", got, want0)
	}
	var waits []int64
	for _, e := range tr.Ranks[1].Events {
		if e.Kind == mpi.Wait {
			waits = append(waits, e.Req)
		}
	}
	if !reflect.DeepEqual(waits, []int64{1, 0}) {
		t.Errorf("rank 1 waits for requests %v, want 1 then 0 (last started first)", waits)
	}
	// "Irecv" is a receive; it was read as an isend.
	if k := tr.Ranks[1].Events[1].Kind; k != mpi.Irecv {
		t.Errorf("rank 1's first Irecv read as %v", k)
	}
	g, err := lower.Lower(tr, lower.Options{})
	if err != nil {
		t.Fatalf("lowering: %v", err)
	}
	net, err := network.ParseSpec("loggops")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Run(g, net, sim.Options{}); err != nil {
		t.Errorf("replay: %v", err)
	}
}

// TestDialectDetection checks which lines decide the dialect.
func TestDialectDetection(t *testing.T) {
	for _, c := range []struct {
		text   string
		legacy bool
	}{
		{"0 init\n0 send 1 100\n", true},
		{"0 init\n0 send 1 0 100 6\n", false},
		{"0 init\n0 Isend 1 100 6\n", true},
		{"0 init\n0 isend 1 0 100\n", false},
		{"0 wait\n", true},
		{"0 wait 0 1 5\n", false},
		{"0 waitAll\n", true},
		{"0 allreduce 1 0\n", false},
		{"0 init\n0 compute 100\n0 send 1 0 100\n", false}, // three arguments alone do not tell: today's
		{"# comment\n0 barrier\n", false},
	} {
		var d dialect
		for _, l := range strings.Split(c.text, "\n") {
			if d.see(splitFields(nil, []byte(l))) {
				break
			}
		}
		if got := d.legacy; got != c.legacy {
			t.Errorf("%q: legacy %v, want %v", c.text, got, c.legacy)
		}
	}
}

// TestLegacyMixed checks that a today's line in a legacy trace is refused
// with the line and the layout wanted, not misread.
func TestLegacyMixed(t *testing.T) {
	_, err := Read(write(t, "0 init\n1 init\n0 send 1 100\n1 recv 0 7\n1 wait 0 1 0\n0 isend\n"), Options{})
	if err == nil || !strings.Contains(err.Error(), ":6: isend") {
		t.Errorf("got %v, want an error naming line 6's isend", err)
	}
}

// TestDialectDecidedLate checks that the lines read before the line that
// decides the dialect are parsed in it, at their own line numbers: a
// three-argument send is legacy's "dst size datatype" when a later wait
// without arguments says so, and an error on a held line names its line.
func TestDialectDecidedLate(t *testing.T) {
	tr, err := Read(write(t, "0 init\n1 init\n# a comment\n0 send 1 100 0\n1 recv 0 100 0\n0 wait\n1 compute 1000\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if e := tr.Ranks[0].Events[0]; e.Kind != mpi.Send || e.Peer != 1 || e.Tag != 0 || e.Bytes != 100*datatypeSize[0] {
		t.Errorf("rank 0's send %+v: want 100 × %d bytes to rank 1, tag 0", e, datatypeSize[0])
	}
	_, err = Read(write(t, "0 init\n1 init\n1 frobnicate\n0 send 1 100\n"), Options{})
	if err == nil || !strings.Contains(err.Error(), ":3: frobnicate: unknown action") {
		t.Errorf("got %v, want an error naming line 3's action", err)
	}
}
