package importer

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/capsim/capsim/internal/atomicfile"
	"github.com/capsim/capsim/traces/arrowtrace"
	"github.com/capsim/capsim/traces/mpi"
)

// ConvertOptions configure Convert.
type ConvertOptions struct {
	Options // how to read the input
	// Lower makes an MPI-level trace an execution graph lowered with the
	// collective algorithms Algorithms (kinds left out: the format's
	// own); without it an MPI-level trace stays an MPI trace.
	Lower      bool
	Algorithms map[mpi.Kind]string
}

// Conversion describes what Convert wrote.
type Conversion struct {
	Format string // the input's format
	// MPI is true when the output is an MPI trace (Events MPI events),
	// false for an execution graph (Ops operations, Deps dependencies).
	MPI               bool
	Ranks             int
	Events            int
	Ops, Deps         int64
	Streamed          bool                // a GOAL file converted block by block, in memory bounded by one rank block
	FormatCollectives map[mpi.Kind]string // MPI: the collective algorithms the format's traces replay with by default
}

// Convert converts the trace at in, in any format Read reads, into
// capsim's Arrow format at out, written atomically: an MPI-level trace
// stays an MPI trace unless o.Lower asks for the execution graph; a
// graph-level trace becomes an execution graph. A GOAL file whose rank
// blocks come in order is streamed (GOALToArrow), whatever its length.
func Convert(in, out string, o ConvertOptions) (*Conversion, error) {
	if o.Format == "goal" || o.Format == "" && !o.Lower && sniffsGOAL(in) {
		st, err := streamGOAL(in, out)
		if err == nil {
			return &Conversion{Format: "goal", Ranks: int(st.Ranks), Ops: st.Ops, Deps: st.Deps, Streamed: true}, nil
		}
		if !errors.Is(err, ErrRankOrder) {
			return nil, err
		}
	}
	t, err := Read(in, o.Options)
	if err != nil {
		return nil, err
	}
	if t.MPI != nil && !o.Lower {
		if err := arrowtrace.WriteMPI(out, t.MPI); err != nil {
			return nil, err
		}
		return &Conversion{Format: t.Format, MPI: true, Ranks: len(t.MPI.Ranks), Events: t.MPI.NumEvents(), FormatCollectives: t.Collectives}, nil
	}
	g, err := t.Lower(o.Algorithms)
	if err != nil {
		return nil, err
	}
	if err := arrowtrace.WriteGraph(out, g); err != nil {
		return nil, err
	}
	return &Conversion{Format: t.Format, Ranks: g.NumRanks(), Ops: int64(g.NumOps()), Deps: int64(g.NumDeps())}, nil
}

// sniffsGOAL reports whether Detect takes path for GOAL.
func sniffsGOAL(path string) bool {
	f, err := Detect(path)
	return err == nil && f.Name == "goal"
}

// streamGOAL converts the GOAL file in to an Arrow graph at out, streamed
// and written atomically. A gzipped GOAL file (x.goal.gz, or
// <(gzip -c x.goal) through a pipe) is unpacked as it streams, as Read
// reads one.
func streamGOAL(in, out string) (Stats, error) {
	f, err := os.Open(in)
	if err != nil {
		return Stats{}, err
	}
	defer f.Close()
	var r io.Reader = bufio.NewReaderSize(f, 1<<20)
	if head, _ := r.(*bufio.Reader).Peek(2); ArchiveKind(head) == "gzip" {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return Stats{}, fmt.Errorf("%s: read the gzip archive: %w", in, err)
		}
		defer zr.Close()
		r = bufio.NewReaderSize(zr, 1<<20)
	}
	var st Stats
	err = atomicfile.Write(out, func(w io.Writer) error {
		var err error
		st, err = GOALToArrow(r, in, w)
		return err
	})
	return st, err
}
