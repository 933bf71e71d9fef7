package chakra

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/traces/graph"
)

// TestDescriber names a lowered message by the node it came from and its
// file: a collective's steps (which carry no label of their own) by the
// collective node, its kind and process group; a point-to-point message by
// its node. Each NPU's file is its own.
func TestDescriber(t *testing.T) {
	dir := t.TempDir()
	pg := tnode{id: 100, name: "process_group:init", typ: MetadataNode,
		inputs: `[[{"pg_name": "1", "ranks": [0, 1]}, {"pg_name": "2", "ranks": [0, 1]}]]`}
	files := [][]tnode{
		{pg, coll(1, AllReduce, 1<<20, "1", 100), coll(2, AllReduce, 1<<20, "2", 1), p2pNode(3, CommSendNode, 1, 8, 0, 2)},
		{pg, coll(1, AllReduce, 1<<20, "2", 100), coll(2, AllReduce, 1<<20, "1", 1), p2pNode(3, CommRecvNode, 0, 8, 0, 2)},
	}
	for r, nodes := range files {
		if err := os.WriteFile(filepath.Join(dir, "s."+string(rune('0'+r))+".et"), encTrace(nodes...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := Read(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := tr.Graph
	describe := Describer(dir, g)
	if describe == nil {
		t.Fatal("no describer")
	}
	var coll, p2p []string
	for op := range int32(g.NumOps()) {
		switch s := describe(op); {
		case g.Kind[op] == graph.Calc:
			if s != g.Describe(op) {
				t.Errorf("calc %d: %q, want %q", op, s, g.Describe(op))
			}
		case g.Size[op] == 8:
			p2p = append(p2p, s)
		default:
			coll = append(coll, s)
		}
	}
	want := []string{
		`, a step of node 1 (id 1, COMM_COLL "nccl": ALL_REDUCE on process group "1") of ` + filepath.Join(dir, "s.0.et"),
		`, a step of node 2 (id 2, COMM_COLL "nccl": ALL_REDUCE on process group "2") of ` + filepath.Join(dir, "s.0.et"),
		`, a step of node 1 (id 1, COMM_COLL "nccl": ALL_REDUCE on process group "2") of ` + filepath.Join(dir, "s.1.et"),
	}
	for _, s := range coll {
		if head, _, _ := strings.Cut(s, ":"); strings.Contains(head, " l") {
			t.Errorf("collective step %q names a label no file holds", s)
		}
	}
	for _, w := range want {
		found := false
		for _, s := range coll {
			found = found || strings.Contains(s, w)
		}
		if !found {
			t.Errorf("no collective step described as %q in %q", w, coll)
		}
	}
	if len(p2p) != 2 || !strings.Contains(p2p[0], `node3: send 8b to 1 tag 0, the message of node 3 (id 3, COMM_SEND "p2p") of `+filepath.Join(dir, "s.0.et")) ||
		!strings.Contains(p2p[1], `node3: recv 8b from 0 tag 0, the message of node 3 (id 3, COMM_RECV "p2p") of `+filepath.Join(dir, "s.1.et")) {
		t.Errorf("point-to-point messages described as %q", p2p)
	}
	if Describer(filepath.Join(dir, "missing"), g) != nil {
		t.Error("a describer for a path that is gone")
	}
}
