package network

import (
	"fmt"
	"math"

	"github.com/capsim/capsim/traces/lower"
)

// ForWire returns the parameters of the messages that travel with wire w
// (lower.Wire, a lowered NCCL call's protocol): p itself for wire 0, else
// p with
//
//   - L the protocol's latency per hop on the message's link
//     (lower.Wire.HopLatencyNs: the per-hop latencies of NCCL's tuning
//     model, src/graph/tuning.cc), which stands for the link's own
//     latency, the protocol's synchronisation included;
//   - G the network's G over the protocol's bandwidth efficiency
//     (lower.Wire.Efficiency: LL's 8-byte lines carry 4 bytes of data,
//     LL128's 128-byte lines 120), rounded to the femtosecond;
//   - S unbounded: NCCL's protocols send into buffers the receiver
//     posted when the connection was set up, with no handshake per
//     message, so every message is eager.
//
// o, g, O, H and the LogGP variant stay p's.
func (p LogGOPS) ForWire(w lower.Wire) (LogGOPS, error) {
	if w == 0 {
		return p, nil
	}
	lat, ok := w.HopLatencyNs()
	eff, _ := w.Efficiency()
	if !ok || !(eff > 0) {
		return LogGOPS{}, fmt.Errorf("network: message wire %d is not one of lower's", uint8(w))
	}
	q := p
	q.Latency = int64(math.Round(lat))
	q.GapPerByte = PerByteFs(int64(math.Round(float64(p.GapPerByte.Femtoseconds()) / eff)))
	q.EagerLimit = math.MaxInt64
	if err := q.Validate(); err != nil {
		return LogGOPS{}, fmt.Errorf("network: parameters of wire %s: %w", w, err)
	}
	return q, nil
}
