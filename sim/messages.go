package sim

import "github.com/capsim/capsim/traces/graph"

// MessageStats counts the messages of one rank that a replay matched.
// Point-to-point messages are those of the trace's own sends and
// receives; collective messages are those its collectives were lowered
// into. Bytes are the sizes of the matched sends.
type MessageStats struct {
	Sent, SentBytes, Recv, RecvBytes                 int64
	CollSent, CollSentBytes, CollRecv, CollRecvBytes int64
}

// CountMessages returns, per rank of g, the messages a completed replay
// of g matched and their bytes, counted as MessageCounter counts them. A
// replay that completes (Run returns no error) has matched the message of
// every send exactly once, at the send's peer: every send has started,
// nothing is left in flight, and no message is left unexpected. So the
// counts follow from the graph alone, without observing the replay.
func CountMessages(g *graph.Graph, collTag int32) []MessageStats {
	out := make([]MessageStats, g.NumRanks())
	for r := range out {
		s := &out[r]
		for op := g.RankStart[r]; op < g.RankStart[r+1]; op++ {
			if g.Kind[op] != graph.Send {
				continue
			}
			n, d := g.Size[op], &out[g.Peer[op]]
			if collTag != 0 && g.Tag[op]&collTag == collTag {
				s.CollSent++
				s.CollSentBytes += n
				d.CollRecv++
				d.CollRecvBytes += n
				continue
			}
			s.Sent++
			s.SentBytes += n
			d.Recv++
			d.RecvBytes += n
		}
	}
	return out
}

// MessageCounter is an Observer that counts, per rank, the messages a
// replay matched and their bytes (CountMessages gives the same counts
// for a completed replay without observing it).
type MessageCounter struct {
	g       *graph.Graph
	collTag int32
	// Ranks holds the counts per rank, filled as the replay runs.
	Ranks []MessageStats
}

// NewMessageCounter returns a counter for replays of g. Messages whose tag
// has every bit of collTag set (lower.CollectiveTagBase for lowered MPI
// traces; 0 counts every message as point-to-point) are counted as
// collective messages.
func NewMessageCounter(g *graph.Graph, collTag int32) *MessageCounter {
	return &MessageCounter{g: g, collTag: collTag, Ranks: make([]MessageStats, g.NumRanks())}
}

// Busy implements Observer; it counts nothing.
func (m *MessageCounter) Busy(op int32, start, end int64) {}

// Message implements Observer: it counts the message of send at its
// sender and at the owner of recv.
func (m *MessageCounter) Message(send, recv int32, sent, matched int64) {
	n := m.g.Size[send]
	s, r := &m.Ranks[m.g.RankOf(send)], &m.Ranks[m.g.RankOf(recv)]
	if m.collTag != 0 && m.g.Tag[send]&m.collTag == m.collTag {
		s.CollSent++
		s.CollSentBytes += n
		r.CollRecv++
		r.CollRecvBytes += n
		return
	}
	s.Sent++
	s.SentBytes += n
	r.Recv++
	r.RecvBytes += n
}
