package arrowtrace

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"

	"github.com/capsim/capsim/traces/graph"
)

// longGraph has a rank whose operations span three record batches, with
// requires, irequires and regions, and an empty rank.
func longGraph(t testing.TB) *graph.Graph {
	b := graph.NewBuilder(4)
	reg := b.Region("loop")
	b.Add(0, graph.CalcOp(5))
	for i := int32(0); i < 2*BatchRows+17; i++ {
		op := graph.SendOp(int64(i), 2, i%7)
		if i%3 == 0 {
			op = graph.CalcOp(int64(i))
			op.Region = reg
		}
		id := b.Add(1, op)
		if i > 0 {
			kind := graph.Requires
			if i%5 == 0 {
				kind = graph.Irequires
			}
			b.Dep(1, id, id-1, kind)
		}
	}
	b.Add(2, graph.RecvOp(8, -1, -1))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// uncounted hides a source's totals.
type uncounted struct{ graph.Source }

// failing fails its third window.
type failing struct {
	graph.Source
	n int
}

func (f *failing) Window(r int, first int32, max int) (graph.Window, error) {
	if f.n++; f.n == 3 {
		return graph.Window{}, errors.New("disk gone")
	}
	return f.Source.Window(r, first, max)
}

// TestEncodeSource checks that writing a graph window by window gives
// EncodeGraph's bytes, that a source without totals gives a file that
// reads back to the same graph, and that a source's error stops it.
func TestEncodeSource(t *testing.T) {
	small := sampleGraph(t)
	small.Labels = nil
	for name, g := range map[string]*graph.Graph{"sample": small, "long": longGraph(t)} {
		var a, b bytes.Buffer
		if err := EncodeGraph(&a, g); err != nil {
			t.Fatal(err)
		}
		if err := EncodeSource(&b, g, g.Regions); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s: EncodeSource's bytes differ from EncodeGraph's", name)
		}
		p := filepath.Join(t.TempDir(), "g.arrow")
		if err := WriteSource(p, uncounted{g}, g.Regions); err != nil {
			t.Fatal(err)
		}
		back, err := ReadGraph(p)
		if err != nil {
			t.Fatal(err)
		}
		sameGraph(t, g, back)
	}
	var b bytes.Buffer
	if err := EncodeSource(&b, &failing{Source: longGraph(t)}, []string{"loop"}); err == nil || !bytes.Contains([]byte(err.Error()), []byte("disk gone")) {
		t.Errorf("a failing source: %v", err)
	}
	if err := EncodeSource(&b, small, nil); err == nil {
		t.Error("regions the writer does not have were accepted")
	}
}
