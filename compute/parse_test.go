package compute

import (
	"strings"
	"testing"
)

func TestParseConfig(t *testing.T) {
	tests := []struct {
		in   string
		want Config
		err  bool
	}{
		{"", Config{}, false},
		{"cpu=2.4,threads=8,mem=1.6", Config{CPUFreqGHz: 2.4, Threads: 8, MemFreqGHz: 1.6}, false},
		{" device = gpu0 , throttle=60", Config{Device: "gpu0", MemThrottle: 60}, false},
		{"cpu=fast", Config{}, true},
		{"cpu=-1", Config{}, true},
		{"threads=2.5", Config{}, true},
		{"volts=1", Config{}, true},
		{"cpu=1,cpu=2", Config{}, true},
		{"cpu", Config{}, true},
		{"cpu=NaN", Config{}, true},
		{"freq=1.6,threads=8", Config{CPUFreqGHz: 1.6, Threads: 8}, false},
		{"freq=1.6,cpu=2", Config{}, true},
	}
	for _, tc := range tests {
		got, err := ParseConfig(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseConfig(%q) = %+v, %v; want %+v, error %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestParseTarget(t *testing.T) {
	tg, err := ParseTarget("cpu=2.4,threads=8", []string{"io_*:cpu=1.2"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := tg.For("io_write")
	if err != nil || c != (Config{CPUFreqGHz: 1.2, Threads: 8}) {
		t.Errorf("io_write: %+v %v, want 1.2 GHz x8", c, err)
	}
	c, _ = tg.For("solve")
	if c != (Config{CPUFreqGHz: 2.4, Threads: 8}) {
		t.Errorf("solve: %+v", c)
	}
	if _, err := ParseTarget("", []string{"nocolon"}); err == nil || !strings.Contains(err.Error(), "nocolon") {
		t.Errorf("bad override: %v", err)
	}
}

func TestParseConfigRule(t *testing.T) {
	tests := []struct {
		in   string
		want ConfigRule
		err  bool
	}{
		{"io_*:cpu=1.2", ConfigRule{"io_*", Config{CPUFreqGHz: 1.2}}, false},
		{"stencil.*=device=gpu0", ConfigRule{"stencil.*", Config{Device: "gpu0"}}, false},
		{" solve = freq=1.6,threads=4", ConfigRule{"solve", Config{CPUFreqGHz: 1.6, Threads: 4}}, false},
		{"a:b=c:d", ConfigRule{}, true}, // unknown key "b"
		{"=cpu=1", ConfigRule{}, true},
		{"nosep", ConfigRule{}, true},
		{"[a:cpu=1", ConfigRule{}, true}, // bad glob
		{"x:cpu=-2", ConfigRule{}, true},
	}
	for _, tc := range tests {
		got, err := ParseConfigRule(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseConfigRule(%q) = %+v, %v; want %+v, error %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func FuzzParseConfigRule(f *testing.F) {
	f.Add("stencil.*=device=gpu0,cpu=1.6")
	f.Add("io_*:threads=4")
	f.Add("[:cpu=1")
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseConfigRule(s)
		if err != nil {
			return
		}
		if r.Pattern == "" || strings.ContainsAny(r.Pattern, ":=") {
			t.Fatalf("pattern %q accepted from %q", r.Pattern, s)
		}
		if _, err := (Target{Rules: []ConfigRule{r}}).For("x"); err != nil {
			t.Fatalf("accepted rule %q fails to match: %v", s, err)
		}
	})
}

func FuzzParseConfig(f *testing.F) {
	f.Add("cpu=2.4,threads=8,mem=1.6,throttle=3,device=gpu0")
	f.Add("threads=99999999999999999999")
	f.Add("freq=1.6,device=gpu0")
	f.Add("cpu=2600")
	f.Add("mem=100.0000001")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseConfig(s)
		if err != nil {
			return
		}
		if c.CPUFreqGHz < 0 || c.Threads < 0 || c.MemFreqGHz < 0 || c.MemThrottle < 0 {
			t.Fatalf("accepted negative config %+v from %q", c, s)
		}
		if c.CPUFreqGHz > MaxGHz || c.MemFreqGHz > MaxGHz {
			t.Fatalf("accepted a clock past MaxGHz %+v from %q", c, s)
		}
		// A key written is a value, never the zero that means "as
		// recorded" (throttle's 0 is a throttle).
		for _, kv := range strings.Split(s, ",") {
			k, _, _ := strings.Cut(strings.TrimSpace(kv), "=")
			zero := map[string]bool{"cpu": c.CPUFreqGHz == 0, "freq": c.CPUFreqGHz == 0, "mem": c.MemFreqGHz == 0, "threads": c.Threads == 0}
			if zero[strings.TrimSpace(k)] {
				t.Fatalf("accepted %q as %+v: %s written but 0", s, c, k)
			}
		}
	})
}

// FuzzParseTarget checks that ParseTarget is ParseConfig of the default
// plus ParseConfigRule of each override, and that an accepted target
// resolves a region without error.
func FuzzParseTarget(f *testing.F) {
	f.Add("cpu=2.4", "io_*:cpu=1.2")
	f.Add("", "stencil.*=device=gpu0")
	f.Add("cpu=x", "a:b")
	f.Fuzz(func(t *testing.T, def, override string) {
		tg, err := ParseTarget(def, []string{override})
		d, derr := ParseConfig(def)
		r, rerr := ParseConfigRule(override)
		if (err == nil) != (derr == nil && rerr == nil) {
			t.Fatalf("ParseTarget(%q, %q) error %v; parts %v, %v", def, override, err, derr, rerr)
		}
		if err != nil {
			return
		}
		if tg.Default != d || len(tg.Rules) != 1 || tg.Rules[0] != r {
			t.Fatalf("ParseTarget(%q, %q) = %+v", def, override, tg)
		}
		if _, err := tg.For("region"); err != nil {
			t.Fatalf("accepted target fails: %v", err)
		}
	})
}

// A clock past compute.MaxGHz names the unit it was likely given in:
// MHz below 10^5 GHz, kHz or Hz from there, as gpu.CheckMHz does.
func TestCheckGHzNamesUnit(t *testing.T) {
	for _, c := range []struct {
		ghz  float64
		want string
	}{
		{2.6, ""},
		{100, ""},
		{2600, "a clock in MHz?"},
		{2.6e6, "a clock in kHz or Hz?"},
		{2.6e9, "a clock in kHz or Hz?"},
	} {
		err := CheckGHz(c.ghz)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("CheckGHz(%g) = %v, want %q", c.ghz, err, c.want)
		}
	}
}
