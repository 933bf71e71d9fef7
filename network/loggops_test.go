package network

import (
	"strings"
	"testing"

	"github.com/capsim/capsim/traces/graph"
)

func TestParseSpec(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want LogGOPS
		err  string
	}{
		{"loggops", DefaultLogGOPS(), ""},
		{"loggops:", DefaultLogGOPS(), ""},
		{"loggops:L=5000,o=200,g=100,G=2,O=1,S=4096", NewLogGOPS(5000, 200, 100, 2, 1, 4096), ""},
		{"loggops:L=10", NewLogGOPS(10, 1500, 1000, 6, 0, 65535), ""},
		{"loggops: o = 7 , S=0", NewLogGOPS(2500, 7, 1000, 6, 0, 0), ""},
		{"logp:L=1", LogGOPS{}, "unknown model"},
		{"loggops:l=1", LogGOPS{}, "unknown parameter \"l\""},
		{"loggops:L=-1", LogGOPS{}, `L="-1" is not a time like 1500, 800ns or 1.5us: -1 is negative`},
		{"loggops:L=1,L=2", LogGOPS{}, "given twice"},
		{"loggops:L", LogGOPS{}, "not KEY=VALUE"},
		{"loggp:L=2us,bw=10Gb/s,H=16", LogGOPS{Latency: 2000, Overhead: 1500, Gap: 1000, GapPerByte: mustPerByte(t, "0.8"), EagerLimit: 65535, HeaderBytes: 16, LogGP: true}, ""},
		{"loggops:H=0", DefaultLogGOPS(), ""},
		{"loggp:L=2us,bw=10Gb/s,offload=1", LogGOPS{Latency: 2000, Overhead: 1500, Gap: 1000, GapPerByte: mustPerByte(t, "0.8"), EagerLimit: 65535, LogGP: true, Offload: true}, ""},
		{"loggp:offload=0", LogGOPS{Latency: 2500, Overhead: 1500, Gap: 1000, GapPerByte: NsPerByte(6), EagerLimit: 65535, LogGP: true}, ""},
		{"loggops:offload=1", LogGOPS{}, "offload=1 needs the LogGP variant"},
		{"loggp:offload=yes", LogGOPS{}, `offload="yes" is not 0 or 1`},
		{"loggops:H=-1", LogGOPS{}, `H="-1" is not a non-negative integer number of bytes`},
		{"loggops:H=1.5", LogGOPS{}, `H="1.5" is not a non-negative integer number of bytes`},
		{"loggops:H=2000000000", LogGOPS{}, "H = 2000000000 bytes exceeds 1073741824 bytes"},
	} {
		got, err := ParseSpec(tc.spec)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseSpec(%q) err = %v, want %q", tc.spec, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseSpec(%q) = %v, %v; want %v", tc.spec, got, err, tc.want)
		}
		if back, err := ParseSpec(got.String()); err != nil || back != got {
			t.Errorf("String() %q does not parse back: %v", got.String(), err)
		}
	}
}

func TestCost(t *testing.T) {
	p := DefaultLogGOPS()
	// 2o + L + (s-1)G = 3000 + 2500 + 7*6
	if got := p.Cost(8); got != 5542 {
		t.Errorf("Cost(8) = %d, want 5542", got)
	}
	if got := p.Cost(0); got != 5500 {
		t.Errorf("Cost(0) = %d, want 5500", got)
	}
}

// TestHeaderBytes checks that H adds bytes to what G prices and nothing
// to what O prices: SMPI's 16-byte envelope on an 80,000-byte message at
// 10 Gb/s over 2 us is 2000 + 80,015 · 0.8 = 66,012 ns in flight (LogGP,
// whose (s−1)·G counts one byte less than SimGrid's size/bandwidth).
func TestHeaderBytes(t *testing.T) {
	p, err := ParseSpec("loggp:L=2us,o=0,g=0,bw=10Gb/s,O=1,S=0,H=16")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.String(), "loggp:L=2000,o=0,g=0,G=0.8,O=1,S=0,H=16"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	// LogGP: L + (s+H−1)·G + (s−1)·O.
	if got, want := p.Cost(80000), int64(2000+64012+79999); got != want {
		t.Errorf("Cost(80000) = %d, want %d", got, want)
	}
	if got, want := p.SendGap(80000), int64(64012); got != want {
		t.Errorf("SendGap(80000) = %d, want %d", got, want)
	}
	// An empty message still carries its header.
	if got, want := p.SendGap(0), int64(12); got != want {
		t.Errorf("SendGap(0) = %d, want %d", got, want)
	}
	p.HeaderBytes = 0
	if got, want := p.SendGap(80000), int64(63999); got != want {
		t.Errorf("SendGap(80000) without header = %d, want %d", got, want)
	}
	// LogGOPS: the receiver's max((s−1)·O, (s+H−1)·G).
	q := NewLogGOPS(0, 0, 0, 4, 5, 0)
	q.HeaderBytes = 100
	if got, want := q.Cost(10), int64(max(9*5, 109*4)); got != want {
		t.Errorf("LogGOPS Cost(10) with H=100 = %d, want %d", got, want)
	}
}

func TestSendGap(t *testing.T) {
	p := DefaultLogGOPS()
	// g + (s−1)·G = 1000 + 7·6; an empty message holds the interface for g.
	for _, c := range []struct{ bytes, want int64 }{{8, 1042}, {1, 1000}, {0, 1000}} {
		if got := p.SendGap(c.bytes); got != c.want {
			t.Errorf("SendGap(%d) = %d, want %d", c.bytes, got, c.want)
		}
	}
}

// Times are bounded by graph.MaxTimeNs, times per byte by MaxPerByteNs,
// and the analytic costs saturate past MaxTimeNs instead of wrapping
// (2^40 bytes at G = 10^9 ns/byte wrapped to a negative cost).
func TestTimeLimit(t *testing.T) {
	for _, spec := range []string{"loggops:L=9000000000000000000", "loggops:o=1000000000000000001", "loggops:g=1000000001s"} {
		if _, err := ParseSpec(spec); err == nil || !strings.Contains(err.Error(), "MaxTimeNs") {
			t.Errorf("%s: err %v, want the limit", spec, err)
		}
	}
	for _, spec := range []string{"loggops:G=2000000000000000000", "loggops:O=1000000000000.000001", "loggops:G=0.0009B/s"} {
		if _, err := ParseSpec(spec); err == nil || !strings.Contains(err.Error(), "exceeds 1000000000000 ns per byte") {
			t.Errorf("%s: err %v, want the limit", spec, err)
		}
	}
	if p := NewLogGOPS(0, 0, 0, 2e18, 0, 0); p.Validate() == nil {
		t.Errorf("NewLogGOPS with G = 2e18 ns per byte validates")
	}
	if _, err := ParseSpec("loggops:L=1000000000000000000,S=9000000000000000000"); err != nil {
		t.Errorf("L at the limit, large S: %v", err)
	}
	if _, err := ParseOverride("comm=1;L=9000000000000000000", DefaultLogGOPS()); err == nil || !strings.Contains(err.Error(), "MaxTimeNs") {
		t.Errorf("override with L=9e18: err %v, want the limit", err)
	}
	p := NewLogGOPS(2500, 1500, 1000, 1e9, 0, 65535)
	if c := p.Cost(1 << 40); c != graph.MaxTimeNs+1 {
		t.Errorf("Cost(2^40) = %d, want the saturated %d", c, graph.MaxTimeNs+1)
	}
	if c := p.SendGap(1 << 40); c != graph.MaxTimeNs+1 {
		t.Errorf("SendGap(2^40) = %d, want the saturated %d", c, graph.MaxTimeNs+1)
	}
	if c := DefaultLogGOPS().Cost(9); c != 2*1500+2500+8*6 {
		t.Errorf("Cost(9) = %d", c)
	}
}
