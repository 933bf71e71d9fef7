package network

// The per-byte charges of a message as LogGOPSim makes them. The replay
// engine (package sim) charges them and the LP bound (package
// optimize/bound) models the same charges, so both use these functions.

// Charge returns LogGOPSim's (s−1)·x per-byte charge for a message of s
// bytes. LogGOPSim computes it in unsigned 64-bit arithmetic, so for an
// empty message (s = 0) the charge wraps around to −x; capsim reproduces
// that negative charge exactly (RecvCharge gives the receive's).
//
// x is a valid network parameter (LogGOPS.Validate); the product is
// rounded once to the ns (Times), and one above graph.MaxTimeNs
// saturates at MaxTimeNs+1, which the caller's check then reports. An
// empty message's −x is −x rounded to the ns.
func (x PerByte) Charge(s int64) int64 {
	if s > 0 {
		return x.Times(s - 1)
	}
	return -x.Times(1)
}

// WireBytes returns the bytes a message of payload size puts on the
// network with h header bytes (LogGOPS.HeaderBytes); an empty message
// without header stays empty, so that Charge keeps LogGOPSim's charge
// for it.
func WireBytes(size, h int64) int64 {
	if h == 0 {
		return size
	}
	return max(size, 0) + h
}

// RecvCharge returns LogGOPSim's receive charge max((s−1)·O, (w−1)·G)
// for a payload of s bytes carried in w wire bytes (s + H). Where w = s
// an empty message's wrapped charges make it −G when O = 0, −O when
// G = 0 and −min(O, G) otherwise (the larger of the two wrapped values).
func RecvCharge(s, w int64, O, G PerByte) int64 {
	if w != s {
		return max(O.Charge(s), G.Charge(w))
	}
	if s > 0 {
		return O.Max(G).Times(s - 1)
	}
	switch {
	case O.Femtoseconds() == 0:
		return -G.Times(1)
	case G.Femtoseconds() == 0:
		return -O.Times(1)
	}
	return -min(O.Times(1), G.Times(1))
}
