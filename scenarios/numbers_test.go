package scenarios

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// lineOf returns the 1-based line of the first occurrence of sub in text
// after the occurrence number skip (0: the first).
func lineOf(text, sub string, skip int) int {
	off := 0
	for i := 0; ; i++ {
		j := strings.Index(text[off:], sub)
		if j < 0 {
			return 0
		}
		if i == skip {
			return strings.Count(text[:off+j], "\n") + 1
		}
		off += j + len(sub)
	}
}

// Every number a scenario gives is finite and in range; the error names
// the file, the line and the key. Before these checks idle_power_w = nan
// passed `scenario check` and aborted inside CLP.
func TestScenarioNumbers(t *testing.T) {
	base := string(Default())
	second := strings.Replace(base, "[network]", `[[machine]]
name = "other"
nodes = 1
cores_per_socket = 8
ranks_per_node = 8
idle_power_w = nan
[[machine.pstate]]
freq_ghz = 2.0
active_power_w = 10.0
[[machine.pstate]]
freq_ghz = 1.0
active_power_w = inf

[network]`, 1)
	for _, tc := range []struct {
		name, text, want, at string
		skip                 int // occurrences of at to skip
	}{
		{"nan idle power", strings.Replace(base, "idle_power_w = 45.0", "idle_power_w = nan", 1), "key machine.idle_power_w: machine pal: idle_power_w: want a finite power ≥ 0 and at most 1e+09 W (power.MaxWatts), got NaN", "idle_power_w = nan", 0},
		{"inf idle power", strings.Replace(base, "idle_power_w = 45.0", "idle_power_w = inf", 1), "got +Inf", "idle_power_w = inf", 0},
		{"nan core idle power", strings.Replace(base, "core_idle_power_w = 1.5", "core_idle_power_w = nan", 1), "key machine.core_idle_power_w", "core_idle_power_w = nan", 0},
		{"nan speed factor", strings.Replace(base, "threads_per_rank = 1", "threads_per_rank = 1\ncompute_speed_factor = nan", 1), "key machine.compute_speed_factor", "compute_speed_factor", 0},
		{"nan frequency", strings.Replace(base, "freq_ghz = 1.9", "freq_ghz = nan", 1), "key machine.pstate.freq_ghz: machine pal: pstate 2", "freq_ghz = nan", 0},
		{"inf active power", strings.Replace(base, "active_power_w = 8.7", "active_power_w = inf", 1), "key machine.pstate.active_power_w: machine pal: pstate 3", "active_power_w = inf", 0},
		{"second machine's nan", second, "key machine.idle_power_w: machine other", "idle_power_w = nan", 0},
		{"nan memory boundness", strings.Replace(base, "memory_boundness = 0.3", "memory_boundness = nan", 1), "key models.memory_boundness: must be in [0, 1]", "memory_boundness = nan", 0},
		{"nan cap", strings.Replace(base, `caps = "290:380:10"`, `caps_w = [300.0, nan]`, 1), "key sweep.caps_w", "caps_w", 0},
		{"huge latency", strings.Replace(base, "L_ns = 2500", "L_ns = 9000000000000000000", 1), "key network.L_ns: 9000000000000000000 ns exceeds", "L_ns = 9", 0},
		{"huge override", strings.Replace(base, "[workload]", "[[network.override]]\nregion = \"a\"\no_ns = 2000000000000000000\n\n[workload]", 1), "key network.override.o_ns: override 1:", "o_ns = 2", 0},
		{"nan axis", base + "\n[sweep.params]\n\"machine.idle_power_w\" = [40.0, nan]\n", "key sweep.params.machine.idle_power_w", "", 0},
		{"huge node count", strings.Replace(base, "nodes = 2", "nodes = 9000000000", 1), "key machine.nodes: must be a positive integer up to 4194304", "nodes = 9", 0},
		{"too many ranks", strings.Replace(strings.Replace(strings.Replace(base, "nodes = 2", "nodes = 4096", 1), "cores_per_socket = 8", "cores_per_socket = 4096", 1), "ranks_per_node = 8", "ranks_per_node = 4096", 1),
			"4096 nodes × 4096 ranks per node exceed 4194304 ranks", "nodes = 4096", 0},
		{"too many points", base + "\n[sweep.params]\na = [" + seq(1001) + "]\nb = [" + seq(1001) + "]\n", "more than 1048576 points (scenarios.MaxPoints)", "", 0},
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
			if tc.at != "" {
				if want := lineOf(tc.text, tc.at, tc.skip); pe.Line != want {
					t.Errorf("line %d, want %d (%q)", pe.Line, want, err)
				}
			}
		})
	}
}

// A generator parameter must be a finite number.
func TestGeneratorParamNaN(t *testing.T) {
	text := strings.Replace(string(Default()), "balance = 0.5", "balance = nan", 1)
	s, err := Parse("my.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Trace(nil); err == nil || !strings.Contains(err.Error(), "workload.params.balance: want a finite number, got NaN") {
		t.Errorf("err = %v", err)
	}
}

// seq lists 0..n−1 as TOML array items: distinct values, as an axis needs.
func seq(n int) string {
	items := make([]string, n)
	for i := range items {
		items[i] = strconv.Itoa(i)
	}
	return strings.Join(items, ",")
}
