package scenarios

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestMistakesRefused holds scenario keys that were accepted and then
// silently meant something else: a count or bandwidth written as 0 taken
// as its default, and generator parameters that the workload never reads
// (a balance axis without an imbalance pattern sweeps one workload). Each
// is refused when the scenario is checked, naming the file, the line and
// the key.
func TestMistakesRefused(t *testing.T) {
	base := string(Default())
	params := func(repl ...string) string { return strings.NewReplacer(repl...).Replace(base) }
	topo := func(body string) string {
		return strings.Replace(base, "[workload]", "[network.topology]\n"+body+"\n\n[workload]", 1)
	}
	sweep3d := func(extra string) string {
		return params("generator = \"stencil2d\"", "generator = \"sweep3d\"",
			"ranks = 16\n", "", "iterations = 20\n", "", "halo_bytes = 32768\n", "", "compute_ns = 2000000\n", "",
			"imbalance = \"charged-field\"\n", "", "balance = 0.5\n", extra)
	}
	noParams := func(workload string) string { // [workload] without [workload.params]
		return regexp.MustCompile(`(?s)\[workload\].*?\[models\]`).ReplaceAllString(base, "[workload]\n"+workload+"\n\n[models]")
	}
	collective := func(extra string) string {
		return params("generator = \"stencil2d\"", "generator = \"collective\"",
			"px = 4\n", "", "py = 4\n", "", "iterations = 20\n", "", "halo_bytes = 32768\n", "", "compute_ns = 2000000\n", "",
			"imbalance = \"charged-field\"\n", "", "balance = 0.5\n", extra)
	}
	override := func(body string) string {
		return strings.Replace(base, "[workload]", body+"\n\n[workload]", 1)
	}
	// lineOf is the line of the n-th (from 1) line of text equal to l.
	lineOf := func(text, l string, n int) int {
		for i, x := range strings.Split(text, "\n") {
			if x == l {
				if n--; n == 0 {
					return i + 1
				}
			}
		}
		return -1
	}
	twoMachines := func(second string) string {
		i, j := strings.Index(base, "[[machine]]"), strings.Index(base, "[network]")
		m := strings.Replace(base[i:j], `name = "pal"`, `name = "pal2"`, 1)
		return base[:j] + strings.NewReplacer("threads_per_rank = 1", second).Replace(m) + base[j:]
	}
	overThreads := twoMachines("threads_per_rank = 4")
	twoPStates := twoMachines("threads_per_rank = 1")
	twoPStates = twoPStates[:strings.LastIndex(twoPStates, "freq_ghz = 1.4")] + "freq_ghz = 1.5" + twoPStates[strings.LastIndex(twoPStates, "freq_ghz = 1.4")+len("freq_ghz = 1.4"):]
	emptySecond := override("[[network.override]]\nregion = \"a*\"\nL_ns = 300\n\n[[network.override]]\nL_ns = 7")
	globSecond := override("[[network.override]]\nregion = \"a*\"\nL_ns = 300\n\n[[network.override]]\nregion = \"[\"\nL_ns = 7")
	noParam := override("[[network.override]]\nregion = \"*\"")
	typo := filepath.Join(t.TempDir(), "typo.json")
	if err := os.WriteFile(typo, []byte(`{"format": "capsim-compute-model", "version": 1, "recorded": {"cpu_ghz": 2.1},
  "regions": [{"pattern": "stencil.compte", "kind": "dvfs", "params": {"beta": 0.8, "ref_ghz": 2.1}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	typoModels := params("memory_boundness = 0.3", "file = \""+typo+"\"")
	var ti strings.Builder // 16 ranks; rank 1 calls its collectives in another order
	for r := range 16 {
		fmt.Fprintf(&ti, "%d init\n", r)
	}
	for r := range 16 {
		if r == 1 {
			fmt.Fprintf(&ti, "%d bcast 8 0\n%d barrier\n", r, r)
		} else {
			fmt.Fprintf(&ti, "%d barrier\n%d bcast 8 0\n", r, r)
		}
	}
	order := filepath.Join(t.TempDir(), "order.ti")
	if err := os.WriteFile(order, []byte(ti.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	orderTrace := noParams("trace = \"" + order + "\"")
	gpuNode := accelScenario(t, "stencil.compute")
	secondGlob := strings.Replace(gpuNode, "per_node = 8               # one device per rank (8 ranks per node)\n",
		"per_node = 8\n\n[[machine.accelerator]]\nname = \"fpga0\"\nregions = \"stencil.compte\"\n", 1)
	noDevice := strings.Replace(gpuNode, `name = "gpu0"              # the device`, `name = "gpu9"              # the device`, 1)
	for _, tc := range []struct {
		name, text, want string
		line             int // 0: any
	}{
		{"second machine's ranks × threads", overThreads, "key machine.ranks_per_node: machine pal2: 8 ranks × 4 threads exceed 16 cores per node",
			lineOf(overThreads, "ranks_per_node = 8", 2)},
		{"second machine's P-state twice", twoPStates, "key machine.pstate: machine pal2: frequency 1.5 GHz listed twice", lineOf(twoPStates, "[[machine]]", 2)},
		{"second override selects nothing", emptySecond, "override 2 selects nothing", lineOf(emptySecond, "[[network.override]]", 2)},
		{"second override's glob", globSecond, `override 2: pattern "["`, lineOf(globSecond, `region = "["`, 1)},
		{"override setting nothing", noParam, "override 1 sets no parameter", lineOf(noParam, "[[network.override]]", 1)},
		{"negative communicator", override("[[network.override]]\ncommunicator = -1\nL_ns = 5"), "key network.override.communicator: communicator -1: want a name or a number ≥ 0", 0},
		{"fractional communicator", override("[[network.override]]\ncommunicator = 1.5\nL_ns = 5"), "communicator 1.5: want a name or a number", 0},
		{"recorded clock in MHz", params("generator = \"stencil2d\"", "generator = \"stencil2d\"\nrecorded_ghz = 2600"),
			"key workload.recorded_ghz: 2600 GHz is past 100 GHz (compute.MaxGHz): a clock in MHz?", 48},
		{"P-state clock in MHz", params("freq_ghz = 1.9", "freq_ghz = 1900"), "key machine.pstate.freq_ghz: machine pal: pstate 2: freq_ghz: 1900 GHz is past 100 GHz", 24},
		{"model pattern misspelt", typoModels, `key models.file: ` + typo + `: model pattern "stencil.compte" prices no compute region of the trace, and no pattern (nor a default) prices its regions "stencil.compute"`,
			lineOf(typoModels, `file = "`+typo+`"`, 1)},
		{"topology bandwidth 0", topo("kind = \"fattree\"\nk = 4\nn = 2\nbw_GBps = 0"), `key network.topology: topology "fattree:k=4,n=2,bw=0": bw="0" is not a positive number`, 0},
		{"topology oversubscription 0", topo("kind = \"fattree\"\nk = 4\nn = 2\noversub = 0"), `oversub="0" is not a positive number`, 0},
		{"topology key of another kind written as 0", topo("kind = \"torus\"\ndims = [4]\noversub = 0"), `unknown parameter "oversub"`, 0},
		{"stencil ranks 0", params("ranks = 16", "ranks = 0"), "key workload.params.ranks: 0 ranks, but the process grid [4 4] has 16", 50},
		{"stencil sigma 0", params("balance = 0.5", "balance = 0.5\nsigma = 0"), "key workload.params.sigma: 0: want a number > 0", 58},
		{"balance without imbalance", params("imbalance = \"charged-field\"\n", ""), `key workload.params.balance: has no effect with imbalance "none"`, 56},
		{"balance axis without imbalance", params("imbalance = \"charged-field\"\n", "", "balance = 0.5\n", "") + "\n[sweep.params]\nbalance = [0.25, 0.5]\n",
			`key sweep.params.balance: has no effect with imbalance "none"`, 0},
		{"sigma with random", params("charged-field", "random", "balance = 0.5", "balance = 0.5\nsigma = 0.3"), `key workload.params.sigma: has no effect with imbalance "random": it applies to charged-field, wavefront`, 58},
		{"seed with charged-field", params("balance = 0.5", "balance = 0.5\nseed = 3"), `key workload.params.seed: has no effect with imbalance "charged-field": it applies to random`, 58},
		{"sweep3d octants 0", sweep3d("octants = 0\n"), "key workload.params.octants: 0: want a number > 0", 0},
		{"no policy", strings.Replace(base, `policies = ["uncapped", "static", "conductor", "lp"]`, "policies = []", 1), "key sweep.policies: an empty list", 64},
		{"root of an unrooted collective", collective("kind = \"allreduce\"\nroot = 3\n"), "root 3: allreduce has no root", 0},
		{"parameters of a trace", params("generator = \"stencil2d\"", "trace = \"t.arrow\""), "key workload.params: parameters are a workload.generator's; workload.trace reads none", 49},
		{"parameter axis of a trace", noParams("trace = \"t.arrow\"") + "\n[sweep.params]\niterations = [3, 4]\n",
			"key sweep.params.iterations: a workload parameter axis needs workload.generator", 0},
		{"axis value of the wrong type", base + "\n[sweep.params]\niterations = [\"3\", \"4\"]\n", `key sweep.params.iterations: want an integer, got "3"`, 67},
		{"empty model file", params("memory_boundness = 0.3", "file = \"\""), "key models.file: an empty string where a file's path is expected", lineOf(params("memory_boundness = 0.3", "file = \"\""), "file = \"\"", 1)},
		{"empty trace", noParams("trace = \"\""), "key workload.trace: an empty string where a file's path is expected", 0},
		{"empty mapping file", topo("kind = \"crossbar\"\nmapping = \"\""), "key network.topology.mapping: an empty string where a file's path is expected", lineOf(topo("kind = \"crossbar\"\nmapping = \"\""), "mapping = \"\"", 1)},
		{"empty IPC model", base + "\n[aggregate]\nipc_model = \"\"\n", "key aggregate.ipc_model: an empty string where a file's path is expected", 0},
		// The decoder gives a key of an array of tables one position, the
		// last element's: a type error in the second P-state named the fifth.
		{"P-state with a unit", params("freq_ghz = 1.9", "freq_ghz = \"1.9 GHz\""), "key machine.pstate.freq_ghz: incompatible types: TOML value has type string",
			lineOf(params("freq_ghz = 1.9", "freq_ghz = \"1.9 GHz\""), "freq_ghz = \"1.9 GHz\"", 1)},
		{"P-state power as a list", params("active_power_w = 8.7", "active_power_w = [8.7]"), "key machine.pstate.active_power_w: incompatible types: TOML value has type []any",
			lineOf(params("active_power_w = 8.7", "active_power_w = [8.7]"), "active_power_w = [8.7]", 1)},
		// A GPU clock's error named the first clock's line whichever clock
		// it was; a clock of 1e308 MHz (Hz or kHz) was accepted.
		{"third GPU clock's power", gpuExample(t, "power_w = 235.0", "power_w = -1"), "key machine.gpu.clock.power_w: machine a100-node: gpu clock 3: power_w", 43},
		{"GPU clock in Hz", gpuExample(t, "mhz = 1140", "mhz = 1140000000"), "key machine.gpu.clock.mhz: machine a100-node: gpu clock 3: mhz: 1.14e+09 MHz is past 100000 MHz (gpu.MaxMHz)", 42},
		// The idle floor left out the GPUs' idle power: 500 W a node was
		// taken where its 8 GPUs idle at 400 W beside 120 W of sockets.
		{"node cap below the GPUs' idle power", gpuExample(t, `caps = "1500:5500:1000"`, `caps = "500:5500:1000"`), "key sweep.caps: cap 500 W per node (sweep.cap_scope = \"node\") is at or below machine a100-node's idle floor of 520 W per node (2 sockets × idle_power_w 60 W + GPUs' idle_w 400 W)", 104},
		{"GPU recorded clock in GHz", gpuExample(t, "recorded_mhz = 1410", "recorded_mhz = 1.41"), "key machine.gpu.recorded_mhz: machine a100-node: gpu recorded_mhz (0: the fastest clock): 1.41 MHz is below 10 MHz (gpu.MinMHz): a clock in GHz?", 34},
		{"GPU clock in GHz", gpuExample(t, "mhz = 1140", "mhz = 1.14"), "key machine.gpu.clock.mhz: machine a100-node: gpu clock 3: mhz: 1.14 MHz is below 10 MHz (gpu.MinMHz)", 42},
		{"GPU recorded clock 1e308", gpuExample(t, "recorded_mhz = 1410", "recorded_mhz = 1e308"), "key machine.gpu.recorded_mhz: machine a100-node: gpu recorded_mhz", 34},
		{"GPU memory-bound share 7", gpuExample(t, "memory_boundness = 0.3", "memory_boundness = 7"), "key machine.gpu.memory_boundness: machine a100-node: gpu memory_boundness 7", 33},
		// A generator's error named [workload.params], not the parameter's
		// line; a negative extent was reported as a rank-count mismatch.
		{"stencil px -1", params("px = 4", "px = -1"), "key workload.params.px: grid extent -1 is not positive", lineOf(params("px = 4", "px = -1"), "px = -1", 1)},
		{"stencil iterations -1", params("iterations = 20", "iterations = -1"), "key workload.params.iterations: stencil: iterations -1 < 1", lineOf(params("iterations = 20", "iterations = -1"), "iterations = -1", 1)},
		{"stencil halo_bytes -1", params("halo_bytes = 32768", "halo_bytes = -1"), "key workload.params.halo_bytes: stencil: halo_bytes -1 is negative", lineOf(params("halo_bytes = 32768", "halo_bytes = -1"), "halo_bytes = -1", 1)},
		{"stencil balance 7", params("balance = 0.5", "balance = 7"), "key workload.params.balance: stencil: balance 7 outside [0, 1]", lineOf(params("balance = 0.5", "balance = 7"), "balance = 7", 1)},
		{"sweep3d blocks -1", sweep3d("blocks = -1\n"), "key workload.params.blocks: sweep: blocks -1 < 1", lineOf(sweep3d("blocks = -1\n"), "blocks = -1", 1)},
		{"collective reps -1", collective("reps = -1\n"), "key workload.params.reps: collective benchmark: reps -1 < 1", lineOf(collective("reps = -1\n"), "reps = -1", 1)},
		// An axis value past gen.MaxEvents was reported at [workload.params]
		// after a Go map: "workload parameters map[iterations:…]".
		{"iterations axis past MaxEvents", base + "\n[sweep.params]\niterations = [9223372036854775807]\n",
			"at the sweep point iterations = 9223372036854775807: my.toml:" + fmt.Sprint(lineOf(base+"\n[sweep.params]\niterations = [9223372036854775807]\n", "iterations = [9223372036854775807]", 1)) + ": key sweep.params.iterations: stencil: 16 ranks × 9223372036854775807 iterations",
			lineOf(base+"\n[sweep.params]\niterations = [9223372036854775807]\n", "iterations = [9223372036854775807]", 1)},
		// GiB past int64's bytes wrapped to a negative memory blamed on
		// [aggregate]; a node of 10^9 cores enumerated its patterns for ever.
		{"node memory past int64", base + "\n[aggregate]\nnode_mem_gb = 1e11\n", "key aggregate.node_mem_gb: must be a finite number in [0, 1073741824] GiB", 67},
		{"task memory 1e308", base + "\n[aggregate]\ntask_mem_gb = 1e308\n", "key aggregate.task_mem_gb: must be a finite number in [0, 1073741824] GiB", 67},
		{"node of 10^9 cores", params("sockets_per_node = 2", "sockets_per_node = 1024", "cores_per_socket = 8", "cores_per_socket = 1048576",
			`policies = ["uncapped", "static", "conductor", "lp"]`, `policies = ["uncapped"]`) + "\n[aggregate]\ndies_per_socket = 1024\n",
			"1024 sockets × 1024 dies × 1024 cores has 1073741824 cores per node, more than 65536 (aggregate.MaxCores", 0},
		// The trace's errors named the key but not its line, and a
		// machine of other ranks neither.
		{"trace missing", noParams("trace = \"nosuch.arrow\""), "key workload.trace: stat nosuch.arrow: no such file or directory", lineOf(noParams("trace = \"nosuch.arrow\""), "trace = \"nosuch.arrow\"", 1)},
		{"machine of other ranks", params("ranks_per_node = 8", "ranks_per_node = 4"), "key machine.ranks_per_node: the workload has 16 ranks but machine pal runs 8", lineOf(params("ranks_per_node = 8", "ranks_per_node = 4"), "ranks_per_node = 4", 1)},
		// A trace that cannot be lowered named the trace's line but not
		// the scenario's.
		{"collectives in another order", orderTrace, "key workload.trace: rank 1 event 0 (" + order + ":19): collective call #1 on communicator 0 is bcast (root 0) here but barrier on rank 0 (" + order + ":17)",
			lineOf(orderTrace, "trace = \""+order+"\"", 1)},
		{"accelerator glob that selects nothing", accelScenario(t, "nosuch*"), `key machine.accelerator.regions: machine gpu-node: accelerator gpu0: regions "nosuch*" matches no region of the workload`, 0},
		// min-energy's deadline in a sweep that does not run min-energy
		// would do nothing.
		{"slowdown_pct without min-energy", base + "slowdown_pct = 5\n",
			"key sweep.slowdown_pct: the min-energy policy's deadline, but sweep.policies (uncapped, static, conductor, lp) does not run min-energy", 65},
		{"slowdown_pct 0 without min-energy", base + "slowdown_pct = 0\n", "key sweep.slowdown_pct: the min-energy policy's deadline", 65},
		// An idle core above a busy rank's power left the LP without a
		// schedule at every cap the replays held (it needs the idle power
		// of every rank at the instant the job starts).
		{"idle core above the slowest P-state", params("core_idle_power_w = 1.5", "core_idle_power_w = 45"),
			"key machine.core_idle_power_w: machine pal: core_idle_power_w 45 W is above the slowest P-state's active_power_w (6.8 W at 1.4 GHz)", 17},
		{"idle core axis above the slowest P-state", base + "\n[sweep.params]\n\"machine.core_idle_power_w\" = [1.5, 7]\n",
			"key sweep.params.machine.core_idle_power_w: machine pal: core_idle_power_w 7 W is above", 67},
		// Only a machine's first accelerator's glob was checked: a
		// second one misspelt left its regions on the CPU.
		{"second accelerator glob that selects nothing", secondGlob,
			`key machine.accelerator.regions: machine gpu-node: accelerator fpga0: regions "stencil.compte" matches no region`, lineOf(secondGlob, `regions = "stencil.compte"`, 1)},
		// A device the model's profile lacks passed the check and stopped
		// the sweep at its first point, naming no line of the scenario.
		{"accelerator the model cannot run on", noDevice,
			`key machine.accelerator.name: machine gpu-node: accelerator gpu9: region "stencil.compute" (regions "stencil.compute"): ../examples/models/stencil.json (accel model): accel: device "gpu9" is not in the profile`,
			lineOf(noDevice, `name = "gpu9"`, 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := Parse("my.toml", []byte(tc.text))
			if err == nil {
				err = sc.Check()
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want a ParseError", err)
			}
			if !strings.Contains(err.Error(), "my.toml:") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %q, want file name and %q", err, tc.want)
			}
			if pe.Line == 0 || tc.line > 0 && pe.Line != tc.line {
				t.Errorf("line = %d, want %d", pe.Line, tc.line)
			}
		})
	}
}

// TestMistakesAccepted holds the neighbours of TestMistakesRefused that
// mean something: a balance beside an imbalance axis (the axis's points
// with a pattern read it), sigma with the patterns that read it, seed with
// random loads.
func TestMistakesAccepted(t *testing.T) {
	base := string(Default())
	for _, text := range []string{
		base,
		base + "\n[sweep.params]\nimbalance = [\"none\", \"random\"]\n",
		strings.Replace(base, "balance = 0.5", "balance = 0.5\nsigma = 0.3", 1),
		strings.NewReplacer("charged-field\"", "random\"", "balance = 0.5", "balance = 0.5\nseed = 3").Replace(base),
		accelScenario(t, "stencil.*"),
		strings.Replace(base, "[workload]", "[[network.override]]\ncommunicator = 0\nL_ns = 300\n\n[workload]", 1),
		strings.Replace(base, `"lp"]`, `"lp", "min-energy"]`+"\nslowdown_pct = 5", 1),
	} {
		sc, err := Parse("my.toml", []byte(text))
		if err == nil {
			err = sc.Check()
		}
		if err != nil {
			t.Errorf("%v", err)
		}
	}
}

// accelScenario is examples/scenarios/gpu-node.toml with its
// accelerators' regions glob replaced, the model file's path made
// relative to this package.
func accelScenario(t *testing.T, glob string) string {
	t.Helper()
	b, err := os.ReadFile("../examples/scenarios/gpu-node.toml")
	if err != nil {
		t.Fatal(err)
	}
	return strings.NewReplacer(`regions = "stencil.compute"`, `regions = "`+glob+`"`, `"../models/`, `"../examples/models/`).Replace(string(b))
}

// gpuExample is examples/scenarios/gpu-training.toml with old replaced
// by new once, its paths made relative to this package.
func gpuExample(t *testing.T, old, new string) string {
	t.Helper()
	b, err := os.ReadFile("../examples/scenarios/gpu-training.toml")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), old, new, 1)
	return strings.ReplaceAll(text, `"../`, `"../examples/`)
}
