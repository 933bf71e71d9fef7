package calibrate

import "github.com/capsim/capsim/traces/mpi"

// roundTrips returns the one-way times of the ping-pong round trips among
// msgs: a message A→B received by a blocking receive, answered by B's
// next point-to-point call, a send to A of the same size, which A
// receives by a blocking receive as its next point-to-point call. The
// one-way time is (round trip on A − B's turnaround) / 2, each measured
// on one rank's clock.
func roundTrips(t *mpi.Trace, msgs []message) []sample {
	type at struct{ rank, i int }
	bySend := make(map[at]int, len(msgs))
	for k, m := range msgs {
		bySend[at{m.from, m.si}] = k
	}
	var out []sample
	for _, m1 := range msgs {
		if m1.recvIsWait {
			continue
		}
		j := nextP2P(&t.Ranks[m1.to], m1.ri)
		k, ok := bySend[at{m1.to, j}]
		if !ok {
			continue
		}
		m2 := msgs[k]
		if m2.to != m1.from || m2.bytes != m1.bytes || m2.recvIsWait || nextP2P(&t.Ranks[m1.from], m1.si) != m2.ri {
			continue
		}
		rtt := m2.recvEnd - m1.sendStart
		turn := m2.sendStart - m1.recvEnd
		if turn < 0 || rtt <= turn {
			continue
		}
		out = append(out, sample{m1.bytes, float64(rtt-turn) / 2})
	}
	return out
}

// nextP2P returns the index of rank rk's next point-to-point call after
// event i, or −1.
func nextP2P(rk *mpi.Rank, i int) int {
	for j := i + 1; j < len(rk.Events); j++ {
		if rk.Events[j].Kind.IsPointToPoint() {
			return j
		}
		if rk.Events[j].Kind != mpi.Compute {
			return -1
		}
	}
	return -1
}

// backToBack returns, for each send of t directly followed by another
// send of the same rank (no other MPI call between them, and less compute
// than the first call lasted), the first one's size and the interval
// between the returns of the two calls. A send waiting for the network
// interface waits inside its call, so the returns are g + (s−1)·G apart
// when the interface holds the sends back, and more when the CPU does.
func backToBack(t *mpi.Trace) []sample {
	var out []sample
	for r := range t.Ranks {
		rk := &t.Ranks[r]
		if len(rk.Stamps) != len(rk.Events) {
			continue
		}
		prev, between := -1, int64(0)
		for i, e := range rk.Events {
			switch {
			case e.Kind == mpi.Send || e.Kind == mpi.Isend:
				if prev >= 0 && between < rk.Stamps[prev].End-rk.Stamps[prev].Start {
					out = append(out, sample{rk.Events[prev].Bytes, float64(rk.Stamps[i].End - rk.Stamps[prev].End)})
				}
				prev, between = i, 0
			case e.Kind == mpi.Compute:
				between += e.Duration
			default:
				prev = -1
			}
		}
	}
	return out
}
