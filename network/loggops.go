// Package network holds capsim's network models. LogGOPS is the model of
// LogGOPSim (Hoefler, Schneider, Lumsdaine, HPDC'10): a message of s bytes
// costs its sender o + (s-1)·O of CPU time and g + (s-1)·G of NIC time,
// arrives L after the sender's overhead started plus o, and costs the
// receiver o + max((s-1)·O, (s-1)·G) of CPU and g + (s-1)·G of NIC time.
// Messages of at most S bytes are eager; larger ones use rendezvous, so the
// send completes only when the receiver has matched it. Every message may
// carry H header bytes beyond its payload (an MPI library's envelope):
// the network times its s + H bytes wherever it prices bytes by G (and a
// flow-level topology moves s + H bytes), while the CPU's O and the eager
// limit S see the payload s.
//
// The LogGP variant (LogGOPS.LogGP, spec "loggp:…") prices the bytes in
// flight as LogGP does (Alexandrov et al., SPAA'95) and as flow-level
// simulators such as SimGrid do: the last byte arrives o + L + (s-1)·G
// after the send starts, and receiving costs the receiver o + (s-1)·O of
// CPU (its NIC still takes g + (s-1)·G, so simultaneous arrivals share it).
// A message thus costs the same on idle hosts, but in LogGOPS a received
// message holds the receiver's CPU for (s-1)·G, delaying the rank's next
// send, where in LogGP it does not.
//
// In both, as in LogGOPSim, the NIC works in step with the CPU: a send
// starts when both are free, so a rank whose NIC still sends an earlier
// message waits for it; and a message is received when both are free,
// its NIC time counted from then. With Offload (spec "offload=1", LogGP
// only) the NIC works apart, as an offloading NIC under eager, detached
// MPI sends does: a send takes its CPU at once, for o + (s-1)·O, and its
// bytes leave when the NIC has sent the earlier ones (FIFO), so the last
// byte arrives o + L + (s-1)·G after that; an arriving message's bytes
// are taken by the receiver's NIC over the (s-1)·G before its last byte,
// whatever the CPU does, provided the NIC was free when they began (else
// they come in once it is, FIFO), and the NIC is free again g after the
// last byte; the receiver's CPU then pays o + (s-1)·O when it is free. A
// host's messages still go one after the other, never sharing its
// bandwidth: that is max-min sharing of each host's link, the flow model
// on a crossbar (package sim, FlowNetwork).
package network

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/capsim/capsim/traces/graph"
)

// LogGOPS holds the model's parameters: times in whole nanoseconds, times
// per byte exact to 10⁻⁶ ns (PerByte), sizes in bytes. The comments give
// each one's name in the model.
//
// Every time the model charges for the bytes of a message of s bytes is
// L, o or g plus one product (s−1)·G or (s−1)·O, each computed exactly
// and rounded once to the nearest ns, halves up (PerByte.Times); with
// whole-ns G and O this is LogGOPSim's integer arithmetic.
type LogGOPS struct {
	Latency         int64   // L
	Overhead        int64   // o: CPU time per message
	Gap             int64   // g: NIC time per message
	GapPerByte      PerByte // G: NIC time per byte
	OverheadPerByte PerByte // O: CPU time per byte
	EagerLimit      int64   // S: largest message sent eagerly, in bytes
	// HeaderBytes (H) are added to every message's payload on the wire:
	// the bytes G prices and a flow moves are s + H. 0 (LogGOPSim's
	// model) by default.
	HeaderBytes int64
	// LogGP selects the LogGP pricing of bytes in flight (see the package
	// comment) instead of LogGOPSim's.
	LogGP bool
	// Offload, with LogGP, lets the NIC work apart from the CPU (see the
	// package comment); LogGOPSim's NIC works in step with it.
	Offload bool
}

// MaxHeaderBytes is the largest header H: 1 GiB, far beyond any
// protocol's envelope and small enough that a message's s + H cannot
// overflow.
const MaxHeaderBytes = 1 << 30

// NewLogGOPS returns LogGOPS parameters in the order LogGOPSim names them,
// all integers as LogGOPSim takes them (G and O in whole ns per byte).
func NewLogGOPS(L, o, g, G, O, S int64) LogGOPS {
	return LogGOPS{Latency: L, Overhead: o, Gap: g, GapPerByte: NsPerByte(G), OverheadPerByte: NsPerByte(O), EagerLimit: S}
}

// DefaultLogGOPS returns LogGOPSim's defaults: L=2500 o=1500 g=1000 G=6 O=0
// S=65535.
func DefaultLogGOPS() LogGOPS { return NewLogGOPS(2500, 1500, 1000, 6, 0, 65535) }

// String formats the parameters as the spec ParseSpec reads, times in ns
// and G and O in ns per byte (integers when whole: "G=6", else decimals:
// "G=0.08"), H only where it is not 0 and offload only where it is set,
// so that
// ParseSpec(p.String()) == p.
func (p LogGOPS) String() string {
	model := "loggops"
	if p.LogGP {
		model = "loggp"
	}
	s := fmt.Sprintf("%s:L=%d,o=%d,g=%d,G=%s,O=%s,S=%d", model, p.Latency, p.Overhead, p.Gap, p.GapPerByte, p.OverheadPerByte, p.EagerLimit)
	if p.HeaderBytes != 0 {
		s += fmt.Sprintf(",H=%d", p.HeaderBytes)
	}
	if p.Offload {
		s += ",offload=1"
	}
	return s
}

// Wire returns the bytes a message of size bytes puts on the network:
// its payload and the header, size + H.
func (p LogGOPS) Wire(size int64) int64 { return size + p.HeaderBytes }

// Validate reports Offload without LogGP, negative parameters, times above graph.MaxTimeNs (L,
// o, g), times per byte above MaxPerByteNs (G, O) and a header above
// MaxHeaderBytes; S is a size in bytes.
func (p LogGOPS) Validate() error {
	if p.Offload && !p.LogGP {
		return fmt.Errorf("loggops: offload=1 needs the LogGP variant (loggp:…)")
	}
	for _, f := range []struct {
		name string
		v    PerByte
	}{{"G", p.GapPerByte}, {"O", p.OverheadPerByte}} {
		if f.v.fs < 0 {
			return fmt.Errorf("loggops: %s = %s ns per byte is negative", f.name, f.v)
		}
		if f.v.fs > MaxPerByteNs*FsPerNs {
			return fmt.Errorf("loggops: %s = %s ns per byte exceeds %d ns per byte", f.name, f.v, int64(MaxPerByteNs))
		}
	}
	for _, f := range []struct {
		name string
		v    int64
	}{{"L", p.Latency}, {"o", p.Overhead}, {"g", p.Gap}, {"S", p.EagerLimit}, {"H", p.HeaderBytes}} {
		if f.v < 0 {
			return fmt.Errorf("loggops: %s = %d is negative", f.name, f.v)
		}
		if f.name == "H" && f.v > MaxHeaderBytes {
			return fmt.Errorf("loggops: H = %d bytes exceeds %d bytes", f.v, MaxHeaderBytes)
		}
		if f.name != "S" && f.name != "H" && f.v > graph.MaxTimeNs {
			return fmt.Errorf("loggops: %s = %d ns exceeds %d ns (graph.MaxTimeNs, about 31.7 years)", f.name, f.v, graph.MaxTimeNs)
		}
	}
	return nil
}

// ParseSpec reads a network spec "MODEL[:KEY=VALUE,…]": MODEL is
// loggops or loggp (the LogGP variant), and the keys set parameters over
// LogGOPSim's defaults (DefaultLogGOPS); "loggops" alone is the default
// model. Keys are case-sensitive, as o/O and g/G differ:
//
//	L, o, g  times: a number of ns (1500), or a number with a unit ns, us
//	         (or µs), ms or s (800ns, 1.5us, 2ms); whole ns only
//	G, O     times per byte: a number of ns per byte (6, 0.08), or a
//	         bandwidth (12.5GB/s, 100Gb/s, 25GiB/s) meaning 1/bandwidth
//	bw       G given as a bandwidth (a unit is required)
//	S        the eager limit, a whole number of bytes
//	H        header bytes every message carries beyond its payload (0)
//	offload  1: the NIC works apart from the CPU (loggp only; 0, the
//	         default, is LogGOPSim's NIC)
//
// Bandwidth units are B/s, KB/s (kB/s), MB/s, GB/s, TB/s in decimal SI
// units, KiB/s, MiB/s, GiB/s, TiB/s in binary ones, and bit rates b/s,
// Kb/s (kb/s), Mb/s, Gb/s, Tb/s. G and O are held to 10⁻⁶ ns per byte,
// rounded to the nearest, halves up (ParsePerByte). So
// "loggp:L=1.5us,bw=10Gb/s" is "loggp:L=1500,G=0.8", and
// "loggops:L=5000,o=200,g=100,G=2,O=1,S=4096" sets every parameter.
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
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok {
			return p, fmt.Errorf("network spec %q: %q is not KEY=VALUE", spec, kv)
		}
		field := k
		if k == "bw" {
			field = "G"
		}
		if seen[field] {
			if field == "G" {
				return p, fmt.Errorf("network spec %q: G given twice (as G or bw)", spec)
			}
			return p, fmt.Errorf("network spec %q: %s given twice", spec, k)
		}
		seen[field] = true
		if err := setParam(&p, k, v); err != nil {
			return p, fmt.Errorf("network spec %q: %w", spec, err)
		}
	}
	return p, nil
}

// setParam sets parameter k of p to the value v.
func setParam(p *LogGOPS, k, v string) error {
	switch k {
	case "L", "o", "g":
		n, err := ParseNs(v)
		if err != nil {
			return fmt.Errorf("%s=%q is not a time like 1500, 800ns or 1.5us: %w", k, v, err)
		}
		*p.timeParam(k) = n
	case "G", "O":
		x, err := ParsePerByte(v)
		if err != nil {
			return fmt.Errorf("%s=%q is not a number of ns per byte or a bandwidth like 12.5GB/s: %w", k, v, err)
		}
		*p.perByteParam(k) = x
	case "bw":
		x, err := ParsePerByte(v)
		if _, unit := splitUnit(v); err == nil && unit == "" {
			err = fmt.Errorf("a bandwidth needs a unit")
		}
		if err != nil {
			return fmt.Errorf("bw=%q is not a bandwidth like 12.5GB/s or 100Gb/s: %w", v, err)
		}
		p.GapPerByte = x
	case "offload":
		switch v {
		case "0", "1":
			p.Offload = v == "1"
		default:
			return fmt.Errorf("offload=%q is not 0 or 1", v)
		}
	case "S", "H":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("%s=%q is not a non-negative integer number of bytes", k, v)
		}
		if k == "S" {
			p.EagerLimit = n
		} else {
			p.HeaderBytes = n
		}
	default:
		return fmt.Errorf("unknown parameter %q (want L, o, g, G, O, bw, S, H, offload)", k)
	}
	return nil
}

// timeParam returns the time parameter named k: L, o or g.
func (p *LogGOPS) timeParam(k string) *int64 {
	switch k {
	case "L":
		return &p.Latency
	case "o":
		return &p.Overhead
	}
	return &p.Gap
}

// perByteParam returns the time per byte named k: G or O.
func (p *LogGOPS) perByteParam(k string) *PerByte {
	if k == "G" {
		return &p.GapPerByte
	}
	return &p.OverheadPerByte
}

// Cost returns the time from the start of a send of bytes until the
// receiver has finished receiving it, on otherwise idle hosts: the
// uncontended point-to-point cost used by analytic consumers such as the
// LP's message edges. With valid parameters (Validate) a cost above
// graph.MaxTimeNs saturates at MaxTimeNs+1 instead of wrapping around.
//
// The header (H) is priced with the payload by G, not by O.
func (p LogGOPS) Cost(bytes int64) int64 {
	s1, w1 := max(bytes-1, 0), max(p.Wire(bytes)-1, 0)
	per := max(p.OverheadPerByte.Times(s1), p.GapPerByte.Times(w1))
	if p.LogGP {
		per = p.GapPerByte.Times(w1) + p.OverheadPerByte.Times(s1)
	}
	return min(2*p.Overhead+p.Latency+per, graph.MaxTimeNs+1)
}

// SendGap returns how long a send of bytes holds the sender's network
// interface, g + (s+H−1)·G, on otherwise idle hosts: the analytic
// counterpart of the gap the replay engine charges (the LP serializes a
// rank's sends by it).
//
// Like Cost, it saturates at graph.MaxTimeNs+1.
func (p LogGOPS) SendGap(bytes int64) int64 {
	return min(p.Gap+p.GapPerByte.Times(max(p.Wire(bytes)-1, 0)), graph.MaxTimeNs+1)
}
