package dumpi

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
)

// realTraces are the DUMPI traces of ../shared/traces/dumpi with, per
// rank (every rank of each trace makes the same calls), the records per
// function and the point-to-point messages and bytes sent and received.
// The numbers were derived independently of this package: by sst-dumpi's
// own dumpi2ascii (built from its sources outside this repository) on
// every .bin file, counting the calls it prints and summing count ×
// datatype size over the sends and receives it prints.
var realTraces = []struct {
	dir, version    string
	ranks           int
	calls           map[string]int
	records         int
	msgs, msgBytes  int64
	comms           int // communicators in the trace, MPI_COMM_WORLD included
	longSize        int64
	computeRegion   string // the region of the first compute event
	nonEmptyCompute bool
}{
	{dir: "sstmacro-testtrace", version: "1.0.0", ranks: 4, records: 9,
		calls: map[string]int{"MPI_Init": 1, "MPI_Comm_rank": 1, "MPI_Comm_size": 1, "MPI_Barrier": 1, "MPI_Isend": 1,
			"MPI_Recv": 1, "MPI_Wait": 1, "MPI_Allreduce": 1, "MPI_Finalize": 1},
		msgs: 1, msgBytes: 4, comms: 1, longSize: 8},
	{dir: "sstmacro-testbgp", version: "1.1.0", ranks: 7, records: 227,
		calls: map[string]int{"MPI_Init": 1, "MPI_Comm_rank": 29, "MPI_Comm_size": 1, "MPI_Comm_group": 1, "MPI_Group_incl": 1,
			"MPI_Comm_create": 1, "MPI_Barrier": 3, "MPI_Isend": 84, "MPI_Irecv": 84, "MPI_Waitall": 14, "MPI_Alltoall": 7, "MPI_Finalize": 1},
		msgs: 84, msgBytes: 59808, comms: 2, longSize: 4},
	{dir: "d2g-alltoall4", version: "8.1.0", ranks: 4, records: 41,
		calls: map[string]int{"MPI_Init": 1, "MPI_Comm_rank": 1, "MPI_Comm_size": 1, "MPI_Get_processor_name": 1, "MPI_Barrier": 4,
			"MPI_Isend": 12, "MPI_Irecv": 12, "MPI_Waitall": 8, "MPI_Finalize": 1},
		msgs: 12, msgBytes: 48, comms: 1, longSize: 8},
}

func TestRealTraces(t *testing.T) {
	base := testenv.Shared(t, "traces/dumpi")
	for _, tc := range realTraces {
		t.Run(tc.dir, func(t *testing.T) {
			tr, info, err := ReadInfo(filepath.Join(base, tc.dir), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if info.Version != tc.version || len(tr.Ranks) != tc.ranks || len(tr.Comms) != tc.comms {
				t.Errorf("version %s, %d ranks, %d communicators; want %s, %d, %d", info.Version, len(tr.Ranks), len(tr.Comms), tc.version, tc.ranks, tc.comms)
			}
			for r := range info.Ranks {
				ri := &info.Ranks[r]
				total := 0
				for id, n := range ri.Calls {
					total += n
					// The tracer's own count, in the footer, agrees.
					if id < numFuncSlots-1 && int(ri.FooterCalls[id]) != n {
						t.Errorf("rank %d: %d records of %s, footer says %d", r, n, FunctionName(id), ri.FooterCalls[id])
					}
				}
				if total != tc.records || int(ri.FooterCalls[numFuncSlots-1]) != total {
					t.Errorf("rank %d: %d records, want %d; the footer's total is %d", r, total, tc.records, ri.FooterCalls[numFuncSlots-1])
				}
				for name, n := range tc.calls {
					if got := ri.CallCount(name); got != n {
						t.Errorf("rank %d: %d %s, want %d", r, got, name, n)
					}
				}
				if ri.TypeSizes[tLong] != tc.longSize {
					t.Errorf("rank %d: MPI_LONG is %d bytes, want %d", r, ri.TypeSizes[tLong], tc.longSize)
				}
			}
			// Every send is received exactly once, with communicator
			// ranks mapped to world ranks …
			perRank, err := matchAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			// … and the replay matches the same messages.
			stats := replay(t, tr)
			for r := range tr.Ranks {
				s := stats[r]
				if int64(perRank[r]) != tc.msgs || s.Sent != tc.msgs || s.Recv != tc.msgs || s.SentBytes != tc.msgBytes || s.RecvBytes != tc.msgBytes {
					t.Errorf("rank %d: trace sends %d; replay sent %d (%d B), received %d (%d B); want %d messages of %d B in all each way",
						r, perRank[r], s.Sent, s.SentBytes, s.Recv, s.RecvBytes, tc.msgs, tc.msgBytes)
				}
			}
		})
	}
}

// TestRealTraceCommCreate checks the communicator of sstmacro-testbgp: made
// by MPI_Comm_create from MPI_Group_incl of ranks 0…6 of MPI_COMM_WORLD.
func TestRealTraceCommCreate(t *testing.T) {
	tr, err := Read(filepath.Join(testenv.Shared(t, "traces/dumpi"), "sstmacro-testbgp", "testbgp.meta"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := tr.Comm(1)
	if c == nil || len(c.Members) != 7 {
		t.Fatalf("communicator 1: %+v", c)
	}
	for i, w := range c.Members {
		if w != int32(i) {
			t.Errorf("member %d is world rank %d", i, w)
		}
	}
	uses := 0
	for _, e := range tr.Ranks[3].Events {
		if (e.Kind.IsPointToPoint() || e.Kind.IsCollective()) && e.Comm == 1 {
			uses++
		}
	}
	if uses != 84+84+7 { // the Isends, Irecvs and Alltoalls
		t.Errorf("rank 3 uses the new communicator %d times, want 175", uses)
	}
}

// TestRealTraceStarts checks each rank's recorded start (the stop of its
// MPI_Init on the wall clock, relative to the earliest rank's) in the
// shared traces, whose ranks returned from MPI_Init up to 7.5 ms apart.
// Their last calls are collectives, so every rank enters MPI_Finalize at
// nearly the same time: start + recorded span must agree across ranks
// within the given tolerance, far less than the starts' spread, which
// says the starts are real offsets on one clock, not clock noise.
func TestRealTraceStarts(t *testing.T) {
	base := testenv.Shared(t, "traces/dumpi")
	for _, tc := range []struct {
		dir          string
		spread, tolr int64 // ns
	}{
		{"sstmacro-testtrace", 1_893_000, 70_000},
		{"sstmacro-testbgp", 1_016_026, 400_000},
		{"d2g-alltoall4", 7_456_434, 1_000},
	} {
		tr, err := Read(filepath.Join(base, tc.dir), Options{})
		if err != nil {
			t.Fatal(err)
		}
		rec := tr.Recorded
		if got := rec.StartSpreadNs(); got != tc.spread || len(rec.StartNs) != len(tr.Ranks) {
			t.Errorf("%s: starts %v (spread %d ns), want a spread of %d ns", tc.dir, rec.StartNs, got, tc.spread)
			continue
		}
		lo, hi := int64(math.MaxInt64), int64(0)
		for r, s := range rec.StartNs {
			end := s + rec.SpanNs[r]
			lo, hi = min(lo, end), max(hi, end)
		}
		if hi-lo > tc.tolr {
			t.Errorf("%s: ranks entered MPI_Finalize %d ns apart (start + span), want ≤ %d", tc.dir, hi-lo, tc.tolr)
		}
	}
}
