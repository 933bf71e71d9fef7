package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// chakraNPU encodes one NPU's Chakra file: metadata, a process_group:init
// node declaring groups "a" and "b" of both NPUs, then an all-reduce of
// 1 MiB on group first and one on group second, each depending on the
// node before.
func chakraNPU(first, second string) []byte {
	attr := func(name string, v uint64, s string) []byte {
		b := protowire.AppendTag(nil, 1, protowire.BytesType)
		b = protowire.AppendString(b, name)
		if s != "" {
			b = protowire.AppendTag(b, 29, protowire.BytesType)
			return protowire.AppendString(b, s)
		}
		b = protowire.AppendTag(b, 9, protowire.VarintType)
		return protowire.AppendVarint(b, v)
	}
	node := func(id, typ uint64, name, inputs string, deps []uint64, attrs ...[]byte) []byte {
		b := protowire.AppendTag(nil, 1, protowire.VarintType)
		b = protowire.AppendVarint(b, id)
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		b = protowire.AppendString(b, name)
		b = protowire.AppendTag(b, 3, protowire.VarintType)
		b = protowire.AppendVarint(b, typ)
		for _, d := range deps {
			b = protowire.AppendTag(b, 5, protowire.VarintType)
			b = protowire.AppendVarint(b, d)
		}
		if inputs != "" {
			in := protowire.AppendTag(nil, 1, protowire.BytesType)
			in = protowire.AppendString(in, inputs)
			b = protowire.AppendTag(b, 8, protowire.BytesType)
			b = protowire.AppendBytes(b, in)
		}
		for _, a := range attrs {
			b = protowire.AppendTag(b, 10, protowire.BytesType)
			b = protowire.AppendBytes(b, a)
		}
		return b
	}
	meta := protowire.AppendTag(nil, 2, protowire.BytesType)
	meta = protowire.AppendBytes(meta, attr("schema", 0, "1.0.2"))
	out := protowire.AppendBytes(nil, meta)
	out = protowire.AppendBytes(out, node(1, 1, "process_group:init", `[[{"pg_name": "a", "ranks": [0, 1]}, {"pg_name": "b", "ranks": [0, 1]}]]`, nil))
	out = protowire.AppendBytes(out, node(2, 7, "nccl:all_reduce", "", []uint64{1}, attr("comm_type", 0, ""), attr("comm_size", 1<<20, ""), attr("pg_name", 0, first)))
	return protowire.AppendBytes(out, node(3, 7, "nccl:all_reduce", "", []uint64{2}, attr("comm_type", 0, ""), attr("comm_size", 1<<20, ""), attr("pg_name", 0, second)))
}

// TestChakraDeadlockNamesNodes: NPUs that call collectives on two process
// groups in opposite orders deadlock, and every command names the
// collective node, its process group and its NPU file, not only the
// lowered step ("rank 0 l4: recv 524288b from 1 tag 1073741824").
func TestChakraDeadlockNamesNodes(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "step.0.et"), chakraNPU("a", "b"), 0o644)
	os.WriteFile(filepath.Join(dir, "step.1.et"), chakraNPU("b", "a"), 0o644)
	for _, args := range [][]string{
		{"replay", dir},
		{"replay", filepath.Join(dir, "step.0.et")},
		{"bound", dir, "--cap", "3000"},
		{"policy", "steering", dir, "--cap", "3000"},
	} {
		code, out, stderr := capsim(t, args...)
		want := []string{"cannot finish",
			`a step of node 1 (id 2, COMM_COLL "nccl:all_reduce": ALL_REDUCE on process group "a") of ` + filepath.Join(dir, "step.0.et"),
			`a step of node 1 (id 2, COMM_COLL "nccl:all_reduce": ALL_REDUCE on process group "b") of ` + filepath.Join(dir, "step.1.et")}
		for _, w := range want {
			if code != 1 || !strings.Contains(stderr, w) {
				t.Errorf("%s: exit %d, want 1 and %q in:\n%s%s", args, code, w, stderr, out)
				break
			}
		}
	}
}
