package taskgraph

import (
	"bytes"
	"strings"
	"testing"
)

func TestTextRoundTrip(t *testing.T) {
	for _, spec := range []string{"cholesky:5", "lu:4", "cg:3x2"} {
		d, _ := Generate(spec)
		var b bytes.Buffer
		if err := Format(&b, d); err != nil {
			t.Fatal(err)
		}
		e, err := Parse(bytes.NewReader(b.Bytes()), "x.dag")
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		var c bytes.Buffer
		Format(&c, e)
		if c.String() != b.String() || e.Name != spec {
			t.Errorf("%s: round trip differs (name %q)", spec, e.Name)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"A\nB 0 x\n", "g.dag:2: dependency \"x\" is not a task id"},
		{"A\nB 1\n", "g.dag:2: task 1 depends on itself"},
		{"A 1\nB 0\n", "g.dag:1: task 0 (A) is on a dependency cycle"},
		// Task 0 waits on the cycle 1 ⇄ 2 without being on it.
		{"A 1\n\nB 2\nC 1\n", "g.dag:3: task 1 (B) is on a dependency cycle"},
		{"A\n\nB 0 5\n", "g.dag:3: task 1 depends on task 5, but the file has 2 tasks"},
		{"GEMM(1,2\n", "g.dag:1: task \"GEMM(1,2\": coordinates must end with )"},
		{"(1)\n", "has no kernel name"},
		{"G(1,2,3,4)\n", "more than 3 coordinates"},
		{"# only comments\n", "g.dag: task graph has no tasks (the file has only"},
		{"", "g.dag: task graph has no tasks"},
	} {
		_, err := Parse(strings.NewReader(c.in), "g.dag")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	d, _ := Cholesky(3)
	var b bytes.Buffer
	Format(&b, d)
	f.Add(b.String())
	f.Add("A\nB 0\nC(1) 0 1\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, in string) {
		d, err := Parse(strings.NewReader(in), "fuzz.dag")
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := Format(&out, d); err != nil {
			t.Fatal(err)
		}
		e, err := Parse(bytes.NewReader(out.Bytes()), "again.dag")
		if err != nil {
			t.Fatalf("formatted graph does not parse: %v\n%s", err, out.String())
		}
		if e.NumTasks() != d.NumTasks() || e.NumEdges() != d.NumEdges() {
			t.Fatalf("round trip changed the graph")
		}
		if _, err := d.Topological(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestParseByteOrderMark: an editor's byte-order mark before the first
// task is no part of its kernel's name.
func TestParseByteOrderMark(t *testing.T) {
	d, err := Parse(strings.NewReader("\ufeffPOTRF(0)\r\nTRSM(1,0) 0\r\n"), "g.dag")
	if err != nil {
		t.Fatal(err)
	}
	if got := d.KernelName(0); got != "POTRF" {
		t.Errorf("first kernel %q, want POTRF", got)
	}
}
