package scenarios

import (
	"strings"
	"testing"

	"github.com/capsim/capsim/network"
)

// The network tables take G and O as real numbers or bandwidths and L,
// o, g as integers or times with units, as the --net spec does.
func TestNetworkUnits(t *testing.T) {
	base := string(Default())
	set := func(repl ...string) string {
		s := base
		for i := 0; i < len(repl); i += 2 {
			if !strings.Contains(s, repl[i]) {
				t.Fatalf("default scenario lacks %q", repl[i])
			}
			s = strings.Replace(s, repl[i], repl[i+1], 1)
		}
		return s
	}
	for _, tc := range []struct {
		name, text string
		want       string // network.LogGOPS.String of Net()
	}{
		{"default", base, "loggops:L=2500,o=1500,g=1000,G=6,O=0,S=65535"},
		{"float G", set("G_ns_per_byte = 6", "G_ns_per_byte = 0.08"), "loggops:L=2500,o=1500,g=1000,G=0.08,O=0,S=65535"},
		{"bandwidth G", set("G_ns_per_byte = 6", `G_ns_per_byte = "100Gb/s"`), "loggops:L=2500,o=1500,g=1000,G=0.08,O=0,S=65535"},
		{"bandwidth O", set("O_ns_per_byte = 0", `O_ns_per_byte = "20GB/s"`), "loggops:L=2500,o=1500,g=1000,G=6,O=0.05,S=65535"},
		{"times", set("L_ns = 2500", `L_ns = "1.5us"`, "o_ns = 1500", `o_ns = "800ns"`, "g_ns = 1000", "g_ns = 2000.0"),
			"loggops:L=1500,o=800,g=2000,G=6,O=0,S=65535"},
		{"header", set("S_bytes = 65535", "S_bytes = 65535\nH_bytes = 16"), "loggops:L=2500,o=1500,g=1000,G=6,O=0,S=65535,H=16"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse("my.toml", []byte(tc.text))
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Net().String(); got != tc.want {
				t.Errorf("Net() = %s, want %s", got, tc.want)
			}
		})
	}
	text := set("[workload]", "[[network.override]]\nregion = \"a\"\nG_ns_per_byte = \"10Gb/s\"\nL_ns = \"0.5us\"\nH_bytes = 8\n\n[workload]")
	s, err := Parse("my.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if o := s.Overrides(); len(o) != 1 || o[0].Params.String() != "loggops:L=500,o=1500,g=1000,G=0.8,O=0,S=65535,H=8" {
		t.Errorf("Overrides() = %v", o)
	}
	scenarioAxes["network.G_ns_per_byte"].set(s, 0.08)
	if got := s.Net().GapPerByte; got != network.PerByteFs(80_000) {
		t.Errorf("sweep axis G = 0.08: got %v", got)
	}
	if msg := scenarioAxes["network.G_ns_per_byte"].check(1e-9); !strings.Contains(msg, "below the resolution") {
		t.Errorf("sweep axis G = 1e-9: check %q", msg)
	}
	scenarioAxes["network.H_bytes"].set(s, 16)
	if got := s.Net().HeaderBytes; got != 16 {
		t.Errorf("sweep axis H = 16: got %d", got)
	}
	if msg := scenarioAxes["network.H_bytes"].check(1.5); msg == "" {
		t.Errorf("sweep axis H = 1.5: accepted")
	}
}

func TestNetworkUnitErrors(t *testing.T) {
	base := string(Default())
	for _, tc := range []struct{ name, from, to, want string }{
		{"bad G", "G_ns_per_byte = 6", `G_ns_per_byte = "fast"`, `key network.G_ns_per_byte: "fast" is not a number of ns per byte or a bandwidth like "12.5GB/s": "fast" is not a number`},
		{"zero bandwidth", "G_ns_per_byte = 6", `G_ns_per_byte = "0Gb/s"`, "bandwidth 0Gb/s is not positive"},
		{"negative G", "G_ns_per_byte = 6", "G_ns_per_byte = -0.5", "key network.G_ns_per_byte: must be ≥ 0, got -0.5"},
		{"huge G", "G_ns_per_byte = 6", "G_ns_per_byte = 2000000000000", "key network.G_ns_per_byte: 2000000000000 exceeds 1000000000000 ns per byte"},
		{"fractional L", "L_ns = 2500", "L_ns = 2.5", "key network.L_ns: 2.5 is not a whole number of ns"},
		{"bad L unit", "L_ns = 2500", `L_ns = "3 weeks"`, `key network.L_ns: "3 weeks" is not a time like 1500`},
		{"negative H", "S_bytes = 65535", "S_bytes = 65535\nH_bytes = -1", "key network.H_bytes: must be in 0..1073741824 bytes, got -1"},
		{"override H", "[workload]", "[[network.override]]\nregion = \"a\"\nH_bytes = 2000000000\n\n[workload]", "override 1: must be in 0..1073741824 bytes, got 2000000000"},
		{"override G", "[workload]", "[[network.override]]\nregion = \"a\"\nG_ns_per_byte = 1e13\n\n[workload]", "key network.override.G_ns_per_byte: 1e+13 is not a number of ns per byte or a bandwidth like \"12.5GB/s\": 1e+13 exceeds 1000000000000 ns per byte"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("my.toml", []byte(strings.Replace(base, tc.from, tc.to, 1)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
