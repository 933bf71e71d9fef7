package network

import (
	"strings"
	"testing"

	"github.com/capsim/capsim/traces/graph"
)

func TestParsePerByte(t *testing.T) {
	for _, tc := range []struct {
		in  string
		fs  int64 // femtoseconds per byte
		str string
		err string
	}{
		{"6", 6_000_000, "6", ""},
		{"0", 0, "0", ""},
		{"0.08", 80_000, "0.08", ""},
		{" 2.5e-2 ", 25_000, "0.025", ""},
		{"0.000001", 1, "0.000001", ""},
		{"0.0000015", 2, "0.000002", ""}, // 1.5 fs rounds half up
		{"12.5GB/s", 80_000, "0.08", ""}, // 10⁹/12.5e9 ns
		{"100Gb/s", 80_000, "0.08", ""},  // 12.5 GB/s
		{"10Gb/s", 800_000, "0.8", ""},
		{"400Gb/s", 20_000, "0.02", ""},
		{"1 GB/s", 1_000_000, "1", ""},
		{"1000MB/s", 1_000_000, "1", ""},
		{"1e6KB/s", 1_000_000, "1", ""},
		{"1kB/s", 1_000_000_000_000, "1000000", ""},
		{"8b/s", 1_000_000_000_000_000, "1000000000", ""},
		{"1TB/s", 1_000, "0.001", ""},
		{"8Tb/s", 1_000, "0.001", ""},
		{"3GB/s", 333_333, "0.333333", ""},  // 333,333.3 fs
		{"1GiB/s", 931_323, "0.931323", ""}, // 10¹⁵/2³⁰ = 931,322.57 fs
		{"1MiB/s", 953_674_316, "953.674316", ""},
		{"abc", 0, "", `"abc" is not a number`},
		{"", 0, "", "is not a number"},
		{"-1", 0, "", "is negative"},
		{"1/3", 0, "", `unknown unit "/3"`},
		{"5 parsecs", 0, "", `unknown unit "parsecs"`},
		{"0GB/s", 0, "", "is not positive"},
		{"-1GB/s", 0, "", "is not positive"},
		{"1e-7", 0, "", "below the resolution"},
		{"1e18GB/s", 0, "", "below the resolution"},
		{"1e13", 0, "", "exceeds 1000000000000 ns per byte"},
		{"1e99999999", 0, "", `"1e99999999": exponent beyond ±30`},
		{"NaN", 0, "", `"NaN" is not a number`},
		{"Inf", 0, "", `"Inf" is not a number`},
		{"1.2.3", 0, "", "is not a number"},
	} {
		x, err := ParsePerByte(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParsePerByte(%q) = %v, %v; want error %q", tc.in, x, err, tc.err)
			}
			continue
		}
		if err != nil || x.Femtoseconds() != tc.fs || x.String() != tc.str {
			t.Errorf("ParsePerByte(%q) = %d fs %q, %v; want %d fs %q", tc.in, x.Femtoseconds(), x, err, tc.fs, tc.str)
		}
	}
}

func TestParseNs(t *testing.T) {
	for _, tc := range []struct {
		in  string
		ns  int64
		err string
	}{
		{"1500", 1500, ""},
		{"800ns", 800, ""},
		{"1.5us", 1500, ""},
		{"1.5µs", 1500, ""},
		{"2ms", 2_000_000, ""},
		{"1s", 1_000_000_000, ""},
		{"0.5 us", 500, ""},
		{"1e3", 1000, ""},
		{"1000000000s", graph.MaxTimeNs, ""},
		{"1.5", 0, "not a whole number of ns"},
		{"0.1ns", 0, "not a whole number of ns"},
		{"1.0000000001s", 0, "not a whole number of ns"},
		{"-5us", 0, "is negative"},
		{"5min", 0, `unknown unit "min"`},
		{"us", 0, "is not a number"},
		{"1000000001s", 1_000_000_001_000_000_000, ""}, // beyond graph.MaxTimeNs: Validate's to refuse
		{"9223372036854775808", 0, "is too large"},
		{"99999999999999999999", 0, "is too large"},
	} {
		ns, err := ParseNs(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseNs(%q) = %d, %v; want error %q", tc.in, ns, err, tc.err)
			}
			continue
		}
		if err != nil || ns != tc.ns {
			t.Errorf("ParseNs(%q) = %d, %v; want %d", tc.in, ns, err, tc.ns)
		}
	}
}

func TestParseSpecUnits(t *testing.T) {
	for _, tc := range []struct {
		spec, same string // two specs of the same parameters
	}{
		{"loggp:L=1.5us,bw=10Gb/s", "loggp:L=1500,G=0.8"},
		{"loggops:G=100Gb/s", "loggops:G=0.08"},
		{"loggops:bw=12.5GB/s", "loggops:G=0.08"},
		{"loggops:o=2us,g=0.5us,O=50GB/s", "loggops:o=2000,g=500,O=0.02"},
		{"loggops:L=2ms", "loggops:L=2000000"},
		{"loggops:G=6", "loggops"},
	} {
		a, err := ParseSpec(tc.spec)
		if err != nil {
			t.Fatalf("ParseSpec(%q): %v", tc.spec, err)
		}
		b, err := ParseSpec(tc.same)
		if err != nil {
			t.Fatalf("ParseSpec(%q): %v", tc.same, err)
		}
		if a != b {
			t.Errorf("%q = %v, want %q = %v", tc.spec, a, tc.same, b)
		}
		if back, err := ParseSpec(a.String()); err != nil || back != a {
			t.Errorf("String() %q does not parse back: %v, %v", a.String(), back, err)
		}
	}
	want := "loggp:L=1500,o=1500,g=1000,G=0.8,O=0,S=65535"
	if p, _ := ParseSpec("loggp:L=1.5us,bw=10Gb/s"); p.String() != want {
		t.Errorf("String() = %q, want %q", p.String(), want)
	}
}

func TestParseSpecErrors(t *testing.T) {
	for _, tc := range []struct{ spec, err string }{
		{"loggp:G=abc", `network spec "loggp:G=abc": G="abc" is not a number of ns per byte or a bandwidth like 12.5GB/s: "abc" is not a number`},
		{"loggp:O=-0.5", `O="-0.5" is not a number of ns per byte or a bandwidth like 12.5GB/s: -0.5 is negative`},
		{"loggp:L=1.5", `L="1.5" is not a time like 1500, 800ns or 1.5us: 1.5 is not a whole number of ns`},
		{"loggp:g=3furlongs", `g="3furlongs" is not a time like 1500, 800ns or 1.5us: unknown unit "furlongs"`},
		{"loggp:bw=0.08", `bw="0.08" is not a bandwidth like 12.5GB/s or 100Gb/s: a bandwidth needs a unit`},
		{"loggp:bw=1us", `bw="1us" is not a bandwidth like 12.5GB/s or 100Gb/s`},
		{"loggp:bw=10Gb/s,G=1", "G given twice (as G or bw)"},
		{"loggp:G=1,bw=10Gb/s", "G given twice (as G or bw)"},
		{"loggp:bw=1GB/s,bw=1GB/s", "G given twice (as G or bw)"},
		{"loggp:S=1.5", `S="1.5" is not a non-negative integer number of bytes`},
		{"loggp:S=-1", `S="-1" is not a non-negative integer number of bytes`},
	} {
		if _, err := ParseSpec(tc.spec); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("ParseSpec(%q) err = %v, want %q", tc.spec, err, tc.err)
		}
	}
}

// A 100 Gb/s network prices a 1 MiB message at G = 0.08 ns per byte:
// (2^20 − 1) · 0.08 = 1,048,575 · 0.08 = 83,886 ns exactly, so the
// LogGP cost is 2o + L + 83,886 = 3,000 + 2,500 + 83,886 = 89,386 ns and
// the send holds the NIC g + 83,886 = 84,886 ns.
func TestCost100Gbps(t *testing.T) {
	p, err := ParseSpec("loggp:bw=100Gb/s")
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Cost(1 << 20); got != 89_386 {
		t.Errorf("Cost(1 MiB) = %d ns, want 89,386", got)
	}
	if got := p.SendGap(1 << 20); got != 84_886 {
		t.Errorf("SendGap(1 MiB) = %d ns, want 84,886", got)
	}
	// At 400 Gb/s (G = 0.02) 10^6 bytes take 999,999 · 0.02 =
	// 19,999.98 ns, rounded once to 20,000.
	p.GapPerByte = NsPerByte(0).Max(mustPerByte(t, "400Gb/s"))
	if got := p.Cost(1_000_000); got != 5_500+20_000 {
		t.Errorf("Cost(1 MB at 400 Gb/s) = %d ns, want 25,500", got)
	}
	// LogGP rounds (s−1)·G and (s−1)·O each once: with G = O = 0.25 and
	// s = 3, 0.5 + 0.5 → 1 + 1.
	p.GapPerByte, p.OverheadPerByte = mustPerByte(t, "0.25"), mustPerByte(t, "0.25")
	if got := p.Cost(3); got != 5_502 {
		t.Errorf("LogGP Cost(3) at G = O = 0.25 = %d, want 5,502", got)
	}
}

func mustPerByte(t *testing.T, s string) PerByte {
	t.Helper()
	x, err := ParsePerByte(s)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func TestTimes(t *testing.T) {
	for _, tc := range []struct {
		x    PerByte
		n    int64
		want int64
	}{
		{NsPerByte(6), 7, 42},
		{PerByteFs(500_000), 1, 1},   // 0.5 rounds half up
		{PerByteFs(499_999), 1, 0},   // 0.499999
		{PerByteFs(1_500_000), 1, 2}, // 1.5
		{PerByteFs(80_000), 1 << 20, 83_886},
		{PerByteFs(1), 499_999, 0},
		{PerByteFs(1), 500_000, 1},
		{NsPerByte(3), 0, 0},
		{NsPerByte(3), -5, 0},
		{NsPerByte(1e9), 1e9, graph.MaxTimeNs},
		{NsPerByte(1e9), 1e9 + 1, graph.MaxTimeNs + 1},
		{NsPerByte(MaxPerByteNs), 1 << 62, graph.MaxTimeNs + 1},
		// 2^64 fs and more take the 128-bit division: 2^44 · 10^6 fs.
		{NsPerByte(1 << 20), 1 << 24, 1 << 44},
		// 2^45 · 0.999999 = 35,184,372,088,832 − 35,184,372.088832
		// = 35,184,336,904,459.911168
		{PerByteFs(999_999), 1 << 45, 35_184_336_904_460},
	} {
		if got := tc.x.Times(tc.n); got != tc.want {
			t.Errorf("%v.Times(%d) = %d, want %d", tc.x, tc.n, got, tc.want)
		}
	}
}

func TestPerByteFromFloat(t *testing.T) {
	for _, tc := range []struct {
		v  float64
		fs int64
	}{{0.08, 80_000}, {6, 6_000_000}, {0.1 + 0.2, 300_000}, {1e-6, 1}} {
		if x, err := PerByteFromFloat(tc.v); err != nil || x.Femtoseconds() != tc.fs {
			t.Errorf("PerByteFromFloat(%v) = %d fs, %v; want %d", tc.v, x.Femtoseconds(), err, tc.fs)
		}
	}
}

// FuzzParseSpec checks that ParseSpec never panics, that what it accepts
// is valid and round-trips through String, and that its costs neither
// panic nor go negative.
func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{
		"loggops", "loggp", "loggops:L=5000,o=200,g=100,G=2,O=1,S=4096",
		"loggp:L=1.5us,bw=10Gb/s", "loggp:G=0.08", "loggops:G=3GB/s,O=1GiB/s",
		"loggops:L=2ms,o=800ns,g=1µs", "loggp:G=abc", "loggops:G=1e-7", "loggops:G=1e12",
		"loggops:bw=1kb/s,S=0", "loggp:G=0.000001,O=999999.999999",
		"loggops:L=", "x:y", "loggops:L=1,L=2", "loggp:L=2us,bw=10Gb/s,H=16", "loggops:H=-1,S=0",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		p, err := ParseSpec(spec)
		if err != nil {
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("ParseSpec(%q) accepted invalid %v: %v", spec, p, err)
		}
		back, err := ParseSpec(p.String())
		if err != nil || back != p {
			t.Fatalf("ParseSpec(%q).String() = %q parses to %v, %v", spec, p.String(), back, err)
		}
		for _, s := range []int64{0, 1, 2, 1 << 20, 1 << 40, 1 << 62} {
			if c, g := p.Cost(s), p.SendGap(s); c < 0 || g < 0 || c > graph.MaxTimeNs+1 || g > graph.MaxTimeNs+1 {
				t.Fatalf("%v: Cost(%d) = %d, SendGap = %d", p, s, c, g)
			}
		}
	})
}

// FuzzParseUnits checks that the value parsers never panic, that a time
// per byte prints back to itself, and that times and bandwidths stay in
// their ranges.
func FuzzParseUnits(f *testing.F) {
	for _, s := range []string{"6", "0.08", "100Gb/s", "1.5us", "2ms", "1GiB/s", "3 GB/s", "1e-7", "1e31", "-0", "µs", "1e+5kb/s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if x, err := ParsePerByte(s); err == nil {
			if x.fs < 0 || x.fs > MaxPerByteNs*FsPerNs {
				t.Fatalf("ParsePerByte(%q) = %d fs, out of range", s, x.fs)
			}
			if y, err := ParsePerByte(x.String()); err != nil || y != x {
				t.Fatalf("ParsePerByte(%q) = %v prints %q, which parses to %v, %v", s, x, x.String(), y, err)
			}
		}
		if ns, err := ParseNs(s); err == nil && ns < 0 {
			t.Fatalf("ParseNs(%q) = %d, out of range", s, ns)
		}
		if bw, err := ParseBandwidth(s); err == nil && !(bw > 0 && bw < 1e300) {
			t.Fatalf("ParseBandwidth(%q) = %g", s, bw)
		}
	})
}

func TestParseOverrideUnits(t *testing.T) {
	o, err := ParseOverride("comm=node;L=0.3us,bw=400Gb/s", DefaultLogGOPS())
	if err != nil {
		t.Fatal(err)
	}
	if want := "loggops:L=300,o=1500,g=1000,G=0.02,O=0,S=65535"; o.Comm != "node" || o.Params.String() != want {
		t.Errorf("override %+v, want comm node and %s", o, want)
	}
	if _, err := ParseOverride("comm=node;G=fast", DefaultLogGOPS()); err == nil || !strings.Contains(err.Error(), `G="fast" is not a number of ns per byte`) {
		t.Errorf("G=fast: err %v", err)
	}
}
