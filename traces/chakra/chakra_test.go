package chakra

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// writeNPUs writes one file per NPU, prefix.<npu>.et, and returns the
// folder.
func writeNPUs(t *testing.T, files ...[]byte) string {
	t.Helper()
	dir := t.TempDir()
	for i, b := range files {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("et.%d.et", i)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// replay reads the trace at path and replays it on a network that charges
// G ns per byte and nothing else.
func replay(t *testing.T, path string, opt Options, G int64) int64 {
	t.Helper()
	tr, err := Read(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(tr.Graph, network.LogGOPS{GapPerByte: network.NsPerByte(G), EagerLimit: 1 << 40}, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return int64(res.Makespan)
}

func TestDecodeRoundTrip(t *testing.T) {
	in := tnode{id: 7, name: "aten::mm", typ: CompNode, data: []uint64{1, 2}, ctrl: []uint64{3}, start: 11, dur: 42,
		inputs: "[1]", attrs: []tattr{boolAttr("is_cpu_op", true), intAttr("tid", -2), strAttr("op_schema", "s")}}
	f, err := Decode(bytes.NewReader(encTrace(in)), "x.et")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Nodes) != 1 || len(f.Meta.Attrs) != 2 || f.Meta.Attrs[0].Str != "1.0.2" {
		t.Fatalf("decoded %+v", f)
	}
	n := f.Nodes[0]
	if n.ID != 7 || n.Name != "aten::mm" || n.Type != CompNode || fmt.Sprint(n.DataDeps) != "[1 2]" ||
		fmt.Sprint(n.CtrlDeps) != "[3]" || n.StartMicros != 11 || n.DurationMicros != 42 || n.Inputs != "[1]" {
		t.Errorf("decoded %+v", n)
	}
	if a, _ := n.Attr("is_cpu_op"); a.Int != 1 {
		t.Errorf("is_cpu_op %+v", a)
	}
	if a, _ := n.Attr("tid"); a.Int != -2 {
		t.Errorf("tid %+v", a)
	}
	if a, _ := n.Attr("op_schema"); a.Str != "s" {
		t.Errorf("op_schema %+v", a)
	}
}

// Compute on the host CPU and on the GPU runs concurrently, each stream
// one operation at a time; a dependency serializes across streams.
func TestStreams(t *testing.T) {
	for _, tc := range []struct {
		nodes []tnode
		want  int64
	}{
		{[]tnode{comp(1, 10, true), comp(2, 7, false)}, 10_000},                       // CPU ∥ GPU
		{[]tnode{comp(1, 10, false), comp(2, 7, false)}, 17_000},                      // one GPU stream
		{[]tnode{comp(1, 10, true), comp(2, 7, true)}, 17_000},                        // one host stream
		{[]tnode{comp(1, 10, true), comp(2, 7, false, 1)}, 17_000},                    // data dependency
		{[]tnode{comp(2, 7, false, 1), comp(1, 10, true)}, 17_000},                    // forward reference
		{[]tnode{comp(1, 3, true), comp(2, 4, false, 1), comp(3, 5, true, 1)}, 8_000}, // fork
	} {
		got := replay(t, writeNPUs(t, encTrace(tc.nodes...)), Options{}, 1)
		if got != tc.want {
			t.Errorf("%v: makespan %d ns, want %d", tc.nodes, got, tc.want)
		}
	}
}

// A collective between two computations on 2 and 4 NPUs costs NCCL's ring
// closed form under a bandwidth-only network; a point-to-point pair costs
// its message.
func TestCollectivesAndMessages(t *testing.T) {
	const G = 2
	for _, p := range []int{2, 4} {
		const S = 1 << 16
		var files [][]byte
		for r := 0; r < p; r++ {
			files = append(files, encTrace(comp(1, 5, false), coll(2, AllReduce, S, "", 1), comp(3, 5, false, 2)))
		}
		got := replay(t, writeNPUs(t, files...), Options{}, G)
		want := int64(10_000) + 2*int64(p-1)*(S/int64(p)-1)*G
		if got != want {
			t.Errorf("allreduce p=%d: makespan %d, want %d", p, got, want)
		}
		// Four channels, each with its own tags: p·4 messages a step.
		chans := Options{Lower: lower.Options{Channels: 4}}
		if got, want := replay(t, writeNPUs(t, files...), chans, G), int64(10_000)+2*int64(p-1)*4*(S/int64(4*p)-1)*G; got != want {
			t.Errorf("allreduce p=%d on 4 channels: makespan %d, want %d", p, got, want)
		}
		// NCCL's trees complete.
		if got := replay(t, writeNPUs(t, files...), Options{Algorithm: map[mpi.Kind]string{mpi.Allreduce: "nccl-tree"}, Lower: lower.Options{ChunkBytes: 4096, Channels: 2}}, G); got <= 10_000 {
			t.Errorf("tree allreduce p=%d: makespan %d", p, got)
		}
		// The same through the folder's first file, and with --coll ring.
		if got := replay(t, filepath.Join(writeNPUs(t, files...), "et.0.et"), Options{Algorithm: map[mpi.Kind]string{mpi.Allreduce: "ring"}}, G); got != want {
			t.Errorf("allreduce p=%d via .0.et with MPI ring: makespan %d, want %d", p, got, want)
		}
	}
	dir := writeNPUs(t,
		encTrace(comp(1, 5, false), p2pNode(2, CommSendNode, 1, 1001, 3, 1)),
		encTrace(p2pNode(1, CommRecvNode, 0, 1001, 3), comp(2, 5, false, 1)))
	if got, want := replay(t, dir, Options{}, 1), int64(5000+1000+5000); got != want {
		t.Errorf("send/recv: makespan %d, want %d", got, want)
	}
}

// Process groups from a process_group:init node: two disjoint pairs
// all-reduce at once.
func TestProcessGroups(t *testing.T) {
	pgs := tnode{id: 100, name: "## process_group:init ##", typ: MetadataNode,
		inputs: `[[{"pg_name": "0", "pg_desc": "default_pg", "ranks": []}, {"pg_name": "a", "ranks": [0, 1]}, {"pg_name": "b", "ranks": [2, 3]}]]`}
	var files [][]byte
	for r := 0; r < 4; r++ {
		pg := "a"
		if r >= 2 {
			pg = "b"
		}
		files = append(files, encTrace(pgs, coll(1, AllReduce, 4096, pg, 100), coll(2, Barrier, 0, "0", 1)))
	}
	tr, err := Read(writeNPUs(t, files...), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(tr.Groups) != "map[:[0 1 2 3] 0:[0 1 2 3] a:[0 1] b:[2 3]]" {
		t.Errorf("groups %v", tr.Groups)
	}
	for r := 0; r < 4; r++ {
		for id := tr.Graph.RankStart[r]; id < tr.Graph.RankStart[r+1]; id++ {
			if p := tr.Graph.Peer[id]; p >= 0 && (r < 2) != (p < 2) && tr.Graph.Size[id] > 0 {
				t.Errorf("rank %d exchanges %d bytes with %d outside its group", r, tr.Graph.Size[id], p)
			}
		}
	}
	res, err := sim.Run(tr.Graph, network.DefaultLogGOPS(), sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Makespan == 0 {
		t.Error("zero makespan")
	}
}

// Replicating one NPU's step to 4 data-parallel NPUs makes its
// collectives span all 4.
func TestReplicate(t *testing.T) {
	const S, G = 1 << 12, 1
	dir := writeNPUs(t, encTrace(comp(1, 5, false), coll(2, AllReduce, S, "", 1)))
	if got := replay(t, dir, Options{}, G); got != 5000 {
		t.Errorf("one NPU: makespan %d, want 5000 (a collective of one costs nothing)", got)
	}
	got := replay(t, dir, Options{Replicate: 4}, G)
	if want := int64(5000) + 2*3*(S/4-1)*G; got != want {
		t.Errorf("replicated to 4: makespan %d, want %d", got, want)
	}
	if _, err := Read(writeNPUs(t, encTrace(), encTrace()), Options{Replicate: 3}); err == nil || !strings.Contains(err.Error(), "multiple of 2") {
		t.Errorf("replicating 2 files to 3: %v", err)
	}
}

// The recorded span runs from the first start to the last end.
func TestRecordedSpan(t *testing.T) {
	a, b := comp(1, 5, false), comp(2, 7, true)
	a.start, b.start = 100, 103
	tr, err := Read(writeNPUs(t, encTrace(a, b)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Graph.Recorded == nil || fmt.Sprint(tr.Graph.Recorded.SpanNs) != "[10000]" {
		t.Errorf("recorded %+v, want a span of 10000 ns", tr.Graph.Recorded)
	}
}

// withAttr is n with attribute a in place of the one of its name.
func withAttr(n tnode, a tattr) tnode {
	var as []tattr
	for _, b := range n.attrs {
		if b.name != a.name {
			as = append(as, b)
		}
	}
	n.attrs = append(as, a)
	return n
}

// Bad traces get errors that name the file and the node.
func TestErrors(t *testing.T) {
	cyc1, cyc2 := comp(1, 1, false, 2), comp(2, 1, false, 1)
	for _, tc := range []struct {
		files [][]byte
		want  string
	}{
		{[][]byte{encTrace(comp(1, 1, false, 9))}, "et.0.et: node 0 (id 1, COMP \"k\"): depends on node id 9, which the file lacks"},
		{[][]byte{encTrace(cyc1, cyc2)}, "lies on a dependency cycle"},
		{[][]byte{encTrace(comp(1, 1, false), comp(1, 1, false))}, "node 1 (id 1, COMP \"k\"): id used by node 0 too"},
		{[][]byte{encTrace(coll(1, 12, 8, ""))}, "unknown comm_type 12"},
		// A disagreement names both members' nodes, the call counted
		// from 1 and the default group in words.
		{[][]byte{encTrace(coll(1, AllReduce, 8, "")), encTrace(coll(1, AllGather, 8, ""))},
			"et.1.et: node 0 (id 1, COMM_COLL \"nccl\"): collective #1 on the group of every NPU (no pg_name) is ALL_GATHER of 8 bytes here but ALL_REDUCE of 8 bytes on rank 0 ("},
		{[][]byte{encTrace(coll(1, AllReduce, 8, "")), encTrace(coll(1, AllReduce, 800000, ""))},
			"et.0.et: node 0 (id 1, COMM_COLL \"nccl\")): every member makes the same call"},
		// A gather's whole of 2^63−1 bytes was cut into blocks of a
		// negative size ((S+p−1)/p wrapped around).
		{[][]byte{encTrace(coll(1, Gather, math.MaxInt64, "")), encTrace(coll(1, Gather, math.MaxInt64, ""))}, "the 2 blocks together are more than 2^63−1 bytes"},
		{[][]byte{encTrace(coll(1, AllReduce, 8, "")), encTrace()},
			"et.0.et: node 0 (id 1, COMM_COLL \"nccl\"): rank 1 makes 0 collectives on the group of every NPU (no pg_name) but rank 0 makes 1: rank 1 has no collective #1 to match this one"},
		{[][]byte{encTrace(comp(1, 1, false)), encTrace(coll(1, AllReduce, 8, ""), coll(2, AllReduce, 8, "", 1))},
			"et.1.et: node 0 (id 1, COMM_COLL \"nccl\"): rank 1 makes 2 collectives on the group of every NPU (no pg_name) but rank 0 makes 0: rank 0 has no collective #1"},
		{[][]byte{encTrace(coll(1, AllReduce, 8, "x"))}, "process group \"x\" is not declared"},
		{[][]byte{encTrace(p2pNode(1, CommSendNode, 5, 8, 0))}, "comm_dst 5 is not an NPU"},
		{[][]byte{encTrace(tnode{id: 1, typ: 9})}, "unknown node type 9"},
		{[][]byte{encTrace(comp(1, 1<<62, false))}, "duration"},
		{[][]byte{encTrace(comp(1, 1, false))[:20]}, "unexpected EOF"},
		{[][]byte{encTrace(withAttr(coll(1, AllReduce, 8, ""), strAttr("comm_size", "1048576")))},
			"node 0: id 1: attribute comm_size is the string \"1048576\", want an integer"},
		{[][]byte{encTrace(withAttr(coll(1, AllReduce, 8, ""), strAttr("comm_type", "ALL_GATHER")))}, "attribute comm_type is the string"},
		{[][]byte{encTrace(withAttr(p2pNode(1, CommSendNode, 0, 8, 0), dblAttr("comm_dst", math.NaN())))}, "attribute comm_dst is NaN, want an integer"},
		{[][]byte{encTrace(withAttr(coll(1, AllReduce, 8, ""), dblAttr("comm_size", math.Inf(1))))}, "attribute comm_size is +Inf"},
		// A bool or a fractional number where an integer is read was cut
		// to 1 byte, 1 byte and ALL_REDUCE (0).
		{[][]byte{encTrace(withAttr(coll(1, AllReduce, 8, ""), boolAttr("comm_size", true)))}, "attribute comm_size is a bool, want an integer"},
		{[][]byte{encTrace(withAttr(coll(1, AllReduce, 8, ""), dblAttr("comm_size", 1.5)))}, "attribute comm_size is 1.5, want an integer"},
		{[][]byte{encTrace(withAttr(coll(1, AllReduce, 8, ""), dblAttr("comm_type", 0.5)))}, "attribute comm_type is 0.5, want an integer"},
	} {
		_, err := Read(writeNPUs(t, tc.files...), Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "et.") {
			t.Errorf("error %v, want one naming the file and containing %q", err, tc.want)
		}
	}
}

func TestSniff(t *testing.T) {
	good := encTrace(comp(1, 1, false))
	if !Sniff(good) || !Sniff(good[:len(good)-3]) {
		t.Error("a trace is not sniffed")
	}
	for _, s := range []string{"", "num_ranks 2\n", "\x1f\x8b\x08\x00", "ARROW1\x00\x00", "\x03BOTF2\x00", "\x05hello",
		"\xff\xff\xff\xff\x10\x00\x00\x00", "# collprof", "\x02\x08\x01", "\x04\x12\x02\x0a\x00"} {
		if Sniff([]byte(s)) {
			t.Errorf("Sniff(%q) = true", s)
		}
	}
}

// Sniff claims no file of the other formats' test data and examples, nor
// of the shared traces where they are present.
func TestSniffLeavesOtherFormats(t *testing.T) {
	checked := 0
	for _, root := range []string{"..", filepath.Join("..", "..", "examples"), filepath.Join("..", "..", "..", "shared", "traces")} {
		filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() && (d.Name() == "chakra" || strings.HasPrefix(d.Name(), ".")) {
				if d != nil && d.IsDir() && path != root {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() || checked > 20000 {
				return nil
			}
			fh, err := os.Open(path)
			if err != nil {
				return nil
			}
			defer fh.Close()
			head := make([]byte, 4096)
			n, _ := fh.Read(head)
			checked++
			if n > 0 && Sniff(head[:n]) {
				t.Errorf("%s is sniffed as a Chakra trace", path)
			}
			return nil
		})
	}
	t.Logf("%d files checked", checked)
}
