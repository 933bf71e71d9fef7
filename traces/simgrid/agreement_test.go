package simgrid_test

import (
	"bufio"
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
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/simgrid"
)

// pairing is capsim's side of the collective pairing in
// testdata/record.sh: each of capsim's lowerings next to the SimGrid
// algorithm that sends the same messages in the same rounds. SimGrid's
// alltoallv "ring" pairs rank r with r XOR i when p is a power of two (as
// on the 16 ranks here), so its partner is pairwise-xor; SimGrid's
// allgather "ring" sends a rank's own block to rank+i in step i (a shift
// exchange), so capsim's ring, which forwards blocks to the right
// neighbour, is paired with SimGrid's NTSLR (TestAllgatherPairing).
const pairing = "barrier=dissemination,bcast=binomial,reduce=binomial,allreduce=recdoub," +
	"alltoall=pairwise,alltoallv=pairwise-xor,allgather=ring,gather=linear,scatter=linear"

// platformNet derives LogGOPS parameters from the cluster of
// testdata/cluster16.xml as docs/reference/trace-formats.md states the mapping: a
// message crosses two private links (the sender's up link and the
// receiver's down link of the crossbar), so L is twice the link latency;
// G is 1/bandwidth (exact to 10⁻⁶ ns per byte); o, g and O are SimGrid's overheads smpi/os, smpi/or,
// smpi/ois, set to 0; every message is eager (S above the largest message,
// as smpi/async-small-thresh and smpi/send-is-detached-thresh are); every
// message carries H = 16 header bytes, the MPI envelope SMPI adds to the
// size it puts on the network (Request::start in SimGrid 3.32's
// src/smpi/mpi/smpi_request.cpp); and the LogGP variant prices the bytes
// in flight, as SimGrid's links do, rather than on the receiver's CPU as
// LogGOPSim does.
func platformNet(t *testing.T) network.LogGOPS {
	t.Helper()
	b, err := os.ReadFile("testdata/cluster16.xml")
	if err != nil {
		t.Fatal(err)
	}
	return clusterNet(t, b)
}

// smpiEnvelope is the bytes SMPI adds to every message on the network.
const smpiEnvelope = 16

// clusterNet maps a platform like cluster16.xml, as platformNet states.
func clusterNet(t *testing.T, b []byte) network.LogGOPS {
	t.Helper()
	attr := func(name string) string {
		m := regexp.MustCompile(`<cluster [^>]*\b` + name + `="([^"]*)"`).FindSubmatch(b)
		if m == nil {
			t.Fatalf("platform: no %s", name)
		}
		return string(m[1])
	}
	lat, bw := attr("lat"), attr("bw")
	if !strings.HasSuffix(lat, "us") || !strings.HasSuffix(bw, "GBps") {
		t.Fatalf("platform: lat %q, bw %q: the test reads lat in us and bw in GBps", lat, bw)
	}
	us, err := strconv.ParseFloat(strings.TrimSuffix(lat, "us"), 64)
	if err != nil {
		t.Fatalf("platform: lat %q", lat)
	}
	// G = 1/bw (network.ParsePerByte), L = two links' latency.
	net, err := network.ParseSpec(fmt.Sprintf("loggp:o=0,g=0,bw=%sGB/s,O=0,S=%d,H=%d", strings.TrimSuffix(bw, "GBps"), int64(1)<<40, smpiEnvelope))
	if err != nil {
		t.Fatalf("platform: bw %q: %v", bw, err)
	}
	net.Latency = int64(math.Round(2 * us * 1000))
	return net
}

// tolerance is the relative makespan difference allowed per trace: 1 %,
// except where docs/design/simgrid-agreement.md explains the difference
// (sort: SimGrid shares a host's link between the alltoallv messages of
// ranks that drift apart, where the endpoint model queues them on the
// NIC, TestLinkSharing; wavefront: the endpoint model's sender waits for
// its NIC between two back-to-back sends, TestSendStall).
var tolerance = map[string]float64{"jacobi": 0.01, "cg": 0.01, "fft": 0.01, "master": 0.01,
	"mg": 0.01, "sort": 0.02, "wavefront": 0.015}

// traceNames lists the recorded traces in testdata/ti.
var traceNames = []string{"jacobi", "cg", "fft", "master", "mg", "sort", "wavefront"}

// readMakespans reads "name seconds" lines.
func readMakespans(t *testing.T, text string) map[string]float64 {
	t.Helper()
	m := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(f) != 2 {
			t.Fatalf("makespan line %q", sc.Text())
		}
		v, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			t.Fatalf("makespan line %q: %v", sc.Text(), err)
		}
		m[f[0]] = v
	}
	return m
}

func capsimMakespan(t *testing.T, name string, net network.LogGOPS) float64 {
	t.Helper()
	tr, err := simgrid.Read(filepath.Join("testdata", "ti", name+".txt"), simgrid.Options{})
	if err != nil {
		t.Fatal(err)
	}
	algs, err := lower.ParseAlgorithms(pairing)
	if err != nil {
		t.Fatal(err)
	}
	g, err := lower.Lower(tr, lower.Options{Algorithm: algs})
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(g, net, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return float64(res.Makespan) / 1e9
}

// TestAgreesWithSimGrid replays capsim's recorded TI traces and compares
// the makespans with SimGrid's replay of the same traces, measured once
// with testdata/record.sh and committed in testdata/makespans.txt.
func TestAgreesWithSimGrid(t *testing.T) {
	b, err := os.ReadFile("testdata/makespans.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := readMakespans(t, string(b))
	if len(want) != len(tolerance) {
		t.Fatalf("makespans.txt has %d traces, want %d", len(want), len(tolerance))
	}
	net := platformNet(t)
	if net.String() != "loggp:L=10000,o=0,g=0,G=1,O=0,S=1099511627776,H=16" {
		t.Fatalf("mapping of cluster16.xml gave %v", net)
	}
	for _, name := range traceNames {
		sg := want[name]
		got := capsimMakespan(t, name, net)
		ratio := got / sg
		t.Logf("%-7s SimGrid %.6f s  capsim %.6f s  ratio %.4f", name, sg, got, ratio)
		if math.Abs(ratio-1) > tolerance[name] {
			t.Errorf("%s: capsim %.6f s vs SimGrid %.6f s (ratio %.4f, allowed ±%g)", name, got, sg, ratio, tolerance[name])
		}
		// With an offloading NIC the wavefront's send stall is gone
		// (−0.42 %); the sort's link sharing stays (−1.39 %).
		tol := 0.01
		if name == "sort" {
			tol = 0.02
		}
		if off := capsimMakespan(t, name, offloaded(net)) / sg; math.Abs(off-1) > tol {
			t.Errorf("%s: capsim with offload=1 / SimGrid = %.4f, allowed ±%g", name, off, tol)
		}
	}
}

// TestSimGridLive re-runs SimGrid's replay where smpirun is installed and
// checks it still gives the committed makespans (so they are SimGrid's,
// not numbers typed in) and that capsim agrees with it.
func TestSimGridLive(t *testing.T) {
	if _, err := exec.LookPath("smpirun"); err != nil {
		t.Skip("smpirun not found: install Debian's simgrid and libsimgrid-dev to compare with SimGrid live")
	}
	if testing.Short() {
		t.Skip("runs SimGrid (-short)")
	}
	out, err := exec.Command("testdata/record.sh", "replay").CombinedOutput()
	if err != nil {
		t.Fatalf("record.sh replay: %v\n%s", err, out)
	}
	live := readMakespans(t, string(out))
	b, err := os.ReadFile("testdata/makespans.txt")
	if err != nil {
		t.Fatal(err)
	}
	committed := readMakespans(t, string(b))
	net := platformNet(t)
	for _, name := range traceNames {
		sg := committed[name]
		if live[name] != sg {
			t.Errorf("%s: SimGrid now gives %g s, makespans.txt says %g s", name, live[name], sg)
		}
		if got := capsimMakespan(t, name, net); math.Abs(got/live[name]-1) > tolerance[name] {
			t.Errorf("%s: capsim %.6f s vs SimGrid %.6f s", name, got, live[name])
		}
	}
}

// TestLogGOPSReceiveRule replays the traces under LogGOPSim's own pricing
// (LogGP off), where a received message holds its receiver's CPU for
// (s-1)·G: docs/reference/trace-formats.md explains why that puts cg 1.9 % above
// SimGrid (halo messages arriving while ranks skewed by the broadcast want
// to send) while the other traces stay within 0.2 %.
func TestLogGOPSReceiveRule(t *testing.T) {
	b, err := os.ReadFile("testdata/makespans.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := readMakespans(t, string(b))
	net := platformNet(t)
	net.LogGP = false
	// The traces docs/reference/trace-formats.md discusses; under LogGOPS sort
	// is 1.3 % below SimGrid and wavefront 3.9 % above.
	for _, name := range []string{"jacobi", "cg", "fft", "master"} {
		ratio := capsimMakespan(t, name, net) / want[name]
		t.Logf("%-7s LogGOPS / SimGrid %.4f", name, ratio)
		if off := math.Abs(ratio - 1); (name == "cg") != (off > 0.01) {
			t.Errorf("%s: LogGOPS / SimGrid = %.4f; docs/reference/trace-formats.md says only cg is more than 1 %% off", name, ratio)
		}
	}
}
