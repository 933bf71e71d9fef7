package arrowtrace

import (
	"fmt"
	"io"

	"github.com/capsim/capsim/internal/atomicfile"
	"github.com/capsim/capsim/traces/graph"
)

// sourceWindow is the number of operations EncodeSource asks a source for
// at a time: one record batch.
const sourceWindow = BatchRows

// Counted is a graph.Source that knows its totals; EncodeSource writes
// them as the file's capsim.num_ops and capsim.num_deps, as EncodeGraph
// does, so that ReadGraph sizes its columns once.
type Counted interface {
	NumOps() int
	NumDeps() int
}

// WriteSource writes the graph src hands out to path as an Arrow
// execution-graph file, atomically (EncodeSource).
func WriteSource(path string, src graph.Source, regions []string) error {
	return atomicfile.Write(path, func(w io.Writer) error { return EncodeSource(w, src, regions) })
}

// EncodeSource writes the graph src hands out as an Arrow IPC file to w,
// window by window, holding one window and one record batch: a graph too
// large to hold is written in memory that does not grow with it. Window
// regions index regions (a nil Window.Region writes none); a source that
// is Counted has its totals written. The file of a *graph.Graph without
// labels or a recorded run equals EncodeGraph's.
func EncodeSource(w io.Writer, src graph.Source, regions []string) error {
	numOps, numDeps := -1, -1
	if c, ok := src.(Counted); ok {
		numOps, numDeps = c.NumOps(), c.NumDeps()
	}
	gw, err := newGraphWriter(w, graphSchemaFor(src.NumRanks(), numOps, numDeps, false), regions)
	if err != nil {
		return err
	}
	var req, ireq []int32
	for r := 0; r < src.NumRanks(); r++ {
		for first := int32(0); ; {
			win, err := src.Window(r, first, sourceWindow)
			if err != nil {
				gw.Abort()
				return fmt.Errorf("arrowtrace: rank %d at operation %d: %w", r, first, err)
			}
			if win.Len() == 0 {
				break
			}
			for i := 0; i < win.Len(); i++ {
				req, ireq = req[:0], ireq[:0]
				deps, kinds := win.Deps(i)
				for j, d := range deps {
					if kinds[j] == graph.Requires {
						req = append(req, d-win.Origin)
					} else {
						ireq = append(ireq, d-win.Origin)
					}
				}
				op := graph.Op{Kind: win.Kind[i], Size: win.Size[i], Peer: win.Peer[i], Tag: win.Tag[i], CPU: win.CPU[i], NIC: win.NIC[i], Region: graph.NoRegion}
				if win.Region != nil {
					op.Region = win.Region[i]
				}
				if err := gw.Op(int32(r), op, req, ireq, ""); err != nil {
					gw.Abort()
					return err
				}
			}
			first += int32(win.Len())
		}
	}
	return gw.Close()
}
