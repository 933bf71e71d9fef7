package scenarios

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/compute"
)

// freqScenario is a DUMPI trace on two machines whose P-states differ:
// {2.6, 2.0} GHz and {2.0, 1.6} GHz, with extra appended to [workload].
func freqScenario(t *testing.T, extra string) *Scenario {
	t.Helper()
	meta, err := filepath.Abs("../../shared/traces/dumpi/sstmacro-testbgp/testbgp.meta")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(meta); err != nil {
		t.Skipf("shared trace absent: %v", err)
	}
	machine := func(name string, hi, lo float64) string {
		return strings.NewReplacer("NAME", name, "HI", ftoa(hi), "LO", ftoa(lo)).Replace(`
[[machine]]
name = "NAME"
nodes = 1
sockets_per_node = 1
cores_per_socket = 8
ranks_per_node = 7
idle_power_w = 40.0
core_idle_power_w = 4.0
[[machine.pstate]]
freq_ghz = HI
active_power_w = 15.0
[[machine.pstate]]
freq_ghz = LO
active_power_w = 10.0
`)
	}
	text := machine("fast", 2.6, 2.0) + machine("slow", 2.0, 1.6) + `
[network]
L_ns = 2500
o_ns = 1500
g_ns = 1000
G_ns_per_byte = 6
S_bytes = 65535
[workload]
trace = "` + meta + `"
` + extra + `
[sweep]
caps = "300:300:1"
policies = ["uncapped"]
`
	sc, err := Parse("recorded.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func ftoa(f float64) string { return fmt.Sprintf("%.1f", f) }

// TestRecordedGHz: without a recording frequency both machines replay the
// trace at their fastest P-state, so their uncapped makespans are equal
// and RecordedConfig says it was assumed; with workload.recorded_ghz =
// 2.6 the slower machine's compute stretches by 2.6/2.0.
func TestRecordedGHz(t *testing.T) {
	makespans := func(sc *Scenario) [2]int64 {
		g, err := sc.Graph(nil)
		if err != nil {
			t.Fatal(err)
		}
		var out [2]int64
		for i := range sc.Machines {
			met, err := sc.Replay(g, &sc.Machines[i], sc.Net(), "uncapped", 0)
			if err != nil {
				t.Fatal(err)
			}
			out[i] = met.MakespanNs
		}
		return out
	}
	sc := freqScenario(t, "")
	if rc := sc.RecordedConfig(); !rc.Assumed || !strings.Contains(rc.String(), "assumed") {
		t.Errorf("no recording frequency: RecordedConfig %+v, %q: want assumed", rc, rc)
	}
	if got := makespans(sc); got[0] != got[1] {
		t.Errorf("assumed fastest P-state: makespans %d and %d ns, want equal", got[0], got[1])
	}
	sc = freqScenario(t, "recorded_ghz = 2.6")
	if rc := sc.RecordedConfig(); rc.Assumed || rc.GHz != 2.6 {
		t.Errorf("recorded_ghz = 2.6: RecordedConfig %+v", rc)
	}
	got := makespans(sc)
	if !(got[1] > got[0]) {
		t.Errorf("recorded at 2.6 GHz: makespans fast %d ns, slow %d ns: want the 2.0 GHz machine slower", got[0], got[1])
	}
	t.Logf("recorded at 2.6 GHz: fast %d ns, slow %d ns", got[0], got[1])
}

func TestRecordedGHzInvalid(t *testing.T) {
	for _, v := range []string{"-1", "nan", "inf"} {
		sc := "[[machine]]\nname='m'\nnodes=1\nsockets_per_node=1\ncores_per_socket=1\nranks_per_node=1\n[[machine.pstate]]\nfreq_ghz=2.0\nactive_power_w=1\n[workload]\ngenerator='stencil2d'\nrecorded_ghz=" + v + "\n"
		if _, err := Parse("bad.toml", []byte(sc)); err == nil || !strings.Contains(err.Error(), "recorded_ghz") {
			t.Errorf("recorded_ghz = %s: error %v, want one naming workload.recorded_ghz", v, err)
		}
	}
}

func TestModelRecorded(t *testing.T) {
	for _, tc := range []struct {
		c       compute.Config
		flag    bool
		assumed bool
		source  string
	}{
		{compute.Config{CPUFreqGHz: 2.6, Threads: 1}, false, false, "models file"},
		{compute.Config{CPUFreqGHz: 2.0}, true, false, "--recorded-ghz"},
		{compute.Config{}, false, true, "assumed"},
	} {
		rc := modelRecorded(tc.c, tc.flag)
		if rc.Assumed != tc.assumed || rc.GHz != tc.c.CPUFreqGHz || !strings.Contains(rc.Source, tc.source) {
			t.Errorf("%+v (flag %v): %+v, want assumed %v and a source naming %q", tc.c, tc.flag, rc, tc.assumed, tc.source)
		}
	}
}
