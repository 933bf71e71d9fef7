package chakra

import (
	"bytes"
	"strings"
	"testing"
)

// seeds are small synthetic traces covering every node kind.
func seeds() [][]byte {
	pgs := tnode{id: 50, name: "process_group:init", typ: MetadataNode, inputs: `[{"pg_name": "0", "ranks": [0]}]`}
	return [][]byte{
		encTrace(comp(1, 5, true), comp(2, 7, false, 1)),
		encTrace(pgs, comp(1, 5, false, 50), coll(2, AllReduce, 1<<20, "0", 1), coll(3, AllGather, 64, "", 2),
			coll(4, Barrier, 0, "", 3)),
		encTrace(tnode{id: 1, typ: MemLoadNode, dur: 3}, tnode{id: 2, typ: MemStoreNode, dur: 4, data: []uint64{1}, ctrl: []uint64{9}}),
		encTrace(p2pNode(1, CommSendNode, 0, 100, 1), p2pNode(2, CommRecvNode, 0, 100, 1)),
		encTrace(comp(1, 1, false, 2), comp(2, 1, false, 1)),
	}
}

// FuzzChakra decodes and lowers arbitrary bytes as a one-NPU trace (and
// replicated to two): no panic, and errors name the file.
func FuzzChakra(f *testing.F) {
	for _, s := range seeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Decode(bytes.NewReader(data), "fuzz.0.et")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.0.et: ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, rep := range []int{0, 2} {
			tr, err := Build([]*File{file}, Options{Replicate: rep})
			if err != nil {
				if !strings.HasPrefix(err.Error(), "fuzz.0.et: ") {
					t.Fatalf("error does not name the file: %v", err)
				}
				continue
			}
			if err := tr.Graph.Validate(); err != nil {
				t.Fatal(err)
			}
		}
		_ = Sniff(data)
	})
}
