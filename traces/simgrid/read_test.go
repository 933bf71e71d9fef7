package simgrid

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// write stores a single-file trace in a temporary folder.
func write(t testing.TB, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "trace.txt")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// tiTotals counts straight from the TI lines of a per-rank trace what the
// import must preserve: per rank, the number of lines of each action, the
// flops of "compute" lines and the bytes of point-to-point lines (every
// size in capsim's programs is in MPI_DOUBLE, MPI_INT or MPI_LONG).
type tiTotals struct {
	actions map[string]int
	flops   float64
	p2p     int64
}

func countTI(t *testing.T, index string) []tiTotals {
	t.Helper()
	b, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	var out []tiTotals
	for _, f := range strings.Fields(string(b)) {
		rf, err := os.Open(filepath.Join(filepath.Dir(index), f))
		if err != nil {
			t.Fatal(err)
		}
		tt := tiTotals{actions: map[string]int{}}
		sc := bufio.NewScanner(rf)
		for sc.Scan() {
			w := strings.Fields(sc.Text())
			if len(w) < 2 || w[0] == "#" {
				continue
			}
			tt.actions[w[1]]++
			switch w[1] {
			case "compute":
				v, _ := strconv.ParseFloat(w[2], 64)
				tt.flops += v
			case "send", "isend", "recv", "irecv":
				n, _ := strconv.ParseInt(w[4], 10, 64)
				size := map[string]int64{"0": 8, "1": 4, "4": 8}[w[5]]
				if size == 0 {
					t.Fatalf("%s: datatype %s", f, w[5])
				}
				tt.p2p += n * size
			}
		}
		rf.Close()
		out = append(out, tt)
	}
	return out
}

// TestReadRecorded imports the traces recorded from capsim's own programs
// and checks, rank by rank, the operation counts, point-to-point bytes and
// compute time against the TI lines, and totals against the programs.
func TestReadRecorded(t *testing.T) {
	kinds := map[string]mpi.Kind{"send": mpi.Send, "isend": mpi.Isend, "recv": mpi.Recv, "irecv": mpi.Irecv,
		"wait": mpi.Wait, "waitall": mpi.Waitall, "barrier": mpi.Barrier, "bcast": mpi.Bcast, "reduce": mpi.Reduce,
		"allreduce": mpi.Allreduce, "alltoall": mpi.Alltoall, "alltoallv": mpi.Alltoallv, "allgather": mpi.Allgather,
		"gather": mpi.Gather, "scatter": mpi.Scatter}
	// Per-rank compute of each program in ns at 1 Gflop/s, from its source:
	// jacobi 40 sweeps of 7·96² flops; cg 2n + 30·(11+6+2)n with n = 12·192;
	// fft 4 steps of 5·128·7·8 + 2·8·128 flops.
	computeNs := map[string]func(r int) int64{
		"jacobi": func(int) int64 { return 40 * 7 * 96 * 96 },
		"cg":     func(int) int64 { n := int64(12 * 192); return 2*n + 30*19*n },
		"fft":    func(int) int64 { return 4 * (5*128*7*8 + 2*8*128) },
	}
	for _, name := range []string{"jacobi", "cg", "fft", "master"} {
		t.Run(name, func(t *testing.T) {
			index := filepath.Join("testdata", "ti", name+".txt")
			tr, err := Read(index, Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := countTI(t, index)
			if len(tr.Ranks) != 16 || len(want) != 16 {
				t.Fatalf("%d ranks, %d files, want 16", len(tr.Ranks), len(want))
			}
			for r, rk := range tr.Ranks {
				got := map[mpi.Kind]int{}
				var ns, p2p int64
				for _, e := range rk.Events {
					got[e.Kind]++
					if e.Kind == mpi.Compute {
						ns += e.Duration
					}
					if e.Kind.IsPointToPoint() {
						p2p += e.Bytes
					}
				}
				for a, k := range kinds {
					if got[k] != want[r].actions[a] {
						t.Errorf("rank %d: %d %s events, the trace has %d %s lines", r, got[k], k, want[r].actions[a], a)
					}
				}
				if got[mpi.Compute] != want[r].actions["compute"] {
					t.Errorf("rank %d: %d compute events, %d compute lines", r, got[mpi.Compute], want[r].actions["compute"])
				}
				if p2p != want[r].p2p {
					t.Errorf("rank %d: %d point-to-point bytes, the trace has %d", r, p2p, want[r].p2p)
				}
				if ns != int64(want[r].flops) { // 1 ns per flop at the trace's 1Gf
					t.Errorf("rank %d: %d ns of compute for %g flops at 1 Gflop/s", r, ns, want[r].flops)
				}
				if f := computeNs[name]; f != nil && ns != f(r) {
					t.Errorf("rank %d: %d ns of compute, the program charges %d", r, ns, f(r))
				}
			}
			if _, err := lower.Lower(tr, lower.Options{}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestSingleFileMatchesIndex reads the master-worker trace in both of
// SimGrid's layouts (two recordings of the same deterministic run).
func TestSingleFileMatchesIndex(t *testing.T) {
	one, err := Read(filepath.Join("..", "..", "examples", "traces", "ti.txt"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	idx, err := Read(filepath.Join("testdata", "ti", "master.txt"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(one.WithoutSources(), idx.WithoutSources()) {
		t.Errorf("single-file trace differs from the per-rank one: %d vs %d events", one.NumEvents(), idx.NumEvents())
	}
	// The master's 120 wildcard receives (one per task result).
	n := 0
	for _, e := range one.Ranks[0].Events {
		if e.Kind == mpi.Recv && e.Peer == mpi.AnySource {
			n++
		}
	}
	if n != 120 {
		t.Errorf("%d wildcard receives on rank 0, want 120", n)
	}
}

// TestActions checks the mapping of every action on a hand-written
// two-rank trace.
func TestActions(t *testing.T) {
	tr, err := Read(write(t, `# smpi/host-speed: 2Gf
0 init
1 init 1
0 compute 3000
0 sleep 0.5
0 location jacobi.c 42
0 compute 10
0 send 1 5 10 1
0 isend 1 6 3
0 irecv -333 -444 2 0
0 test 0 1 6
0 wait 0 1 6
0 waitall 1
1 recv 0 5 10 1
1 recv 0 6 3 6
1 isend 0 9 1
0 sendRecv 2 1 3 1 0 0
1 sendRecv 3 0 2 0 0 0
0 barrier
1 barrier
0 bcast 4 1 1
1 bcast 4 1 1
0 reduce 5 1000 1 0
1 reduce 5 1000 1 0
0 allreduce 2 0
1 allreduce 2 0 2
0 alltoall 3 3 0 0
1 alltoall 3 3
0 alltoallv 5 2 3 5 2 3 0 0
1 alltoallv 7 3 4 7 3 4 0 0
0 gather 1 1 0 2 2
1 gather 1 1 0 2 2
0 allgatherv 1 3 5 0 0
1 allgatherv 1 3 5 0 0
0 scatterv 4 6 4 1 4 4
1 scatterv 4 6 2 1 4 4
0 reducescatter 2 2 0 1
1 reducescatter 2 2 0 1
0 scan 1 0 0
1 exscan 1 0 0
0 comm_size 2
0 comm_split
0 comm_dup
0 finalize
1 finalize
`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	W := mpi.World
	want0 := []mpi.Event{
		{Kind: mpi.Compute, Region: 1, Duration: 1500}, // 3000 flops at 2 Gflop/s
		{Kind: mpi.Compute, Region: 2, Duration: 5e8},  // sleep 0.5 s
		{Kind: mpi.Compute, Region: 3, Duration: 5},    // after location: region jacobi.c:42
		{Kind: mpi.Send, Comm: W, Peer: 1, Tag: 5, Bytes: 40},
		{Kind: mpi.Isend, Comm: W, Peer: 1, Tag: 6, Bytes: 3, Req: 0},
		{Kind: mpi.Irecv, Comm: W, Peer: mpi.AnySource, Tag: mpi.AnyTag, Bytes: 16, Req: 1},
		{Kind: mpi.Wait, Comm: W, Req: 0},
		{Kind: mpi.Waitall, Comm: W, ListOff: 0, ListLen: 1},
		{Kind: mpi.Isend, Comm: W, Peer: 1, Bytes: 16, Req: 2},
		{Kind: mpi.Irecv, Comm: W, Peer: 1, Bytes: 24, Req: 3},
		{Kind: mpi.Waitall, Comm: W, ListOff: 1, ListLen: 2},
		{Kind: mpi.Barrier, Comm: W},
		{Kind: mpi.Bcast, Comm: W, Peer: 1, Bytes: 16},
		{Kind: mpi.Reduce, Comm: W, Peer: 1, Bytes: 40},
		{Kind: mpi.Compute, Region: 1, Duration: 500},
		{Kind: mpi.Allreduce, Comm: W, Bytes: 2},
		{Kind: mpi.Alltoall, Comm: W, Bytes: 24},
		{Kind: mpi.Alltoallv, Comm: W, Bytes: 40, ListOff: 3, ListLen: 2},
		{Kind: mpi.Gather, Comm: W, Bytes: 1},
		{Kind: mpi.Allgather, Comm: W, Bytes: 32}, // mean of 3 and 5 doubles
		{Kind: mpi.Scatter, Comm: W, Peer: 1, Bytes: 40},
		{Kind: mpi.ReduceScatter, Comm: W, Bytes: 16},
		{Kind: mpi.Scan, Comm: W, Bytes: 8},
	}
	if got := tr.Ranks[0].Events; !reflect.DeepEqual(got, want0) {
		t.Errorf("rank 0 events\n got %+v\nwant %+v", got, want0)
	}
	if got, want := tr.Ranks[0].List, []int64{1, 2, 3, 16, 24}; !reflect.DeepEqual(got, want) {
		t.Errorf("rank 0 list %v, want %v", got, want)
	}
	if got, want := tr.Regions, []string{"", "compute", "sleep", "jacobi.c:42"}; !reflect.DeepEqual(got, want) {
		t.Errorf("regions %q, want %q", got, want)
	}
	r1 := tr.Ranks[1].Events
	if r1[0].Bytes != 40 || r1[1].Bytes != 3 || r1[2].Bytes != 8 { // "init 1": MPI_DOUBLE by default
		t.Errorf("rank 1 sizes %d %d %d, want 40 3 8", r1[0].Bytes, r1[1].Bytes, r1[2].Bytes)
	}
	if last := r1[len(r1)-1]; last.Kind != mpi.Waitall || last.ListLen != 1 {
		t.Errorf("rank 1 ends with %+v, want the Waitall of its pending isend", last)
	}
	if _, err := lower.Lower(tr, lower.Options{}); err != nil {
		t.Errorf("lowering: %v", err)
	}
}

// TestProcNull: SMPI records a send to MPI_PROC_NULL with destination
// -333; it is the no-op MPI makes of it, and the wait of such an isend
// waits for nothing. It was refused as a rank out of range.
func TestProcNull(t *testing.T) {
	tr, err := Read(write(t, `0 init
1 init
0 send -333 1 3 0
0 isend -666 1 3 0
0 isend 1 2 8
0 wait 0 -666 1
0 send 1 5 8
1 recv 0 5 8
1 recv 0 2 8
`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	W := mpi.World
	want0 := []mpi.Event{
		{Kind: mpi.Isend, Comm: W, Peer: 1, Tag: 2, Bytes: 8, Req: 0},
		{Kind: mpi.Send, Comm: W, Peer: 1, Tag: 5, Bytes: 8},
		{Kind: mpi.Waitall, Comm: W, ListOff: 0, ListLen: 1},
	}
	if got := tr.Ranks[0].Events; !reflect.DeepEqual(got, want0) {
		t.Errorf("rank 0 events\n got %+v\nwant %+v", got, want0)
	}
	if got := tr.Ranks[0].List; !reflect.DeepEqual(got, []int64{0}) {
		t.Errorf("rank 0 list %v, want [0]", got)
	}
	if _, err := lower.Lower(tr, lower.Options{}); err != nil {
		t.Errorf("lowering: %v", err)
	}
}

func TestSpeed(t *testing.T) {
	p := write(t, "0 compute 1e6\n")
	for _, c := range []struct {
		opt  Options
		want int64
	}{{Options{}, 1e6 / DefaultSpeed * 1e9}, {Options{Speed: 1e9}, 1e6}, {Options{Speed: 4e9}, 250000}} {
		tr, err := Read(p, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		if got := tr.Ranks[0].Events[0].Duration; got != c.want {
			t.Errorf("speed %g: %d ns, want %d", c.opt.Speed, got, c.want)
		}
	}
	for s, want := range map[string]float64{"1Gf": 1e9, "20000f": 2e4, "2.5e9": 2.5e9, "3Mf": 3e6, "1Gif": 1 << 30} {
		if got, err := ParseSpeed(s); err != nil || got != want {
			t.Errorf("ParseSpeed(%q) = %g, %v; want %g", s, got, err, want)
		}
	}
}

func TestErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"0 init\n0 frobnicate 3\n", ":2: frobnicate: unknown action"},
		{"0 init\n0 send 1\n", ":2: send: 1 arguments, want at least 3"},
		{"0 init\n0 send 0 0\n0 wait 0 0 0\n0 isend\n", ":4: isend: 0 arguments, want at least 2 (isend peer size [datatype] (SimGrid 3.16))"},
		{"0 init\n1 init\n0 send 7 0 1\n", ":3: send: rank 7 is not a rank (0..1)"},
		{"0 init\n1 init\n0 send 1 0 -4\n", ":3: send: negative size -4"},
		{"0 init\n1 init\n0 send 1 0 4 99\n", ":3: send: unknown datatype id \"99\""},
		{"0 init\n0 compute abc\n", ":2: compute: flops \"abc\" is not a number"},
		{"0 init\n0 compute -5\n", ":2: compute: negative flops -5"},
		{"x init\n", ":1: a line starts with its rank"},
		{"0 init\n99999999 init\n", ":2: rank 99999999 is past the most ranks a trace may have (16777216)"},
		{"0\n", ":1: the index lists \"0\", which cannot be read"},
		{"0 init\n0\n", ":2: rank 0 with no action"},
		{"0 init\n2 init\n", "rank 1 has no actions but rank 2 has"},
		{"0 init\n1 init\n0 bcast 1 5\n", ":3: bcast: root 5 outside 0..1"},
		{"0 init\n1 init\n0 alltoallv 1 1 1\n", ":3: alltoallv: 3 arguments for 2 ranks"},
		{"# smpi/host-speed: fast\n0 init\n", ":1: host speed \"fast\""},
		{"", "no actions and no files listed"},
		{"0 init\n0 send 3 0 1\n", ":2: send: rank 3 is not a rank of this one-rank trace: is this one rank's file"},
		// A wait with no request pending was dropped; SimGrid's replay
		// stops on it.
		{"0 init\n1 init\n0 wait 0 1 7\n", ":3: wait: no request of rank 0 is pending"},
		{"0 init\n1 init\n0 isend 1 7 8\n0 wait 0 1 7\n0 wait 0 1 7\n1 recv 0 7 8\n", ":5: wait: no request of rank 0 is pending"},
		{"0 init\n1 init\n0 send -5 0 1\n", ":3: send: rank -5 is not a rank (0..1), nor MPI_PROC_NULL as SMPI records it (-333 or -666)"},
		{"0 init\n1 init\n0 isend -333 0 -1\n", ":3: isend: size -1 outside 0.."},
	} {
		p := write(t, c.text)
		_, err := Read(p, Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%q: error %v, want %q naming the file", c.text, err, c.want)
		}
		var e *Error
		if err != nil && !errors.As(err, &e) {
			t.Errorf("%q: error %T, want *Error", c.text, err)
		}
	}
}

func TestIndexErrors(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "r0.txt"), []byte("0 init\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "r1.txt"), []byte("0 init\n"), 0o644)
	idx := filepath.Join(dir, "index.txt")
	os.WriteFile(idx, []byte("r0.txt\nr1.txt\n"), 0o644)
	if _, err := Read(idx, Options{}); err == nil || !strings.Contains(err.Error(), "r1.txt:1: line of rank 0 in the file the index lists for rank 1") {
		t.Errorf("error %v", err)
	}
	os.WriteFile(idx, []byte("r0.txt\nmissing.txt\n"), 0o644)
	if _, err := Read(idx, Options{}); err == nil || !strings.Contains(err.Error(), "missing.txt") {
		t.Errorf("error %v", err)
	}
}

// TestIndexPathsWithSpaces: SimGrid's replay takes each line of an index
// as one path, spaces included; so does Read, and Sniff takes such an index
// for a SimGrid trace. Relative paths resolve against the index's folder,
// whatever the working directory, and a listed file that is missing is
// refused naming the index line and the path.
func TestIndexPathsWithSpaces(t *testing.T) {
	dir := t.TempDir()
	for _, sub := range []string{"my traces", "2024 runs"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, sub, "rank 0.txt"), []byte("0 init\n0 send 1 0 8\n0 finalize\n"), 0o644)
		os.WriteFile(filepath.Join(dir, sub, "rank1.txt"), []byte("1 init\n1 recv 0 0 8\n1 finalize\n"), 0o644)
	}
	abs := func(sub, f string) string { return filepath.Join(dir, sub, f) }
	for _, c := range []struct{ name, index string }{
		{"absolute", abs("my traces", "rank 0.txt") + "\n" + abs("my traces", "rank1.txt") + "\n"},
		{"relative", "my traces/rank 0.txt\nmy traces/rank1.txt\n"},
		{"relative, a folder named by a number", "2024 runs/rank 0.txt\n2024 runs/rank1.txt\n"},
		{"commented, padded", "# ranks\n  my traces/rank 0.txt \n\n" + abs("2024 runs", "rank1.txt") + "\n"},
	} {
		idx := filepath.Join(dir, "index.txt")
		if err := os.WriteFile(idx, []byte(c.index), 0o644); err != nil {
			t.Fatal(err)
		}
		if !Sniff([]byte(c.index)) {
			t.Errorf("%s: Sniff = false, want true", c.name)
		}
		tr, err := Read(idx, Options{})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if len(tr.Ranks) != 2 || tr.Ranks[0].Events[0].Bytes != 8 || tr.Ranks[1].Events[0].Bytes != 8 {
			t.Errorf("%s: %d ranks, want 2 exchanging 8 bytes", c.name, len(tr.Ranks))
		}
		files, err := Files(idx)
		if err != nil || len(files) != 3 || !filepath.IsAbs(files[1]) || filepath.Base(files[1]) != "rank 0.txt" {
			t.Errorf("%s: Files = %q, %v", c.name, files, err)
		}
	}
	for _, c := range []struct{ index, want string }{
		{"my traces/rank 0.txt\nmy traces/rank 9.txt\n", `index.txt:2: the index lists "my traces/rank 9.txt", which cannot be read`},
		{"/no such dir/rank 0.txt\n", `index.txt:1: the index lists "/no such dir/rank 0.txt", which cannot be read`},
		{"my traces/rank 0.txt\n1 recv 0 0 8\n", `index.txt:2: an index lists one file per line, not the action "1 recv 0 0 8"`},
	} {
		idx := filepath.Join(dir, "index.txt")
		os.WriteFile(idx, []byte(c.index), 0o644)
		if _, err := Read(idx, Options{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.index, err, c.want)
		}
	}
}

func TestSniff(t *testing.T) {
	for _, c := range []struct {
		head string
		want bool
	}{
		{"0 init\n0 compute 1e6\n", true},
		{"# smpi/host-speed: 1Gf\n12 isend 3 0 8 0\n", true},
		{"jacobi.ti_files/1795596623.193901_rank-1.txt\njacobi.ti_files/1795596623.193901_rank-2.txt\n", true},
		{"cg/rank-0.txt\ncg/rank-1.txt\ncg/rank-2", true},
		{"/tmp/my traces/rank0.txt\n/tmp/my traces/rank1.txt\n", true},
		{"my traces/rank 0.txt\n", true},
		{"12 runs/rank-0.txt\n12 runs/rank-1.txt\n", true},
		{"0 init trace.txt\n", true},
		{"0 frobnicate 3\n", false},
		{"x init\n", false},
		{"a.txt\n0 init\n", false},
		{"a.txt\nb\tc.txt\n", false},
		{"num_ranks 2\nrank 0 {\n", false},
		{"0 frobnicate\n", false},
		{"ARROW1\x00\x00", false},
		{"hello world\n", false},
		{"notes\n", false},
		{"", false},
	} {
		if got := Sniff([]byte(c.head)); got != c.want {
			t.Errorf("Sniff(%q) = %v, want %v", c.head, got, c.want)
		}
	}
}

// TestTestWithNothingPending: SimGrid's replay passes over a test when no
// request is pending (it stops only on such a wait), and so does Read.
func TestTestWithNothingPending(t *testing.T) {
	if _, err := Read(write(t, "0 init\n1 init\n0 test 0 1 7\n1 compute 1\n"), Options{}); err != nil {
		t.Error(err)
	}
}
