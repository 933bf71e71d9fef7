package scenarios

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/capsim/capsim/compute/power"
	"github.com/capsim/capsim/network"
)

func TestDefaultParses(t *testing.T) {
	s, err := LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Machines) != 1 || len(s.Machines[0].PStates) != 5 || s.Machines[0].PStates[0].FreqGHz != 2.1 {
		t.Fatalf("machines = %+v", s.Machines)
	}
	if len(s.Sweep.CapsW) != 10 || s.Sweep.CapsW[0] != 290 || s.Sweep.CapsW[9] != 380 {
		t.Fatalf("caps = %v", s.Sweep.CapsW)
	}
	if s.Network.SBytes != 65535 || s.Network.GNsPerByte != network.NsPerByte(6) {
		t.Fatalf("network = %+v", s.Network)
	}
}

func TestParseErrorsNameLineAndKey(t *testing.T) {
	base := string(Default())
	for _, tc := range []struct {
		name, text, want string
		line             int
	}{
		{"unknown key in table", strings.Replace(base, "L_ns = 2500", "L_ns = 2500\nlatency = 3", 1), "key network.latency: unknown key", -1},
		{"unknown top-level key", "colour = 1\n" + base, "key colour: unknown key", 1},
		{"syntax", base + "\n[sweep\n", "", -1},
		{"bad policy", strings.Replace(base, `"lp"]`, `"lp", "magic"]`, 1), `key sweep.policies: unknown policy "magic"`, -1},
		{"bad cap range", strings.Replace(base, `"290:380:10"`, `"300:200:10"`, 1), "key sweep.caps: cap range", -1},
		{"neg latency", strings.Replace(base, "L_ns = 2500", "L_ns = -1", 1), "key network.L_ns: must be ≥ 0", -1},
		{"too many ranks", strings.Replace(base, "ranks_per_node = 8", "ranks_per_node = 17", 1), "exceed 16 cores", -1},
		{"override selects nothing", strings.Replace(base, "[workload]", "[[network.override]]\nL_ns = 3\n\n[workload]", 1), "key network.override: override 1 selects nothing", -1},
		{"override bad glob", strings.Replace(base, "[workload]", "[[network.override]]\nregion = \"[\"\n\n[workload]", 1), "key network.override.region: override 1", -1},
		{"override neg", strings.Replace(base, "[workload]", "[[network.override]]\nregion = \"a\"\nG_ns_per_byte = -2\n\n[workload]", 1), "key network.override.G_ns_per_byte: override 1: must be ≥ 0", -1},
		{"bound slack policy", base + "\n[bound]\nslack_policy = \"alap\"\n", `key bound.slack_policy: unknown slack policy "alap"`, -1},
		{"bound slack policy engine", base + "\n[bound]\nslack_policy = \"late\"\n", `key bound.slack_policy: "late" applies to bound.messages = "replay" or "loggops"`, -1},
		{"bound tie dropped", base + "\n[bound]\ntie_us = 3.0\n", "tie_us", -1},
		{"override unknown key", strings.Replace(base, "[workload]", "[[network.override]]\nregion = \"a\"\nbandwidth = 2\n\n[workload]", 1), "key network.override.bandwidth: unknown key", -1},
		{"duplicate cap", strings.Replace(base, `caps = "290:380:10"`, "caps_w = [300, 320, 300]", 1), "key sweep.caps_w: cap 300 W listed twice", 63},
		{"cap below idle floor", strings.Replace(base, `caps = "290:380:10"`, "caps_w = [10, 300]", 1), "key sweep.caps_w: cap 10 W is at or below machine pal's idle floor of 180 W (2 nodes × 2 sockets × idle_power_w 45 W)", 63},
		{"cap range at idle floor", strings.Replace(base, `"290:380:10"`, `"180:380:10"`, 1), "key sweep.caps: cap 180 W is at or below machine pal's idle floor of 180 W", 63},
		{"node cap below a node's idle floor", strings.Replace(base, `caps = "290:380:10"`, "caps_w = [90, 300]\ncap_scope = \"node\"", 1), `key sweep.caps_w: cap 90 W per node (sweep.cap_scope = "node") is at or below machine pal's idle floor of 90 W per node (2 sockets × idle_power_w 45 W)`, 63},
		{"cap below axis idle floor", base + "\n[sweep.params]\n\"machine.idle_power_w\" = [45.0, 80]\n", "cap 290 W is at or below machine pal's idle floor of 320 W (2 nodes × 2 sockets × sweep.params.machine.idle_power_w up to 80 W)", 63},
		{"wait power word", strings.Replace(base, "ranks_per_node = 8", "ranks_per_node = 8\nwait_power = \"busy\"", 1), `wait power "busy": want task, idle or a number of watts`, 15},
		{"wait power negative", strings.Replace(base, "ranks_per_node = 8", "ranks_per_node = 8\nwait_power = -2.5", 1), "wait power -2.5 W: want a finite number ≥ 0", 15},
		{"wait power bool", strings.Replace(base, "ranks_per_node = 8", "ranks_per_node = 8\nwait_power = true", 1), "wait power true", 15},
		// The TOML decoder said "cannot contain control characters: '0x1f'".
		{"gzipped scenario", "\x1f\x8b\x08\x00" + base, "a gzip-compressed file, not TOML text: unpack it first", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("my.toml", []byte(tc.text))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want a ParseError", err)
			}
			if !strings.HasPrefix(err.Error(), "my.toml:") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %q, want file name and %q", err, tc.want)
			}
			if tc.line > 0 && pe.Line != tc.line {
				t.Errorf("line = %d, want %d", pe.Line, tc.line)
			}
			if pe.Line == 0 && tc.name != "too many ranks" && tc.name != "bad policy" && !strings.HasPrefix(tc.name, "override") && !strings.HasPrefix(tc.name, "bound") {
				t.Errorf("no line in %q", err)
			}
		})
	}
}

// wait_power reads "task", "idle" or watts; the default is "task".
func TestWaitPowerKey(t *testing.T) {
	base := string(Default())
	for _, tc := range []struct {
		set  string
		want power.WaitPower
	}{
		{"", power.WaitPower{}},
		{"wait_power = \"task\"", power.WaitPower{}},
		{"wait_power = \"idle\"", power.WaitPower{Mode: power.WaitIdle}},
		{"wait_power = 3", power.WaitPower{Mode: power.WaitFixed, Watts: 3}},
		{"wait_power = 2.75", power.WaitPower{Mode: power.WaitFixed, Watts: 2.75}},
	} {
		sc, err := Parse("w.toml", []byte(strings.Replace(base, "ranks_per_node = 8", "ranks_per_node = 8\n"+tc.set, 1)))
		if err != nil {
			t.Fatalf("%q: %v", tc.set, err)
		}
		if got := sc.Machines[0].WaitPower; got != tc.want {
			t.Errorf("%q: %+v, want %+v", tc.set, got, tc.want)
		}
	}
}

func TestUnknownKeyLine(t *testing.T) {
	text := strings.Replace(string(Default()), "L_ns = 2500", "L_ns = 2500\nlatency = 3", 1)
	_, err := Parse("x.toml", []byte(text))
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatal(err)
	}
	lines := strings.Split(text, "\n")
	if pe.Line < 1 || !strings.HasPrefix(lines[pe.Line-1], "latency") {
		t.Fatalf("line %d is %q", pe.Line, lines[pe.Line-1])
	}
}

func TestParseCapRange(t *testing.T) {
	got, err := ParseCapRange("800:2000:50")
	if err != nil || len(got) != 25 || got[24] != 2000 {
		t.Fatalf("got %v, %v", got, err)
	}
	for _, bad := range []string{"1:2", "a:2:1", "5:1:1", "1:2:0", "0:2:1"} {
		if _, err := ParseCapRange(bad); err == nil {
			t.Errorf("ParseCapRange(%q) succeeded", bad)
		}
	}
}

func TestTypeErrorNamesLineAndKey(t *testing.T) {
	text := strings.Replace(string(Default()), "seed = ", "seed = \"x\"\n# ", 1)
	_, err := Parse("s.toml", []byte(text))
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line == 0 || pe.Key != "seed" || !strings.Contains(pe.Msg, "incompatible types") {
		t.Fatalf("err = %v (%+v)", err, pe)
	}
	if want := fmt.Sprintf("s.toml:%d: key seed: ", pe.Line); !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("err = %q, want prefix %q", err, want)
	}
}

// [bound] slack_policy sets the LP's event order in sweeps.
func TestBoundOrderKeys(t *testing.T) {
	for _, c := range []struct {
		extra, policy string
	}{
		{"\n[bound]\nmessages = \"replay\"\n", "stretch-into-local-slack"},
		{"\n[bound]\nmessages = \"replay\"\nslack_policy = \"late\"\n", "as-late-as-possible"},
		{"", "replay"}, // the engine LP: its reference replay's orders
	} {
		sc, err := Parse("my.toml", append(Default(), c.extra...))
		if err != nil {
			t.Fatal(err)
		}
		tr, err := sc.Trace(nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := sc.newBounder(tr, &sc.Machines[0], sc.Net())
		if err != nil {
			t.Fatal(err)
		}
		if b.o.Policy != c.policy {
			t.Errorf("%q: order %q; want %q", c.extra, b.o.Policy, c.policy)
		}
		b.close()
	}
}

// TestDeprecatedWarnings checks that a deprecated key parses and leaves a
// warning naming its file, line and key, and that no other key does.
func TestDeprecatedWarnings(t *testing.T) {
	topo := "[network.topology]\nkind = \"fattree\"\nk = 2\nn = 1\n"
	for _, c := range []struct {
		name, table string
		want        []string
	}{
		{"none", "", nil},
		{"topology without exact", topo, nil},
		{"exact = true", topo + "exact = true\n", []string{"network.topology.exact: deprecated: has no effect"}},
		{"exact = false", topo + "exact = false\n", []string{"network.topology.exact: deprecated: has no effect"}},
	} {
		text := strings.Replace(string(Default()), "[workload]", c.table+"\n[workload]", 1)
		sc, err := Parse("t.toml", []byte(text))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(sc.Warnings) != len(c.want) {
			t.Fatalf("%s: warnings %q, want %d", c.name, sc.Warnings, len(c.want))
		}
		for i, w := range c.want {
			line := keyLine([]byte(text), []string{"network", "topology", "exact"})
			if want := fmt.Sprintf("t.toml:%d: %s", line, w); line == 0 || sc.Warnings[i] != want {
				t.Errorf("%s: warning %q, want %q", c.name, sc.Warnings[i], want)
			}
		}
	}
}
