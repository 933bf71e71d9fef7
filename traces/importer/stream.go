package importer

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/capsim/capsim/traces/arrowtrace"
	"github.com/capsim/capsim/traces/goal"
	"github.com/capsim/capsim/traces/graph"
)

// Stats counts what a streamed conversion wrote.
type Stats struct {
	Ranks, Ops, Deps int64
}

// ErrRankOrder is returned by GOALToArrow for a GOAL file whose rank blocks
// are not in increasing rank order: capsim's Arrow graphs list ranks in
// order, so such a file must be read whole (Read, then
// arrowtrace.WriteGraph).
var ErrRankOrder = errors.New("rank blocks out of order")

// GOALToArrow converts the GOAL schedule read from in (name is used in
// errors) into an Arrow execution graph written to out, one rank block at a
// time: memory holds one rank block and one record batch, whatever the
// length of the schedule. Every operation gets a label column entry (null
// where the GOAL line has no label).
func GOALToArrow(in io.Reader, name string, out io.Writer) (Stats, error) {
	s := &goalStreamer{out: out, prev: -1}
	err := goal.Scan(in, name, s.begin, s.block)
	if err == nil && s.gw == nil {
		err = fmt.Errorf("%s: no num_ranks line", name)
	}
	if err != nil {
		if s.gw != nil {
			s.gw.Abort()
		}
		return s.st, err
	}
	return s.st, s.gw.Close()
}

type goalStreamer struct {
	out       io.Writer
	gw        *arrowtrace.GraphWriter
	st        Stats
	prev      int
	start     []int32 // per operation of the block: where its lines start in order
	next      []int32
	order     []int32 // the block's dependency lines grouped by operation
	req, ireq []int32
}

func (s *goalStreamer) begin(n int) error {
	gw, err := arrowtrace.NewGraphWriter(s.out, n, nil, true)
	if err != nil {
		return err
	}
	s.gw, s.st.Ranks = gw, int64(n)
	return nil
}

// resize returns buf with length n and zeroed, reusing its storage.
func resize(buf []int32, n int) []int32 {
	buf = slices.Grow(buf[:0], n)[:n]
	clear(buf)
	return buf
}

func (s *goalStreamer) block(b *goal.Block) error {
	if b.Rank < s.prev {
		return fmt.Errorf("rank %d after rank %d: %w", b.Rank, s.prev, ErrRankOrder)
	}
	s.prev = b.Rank
	n := len(b.Ops)
	// Group the dependency lines by operation, keeping declaration order
	// (a counting sort, reusing the buffers of earlier blocks).
	s.start = resize(s.start, n+1)
	for _, d := range b.Deps {
		s.start[d.Op+1]++
	}
	for i := 1; i <= n; i++ {
		s.start[i] += s.start[i-1]
	}
	s.next = append(resize(s.next, 0), s.start[:n]...)
	s.order = resize(s.order, len(b.Deps))
	for k, d := range b.Deps {
		s.order[s.next[d.Op]] = int32(k)
		s.next[d.Op]++
	}
	for i, op := range b.Ops {
		s.req, s.ireq = s.req[:0], s.ireq[:0]
		for _, k := range s.order[s.start[i]:s.start[i+1]] {
			if d := b.Deps[k]; d.Kind == graph.Requires {
				s.req = append(s.req, d.On)
			} else {
				s.ireq = append(s.ireq, d.On)
			}
		}
		if err := s.gw.Op(int32(b.Rank), op, s.req, s.ireq, b.Labels[i]); err != nil {
			return err
		}
	}
	s.st.Ops += int64(n)
	s.st.Deps += int64(len(b.Deps))
	return nil
}
