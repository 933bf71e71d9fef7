package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestParseRefusesOutOfRange: values a sweep cannot compute with are
// refused when the scenario is read, naming the file, the line and the
// key: powers past power.MaxWatts (1e308 W overflowed a replay's energy to
// +Inf and the LP's coefficients), a cap range of more caps than an int
// holds (it panicked in makeslice) or with a step below the precision of
// its caps.
func TestParseRefusesOutOfRange(t *testing.T) {
	base := string(Default())
	for _, tc := range []struct {
		name, old, new, want string
		line                 int
	}{
		{"huge active power", "active_power_w = 12.0", "active_power_w = 1e308", "key machine.pstate.active_power_w: machine pal: pstate 1: active_power_w: want a finite power > 0 and at most 1e+09 W", 22},
		{"huge idle power", "idle_power_w = 45.0", "idle_power_w = 1e300", "key machine.idle_power_w", 16},
		{"huge wait power", "ranks_per_node = 8", "ranks_per_node = 8\nwait_power = 1e300", "above 1e+09 W", 15},
		{"huge cap", `caps = "290:380:10"`, "caps_w = [300, 1e300]", "key sweep.caps_w: cap: want a finite power > 0 and at most 1e+09 W", 63},
		{"huge cap range", `"290:380:10"`, `"290:1e300:1e299"`, "caps above 1e+09 W", 63},
		{"tiny cap step", `"290:380:10"`, `"290:380:1e-300"`, "caps is too many (at most 100000)", 63},
		{"cap step below precision", `"290:380:10"`, `"1e8:100000000.000001:1e-9"`, "is below the precision", 63},
		{"huge idle power axis", "[sweep]", "[sweep.params]\n\"machine.idle_power_w\" = [45.0, 1e300]\n[sweep]", "at most 1e+09 W", 0},
		{"negative seed", "seed = 1", "seed = -1", "key seed: want an integer ≥ 0, got -1", 7},
		{"slower P-state draws more", "active_power_w = 10.2", "active_power_w = 13", "P-state 1.9 GHz draws 13 W, more than the faster 2.1 GHz (12 W)", 0},
		// An axis value twice swept the same points twice.
		{"axis value twice", "[sweep]", "[sweep.params]\nbalance = [0.5, 0.25, 0.5]\n[sweep]", "key sweep.params.balance: value 0.5 listed twice", 0},
		{"scenario axis value twice", "[sweep]", "[sweep.params]\n\"network.L_ns\" = [100, 100.0]\n[sweep]", "value 100 listed twice", 0},
		// An explicit 0 silently took the default of 1.
		{"zero sockets", "sockets_per_node = 2", "sockets_per_node = 0", "key machine.sockets_per_node: machine pal: sockets_per_node = 0: want a number > 0 (leave the key out for 1)", 12},
		{"zero threads", "threads_per_rank = 1", "threads_per_rank = 0", "key machine.threads_per_rank", 15},
		{"zero speed factor", "threads_per_rank = 1", "threads_per_rank = 1\ncompute_speed_factor = 0.0", "key machine.compute_speed_factor", 16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Replace(base, tc.old, tc.new, 1)
			if text == base {
				t.Fatalf("%q not in the default scenario", tc.old)
			}
			_, err := Parse("my.toml", []byte(text))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want a ParseError", err)
			}
			if !strings.HasPrefix(err.Error(), "my.toml:") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %q, want file name and %q", err, tc.want)
			}
			if tc.line > 0 && pe.Line != tc.line {
				t.Errorf("line = %d, want %d (%v)", pe.Line, tc.line, err)
			}
		})
	}
}

// TestCheckReadsTopologyMapping: `scenario check` reads a topology's
// mapping file as the sweep does (it only looked for the file, and the
// sweep then stopped at its first point), and names the mapping file's
// line and the scenario's key.
func TestCheckReadsTopologyMapping(t *testing.T) {
	for _, tc := range []struct {
		name, mapping, want string
	}{
		{"node out of range", strings.Repeat("0\n", 15) + "99\n", `map.txt:16: "99" is not a node number in [0, 16)`},
		{"too few ranks", "0\n1\n", "map.txt: 2 ranks mapped, want 16"},
		{"garbage", strings.Repeat("0\n", 16) + "x\n", `map.txt:17: "x" is not a node number`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"map.txt": tc.mapping})
			text := strings.Replace(string(Default()), "[workload]", "[network.topology]\nkind = \"crossbar\"\nmapping = \"map.txt\"\n\n[workload]", 1)
			p := filepath.Join(dir, "s.toml")
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			sc, err := Load(p)
			if err != nil {
				t.Fatal(err)
			}
			err = sc.Check()
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "s.toml:48: key network.topology.mapping") {
				t.Errorf("Check: %v, want s.toml:48: key network.topology.mapping and %q", err, tc.want)
			}
		})
	}
}

// TestBuildErrorsNameLine: an error found while building the workload
// names the scenario line of its key, as a parse error does.
func TestBuildErrorsNameLine(t *testing.T) {
	base := string(Default())
	for _, tc := range []struct {
		old, new, want string
	}{
		{"iterations = 20", "iterations = 2.5", "my.toml:53: key workload.params.iterations: want an integer, got 2.5"},
		{"iterations = 20", "iterations = 0", "my.toml:53: key workload.params.iterations: stencil: iterations 0 < 1"},
		{"iterations = 20", "iterations = 20\nseed = -3", "my.toml:54: key workload.params.seed: want an integer ≥ 0, got -3"},
		{`collectives = "allreduce=recdoub"`, `collectives = "allreduce=nosuch"`, `my.toml:44: key network.collectives: collective spec "allreduce=nosuch"`},
	} {
		sc, err := Parse("my.toml", []byte(strings.Replace(base, tc.old, tc.new, 1)))
		if err == nil {
			err = sc.Check()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.new, err, tc.want)
		}
	}
}

// TestAcceleratorPerNodeZero: per_node = 0 is refused; it silently took
// the default of one device per node.
func TestAcceleratorPerNodeZero(t *testing.T) {
	p := filepath.Join("..", "examples", "scenarios", "gpu-node.toml")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), "\nper_node = 8", "\nper_node = 0", 1)
	_, err = Parse(p, []byte(text))
	if err == nil || !strings.Contains(err.Error(), "key machine.accelerator.per_node: machine gpu-node: accelerator gpu0: per_node = 0") {
		t.Errorf("err = %v, want per_node = 0 refused", err)
	}
}

// TestStreamInputsRefused: a pipe or FIFO as a file a sweep reads is
// refused when the scenario is read, naming the key: the sweep read the
// stream for its identity or first workload and found it empty for the
// next ("an empty file" in the middle of a sweep).
func TestStreamInputsRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	base := string(Default())
	for _, tc := range []struct{ name, text, key string }{
		{"workload.trace", strings.Replace(base, `generator = "stencil2d"`, `trace = "fifo"`, 1), "workload.trace"},
		{"models.file", strings.Replace(base, "memory_boundness = 0.3", `file = "fifo"`, 1), "models.file"},
		{"mapping", strings.Replace(base, "[workload]", "[network.topology]\nkind = \"crossbar\"\nmapping = \"fifo\"\n\n[workload]", 1), "network.topology.mapping"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.key == "workload.trace" { // drop the generator's parameters
				tc.text = tc.text[:strings.Index(tc.text, "[workload.params]")] + tc.text[strings.Index(tc.text, "[models]"):]
			}
			_, err := Parse(filepath.Join(dir, "s.toml"), []byte(tc.text))
			if err == nil || !strings.Contains(err.Error(), "key "+tc.key+": fifo is a pipe or device") {
				t.Errorf("err = %v, want %s refused as a pipe", err, tc.key)
			}
		})
	}
}

// TestPickSelectsAPoint: report --detail refuses a pick that selects no
// point of the sweep (a cap it did not sweep, a policy it did not run:
// the detail replayed a point the results do not hold, beside them) and
// a key given twice or without a value; a policy named without a cap
// takes the median cap (it replayed the capped policy at 0 W).
func TestPickSelectsAPoint(t *testing.T) {
	sc, err := LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		pick Pick
		want string
	}{
		{Pick{Policy: "static", CapW: 999}, "detail: cap 999 W is not one of the sweep's caps (290, 300, "},
		{Pick{Policy: "static-rapl", CapW: 300}, `detail: policy "static-rapl" is not one of the sweep's policies (uncapped, static, conductor, lp)`},
	} {
		if _, err := sc.Detail(tc.pick, "d_", ""); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.pick, err, tc.want)
		}
	}
	if err := sc.checkPick(Pick{Machine: "pal", Policy: "uncapped"}); err != nil {
		t.Errorf("uncapped without a cap: %v", err)
	}
	for _, spec := range []string{"policy=lp,policy=static", "cap=300,cap=320", "policy=", "machine= "} {
		if _, err := ParsePick(spec); err == nil {
			t.Errorf("ParsePick(%q) accepted", spec)
		}
	}
}
