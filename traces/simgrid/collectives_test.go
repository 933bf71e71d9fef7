package simgrid_test

import (
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/network/topo"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/simgrid"
)

// The collective algorithms of traces/lower checked against SimGrid's own
// implementations of them (SimGrid 3.32, src/smpi/colls): a TI trace of one
// call of a collective on p ranks is replayed by SimGrid with
// --cfg=smpi/<collective>:<algorithm> (or a selector, with
// smpi/coll-selector) and network/optim:Full, and by capsim with the
// matching lowering, on each platform of collPlatforms: by capsim's flow
// model on the platform expressed as a one-switch fat tree with the
// cluster's links (CM02 sharing), and by the LogGP variant of its endpoint
// model on the crossbar the cluster is (clusterNet), both with SMPI's
// 16-byte envelope. SimGrid's makespans are committed in
// testdata/collectives-simgrid.txt; TestCollectivesSimGridLive re-measures
// them where smpirun is installed, and `go test -run
// TestCollectivesSimGridLive -record-colls` prints that file anew.

// collPlatforms are the platforms of the collective cases: cluster16.xml
// (1 GB/s, 5 us links) and the one-switch fat trees of testdata/platforms
// at 10 and 100 Gb/s (1 us links). A case's SimGrid makespan is keyed by
// its name on cluster16 and by name@platform on the others.
var collPlatforms = []string{"cluster16", "switch-10g", "switch-100g"}

// collPlatformFile is platform plat's SimGrid file.
func collPlatformFile(plat string) string {
	if plat == "cluster16" {
		return "testdata/cluster16.xml"
	}
	return filepath.Join("testdata", "platforms", plat+".xml")
}

// collKey is case name's key on platform plat.
func collKey(name, plat string) string {
	if plat == "cluster16" {
		return name
	}
	return name + "@" + plat
}

var recordColls = flag.Bool("record-colls", false, "print testdata/collectives-simgrid.txt from live SimGrid runs")

// collCase is one collective call checked against SimGrid.
type collCase struct {
	name   string
	p      int
	action string // the TI action after the rank, e.g. "alltoall 1000 1000"
	sgCfg  string // SimGrid's choice, e.g. "smpi/alltoall:bruck"
	coll   string // capsim's --coll spec
	// tol is the relative makespan difference allowed.
	tol float64
	// loggp and offload say whether the LogGP crossbar, with
	// LogGOPSim's NIC and with an offloading one, is held to 1 % too
	// (see logGPShares and offloadShares).
	loggp, offload bool
}

// collPair names a SimGrid algorithm and the lowering that sends the same
// messages in the same rounds.
type collPair struct {
	kind, sg, capsim string
	pow2             bool // SimGrid's implementation needs p a power of two
}

var collPairs = []collPair{
	{"alltoall", "pair", "pairwise-xor", true},
	{"alltoall", "bruck", "bruck", false},
	{"alltoall", "ring", "pairwise", false},
	{"allgather", "bruck", "bruck", false},
	{"allgather", "rdb", "recdoub", true},
	{"allgather", "ring", "shift", false}, // SimGrid's ring: own block to rank+k in step k
	{"allgather", "NTSLR", "ring", false},
	{"allgather", "ompi_neighborexchange", "neighbor", false},
	{"allreduce", "rab_rdb", "rabenseifner", false},
	{"allreduce", "rdb", "recdoub", false},
	{"allreduce", "lr", "ring", false},
	{"bcast", "scatter_rdb_allgather", "scatter-rdb-allgather", true},
	{"bcast", "scatter_LR_allgather", "scatter-ring-allgather", false},
	{"bcast", "ompi_pipeline", "pipeline", false},
	{"bcast", "binomial_tree", "binomial", false},
	{"reduce_scatter", "ompi_basic_recursivehalving", "rechalving", false},
}

// collSizes gives the message sizes of a kind's cases, small and large:
// a rank's block (alltoall, allgather, reduce_scatter) or the whole buffer
// (allreduce, bcast), divisible by 6 and 8 so that every split is even.
func collSizes(kind string) []int64 {
	if kind == "allreduce" || kind == "bcast" {
		return []int64{12000, 1200000}
	}
	return []int64{1200, 120000}
}

// collAction writes the TI action of one call of kind with size bytes.
func collAction(kind string, p int, size int64) string {
	switch kind {
	case "alltoall", "allgather":
		return fmt.Sprintf("%s %d %d", kind, size, size)
	case "allreduce", "bcast":
		return fmt.Sprintf("%s %d 0", kind, size)
	case "reduce_scatter":
		return "reducescatter" + strings.Repeat(fmt.Sprintf(" %d", size), p) + " 0"
	}
	panic("collAction: " + kind)
}

// collCases lists every algorithm pair on 8 and 6 ranks (8 only where
// SimGrid's implementation needs a power of two), small and large, and
// then both selectors on the same calls.
func collCases() []collCase {
	var cs []collCase
	type call struct {
		kind string
		p    int
		size int64
	}
	var calls []call
	seen := map[call]bool{}
	for _, pr := range collPairs {
		for _, p := range []int{8, 6} {
			if pr.pow2 && p&(p-1) != 0 {
				continue
			}
			for _, size := range collSizes(pr.kind) {
				name := fmt.Sprintf("%s-%s-p%d-%d", pr.kind, pr.sg, p, size)
				alg := pr.kind + ":" + pr.sg
				cs = append(cs, collCase{name, p, collAction(pr.kind, p, size), "smpi/" + alg,
					pr.kind + "=" + pr.capsim, collTol(name), !logGPShares[alg], !offloadShares[fmt.Sprintf("%s:p%d", alg, p)]})
				if c := (call{pr.kind, p, size}); !seen[c] {
					seen[c] = true
					calls = append(calls, c)
				}
			}
		}
	}
	for _, sel := range [][2]string{{"ompi", lower.SelectOpenMPI}, {"mpich", lower.SelectMPICH}} {
		for _, c := range calls {
			name := fmt.Sprintf("%s-%s-p%d-%d", c.kind, sel[0], c.p, c.size)
			cs = append(cs, collCase{name, c.p, collAction(c.kind, c.p, c.size), "smpi/coll-selector:" + sel[0],
				sel[1], collTol(name), false, false})
		}
	}
	return cs
}

// collTolerance holds the cases allowed more than the 1 % of the others.
// -1 only logs the case: SimGrid's selector runs another algorithm than
// the library it imitates does, so the two need not agree.
var collTolerance = map[string]float64{
	// Open MPI's recursive doubling runs Bruck's algorithm when p is not a
	// power of two; SimGrid's runs MPICH's recursive doubling with its
	// non-power-of-two fix-up.
	"allgather-ompi-p6-1200":   -1,
	"allgather-ompi-p6-120000": -1,
	// Open MPI's basic linear bcast; SimGrid's table runs its NTSL
	// (a pipelined chain) in that slot.
	"bcast-ompi-p6-12000": -1,
	// MPICH's scattered alltoall posts every request at once for p ≤ 32;
	// SimGrid runs MVAPICH2's scatter_dest instead.
	"alltoall-mpich-p8-1200": -1,
	"alltoall-mpich-p6-1200": -1,
	// MPICH reduces short commutative reduce_scatters by recursive
	// halving; SimGrid's selector runs recursive doubling.
	"reduce_scatter-mpich-p8-1200": -1,
	"reduce_scatter-mpich-p6-1200": -1,
}

// logGPShares lists the algorithms (kind:SimGrid name) on which the
// LogGP crossbar with LogGOPSim's NIC is more than 1 % off SimGrid, for
// one of two reasons (docs/design/simgrid-agreement.md takes each apart).
// Its NIC counts a received message's (s−1)·G after the last byte has
// arrived, so a smaller message that follows a larger one waits
// (TestReceiveAfterLarger): Bruck's alltoall on 6 ranks, Rabenseifner's
// allreduce and recursive halving on 8, up to 42 % over SimGrid. And a
// host has more than one message in flight at once, which SimGrid shares
// and the NIC sends one after the other (TestLinkSharing): a root's eager
// sends to its children (bcast), the exchanges of the non-power-of-two
// recursive doubling on 6 ranks, up to 84 % under SimGrid. capsim's flow
// model is held to 1 % on them.
var logGPShares = map[string]bool{
	"alltoall:bruck": true, "allreduce:rab_rdb": true, "allreduce:rdb": true,
	"bcast:scatter_rdb_allgather": true, "bcast:scatter_LR_allgather": true, "bcast:ompi_pipeline": true,
	"bcast:binomial_tree": true, "reduce_scatter:ompi_basic_recursivehalving": true,
}

// offloadShares lists the algorithms and rank counts (kind:SimGrid
// name:pN) on which the LogGP crossbar with an offloading NIC
// (offload=1), which counts a message's bytes while they come in, is
// more than 1 % off SimGrid: those where a host has two messages in
// flight at once (logGPShares' second reason).
var offloadShares = map[string]bool{
	"allreduce:rab_rdb:p6": true, "allreduce:rdb:p6": true,
	"bcast:scatter_rdb_allgather:p8": true, "bcast:scatter_LR_allgather:p8": true, "bcast:scatter_LR_allgather:p6": true,
	"bcast:ompi_pipeline:p8": true, "bcast:ompi_pipeline:p6": true, "bcast:binomial_tree:p8": true, "bcast:binomial_tree:p6": true,
}

func collTol(name string) float64 {
	if tol, ok := collTolerance[name]; ok {
		return tol
	}
	return 0.01
}

// writeCollTrace writes case c as a TI trace (an index and one file per
// rank, the index naming them by absolute path) under dir.
func writeCollTrace(t *testing.T, dir string, c collCase) string {
	t.Helper()
	index := filepath.Join(dir, c.name+".txt")
	var idx strings.Builder
	for r := 0; r < c.p; r++ {
		f := filepath.Join(dir, fmt.Sprintf("%s-rank-%d.txt", c.name, r))
		body := fmt.Sprintf("%d init\n%d %s\n%d finalize\n", r, r, c.action, r)
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		idx.WriteString(f + "\n")
	}
	if err := os.WriteFile(index, []byte(idx.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return index
}

// collModel is a platform of collPlatforms as capsim models it.
type collModel struct {
	plat string
	net  network.LogGOPS // the LogGP crossbar (clusterNet)
	top  topo.Topology   // the one-switch fat tree of the flow model
}

// clusterTopology expresses a platform of collPlatforms for capsim's flow
// model: one switch, every host on a private link of the cluster's
// bandwidth and latency (crossed twice per message, as SimGrid's
// SPLITDUPLEX cluster links are); and for its LogGP model as clusterNet
// maps it.
func clusterTopology(t *testing.T, plat string) collModel {
	t.Helper()
	b, err := os.ReadFile(collPlatformFile(plat))
	if err != nil {
		t.Fatal(err)
	}
	net := clusterNet(t, b) // checks the units; L is twice the link latency, G 1/bw
	spec := fmt.Sprintf("fattree:down=16,up=1,bw=%g,hop_ns=%d", 1e6/float64(net.GapPerByte.Femtoseconds()), net.Latency/2)
	top, err := topo.Parse(spec)
	if err != nil {
		t.Fatalf("%s: %v", spec, err)
	}
	return collModel{plat, net, top}
}

// capsimColl replays case c with capsim on platform m: with the flow
// model and with the LogGP variant of the endpoint model, with
// LogGOPSim's NIC and with an offloading one.
func capsimColl(t *testing.T, index string, c collCase, m collModel) (flow, loggp, offload float64) {
	t.Helper()
	tr, err := simgrid.Read(index, simgrid.Options{})
	if err != nil {
		t.Fatal(err)
	}
	algs, err := lower.ParseAlgorithms(c.coll)
	if err != nil {
		t.Fatal(err)
	}
	g, err := lower.Lower(tr, lower.Options{Algorithm: algs})
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	free := network.NewLogGOPS(0, 0, 0, 0, 0, 1<<40)
	free.LogGP, free.HeaderBytes = true, m.net.HeaderBytes
	res, err := sim.Run(g, free, sim.Options{Flow: &sim.FlowNetwork{Topology: m.top, CM02: true}})
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	res2, err := sim.Run(g, m.net, sim.Options{})
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	res3, err := sim.Run(g, offloaded(m.net), sim.Options{})
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	return float64(res.Makespan) / 1e9, float64(res2.Makespan) / 1e9, float64(res3.Makespan) / 1e9
}

func readCollMakespans(t *testing.T) map[string]float64 {
	t.Helper()
	b, err := os.ReadFile("testdata/collectives-simgrid.txt")
	if err != nil {
		t.Fatal(err)
	}
	return readMakespans(t, string(b))
}

// checkColl compares capsim with SimGrid's makespan sg on case c and
// platform m.
func checkColl(t *testing.T, dir string, c collCase, sg float64, m collModel) {
	t.Helper()
	flow, loggp, off := capsimColl(t, writeCollTrace(t, dir, c), c, m)
	ratio := flow / sg
	key := collKey(c.name, m.plat)
	t.Logf("%-56s SimGrid %10.3f us  capsim %10.3f us  ratio %.5f  (LogGP %.5f, offload=1 %.5f)", key, sg*1e6, flow*1e6, ratio, loggp/sg, off/sg)
	if c.tol >= 0 && math.Abs(ratio-1) > c.tol {
		t.Errorf("%s: capsim %.3f us vs SimGrid %.3f us (ratio %.5f, allowed ±%g)", key, flow*1e6, sg*1e6, ratio, c.tol)
	}
	if c.loggp && math.Abs(loggp/sg-1) > 0.01 {
		t.Errorf("%s: capsim's LogGP crossbar %.3f us vs SimGrid %.3f us (ratio %.5f, allowed ±0.01)", key, loggp*1e6, sg*1e6, loggp/sg)
	}
	if c.offload && math.Abs(off/sg-1) > 0.01 {
		t.Errorf("%s: capsim's LogGP crossbar with offload=1 %.3f us vs SimGrid %.3f us (ratio %.5f, allowed ±0.01)", key, off*1e6, sg*1e6, off/sg)
	}
}

// TestCollectivesAgreeWithSimGrid compares every case with SimGrid's
// committed makespan.
func TestCollectivesAgreeWithSimGrid(t *testing.T) {
	want := readCollMakespans(t)
	dir := t.TempDir()
	for _, plat := range collPlatforms {
		m := clusterTopology(t, plat)
		for _, c := range collCases() {
			key := collKey(c.name, plat)
			sg, ok := want[key]
			if !ok && c.isSelector() {
				t.Logf("%s: no SimGrid makespan (SimGrid fails on it)", key)
				continue
			}
			if !ok {
				t.Errorf("%s: no SimGrid makespan in testdata/collectives-simgrid.txt", key)
				continue
			}
			checkColl(t, dir, c, sg, m)
		}
	}
}

// sgTime matches the replay's last line under the log format
// sgCollReplay asks for: the simulated date in nanosecond precision.
var sgTime = regexp.MustCompile(`(?m)^\[([0-9.]+)\] Simulation time`)

// sgCollReplay runs SimGrid's replay of case c on platform plat and
// returns its makespan.
func sgCollReplay(t *testing.T, index string, c collCase, plat string) (float64, error) {
	t.Helper()
	args := []string{"-np", strconv.Itoa(c.p), "-platform", collPlatformFile(plat), "-hostfile", "testdata/hostfile16",
		"-replay", index, "--cfg=network/model:CM02", "--cfg=network/optim:Full", "--cfg=" + c.sgCfg,
		"--log=smpi_replay.fmt:[%.9d]%e%m%n"}
	out, err := exec.Command("smpirun", args...).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("%s: smpirun: %v\n%s", c.name, err, out)
	}
	m := sgTime.FindAllSubmatch(out, -1)
	if m == nil {
		return 0, fmt.Errorf("%s: no simulation time in SimGrid's output:\n%s", c.name, out)
	}
	return strconv.ParseFloat(string(m[len(m)-1][1]), 64)
}

// isSelector reports whether case c runs one of SimGrid's selectors.
func (c collCase) isSelector() bool { return strings.HasPrefix(c.sgCfg, "smpi/coll-selector:") }

// TestCollectivesSimGridLive re-runs SimGrid on every case where smpirun is
// installed: its makespans must be the committed ones and capsim must
// agree with them.
func TestCollectivesSimGridLive(t *testing.T) {
	if _, err := exec.LookPath("smpirun"); err != nil {
		t.Skip("smpirun not found: install Debian's simgrid and libsimgrid-dev to compare with SimGrid live")
	}
	if testing.Short() {
		t.Skip("runs SimGrid (-short)")
	}
	want := map[string]float64{}
	if !*recordColls {
		want = readCollMakespans(t)
	}
	dir := t.TempDir()
	var rec strings.Builder
	rec.WriteString("# SimGrid 3.32's makespans (s) of the cases of collectives_test.go (network/optim:Full):\n")
	rec.WriteString("# NAME on cluster16.xml, NAME@PLATFORM on platforms/PLATFORM.xml\n")
	for _, plat := range collPlatforms {
		m := clusterTopology(t, plat)
		for _, c := range collCases() {
			key := collKey(c.name, plat)
			sg, err := sgCollReplay(t, writeCollTrace(t, dir, c), c, plat)
			if err != nil && c.isSelector() {
				// SimGrid 3.32's selectors sometimes pick an implementation
				// that crashes (bcast NTSB: munmap_chunk(): invalid pointer).
				t.Logf("%s: SimGrid fails, case left out: %.200s", key, err)
				fmt.Fprintf(&rec, "# %s: SimGrid fails\n", key)
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&rec, "%s %.9f\n", key, sg)
			if *recordColls {
				continue
			}
			if w, ok := want[key]; !ok || math.Abs(w-sg) > 1e-12 {
				t.Errorf("%s: SimGrid now gives %.9f s, collectives-simgrid.txt says %.9f s", key, sg, w)
			}
			checkColl(t, dir, c, sg, m)
		}
	}
	if *recordColls {
		fmt.Print(rec.String())
	}
}
