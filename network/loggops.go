// Package network holds capsim's network models. LogGOPS is the model of
// LogGOPSim (Hoefler, Schneider, Lumsdaine, HPDC'10): a message of s bytes
// costs its sender o + (s-1)·O of CPU time and g + (s-1)·G of NIC time,
// arrives L after the sender's overhead started plus o, and costs the
// receiver o + max((s-1)·O, (s-1)·G) of CPU and g + (s-1)·G of NIC time.
// Messages of at most S bytes are eager; larger ones use rendezvous, so the
// send completes only when the receiver has matched it.
//
// The LogGP variant (LogGOPS.LogGP, spec "loggp:…") prices the bytes in
// flight as LogGP does (Alexandrov et al., SPAA'95) and as flow-level
// simulators such as SimGrid do: the last byte arrives o + L + (s-1)·G
// after the send starts, and receiving costs the receiver o + (s-1)·O of
// CPU (its NIC still takes g + (s-1)·G, so simultaneous arrivals share it).
// A message thus costs the same on idle hosts, but in LogGOPS a received
// message holds the receiver's CPU for (s-1)·G, delaying the rank's next
// send, where in LogGP it does not.
package network

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/capsim/capsim/traces/graph"
)

// LogGOPS holds the model's parameters, in nanoseconds and bytes. The
// comments give each one's name in the model.
type LogGOPS struct {
	Latency         int64 // L
	Overhead        int64 // o: CPU time per message
	Gap             int64 // g: NIC time per message
	GapPerByte      int64 // G
	OverheadPerByte int64 // O
	EagerLimit      int64 // S: largest message sent eagerly, in bytes
	// LogGP selects the LogGP pricing of bytes in flight (see the package
	// comment) instead of LogGOPSim's.
	LogGP bool
}

// NewLogGOPS returns LogGOPS parameters in the order LogGOPSim names them.
func NewLogGOPS(L, o, g, G, O, S int64) LogGOPS {
	return LogGOPS{Latency: L, Overhead: o, Gap: g, GapPerByte: G, OverheadPerByte: O, EagerLimit: S}
}

// DefaultLogGOPS returns LogGOPSim's defaults: L=2500 o=1500 g=1000 G=6 O=0
// S=65535.
func DefaultLogGOPS() LogGOPS { return NewLogGOPS(2500, 1500, 1000, 6, 0, 65535) }

// String formats the parameters as the spec ParseSpec reads.
func (p LogGOPS) String() string {
	model := "loggops"
	if p.LogGP {
		model = "loggp"
	}
	return fmt.Sprintf("%s:L=%d,o=%d,g=%d,G=%d,O=%d,S=%d", model, p.Latency, p.Overhead, p.Gap, p.GapPerByte, p.OverheadPerByte, p.EagerLimit)
}

// Validate reports negative parameters and times above graph.MaxTimeNs
// (L, o, g, and the per-byte G and O; S is a size in bytes).
func (p LogGOPS) Validate() error {
	for _, f := range []struct {
		name string
		v    int64
	}{{"L", p.Latency}, {"o", p.Overhead}, {"g", p.Gap}, {"G", p.GapPerByte}, {"O", p.OverheadPerByte}, {"S", p.EagerLimit}} {
		if f.v < 0 {
			return fmt.Errorf("loggops: %s = %d is negative", f.name, f.v)
		}
		if f.name != "S" && f.v > graph.MaxTimeNs {
			return fmt.Errorf("loggops: %s = %d ns exceeds %d ns (graph.MaxTimeNs, about 31.7 years)", f.name, f.v, graph.MaxTimeNs)
		}
	}
	return nil
}

// ParseSpec reads a network spec such as
// "loggops:L=5000,o=200,g=100,G=2,O=1,S=4096", or "loggp:…" with the same
// parameters for the LogGP variant. Parameters left out take
// LogGOPSim's defaults; "loggops" alone is the default model. Keys are
// case-sensitive, as o/O and g/G differ.
func ParseSpec(spec string) (LogGOPS, error) {
	p := DefaultLogGOPS()
	name, args, _ := strings.Cut(strings.TrimSpace(spec), ":")
	switch name {
	case "loggops":
	case "loggp":
		p.LogGP = true
	default:
		return p, fmt.Errorf("network spec %q: unknown model %q (want loggops or loggp)", spec, name)
	}
	p, err := parseParams(spec, args, p)
	if err != nil {
		return p, err
	}
	if err := p.Validate(); err != nil {
		return p, fmt.Errorf("network spec %q: %w", spec, err)
	}
	return p, nil
}

// parseParams reads comma-separated KEY=VALUE LogGOPS parameters over p.
func parseParams(spec, args string, p LogGOPS) (LogGOPS, error) {
	if strings.TrimSpace(args) == "" {
		return p, nil
	}
	seen := map[string]bool{}
	for _, kv := range strings.Split(args, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		k = strings.TrimSpace(k)
		if !ok {
			return p, fmt.Errorf("network spec %q: %q is not KEY=VALUE", spec, kv)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < 0 {
			return p, fmt.Errorf("network spec %q: %s=%q is not a non-negative integer", spec, k, v)
		}
		if seen[k] {
			return p, fmt.Errorf("network spec %q: %s given twice", spec, k)
		}
		seen[k] = true
		switch k {
		case "L":
			p.Latency = n
		case "o":
			p.Overhead = n
		case "g":
			p.Gap = n
		case "G":
			p.GapPerByte = n
		case "O":
			p.OverheadPerByte = n
		case "S":
			p.EagerLimit = n
		default:
			return p, fmt.Errorf("network spec %q: unknown parameter %q (want L, o, g, G, O, S)", spec, k)
		}
	}
	return p, nil
}

// Cost returns the time from the start of a send of bytes until the
// receiver has finished receiving it, on otherwise idle hosts: the
// uncontended point-to-point cost used by analytic consumers such as the
// LP's message edges. With valid parameters (Validate) a cost above
// graph.MaxTimeNs saturates at MaxTimeNs+1 instead of wrapping around.
func (p LogGOPS) Cost(bytes int64) int64 {
	s1 := max(bytes-1, 0)
	per := graph.MulNs(s1, max(p.OverheadPerByte, p.GapPerByte))
	if p.LogGP {
		per = graph.MulNs(s1, p.GapPerByte) + graph.MulNs(s1, p.OverheadPerByte)
	}
	return min(2*p.Overhead+p.Latency+per, graph.MaxTimeNs+1)
}

// SendGap returns how long a send of bytes holds the sender's network
// interface, g + (s−1)·G, on otherwise idle hosts: the analytic
// counterpart of the gap the replay engine charges (the LP serializes a
// rank's sends by it).
//
// Like Cost, it saturates at graph.MaxTimeNs+1.
func (p LogGOPS) SendGap(bytes int64) int64 {
	return min(p.Gap+graph.MulNs(max(bytes-1, 0), p.GapPerByte), graph.MaxTimeNs+1)
}
