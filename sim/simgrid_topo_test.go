package sim

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/network/topo"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/simgrid"
)

// The SimGrid validation of the flow model: the same workloads, written as
// SimGrid time-independent traces, replayed by SimGrid 3.32
// (smpirun -replay, network/model:CM02, no overheads, every message
// eager; see docs/trace-formats.md) on a <cluster topology="FAT_TREE|TORUS">
// of 1 GB/s, 5 µs links, and by capsim on the equivalent topology with
// exact max-min sharing timed as CM02 does (FlowNetwork.CM02; the torus
// without NIC links and with SimGrid's tie rule, as SimGrid builds it). SimGrid's makespans are committed in
// testdata/topology-simgrid.txt; TestTopologySimGridLive re-measures them
// where smpirun is installed. docs/network.md tabulates the comparison.

type sgCase struct {
	name     string
	workload string // a2a, ring, perm, stencil
	ranks    int
	bytes    int64
	sgTopo   string // SimGrid cluster topology and topo_parameters
	sgParams string
	capsim   string // capsim topology spec
	tol      float64
}

const (
	ft16  = "fattree:k=4,n=2,bw=1,hop_ns=5000"
	ft64  = "fattree:k=4,n=3,bw=1,hop_ns=5000"
	tor16 = "torus:dims=4x4,bw=1,hop_ns=5000,nic=0,tie=simgrid"
	tor64 = "torus:dims=4x4x4,bw=1,hop_ns=5000,nic=0,tie=simgrid"
)

var sgCases = []sgCase{
	{"ft16-ring", "ring", 16, 1 << 20, "FAT_TREE", "2;4,4;1,4;1,1", ft16, 0.02},
	{"ft16-a2a", "a2a", 16, 1 << 20, "FAT_TREE", "2;4,4;1,4;1,1", ft16, 0.05},
	{"ft16-perm", "perm", 16, 1 << 20, "FAT_TREE", "2;4,4;1,4;1,1", ft16, 0.05},
	{"ft16-stencil", "stencil", 16, 1 << 20, "FAT_TREE", "2;4,4;1,4;1,1", ft16, 0.02},
	{"ft64-ring", "ring", 64, 1 << 18, "FAT_TREE", "3;4,4,4;1,4,4;1,1,1", ft64, 0.02},
	{"ft64-a2a", "a2a", 64, 1 << 18, "FAT_TREE", "3;4,4,4;1,4,4;1,1,1", ft64, 0.05},
	{"tor16-ring", "ring", 16, 1 << 20, "TORUS", "4,4", tor16, 0.02},
	// 6.2 % below SimGrid, not explained yet (docs/network.md).
	{"tor16-a2a", "a2a", 16, 1 << 20, "TORUS", "4,4", tor16, 0.07},
	{"tor16-perm", "perm", 16, 1 << 20, "TORUS", "4,4", tor16, 0.05},
	{"tor16-stencil", "stencil", 16, 1 << 20, "TORUS", "4,4", tor16, 0.02},
	{"tor64-a2a", "a2a", 64, 1 << 18, "TORUS", "4,4,4", tor64, 0.05},
}

// writeSGTrace writes c's workload as a SimGrid TI trace (an index file
// and one file per rank) under dir and returns the index's path.
func writeSGTrace(t testing.TB, dir string, c sgCase) string {
	t.Helper()
	p := c.ranks
	ops := make([][]string, p)
	send := func(r, to, tag int) { ops[r] = append(ops[r], fmt.Sprintf("%d send %d %d %d", r, to, tag, c.bytes)) }
	recv := func(r, from, tag int) {
		ops[r] = append(ops[r], fmt.Sprintf("%d recv %d %d %d", r, from, tag, c.bytes))
	}
	switch c.workload {
	case "a2a": // pairwise: round k to r+k, from r−k
		for r := range p {
			for k := 1; k < p; k++ {
				send(r, (r+k)%p, k)
				recv(r, (r-k+p)%p, k)
			}
		}
	case "ring": // p−1 steps of a ring: to the right, from the left
		for r := range p {
			for k := 1; k < p; k++ {
				send(r, (r+1)%p, k)
				recv(r, (r-1+p)%p, k)
			}
		}
	case "perm": // 4 random permutations (seeded), one after the other
		rng := rand.New(rand.NewPCG(21, uint64(p)))
		for k := 1; k <= 4; k++ {
			perm := rng.Perm(p)
			inv := make([]int, p)
			for r, d := range perm {
				inv[d] = r
			}
			for r := range p {
				if perm[r] != r {
					send(r, perm[r], k)
				}
				if inv[r] != r {
					recv(r, inv[r], k)
				}
			}
		}
	case "stencil": // 3 iterations of a periodic 2-D halo exchange
		side := int(math.Sqrt(float64(p)))
		for it := range 3 {
			for r := range p {
				x, y := r%side, r/side
				nb := []int{y*side + (x+1)%side, y*side + (x-1+side)%side, ((y+1)%side)*side + x, ((y-1+side)%side)*side + x}
				for d, n := range nb {
					send(r, n, it*4+d)
				}
				for d, n := range nb {
					recv(r, n, it*4+(d^1))
				}
			}
		}
	default:
		t.Fatalf("workload %q", c.workload)
	}
	tdir := filepath.Join(dir, c.name)
	if err := os.MkdirAll(tdir, 0o755); err != nil {
		t.Fatal(err)
	}
	var idx strings.Builder
	for r := range p {
		f := filepath.Join(tdir, fmt.Sprintf("rank-%d.txt", r))
		body := fmt.Sprintf("%d init\n%s\n", r, strings.Join(ops[r], "\n"))
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&idx, "%s\n", f)
	}
	index := filepath.Join(dir, c.name+".txt")
	if err := os.WriteFile(index, []byte(idx.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return index
}

// sgNet is the endpoint model equivalent to SimGrid's settings: no
// overheads, every message eager, bytes priced by the links alone.
var sgNet = network.LogGOPS{GapPerByte: 1, EagerLimit: 1 << 40, LogGP: true}

func capsimSG(t testing.TB, index string, c sgCase, exact, weighted bool) float64 {
	t.Helper()
	tr, err := simgrid.Read(index, simgrid.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := lower.Lower(tr, lower.Options{})
	if err != nil {
		t.Fatal(err)
	}
	top, err := topo.Parse(c.capsim)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(g, sgNet, Options{Flow: &FlowNetwork{Topology: top, Exact: exact, CM02: weighted}})
	if err != nil {
		t.Fatal(err)
	}
	return float64(res.Makespan) / 1e9
}

func readSGMakespans(t *testing.T) map[string]float64 {
	t.Helper()
	f, err := os.Open("testdata/topology-simgrid.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[string]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 || strings.HasPrefix(fs[0], "#") {
			continue
		}
		v, err := strconv.ParseFloat(fs[1], 64)
		if len(fs) != 2 || err != nil {
			t.Fatalf("topology-simgrid.txt: line %q", sc.Text())
		}
		m[fs[0]] = v
	}
	return m
}

// TestTopologyAgreesWithSimGrid compares capsim's makespans with SimGrid's
// committed ones, case by case, within each case's tolerance (2 % without
// contention, 5 % with, 7 % for the one difference not yet explained).
func TestTopologyAgreesWithSimGrid(t *testing.T) {
	want := readSGMakespans(t)
	dir := t.TempDir()
	for _, c := range sgCases {
		sg, ok := want[c.name]
		if !ok {
			t.Errorf("%s: no SimGrid makespan in testdata/topology-simgrid.txt", c.name)
			continue
		}
		index := writeSGTrace(t, dir, c)
		exact := capsimSG(t, index, c, true, false)
		local := capsimSG(t, index, c, false, false)
		cm02 := capsimSG(t, index, c, true, true)
		t.Logf("%-14s SimGrid %.6f s  capsim CM02 %.6f s (%.4f)  equal shares: exact %.6f s (%.4f), neighbours %.6f s (%.4f)", c.name, sg, cm02, cm02/sg, exact, exact/sg, local, local/sg)
		if math.Abs(cm02/sg-1) > c.tol {
			t.Errorf("%s: capsim %.6f s vs SimGrid %.6f s (ratio %.4f, allowed ±%g)", c.name, cm02, sg, cm02/sg, c.tol)
		}
	}
}

// sgPlatform writes SimGrid's platform for c.
func sgPlatform(t *testing.T, dir string, c sgCase) (string, string) {
	plat := filepath.Join(dir, c.name+".xml")
	xml := fmt.Sprintf(`<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <config>
    <prop id="network/model" value="CM02"/>
    <prop id="network/crosstraffic" value="0"/>
    <prop id="network/TCP-gamma" value="0"/>
    <prop id="smpi/bw-factor" value="0:1"/>
    <prop id="smpi/lat-factor" value="0:1"/>
    <prop id="smpi/os" value="0:0:0:0:0"/>
    <prop id="smpi/or" value="0:0:0:0:0"/>
    <prop id="smpi/ois" value="0:0:0:0:0"/>
    <prop id="smpi/async-small-thresh" value="1073741824"/>
    <prop id="smpi/send-is-detached-thresh" value="1073741824"/>
    <prop id="smpi/host-speed" value="1Gf"/>
  </config>
  <zone id="world" routing="Full">
    <cluster id="c" prefix="node-" radical="0-%d" suffix="" speed="1Gf" bw="1GBps" lat="5us"
             sharing_policy="SPLITDUPLEX" topology="%s" topo_parameters="%s"/>
  </zone>
</platform>
`, c.ranks-1, c.sgTopo, c.sgParams)
	if err := os.WriteFile(plat, []byte(xml), 0o644); err != nil {
		t.Fatal(err)
	}
	hosts := filepath.Join(dir, c.name+".hosts")
	var b strings.Builder
	for r := range c.ranks {
		fmt.Fprintf(&b, "node-%d\n", r)
	}
	if err := os.WriteFile(hosts, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return plat, hosts
}

// TestTopologySimGridLive re-runs SimGrid on every case where smpirun is
// installed and checks it still gives the committed makespans. With
// CAPSIM_PRINT_SIMGRID=1 it prints them in testdata/topology-simgrid.txt's
// format.
func TestTopologySimGridLive(t *testing.T) {
	if _, err := exec.LookPath("smpirun"); err != nil {
		t.Skip("smpirun not found: install Debian's simgrid and libsimgrid-dev to compare with SimGrid live")
	}
	if testing.Short() {
		t.Skip("runs SimGrid (-short)")
	}
	want := readSGMakespans(t)
	dir := t.TempDir()
	re := regexp.MustCompile(`Simulation time ([0-9.e+-]+)`)
	for _, c := range sgCases {
		index := writeSGTrace(t, dir, c)
		plat, hosts := sgPlatform(t, dir, c)
		out, err := exec.Command("smpirun", "-np", strconv.Itoa(c.ranks), "-platform", plat, "-hostfile", hosts,
			"-replay", index, "--cfg=network/model:CM02").CombinedOutput()
		m := re.FindSubmatch(out)
		if err != nil || m == nil {
			t.Fatalf("%s: smpirun: %v\n%s", c.name, err, out)
		}
		got, _ := strconv.ParseFloat(string(m[1]), 64)
		if os.Getenv("CAPSIM_PRINT_SIMGRID") != "" {
			fmt.Printf("%s %s\n", c.name, m[1])
		}
		if want[c.name] != got {
			t.Errorf("%s: SimGrid now gives %g s, testdata/topology-simgrid.txt says %g s", c.name, got, want[c.name])
		}
	}
}
