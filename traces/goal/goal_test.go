package goal

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/graph"
)

const sample = `// a small schedule
num_ranks 3

rank 0 {
l1: calc 100 cpu 1
l2: send 8b to 1 tag 5 cpu 0 nic 1
l2 requires l1
l3: send 70000b to 2 tag 0
l3 irequires l2 /* start together */
}
rank 2 {
  recv 70000 b from -1 tag -1
}
rank 1 {
l2 requires l1
l1: recv 8b from 0 tag 5
l2: calc 5
}
`

func TestParseSample(t *testing.T) {
	g, err := Parse(strings.NewReader(sample), "s.goal")
	if err != nil {
		t.Fatal(err)
	}
	if g.NumRanks() != 3 || g.NumOps() != 6 || g.NumDeps() != 3 {
		t.Fatalf("ranks %d ops %d deps %d", g.NumRanks(), g.NumOps(), g.NumDeps())
	}
	type op struct {
		kind      graph.OpKind
		size      int64
		peer, tag int32
		cpu, nic  uint8
	}
	want := []op{
		{graph.Calc, 100, -1, 0, 1, 0},
		{graph.Send, 8, 1, 5, 0, 1},
		{graph.Send, 70000, 2, 0, 0, 0},
		{graph.Recv, 8, 0, 5, 0, 0},
		{graph.Calc, 5, -1, 0, 0, 0},
		{graph.Recv, 70000, graph.AnySource, graph.AnyTag, 0, 0},
	}
	for i, w := range want {
		got := op{g.Kind[i], g.Size[i], g.Peer[i], g.Tag[i], g.CPU[i], g.NIC[i]}
		if got != w {
			t.Errorf("op %d = %+v, want %+v", i, got, w)
		}
	}
	deps, kinds := g.Deps(2)
	if len(deps) != 1 || deps[0] != 1 || kinds[0] != graph.Irequires {
		t.Errorf("deps of l3 = %v %v", deps, kinds)
	}
	deps, kinds = g.Deps(4) // rank 1 l2 requires l1, declared before both
	if len(deps) != 1 || deps[0] != 3 || kinds[0] != graph.Requires {
		t.Errorf("forward-declared dependency = %v %v", deps, kinds)
	}
	if g.Label(5) != "l1" {
		t.Errorf("unlabelled op got label %q", g.Label(5))
	}
}

func TestRoundTrip(t *testing.T) {
	g, err := Parse(strings.NewReader(sample), "s.goal")
	if err != nil {
		t.Fatal(err)
	}
	var b1, b2 bytes.Buffer
	if err := Write(&b1, g); err != nil {
		t.Fatal(err)
	}
	g2, err := Parse(bytes.NewReader(b1.Bytes()), "w.goal")
	if err != nil {
		t.Fatalf("reparse: %v\n%s", err, b1.String())
	}
	Write(&b2, g2)
	if b1.String() != b2.String() {
		t.Fatalf("write/parse not a fixpoint:\n%s\n---\n%s", b1.String(), b2.String())
	}
	if err := sameGraph(g, g2); err != nil {
		t.Fatal(err)
	}
}

func sameGraph(a, b *graph.Graph) error {
	if a.NumRanks() != b.NumRanks() || a.NumOps() != b.NumOps() || a.NumDeps() != b.NumDeps() {
		return errors.New("shapes differ")
	}
	for i := 0; i < a.NumOps(); i++ {
		if a.Kind[i] != b.Kind[i] || a.Size[i] != b.Size[i] || a.Peer[i] != b.Peer[i] || a.Tag[i] != b.Tag[i] ||
			a.CPU[i] != b.CPU[i] || a.NIC[i] != b.NIC[i] || a.DepStart[i] != b.DepStart[i] {
			return errors.New("op " + a.Describe(int32(i)) + " differs from " + b.Describe(int32(i)))
		}
	}
	for j := range a.DepOp {
		if a.DepOp[j] != b.DepOp[j] || a.DepKind[j] != b.DepKind[j] {
			return errors.New("dependencies differ")
		}
	}
	return nil
}

func TestErrorsNameLine(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
	}{
		{"no num_ranks", "rank 0 {\n}\n", "s.goal:1: rank block before num_ranks"},
		{"rank out of range", "num_ranks 2\nrank 2 {\n}\n", "s.goal:2: rank 2 out of range"},
		{"rank twice", "num_ranks 2\nrank 0 {\n}\nrank 0 {\n}\n", "s.goal:4: rank 0 defined twice"},
		{"unknown label", "num_ranks 1\nrank 0 {\nl1: calc 1\nl1 requires l9\n}\n", "s.goal:4: unknown label l9"},
		{"dup label", "num_ranks 1\nrank 0 {\nl1: calc 1\nl1: calc 2\n}\n", "s.goal:4: label l1 defined twice"},
		{"bad size", "num_ranks 2\nrank 0 {\nl1: send 8 to 1\n}\n", "s.goal:3: send size \"8\" must end in b"},
		{"negative calc", "num_ranks 1\nrank 0 {\nl1: calc -5\n}\n", "s.goal:3: calc duration \"-5\""},
		{"peer range", "num_ranks 2\nrank 0 {\nl1: send 8b to 7\n}\n", "s.goal:3: peer rank 7 out of range"},
		{"any source on send", "num_ranks 2\nrank 0 {\nl1: send 8b to -1\n}\n", "s.goal:3: peer rank \"-1\""},
		{"missing brace", "num_ranks 1\nrank 0 {\nl1: calc 1\n", "s.goal:3: missing } at end of rank 0"},
		{"garbage", "num_ranks 1\nrank 0 {\nhello world\n}\n", "s.goal:3: unknown statement"},
		{"unterminated comment", "num_ranks 1\n/* x\n", "unterminated /* comment"},
		{"self dep", "num_ranks 1\nrank 0 {\nl1: calc 1\nl1 requires l1\n}\n", "s.goal:4: l1 depends on itself"},
		{"tag order", "num_ranks 2\nrank 0 {\nl1: send 1b to 1 cpu 0 tag 3\n}\n", "out of order"},
		{"nic range", "num_ranks 2\nrank 0 {\nl1: send 1b to 1 tag 0 cpu 0 nic 256\n}\n", "s.goal:3: nic 256 out of range"},
		{"cpu range", "num_ranks 1\nrank 0 {\n\nl1: calc 5 cpu 300\n}\n", "s.goal:4: cpu 300 out of range"},
		{"nic on calc", "num_ranks 1\nrank 0 {\nl1: calc 5 cpu 1 nic 0\n}\n", "s.goal:3: after calc N only 'cpu C' may follow"},
		{"glued unknown keyword", "num_ranks 2\nrank 0 {\nl1: send 1b to 1 tag 0 cpu 3nix 0\n}\n", "s.goal:3: cpu \"3nix\""},
		{"nic without value", "num_ranks 2\nrank 0 {\nl1: recv 1b from 1 tag 0 cpu 2nic\n}\n", "s.goal:3: \"nic\" needs a value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tc.text), "s.goal")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestConformanceFilesParse(t *testing.T) {
	dir := testenv.Shared(t, "conformance/loggopsim")
	files, _ := filepath.Glob(filepath.Join(dir, "*.goal"))
	if len(files) == 0 {
		t.Fatal("no .goal files")
	}
	for _, f := range files {
		g, err := ReadFile(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		var buf bytes.Buffer
		Write(&buf, g)
		g2, err := Parse(&buf, "rewritten")
		if err != nil {
			t.Errorf("%s rewritten: %v", f, err)
			continue
		}
		if err := sameGraph(g, g2); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte("num_ranks 1\nrank 0 {\n}\n"))
	f.Add([]byte("num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 18446744072636809792\n}\nrank 1 {\nl1: recv 8b from 0 tag 18446744073709551615\n}\n"))
	f.Add([]byte("num_ranks 2\nrank 0 { l1: send 1b to 1\n}\nrank 1 { recv 1b from 0 }\n"))
	f.Add([]byte(atlahs))
	f.Add([]byte("num_ranks 2\nrank 0 {\nl1: send 4b to 1 tag 7 cpu 3nic 1\nl2: calc 5cpu 2\n}\nrank 1 {\nl1: recv 4b from -1tag 7 nic 1\n}\n"))
	if files, _ := filepath.Glob("../../../shared/conformance/loggopsim/*.goal"); len(files) > 0 {
		for _, p := range files[:3] {
			if b, err := os.ReadFile(p); err == nil && len(b) < 8000 {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := Parse(bytes.NewReader(data), "fuzz")
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) && !errors.Is(err, graph.ErrInvalid) {
				t.Fatalf("error of unexpected type %T: %v", err, err)
			}
			return
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("parsed graph invalid: %v", err)
		}
		if g.NumRanks() > 1<<14 {
			// A declared rank count alone can make the text round trip
			// write and reparse millions of empty blocks; that path is the
			// same for 16k ranks, so the check stops there.
			return
		}
		var b1, b2 bytes.Buffer
		if err := Write(&b1, g); err != nil {
			t.Fatal(err)
		}
		g2, err := Parse(bytes.NewReader(b1.Bytes()), "rewritten")
		if err != nil {
			t.Fatalf("rewritten schedule does not parse: %v\n%s", err, b1.String())
		}
		Write(&b2, g2)
		if b1.String() != b2.String() {
			t.Fatalf("not a fixpoint")
		}
	})
}

// Dependency lines written after their operations, in another order than
// the operations', keep that order through a write and a parse.
func TestDeclarationOrderSurvivesWrite(t *testing.T) {
	src := "num_ranks 1\nrank 0 {\nl1: calc 1\nl2: calc 2\nl3: calc 3\nl3 requires l1\nl2 requires l1\n}\n"
	g, err := Parse(strings.NewReader(src), "d.goal")
	if err != nil {
		t.Fatal(err)
	}
	if g.DepOrder == nil || g.DepOrder[0] != 1 || g.DepOrder[1] != 0 {
		t.Fatalf("DepOrder = %v, want [1 0] (l2's edge declared second)", g.DepOrder)
	}
	var b bytes.Buffer
	Write(&b, g)
	if !strings.HasSuffix(b.String(), "l3 requires l1\nl2 requires l1\n}\n") {
		t.Errorf("written:\n%s", b.String())
	}
	g2, err := Parse(&b, "w.goal")
	if err != nil || g2.DepOrder == nil || g2.DepOrder[0] != 1 {
		t.Errorf("reparsed DepOrder %v, %v", g2.DepOrder, err)
	}
}

// TestWideTags reads tags as schedgen prints them (64-bit unsigned, -1 as
// 2^64-1): the wildcard on receives, large tags renumbered above the
// file's small tags without merging distinct values.
func TestWideTags(t *testing.T) {
	const text = `num_ranks 2
rank 0 {
l1: send 8b to 1 tag 18446744072636809792
l2: send 8b to 1 tag 18446744072636809793
l3: send 8b to 1 tag 7
l4: send 8b to 1 tag 18446744072636809792
l5: send 8b to 1 tag 18446744073709551615
}
rank 1 {
l1: recv 8b from 0 tag 18446744072636809792
l2: recv 8b from 0 tag 18446744073709551615
l3: recv 8b from 0 tag -1
l4: recv 8b from 0 tag 100
l5: recv 18446744073709551615b from 0 tag 2147483648
}
`
	_, err := Parse(strings.NewReader(text), "wide.goal")
	if err == nil || !strings.Contains(err.Error(), "wide.goal:14: recv size 18446744073709551615 out of range") {
		t.Fatalf("size 2^64-1: err = %v", err)
	}
	g, err := Parse(strings.NewReader(strings.Replace(text, "18446744073709551615b", "4611686018427387904b", 1)), "wide.goal")
	if err != nil {
		t.Fatal(err)
	}
	// Small tags kept (7, 100); large ones numbered down from 2^31-1, in
	// order of first appearance: ...792, ...793, 2^64-1 (on a send: an
	// ordinary tag), 2^31.
	const top = 1<<31 - 1
	want := []int32{top, top - 1, 7, top, top - 2, top, graph.AnyTag, graph.AnyTag, 100, top - 3}
	if !slices.Equal(g.Tag, want) {
		t.Errorf("tags %v, want %v", g.Tag, want)
	}
	if g.Size[9] != MaxSize {
		t.Errorf("size %d, want 2^62", g.Size[9])
	}
	for _, tc := range []struct{ text, want string }{
		{"num_ranks 2\nrank 0 {\nl1: send 1b to 1 tag -1\n}\n", `tag "-1" is not an integer`},
		{"num_ranks 2\nrank 0 {\nl1: send 1b to 1 tag 18446744073709551616\n}\n", `tag "18446744073709551616" is not an integer`},
		{"num_ranks 2\nrank 0 {\nl1: send 1b to 1 tag 2147483647\nl2: send 1b to 1 tag 2147483648\n}\n", "no number left below 2^31"},
		{"num_ranks 2\nrank 0 {\nl1: send 1b to 1 tag 2147483648\nl2: send 1b to 1 tag 2147483647\n}\n", "tag 2147483647 is the number given to one of the 1 tags above"},
	} {
		if _, err := Parse(strings.NewReader(tc.text), "t.goal"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.text, err, tc.want)
		}
	}
}

// TestImplicitLabels: a label l<n> on a block's nth operation is not
// stored (Block.Labels has "" and Graph.Label gives it back); other labels
// are, and the two kinds clash like any two labels.
func TestImplicitLabels(t *testing.T) {
	const text = "num_ranks 1\nrank 0 {\nl1: calc 1\nl3: calc 2\nl3 requires l1\ncalc 3\nl4: calc 4\nl4 requires l3\n}\n"
	var labels []string
	err := Scan(strings.NewReader(text), "i.goal", func(int) error { return nil }, func(b *Block) error {
		labels = slices.Clone(b.Labels)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"", "l3", "", ""}; !slices.Equal(labels, want) {
		t.Errorf("Block.Labels = %q, want %q", labels, want)
	}
	g, err := Parse(strings.NewReader(text), "i.goal")
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range []string{"l1", "l3", "l3", "l4"} {
		if got := g.Label(int32(id)); got != want {
			t.Errorf("Label(%d) = %q, want %q", id, got, want)
		}
	}
	if deps, _ := g.Deps(3); len(deps) != 1 || deps[0] != 1 {
		t.Errorf("l4 requires %v, want [1] (the explicit l3)", deps)
	}
	var b strings.Builder
	Write(&b, g) // l3 is on two operations: Write numbers them all
	if !strings.Contains(b.String(), "l4 requires l2\n") {
		t.Errorf("written:\n%s", b.String())
	}
	if g, err := Parse(strings.NewReader("num_ranks 1\nrank 0 {\nl1: calc 1\nl2: calc 2\n}\n"), "i.goal"); err != nil || g.Labels != nil {
		t.Errorf("implicit labels only: Labels %q, %v; want none stored", g.Labels, err)
	}
	for _, tc := range []struct{ text, want string }{
		{"l2: calc 1\nl2: calc 2\n", "i.goal:4: label l2 defined twice in rank 0"},
		{"l1: calc 1\nx: calc 2\nl1: calc 3\n", "i.goal:5: label l1 defined twice in rank 0"},
		{"calc 1\nl1 requires l2\nl1: calc 2\n", "i.goal:4: unknown label l2 in rank 0"},
		{"calc 1\nl2: calc 2\nl2 requires l1\n", "i.goal:5: unknown label l1 in rank 0"},
		{"l01: calc 1\nl1: calc 2\nl1 requires l01\nl01 requires l01\n", "i.goal:6: l01 depends on itself"},
	} {
		_, err := Parse(strings.NewReader("num_ranks 1\nrank 0 {\n"+tc.text+"}\n"), "i.goal")
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: err = %v, want %s", tc.text, err, tc.want)
		}
	}
}

// atlahs is a schedule as ATLAHS's NCCL generator writes one: every
// operation names its CPU (a GPU stream) and every message its NIC, and
// some lines glue the CPU number to "nic" as LogGOPSim's scanner allows.
const atlahs = `num_ranks 2

rank 0 {
l1: calc 0 cpu 0
l2: send 16b to 1 tag 3 cpu 1 nic 0
l3: calc 1000 cpu 1
l4: send 4096b to 1 tag 4 cpu 2nic 1
l5: calc 0 cpu 0
l2 requires l1
l3 requires l2
l4 requires l1
l5 requires l3
l5 requires l4
}

rank 1 {
l1: recv 16b from 0 tag 3 cpu 1 nic 0
l2: recv 4096b from 0 tag 4 cpu 2 nic 1
}
`

// TestATLAHSStreams reads ATLAHS's cpu and nic fields into the graph's CPU
// and NIC columns, and writes them back.
func TestATLAHSStreams(t *testing.T) {
	g, err := Parse(strings.NewReader(atlahs), "atlahs.goal")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ cpu, nic uint8 }{{0, 0}, {1, 0}, {1, 0}, {2, 1}, {0, 0}, {1, 0}, {2, 1}}
	if g.NumOps() != len(want) {
		t.Fatalf("%d operations, want %d", g.NumOps(), len(want))
	}
	for op, w := range want {
		if g.CPU[op] != w.cpu || g.NIC[op] != w.nic {
			t.Errorf("%s: cpu %d nic %d, want cpu %d nic %d", g.Describe(int32(op)), g.CPU[op], g.NIC[op], w.cpu, w.nic)
		}
	}
	var b bytes.Buffer
	if err := Write(&b, g); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "send 4096b to 1 tag 4 cpu 2 nic 1") {
		t.Errorf("written schedule lacks the second send's cpu and nic:\n%s", b.String())
	}
}

// TestATLAHSStreamsOverlap replays the ATLAHS schedule: the calc on CPU 1
// overlaps the send on CPU 2, and rank 1 processes the two messages on its
// CPUs 1 and 2 at once (o = 100 ns, L = 1 µs, no per-byte costs).
func TestATLAHSStreamsOverlap(t *testing.T) {
	g, err := Parse(strings.NewReader(atlahs), "atlahs.goal")
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(g, network.NewLogGOPS(1000, 100, 0, 0, 0, 65535), sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Rank 0: both sends at 0 (CPUs 1 and 2 until 100), the calc on CPU 1
	// from 100 to 1,100. Rank 1: both messages arrive at 1,100 and take
	// o on CPUs 1 and 2 together.
	if got := []int64{res.Ranks[0].Finish, res.Ranks[1].Finish}; !slices.Equal(got, []int64{1100, 1200}) {
		t.Errorf("finish times %v, want [1100 1200]", got)
	}
}
