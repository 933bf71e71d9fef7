package liballprof

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// readTimes reads testdata/loggopsim.times: TRACE PARAMS HOST FINISH_NS.
func readTimes(t *testing.T) map[string]map[string][]int64 {
	f, err := os.Open(filepath.Join("testdata", "loggopsim.times"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]map[string][]int64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		var name, params string
		var host int
		var ns int64
		if _, err := fmt.Sscan(line, &name, &params, &host, &ns); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if out[name] == nil {
			out[name] = map[string][]int64{}
		}
		if host != len(out[name][params]) {
			t.Fatalf("%q: hosts out of order", line)
		}
		out[name][params] = append(out[name][params], ns)
	}
	return out
}

// TestLogGOPSimAgreement imports each liballprof trace, lowers it with
// schedgen's collective algorithms (binomial bcast, dissemination barrier:
// lower's defaults), replays it and compares every host's finish time with
// what LogGOPSim reports after schedgen (testdata/loggopsim.times).
func TestLogGOPSimAgreement(t *testing.T) {
	want := readTimes(t)
	params := map[string]network.LogGOPS{
		"default": network.DefaultLogGOPS(),
		"small":   network.NewLogGOPS(5000, 200, 100, 2, 1, 4096),
	}
	for name, byParams := range want {
		path := filepath.Join("testdata", name, "trace_"+name+"-0.dat")
		if name != "p2p" && name != "colls" {
			dir := testenv.Shared(t, filepath.Join("traces", "liballprof", name))
			path = dir // the folder form
		}
		tr, err := ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		g, err := lower.Lower(tr, lower.Options{Algorithm: lower.SchedgenAlgorithms()})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for p, times := range byParams {
			res, err := sim.Run(g, params[p], sim.Options{})
			if err != nil {
				t.Fatalf("%s %s: %v", name, p, err)
			}
			for h, w := range times {
				if got := res.Ranks[h].Finish; got != w {
					t.Errorf("%s %s host %d: finish %d ns, LogGOPSim %d ns", name, p, h, got, w)
				}
			}
		}
	}
}

// count sums what a rank's events hold.
type count struct {
	calls     map[mpi.Kind]int
	sentBytes int64 // point-to-point
	recvBytes int64
	collBytes int64
	computeNs int64
}

func tally(tr *mpi.Trace, r int) count {
	c := count{calls: map[mpi.Kind]int{}}
	for _, e := range tr.Ranks[r].Events {
		switch {
		case e.Kind == mpi.Compute:
			c.computeNs += e.Duration
			continue
		case e.Kind == mpi.Send || e.Kind == mpi.Isend:
			c.sentBytes += e.Bytes
		case e.Kind == mpi.Recv || e.Kind == mpi.Irecv:
			c.recvBytes += e.Bytes
		case e.Kind.IsCollective():
			c.collBytes += e.Bytes
		}
		c.calls[e.Kind]++
	}
	return c
}

// TestCountsMatchRecords checks per-rank call counts, bytes and compute
// totals against the .dat records, counted by hand from the files.
func TestCountsMatchRecords(t *testing.T) {
	for _, tc := range []struct {
		name, path string
		shared     bool
		rank       int
		want       count
	}{
		// simple: 5 MPI_Bcast of 12 × 1 B; gaps 3-1, then 1 µs before each
		// later bcast and before MPI_Finalize at 13: 7 µs.
		{"simple", "simple/trace_bcast-0.dat", true, 0, count{calls: map[mpi.Kind]int{mpi.Bcast: 5}, collBytes: 60, computeNs: 7000}},
		{"hicomm", "hicomm", true, 3, count{calls: map[mpi.Kind]int{mpi.Bcast: 5}, collBytes: 60, computeNs: 7000}},
		// barr4 rank 2: barrier 4.0–5.0 after init at 1.0, finalize at 10: 3 + 5 µs.
		{"barr4", "barr4/trace_barr-0.dat", true, 2, count{calls: map[mpi.Kind]int{mpi.Barrier: 1}, computeNs: 8000}},
		{"bcast3", "bcast3", true, 1, count{calls: map[mpi.Kind]int{mpi.Bcast: 1}, collBytes: 12, computeNs: 8000}},
		// p2p rank 0: Isend 250×4, Irecv 250×4, Waitall, Send 1250×4, 3
		// Irecv of 100 B, 3 Wait, Sendrecv (Isend+Irecv+Waitall of 500×4),
		// Barrier, Bcast 1024×4. Gaps: 1+0+2+3+1+1+1+0.5+0.5+0.5+(1+1.5 across
		// MPI_Comm_rank)+2+3+2 = 20 µs.
		{"p2p 0", "trace_p2p-0.dat", false, 0, count{calls: map[mpi.Kind]int{mpi.Isend: 2, mpi.Irecv: 5, mpi.Waitall: 2, mpi.Send: 1, mpi.Wait: 3, mpi.Barrier: 1, mpi.Bcast: 1},
			sentBytes: 1000 + 5000 + 2000, recvBytes: 1000 + 300 + 2000, collBytes: 4096, computeNs: 20000}},
		// p2p rank 3: gaps 2.5+0+2+1+12+(1+1.5)+5+3+2 = 30 µs.
		{"p2p 3", "trace_p2p-0.dat", false, 3, count{calls: map[mpi.Kind]int{mpi.Isend: 2, mpi.Irecv: 2, mpi.Waitall: 2, mpi.Recv: 1, mpi.Send: 1, mpi.Barrier: 1, mpi.Bcast: 1},
			sentBytes: 1000 + 100 + 2000, recvBytes: 1000 + 5000 + 2000, collBytes: 4096, computeNs: 30000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join("testdata", "p2p", tc.path)
			if tc.shared {
				path = filepath.Join(testenv.Shared(t, "traces/liballprof"), tc.path)
			}
			tr, err := ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got := tally(tr, tc.rank)
			if fmt.Sprint(got.calls) != fmt.Sprint(tc.want.calls) || got.sentBytes != tc.want.sentBytes || got.recvBytes != tc.want.recvBytes ||
				got.collBytes != tc.want.collBytes || got.computeNs != tc.want.computeNs {
				t.Errorf("rank %d: got %+v, want %+v", tc.rank, got, tc.want)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const init = "MPI_Init:-:1:2:1.0\n"
	for _, tc := range []struct{ name, text, want string }{
		{"a-0.dat", "# collprof\n", "no MPI_Init record"},
		{"b-0.dat", init + "MPI_Scan:1:2\n", `b-0.dat:2: "MPI_Scan" is not supported`},
		{"c-0.dat", init + "MPI_Bcast:3.0:5:12:13,1,1:0:5641280,0,4:4.0\n", "communicator of 4 ranks, but the trace has 1 rank files"},
		{"d-0.dat", init + "MPI_Wait:2.0:77:5:3.0\n", "MPI_Wait on request 77"},
		{"e-0.dat", init + "MPI_Barrier:0.5:1,0,1:0.7\n", "before the previous call ended"},
		{"f-0.dat", init + "MPI_Barrier:x:1,0,1:0.7\n", `time "x" is not a number`},
		{"g-0.dat", init + "MPI_Barrier:2:1,0,1\n", "MPI_Barrier has 5 fields, want 6"},
		{"h-0.dat", init + "MPI_Finalize:2:-\nMPI_Barrier:3:1,0,1:4\n", "after MPI_Finalize"},
		{"i-0.dat", "hello\n", "not an MPI call record"},
		{"j-0.dat", init + "MPI_Barrier:-2:1,0,1:3\n", `j-0.dat:2: MPI_Barrier: time "-2" is not a number of microseconds`},
		{"k-0.dat", init + "MPI_Barrier:2:1,0,1:1e300\n", `time "1e300" is not a number`},
		{"l-0.dat", init + "MPI_Barrier:2:1,0,1:9000000000000000000\n", "l-0.dat:2: MPI_Barrier: 9000000000000000000 µs is more than 1000000000000000 µs"},
		// A request completed by MPI_Test and started again was said to be
		// started before a wait completed it, with no word of the test.
		{"m-0.dat", init + "MPI_Isend:2.0:5:250:10,4,4:0:5:0,0,1:1000:2.5\nMPI_Test:3.0:1000:1:7:3.5\nMPI_Isend:4.0:5:250:10,4,4:0:5:0,0,1:1000:4.5\n",
			"m-0.dat:4: request 1000 started again before an MPI_Wait or MPI_Waitall completed it (capsim does not follow requests that MPI_Test or MPI_Testall complete)"},
	} {
		_, err := ReadFile(write(tc.name, tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	write("x-0.dat", init)
	write("x-1.dat", init)
	if _, err := ReadFile(filepath.Join(dir, "x-1.dat")); err == nil || !strings.Contains(err.Error(), "this is the liballprof trace of rank 1: pass the rank-0 file") {
		t.Errorf("rank-1 file: %v", err)
	}
	if _, err := ReadFile(dir); err == nil || !strings.Contains(err.Error(), "several traces") {
		t.Errorf("folder of several traces: %v", err)
	}
}

// TestSkippedLocalCalls reads the calls real applications make between
// communication that move no data (timers, datatypes, communicator
// constructors, probes): skipped, their time part of the compute gap.
func TestSkippedLocalCalls(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "app-0.dat")
	text := "# collprof 0.9 output file\nMPI_Init:-:1:2:1.0\nMPI_Wtime:1.5:1.6\nMPI_Type_contiguous:2.0:4:1275068673,4,1:0x7ffd:2.1\n" +
		"MPI_Type_commit:2.2:0x7ffd:2.3\nMPI_Comm_dup:2.4:1140850688,0,1:0x7ffe:2.5\nMPI_Probe:2.6:0:1:1140850688,0,1:0x7fff:2.7\n" +
		"MPI_Barrier:3.0:1140850688,0,1:4.0\nMPI_Finalize:6.0:-\n"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	var compute int64
	for _, e := range tr.Ranks[0].Events {
		kinds = append(kinds, e.Kind.String())
		if e.Kind == mpi.Compute {
			compute += e.Duration
		}
	}
	if fmt.Sprint(kinds) != "[compute barrier compute]" || compute != 4000 {
		t.Errorf("events %v with %d ns of compute, want compute, barrier, compute and 4000 ns (2 µs before the barrier, 2 after)", kinds, compute)
	}
}

// TestProcNullSends: a send to MPI_PROC_NULL (a negative destination,
// -2 in Open MPI, -1 in MPICH) moves nothing, and the waits of such
// isends wait for nothing; a trace of them was refused ("peer \"-2\" is
// not an integer in 0..1"), so non-periodic halo exchanges could not be
// read.
func TestProcNullSends(t *testing.T) {
	dir := t.TempDir()
	const head = "# collprof 0.9 output file\nMPI_Init:-:1:2:1.0\n"
	ranks := []string{head +
		"MPI_Send:2.0:5:50:10,4,4:-2:7:0,0,2:3.0\n" +
		"MPI_Isend:4.0:5:50:10,4,4:-1:7:0,0,2:1000:5.0\n" +
		"MPI_Wait:6.0:1000:7:7.0\n" +
		"MPI_Isend:8.0:5:250:10,4,4:1:5:0,0,2:2000:9.0\n" +
		"MPI_Isend:10.0:5:250:10,4,4:-2:5:0,0,2:2008:11.0\n" +
		"MPI_Waitall:12.0:2:2000:7:13.0\n" +
		"MPI_Sendrecv:24.5:5:500:10,4,4:-2:11:6:500:10,4,4:1:11:0,0,2:7:26.5\n" +
		"MPI_Finalize:35.5:-\n",
		head + "MPI_Recv:2.0:5:250:10,4,4:0:5:0,0,2:7:9.0\nMPI_Send:11.0:5:500:10,4,4:0:11:0,0,2:13.0\nMPI_Finalize:35.5:-\n"}
	for r, text := range ranks {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("pn-%d.dat", r)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := ReadFile(filepath.Join(dir, "pn-0.dat"))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range tr.Ranks[0].Events {
		if e.Kind != mpi.Compute {
			kinds = append(kinds, fmt.Sprintf("%v %d", e.Kind, e.Bytes))
		}
	}
	if got, want := fmt.Sprint(kinds), "[isend 1000 waitall 0 recv 2000]"; got != want {
		t.Errorf("rank 0's calls %s, want %s", got, want)
	}
	if l := tr.List(0, &tr.Ranks[0].Events[3]); len(l) != 1 {
		t.Errorf("the waitall waits for %v, want the isend to rank 1 alone", l)
	}
}

// TestEpochTimestamps reads a trace in the style of those ATLAHS and
// LogGOPSim2 ship (pmpi-trace-rank-N.txt, collprof 0.9, times in µs since
// the Unix epoch): durations and gaps are exact to the nanosecond although
// float64 holds such times only to 0.25 µs, and each rank's recorded span
// runs from MPI_Init's end to MPI_Finalize's start.
func TestEpochTimestamps(t *testing.T) {
	for _, path := range []string{"testdata/epoch/pmpi-trace-rank-0.txt", "testdata/epoch"} {
		tr, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want := [][]int64{
			{2123, 2333, 4544, 5789, 9711}, // gap, send, gap, barrier, gap
			{500, 3500, 5000, 4000, 5000},  // gap, recv, gap, barrier, gap
		}
		for r, w := range want {
			var got []int64
			for _, e := range tr.Ranks[r].Events {
				got = append(got, e.Duration)
			}
			if fmt.Sprint(got) != fmt.Sprint(w) {
				t.Errorf("%s rank %d durations %v, want %v", path, r, got, w)
			}
		}
		if rec := tr.Recorded; rec == nil || fmt.Sprint(rec.SpanNs) != "[24500 18000]" || rec.JobNs() != 24500 || rec.OffNs != nil || rec.OutsideNs != nil {
			t.Errorf("%s recorded %+v, want spans [24500 18000]", path, rec)
		}
		// Rank 1's MPI_Init ended 1 µs after rank 0's.
		if rec := tr.Recorded; rec == nil || fmt.Sprint(rec.StartNs) != "[0 1000]" {
			t.Errorf("%s recorded starts %+v, want [0 1000]", path, rec)
		}
	}
}

// TestEpochStamps keeps each event's recorded time (Options.Stamps) in ns
// exactly as written: rank 0's compute from MPI_Init's end, its MPI_Send,
// the compute after it, its MPI_Barrier and the compute before
// MPI_Finalize.
func TestEpochStamps(t *testing.T) {
	tr, err := ReadFileWith("testdata/epoch", Options{Stamps: true})
	if err != nil {
		t.Fatal(err)
	}
	const base = 1237666046950000 * 1000 // ns
	want := []mpi.Stamp{{Start: base + 106_000, End: base + 108_123}, {Start: base + 108_123, End: base + 110_456},
		{Start: base + 110_456, End: base + 115_000}, {Start: base + 115_000, End: base + 120_789}, {Start: base + 120_789, End: base + 130_500}}
	if got := tr.Ranks[0].Stamps; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rank 0 stamps\n got %v\nwant %v", got, want)
	}
	plain, err := ReadFile("testdata/epoch")
	if err != nil {
		t.Fatal(err)
	}
	if plain.Stamped() {
		t.Error("stamps kept without Options.Stamps")
	}
}

func TestParseDecimal(t *testing.T) {
	for _, tc := range []struct {
		s    string
		us   int64
		frac float64
		ok   bool
	}{
		{"1237666046950106.0", 1237666046950106, 0, true},
		{"1237666046950108.123", 1237666046950108, 0.123, true},
		{"9223372036854775807", 1<<63 - 1, 0, true},
		{"2.99999999999999999999", 3, 0, true},
		{"9223372036854775807.99999999999999999999", 0, 0, false},
		{"9223372036854775808", 0, 0, false},
		{"1.5e3", 0, 0, false},
		{".5", 0, 0, false},
		{"-1.0", 0, 0, false},
		{"1.", 1, 0, true},
	} {
		got, ok := parseDecimal(tc.s)
		if ok != tc.ok || ok && (got.us != tc.us || got.frac != tc.frac) {
			t.Errorf("parseDecimal(%q) = %+v, %v; want %d + %g, %v", tc.s, got, ok, tc.us, tc.frac, tc.ok)
		}
	}
}

func TestSniff(t *testing.T) {
	for _, tc := range []struct {
		head string
		want bool
	}{
		{"# collprof 0.9 output file\n", true},
		{"\n# x\nMPI_Init:-:1:2:1.0\n", true},
		{"num_ranks 4\n", false},
		{"", false},
	} {
		if got := Sniff([]byte(tc.head)); got != tc.want {
			t.Errorf("Sniff(%q) = %v", tc.head, got)
		}
	}
}
