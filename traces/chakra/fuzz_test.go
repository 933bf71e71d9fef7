package chakra

import (
	"bytes"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
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
		legacySeed(false, 2, 3, 6), // Chakra 0.0.3
		legacySeed(false, 1, 2, 4), // 0.0.2
		legacySeed(true, 3, 4, 8),  // August 2023
	}
}

// legacySeed is a trace of a Chakra revision before 0.0.4 with the given
// AttributeTypes of integers, strings and integer lists.
func legacySeed(meta bool, tInt, tStr, tInts uint64) []byte {
	var b []byte
	if meta {
		m := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), encLegacyAttr(lstr("pid", tStr, "1")))
		b = protowire.AppendBytes(b, m)
	}
	for _, n := range [][]byte{
		encLegacyNode(1, "x", 0, nil, lint("rf_id", tInt, 3)),
		encLegacyNode(2, "mm", 4, []uint64{1}, lint("runtime", tInt, 7)),
		encLegacyNode(3, "c10d::allreduce_", 7, []uint64{2}, lint("comm_type", tInt, 2), lint("comm_size", tInt, 64),
			lints("involved_dim", tInts, 1)),
	} {
		b = protowire.AppendBytes(b, n)
	}
	return b
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
