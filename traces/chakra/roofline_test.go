package chakra

import (
	"strings"
	"testing"
)

// work is a GPU COMP node recorded without a duration, with num_ops and
// tensor_size.
func work(id uint64, ops, bytes int64, deps ...uint64) tnode {
	return tnode{id: id, name: "k", typ: CompNode, data: deps,
		attrs: []tattr{boolAttr("is_cpu_op", false), intAttr("num_ops", ops), intAttr("tensor_size", bytes)}}
}

// TestRoofline times nodes without a duration from num_ops and
// tensor_size on a device of 10^12 operations/s and 10^11 bytes/s, one
// after another on the GPU compute stream.
func TestRoofline(t *testing.T) {
	rl := &Roofline{PeakOps: 1e12, MemBytes: 1e11}
	load := tnode{id: 4, name: "ld", typ: MemLoadNode, attrs: []tattr{intAttr("tensor_size", 100_000)}}
	recorded := work(5, 1e9, 0)
	recorded.dur = 5 // a recorded duration wins
	for _, tc := range []struct {
		name  string
		nodes []tnode
		rl    *Roofline
		want  int64
	}{
		{"compute-bound", []tnode{work(1, 2e6, 1000)}, rl, 2000},  // max(2 µs, 10 ns)
		{"memory-bound", []tnode{work(1, 1000, 1e6)}, rl, 10_000}, // max(1 ns, 10 µs)
		{"memory left out", []tnode{work(1, 1000, 1e6)}, &Roofline{PeakOps: 1e12}, 1},
		{"chain", []tnode{work(1, 2e6, 1000), work(2, 1000, 1e6, 1), load}, rl, 2000 + 10_000 + 1000},
		{"recorded", []tnode{recorded}, rl, 5000},
		{"no model", []tnode{work(1, 2e6, 1000), load}, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := replay(t, writeNPUs(t, encTrace(tc.nodes...)), Options{Roofline: tc.rl}, 0); got != tc.want {
				t.Errorf("makespan %d ns, want %d", got, tc.want)
			}
		})
	}
}

func TestRooflineErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		nodes []tnode
		rl    Roofline
		want  string
	}{
		{"no peak", []tnode{work(1, 1, 1)}, Roofline{MemBytes: 1}, "peak rate 0"},
		{"negative bandwidth", []tnode{work(1, 1, 1)}, Roofline{PeakOps: 1, MemBytes: -1}, "memory bandwidth -1"},
		{"negative ops", []tnode{work(1, -4, 1)}, Roofline{PeakOps: 1}, "node 0 (id 1, COMP \"k\"): negative num_ops -4"},
		{"too long", []tnode{work(1, 1e15, 0)}, Roofline{PeakOps: 1e-6}, "exceeds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(writeNPUs(t, encTrace(tc.nodes...)), Options{Roofline: &tc.rl})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// Messages and collectives without comm_size take tensor_size.
func TestTensorSizeForComm(t *testing.T) {
	send := p2pNode(1, CommSendNode, 1, 0, 3)
	recv := p2pNode(1, CommRecvNode, 0, 0, 3)
	for _, n := range []*tnode{&send, &recv} {
		n.attrs = []tattr{n.attrs[0], intAttr("tensor_size", 1001), n.attrs[2]}
	}
	// G = 1 ns per byte: (1001 − 1) ns on the wire.
	if got := replay(t, writeNPUs(t, encTrace(send), encTrace(recv)), Options{}, 1); got != 1000 {
		t.Errorf("p2p makespan %d, want 1000", got)
	}
	ar := coll(1, AllReduce, 0, "")
	ar.attrs = []tattr{ar.attrs[0], ar.attrs[1], intAttr("tensor_size", 2002)}
	ref := coll(1, AllReduce, 2002, "")
	a := replay(t, writeNPUs(t, encTrace(ar), encTrace(ar)), Options{}, 1)
	b := replay(t, writeNPUs(t, encTrace(ref), encTrace(ref)), Options{}, 1)
	if a != b || a == 0 {
		t.Errorf("allreduce of tensor_size 2002: %d ns, of comm_size 2002: %d ns", a, b)
	}
}

func TestParseRoofline(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want Roofline
		err  string
	}{
		{"ops=989e12,mem=3.35e12", Roofline{PeakOps: 989e12, MemBytes: 3.35e12}, ""},
		{"ops=1e15", Roofline{PeakOps: 1e15}, ""},
		{"mem=1e12", Roofline{}, "peak rate 0"},
		{"ops=1e15,ops=2", Roofline{}, "each once"},
		{"ops=x", Roofline{}, `"x" is not a number`},
		{"flops=1", Roofline{}, `unknown key "flops"`},
		{"ops=NaN", Roofline{}, "peak rate NaN"},
	} {
		m, err := ParseRoofline(tc.spec)
		switch {
		case tc.err == "" && (err != nil || *m != tc.want):
			t.Errorf("%q: %+v, %v; want %+v", tc.spec, m, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%q: err %v, want %q", tc.spec, err, tc.err)
		}
	}
}
