// Package calibrate fits the parameters of capsim's LogGP-family network
// models (package network) to the point-to-point messages a trace
// recorded: its matched sends and receives with their recorded times
// (mpi.Rank.Stamps) and sizes.
//
// Three measurements are taken from the trace:
//
//   - the one-way time of a message, from the start of its send to the
//     completion of its receive, as a function of its size. Ping-pong
//     round trips give it without relying on synchronized clocks: for a
//     message A→B answered by B→A of the same size, (round trip on A −
//     B's time between receiving and answering) / 2. Without round trips
//     the matched messages give it directly (receive end − send start,
//     on the trace's clock). The fit is t(s) = 2o + L + (s−1)·G.
//   - the duration of the send calls, t(s) = o + (s−1)·O.
//   - the interval between the starts of back-to-back sends of one rank,
//     at least g + (s−1)·G.
//
// Recorded times include waiting, which only adds time, so each fit is a
// least-squares line over the lower envelope of its samples (Line): the
// fastest instance of each size.
package calibrate

import (
	"fmt"
	"math"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/traces/mpi"
)

// Options controls Calibrate.
type Options struct {
	// LogGP fits the LogGP variant of the model (spec "loggp:"), in which
	// O adds to G on the path of a message; otherwise LogGOPS.
	LogGP bool
}

// Fit describes how each parameter was measured.
type Fit struct {
	// OneWay is the fit of the one-way time 2o + L + (s−1)·G; Source
	// says where its samples came from: "ping-pong" (round trips) or
	// "messages" (matched sends and receives on the trace's clock).
	OneWay Line   `json:"one_way"`
	Source string `json:"one_way_source"`
	// Send is the fit of the send calls' durations, o + (s−1)·O.
	Send *Line `json:"send,omitempty"`
	// GapSamples is the number of back-to-back sends g was bounded
	// from; GapNs their smallest interval less (s−1)·G.
	GapSamples int     `json:"gap_samples"`
	GapNs      float64 `json:"gap_ns,omitempty"`
	// Messages, PingPongs and Wildcards count the matched messages, the
	// round trips among them and the receives left out for a wildcard
	// source or tag.
	Messages  int `json:"messages"`
	PingPongs int `json:"ping_pongs"`
	Wildcards int `json:"wildcard_receives,omitempty"`
	// Step, when the one-way times step up between two sizes (findStep),
	// is that step: S is the size below it.
	Step *Step `json:"step,omitempty"`
	// StartSpreadNs is the largest spread, over the traces, of their
	// ranks' recorded starts (graph.Recorded.StartNs): ranks that started
	// apart wait for each other in the recorded run, which a replay
	// reproduces only when it starts them there too (its default).
	StartSpreadNs int64 `json:"start_spread_ns"`
}

// Unidentified names a parameter the trace cannot determine, the value it
// was given instead and why.
type Unidentified struct {
	Param  string `json:"param"`
	Value  string `json:"value"`
	Reason string `json:"reason"`
}

// Result is a calibration: the parameters, how they were fitted and which
// of them the data could not identify.
type Result struct {
	Net          network.LogGOPS
	Fit          Fit
	Unidentified []Unidentified
}

// Calibrate fits network parameters to the recorded point-to-point
// messages of traces, which must have recorded times (mpi.Trace.Stamped)
// and together at least one matched message.
func Calibrate(traces []*mpi.Trace, opt Options) (*Result, error) {
	var oneway, pingpong, sends []sample
	var gaps []sample
	res := &Result{}
	for i, t := range traces {
		if !t.Stamped() {
			return nil, fmt.Errorf("calibrate: trace %d has no recorded times (only OTF2, DUMPI and liballprof traces keep them)", i+1)
		}
		msgs, wild := match(t)
		res.Fit.Messages += len(msgs)
		res.Fit.Wildcards += wild
		for _, m := range msgs {
			if d := m.recvEnd - m.sendStart; d > 0 {
				oneway = append(oneway, sample{m.bytes, float64(d)})
			}
			sends = append(sends, sample{m.bytes, float64(m.sendEnd - m.sendStart)})
		}
		pingpong = append(pingpong, roundTrips(t, msgs)...)
		res.Fit.StartSpreadNs = max(res.Fit.StartSpreadNs, t.Recorded.StartSpreadNs())
		gaps = append(gaps, backToBack(t)...)
	}
	if res.Fit.Messages == 0 {
		return nil, fmt.Errorf("calibrate: no matched point-to-point messages with recorded times")
	}
	res.Fit.PingPongs = len(pingpong)
	samples := oneway
	res.Fit.Source = "messages"
	if len(pingpong) > 0 {
		samples, res.Fit.Source = pingpong, "ping-pong"
	}
	if len(samples) == 0 {
		return nil, fmt.Errorf("calibrate: every matched message completes before it starts (clocks out of step) and none is part of a round trip")
	}
	ow, _ := fitLine(samples)
	res.Fit.OneWay = ow
	res.Fit.Step = findStep(envelope(samples))
	if err := res.build(ow, sends, gaps, opt); err != nil {
		return nil, fmt.Errorf("calibrate: the fitted parameters are out of range (recorded times of %.3g ns at %d bytes): %w", ow.Intercept, ow.MinBytes, err)
	}
	return res, nil
}

// build turns the fits into parameters and lists the unidentified ones.
func (res *Result) build(ow Line, sends, gaps []sample, opt Options) error {
	def := network.DefaultLogGOPS()
	p := def
	p.LogGP = opt.LogGP
	unid := func(param, value, reason string) {
		res.Unidentified = append(res.Unidentified, Unidentified{param, value, reason})
	}
	// o from the send calls. Their per-byte time is not O: a blocking
	// send of a large message returns when its bytes have left, so it
	// measures G as well, and LogGP adds O to G on a message's path. O is
	// left at 0 and G carries the line's whole slope.
	var o float64
	if sl, ok := fitLine(sends); ok {
		res.Fit.Send = &sl
		o = math.Max(sl.Intercept, 0)
	}
	unid("O", "0", "send durations of large messages include their transfer, so their per-byte time cannot be told from G; G holds the whole per-byte time")
	if half := math.Max(ow.Intercept, 0) / 2; o > half {
		o = half
		unid("o, L", fmt.Sprintf("o=%d, L=0", int64(math.Round(o))), "the send calls last longer than half the one-way time at size 1: o takes that half and L nothing, as the one-way times give 2o + L only")
	}
	if res.Fit.Send == nil {
		unid("o", "0", "no send call durations: one-way times give 2o + L only, and L holds all of it")
	}
	rest := math.Max(ow.Intercept-2*o, 0) // L + (s−1)·G at the single size, L otherwise
	L, G := rest, math.Max(ow.Slope, 0)
	if ow.Points < 2 {
		L, G = res.oneSize(ow.MinBytes, rest, def, unid)
	}
	p.Latency, p.Overhead = int64(math.Round(L)), int64(math.Round(o))
	var err error
	if p.GapPerByte, err = network.PerByteFromFloat(G); err != nil {
		return fmt.Errorf("G = %g ns per byte: %w", G, err)
	}
	p.OverheadPerByte = network.PerByte{}
	if len(gaps) > 0 {
		g := math.Inf(1)
		for _, s := range gaps {
			g = math.Min(g, s.ns-G*float64(max(s.bytes-1, 0)))
		}
		res.Fit.GapSamples, res.Fit.GapNs = len(gaps), math.Max(g, 0)
		p.Gap = int64(math.Round(res.Fit.GapNs))
	} else {
		p.Gap = p.Overhead
		unid("g", fmt.Sprint(p.Gap), "no back-to-back sends: set to o, which keeps a rank's sends spaced by its CPU overhead alone")
	}
	if st := res.Fit.Step; st != nil {
		// The library switched protocols there: sends above S complete
		// when their receive has matched them, as in the recorded run.
		// The line still prices every size; the step's jump is spread
		// over it (LogGOPS charges a rendezvous no time of its own).
		p.EagerLimit = st.AfterBytes
	} else {
		p.EagerLimit = max(p.EagerLimit, ow.MaxBytes)
		unid("S", fmt.Sprint(p.EagerLimit), "no step in the one-way times marks a change of protocol: the fit prices every recorded size by one line, and S is kept above the largest recorded message so that the replay does too")
	}
	res.Net = p
	return p.Validate()
}

// oneSize splits the time rest = L + (s−1)·G of messages that all have
// size s: G keeps its default unless rest is shorter than (s−1)·G, and L
// takes what remains.
func (res *Result) oneSize(s int64, rest float64, def network.LogGOPS, unid func(string, string, string)) (L, G float64) {
	s1 := float64(max(s-1, 0))
	G = float64(def.GapPerByte.Femtoseconds()) / network.FsPerNs
	if s1*G > rest {
		G = rest / s1
	}
	unid("G", fmt.Sprintf("%g", G), fmt.Sprintf("every message has %d bytes, which give L + (s−1)·G together: G keeps its default (less if the time is shorter) and L takes the rest", s))
	return rest - s1*G, G
}
