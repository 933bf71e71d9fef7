package importer_test

import (
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/capsim/capsim/traces/importer"
	"github.com/capsim/capsim/traces/mpi"
)

// chakraFile encodes a minimal Chakra trace: metadata, a GPU computation
// and an all-reduce of 4 KiB that depends on it.
func chakraFile() []byte {
	attr := func(name string, v uint64) []byte {
		b := protowire.AppendTag(nil, 1, protowire.BytesType)
		b = protowire.AppendString(b, name)
		b = protowire.AppendTag(b, 9, protowire.VarintType)
		return protowire.AppendVarint(b, v)
	}
	node := func(id, typ, dur uint64, deps []uint64, attrs ...[]byte) []byte {
		b := protowire.AppendTag(nil, 1, protowire.VarintType)
		b = protowire.AppendVarint(b, id)
		b = protowire.AppendTag(b, 3, protowire.VarintType)
		b = protowire.AppendVarint(b, typ)
		for _, d := range deps {
			b = protowire.AppendTag(b, 5, protowire.VarintType)
			b = protowire.AppendVarint(b, d)
		}
		b = protowire.AppendTag(b, 7, protowire.VarintType)
		b = protowire.AppendVarint(b, dur)
		for _, a := range attrs {
			b = protowire.AppendTag(b, 10, protowire.BytesType)
			b = protowire.AppendBytes(b, a)
		}
		return b
	}
	meta := protowire.AppendTag(nil, 1, protowire.BytesType)
	meta = protowire.AppendString(meta, "0.0.4")
	out := protowire.AppendBytes(nil, meta)
	out = protowire.AppendBytes(out, node(1, 4, 10, nil))
	return protowire.AppendBytes(out, node(2, 7, 0, []uint64{1}, attr("comm_type", 0), attr("comm_size", 4096)))
}

// Chakra traces are told apart by content, as the .0.et file or the
// folder, and take collective algorithms at Lower.
func TestDetectChakra(t *testing.T) {
	dir := t.TempDir()
	first := write(t, dir, "step.0.et", chakraFile())
	write(t, dir, "step.1.et", chakraFile())
	for _, path := range []string{first, dir} {
		f, err := importer.Detect(path)
		if err != nil || f.Name != "chakra" {
			t.Fatalf("%s: detected %v, %v", path, f.Name, err)
		}
		tr, err := importer.Read(path, importer.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if tr.Graph.NumRanks() != 2 || tr.Chakra == nil {
			t.Fatalf("%s: %d ranks", path, tr.Graph.NumRanks())
		}
		ring, err := tr.Lower(map[mpi.Kind]string{mpi.Allreduce: "recdoub"})
		if err != nil {
			t.Fatal(err)
		}
		if ring.NumOps() == tr.Graph.NumOps() {
			t.Errorf("%s: recursive doubling lowers to as many operations (%d) as NCCL's ring", path, ring.NumOps())
		}
	}
	// A lone file named otherwise is one NPU.
	one := write(t, t.TempDir(), "trace.bin", chakraFile())
	tr, err := importer.Read(one, importer.Options{})
	if err != nil || tr.Format != "chakra" || tr.Graph.NumRanks() != 1 {
		t.Fatalf("%s: %v", filepath.Base(one), err)
	}
}
