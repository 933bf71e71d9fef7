package simgrid_test

import (
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

// bandwidthCases are the ping-pong of pingPongTrace on cluster16.xml
// with its links at another bandwidth: 20 messages of 8 MiB (2^20
// MPI_DOUBLEs), each 10 us + (8,388,608 + 16) B / bandwidth in SimGrid,
// whose messages carry SMPI's 16-byte envelope.
var bandwidthCases = []struct {
	xmlBW string // the cluster's bw attribute
	spec  string // capsim's network
	// simgrid is SimGrid 3.32's makespan in seconds as smpi_replay prints
	// it (`smpirun -np 2 -replay … --cfg=network/model:CM02`);
	// TestSimGridLive10Gbps re-measures it where smpirun is installed.
	simgrid float64
	// capsim is 20 · (10,000 + round((8,388,608 + H − 1) · G)) ns, H =
	// 16, by hand.
	capsim int64
}{
	// 10 Gb/s: G = 0.8; 8,388,623 · 0.8 = 6,710,898.4 → 6,710,898.
	{"1.25GBps", "loggp:L=10us,o=0,g=0,bw=10Gb/s,O=0,S=1099511627776,H=16", 0.134418, 20 * (10_000 + 6_710_898)},
	// 100 Gb/s: G = 0.08; 8,388,623 · 0.08 = 671,089.84 → 671,090.
	{"12.5GBps", "loggp:L=10us,o=0,g=0,bw=100Gb/s,O=0,S=1099511627776,H=16", 0.013622, 20 * (10_000 + 671_090)},
}

// pingPongTrace writes a TI trace of 2 ranks exchanging 2^20 doubles 10
// times each way, and a copy of cluster16.xml with links of bandwidth
// bw, into dir; it returns the index and platform files.
func pingPongTrace(t *testing.T, dir, bw string) (index, platform string) {
	t.Helper()
	var idx strings.Builder
	for r := range 2 {
		p := 1 - r
		var b strings.Builder
		fmt.Fprintf(&b, "# smpi/host-speed: 1Gf\n%d init\n", r)
		for range 10 {
			send, recv := fmt.Sprintf("%d send %d 0 1048576 0\n", r, p), fmt.Sprintf("%d recv %d 0 1048576 0\n", r, p)
			if r == 0 {
				b.WriteString(send + recv)
			} else {
				b.WriteString(recv + send)
			}
		}
		fmt.Fprintf(&b, "%d finalize\n", r)
		f := filepath.Join(dir, fmt.Sprintf("rank-%d.txt", r))
		if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		idx.WriteString(f + "\n")
	}
	index = filepath.Join(dir, "pingpong.txt")
	if err := os.WriteFile(index, []byte(idx.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	xml, err := os.ReadFile("testdata/cluster16.xml")
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(xml), `bw="1GBps"`, `bw="`+bw+`"`, 1)
	if changed == string(xml) {
		t.Fatal(`cluster16.xml: no bw="1GBps" to change`)
	}
	platform = filepath.Join(dir, "cluster16-bw.xml")
	if err := os.WriteFile(platform, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	return index, platform
}

// capsim's LogGP crossbar prices the ping-pong at 10 and 100 Gb/s (G =
// 0.8 and 0.08 ns per byte) as computed by hand, within SimGrid's
// makespan's printed digits.
func TestAgreesWithSimGridBandwidths(t *testing.T) {
	for _, c := range bandwidthCases {
		index, platform := pingPongTrace(t, t.TempDir(), c.xmlBW)
		xml, err := os.ReadFile(platform)
		if err != nil {
			t.Fatal(err)
		}
		net := clusterNet(t, xml)
		if want, _ := network.ParseSpec(c.spec); net != want {
			t.Fatalf("%s platform maps to %v, want %v", c.xmlBW, net, want)
		}
		got := pingPongMakespan(t, index, net)
		if got != c.capsim {
			t.Errorf("%s: capsim makespan %d ns, want %d", c.spec, got, c.capsim)
		}
		if r := float64(got) / 1e9 / c.simgrid; math.Abs(r-1) > 0.001 {
			t.Errorf("%s: capsim %d ns vs SimGrid %g s: ratio %.6f", c.spec, got, c.simgrid, r)
		}
	}
}

func pingPongMakespan(t *testing.T, index string, net network.LogGOPS) int64 {
	t.Helper()
	tr, err := simgrid.Read(index, simgrid.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := lower.Lower(tr, lower.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(g, net, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res.Makespan
}

// TestSimGridLiveBandwidths replays the ping-pongs with SimGrid where
// smpirun is installed and checks that it still gives bandwidthCases'
// makespans and that capsim is within 1 % of them.
func TestSimGridLiveBandwidths(t *testing.T) {
	if _, err := exec.LookPath("smpirun"); err != nil {
		t.Skip("smpirun not found: install Debian's simgrid and libsimgrid-dev to compare with SimGrid live")
	}
	if testing.Short() {
		t.Skip("runs SimGrid (-short)")
	}
	for _, c := range bandwidthCases {
		index, platform := pingPongTrace(t, t.TempDir(), c.xmlBW)
		out, err := exec.Command("smpirun", "-np", "2", "-platform", platform, "-hostfile", "testdata/hostfile16",
			"-replay", index, "--cfg=network/model:CM02").CombinedOutput()
		if err != nil {
			t.Fatalf("smpirun: %v\n%s", err, out)
		}
		m := regexp.MustCompile(`Simulation time ([0-9.e+-]+)`).FindSubmatch(out)
		if m == nil {
			t.Fatalf("smpirun printed no simulation time:\n%s", out)
		}
		sg, err := strconv.ParseFloat(string(m[1]), 64)
		if err != nil {
			t.Fatal(err)
		}
		if sg != c.simgrid {
			t.Errorf("%s: SimGrid now gives %g s, bandwidthCases says %g s", c.xmlBW, sg, c.simgrid)
		}
		xml, _ := os.ReadFile(platform)
		got := float64(pingPongMakespan(t, index, clusterNet(t, xml))) / 1e9
		t.Logf("%-9s SimGrid %.6f s  capsim %.9f s  ratio %.6f", c.xmlBW, sg, got, got/sg)
		if math.Abs(got/sg-1) > 0.01 {
			t.Errorf("%s: capsim %.9f s vs SimGrid %g s", c.xmlBW, got, sg)
		}
	}
}
