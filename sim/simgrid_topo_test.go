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
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/simgrid"
)

// The SimGrid validation of the flow model: the same workloads, written as
// SimGrid time-independent traces, replayed by SimGrid 3.32
// (smpirun -replay, network/model:CM02, no overheads, every message
// eager; see docs/reference/trace-formats.md) on a
// <cluster topology="FAT_TREE|TORUS|DRAGONFLY"> of 1 GB/s, 5 µs links,
// and by capsim on the equivalent topology with exact max-min sharing
// timed as CM02 does (FlowNetwork.CM02; the torus without NIC links and
// with SimGrid's tie rule, the fat-trees as XGFTs where SimGrid's has
// fewer parents or parallel links, the dragonflies with SimGrid's wiring,
// as SimGrid builds them; messages 16 bytes longer, SMPI's envelope).
// SimGrid runs with its default lazy updates and with full updates
// (sgUpdates); both makespans are committed in
// testdata/topology-simgrid.txt, and TestTopologySimGridLive re-measures
// them where smpirun is installed. docs/design/network.md tabulates the
// comparison and explains the cases that differ.

type sgCase struct {
	name     string
	workload string // a2a, ring, perm, stencil
	ranks    int
	bytes    int64
	sgTopo   string // SimGrid cluster topology and topo_parameters
	sgParams string
	capsim   string // capsim topology spec
	tol      float64
	// lazyErr: SimGrid's default lazy updates give a makespan off by
	// more than tol, because its selective re-solving leaves out links
	// (docs/design/network.md); the case is checked against full updates only.
	lazyErr bool
	// long: a 256-rank all-to-all; TestTopologySimGridLive re-runs
	// SimGrid on it only with CAPSIM_SIMGRID_LONG=1 (15 s to 2 minutes of
	// SimGrid time each).
	long bool
	// sgRoutes: replay on the dragonfly with SimGrid's routes inside a
	// group (sgDragonflyRoutes), which differ from capsim's where a group
	// has several chassis (docs/design/network.md); capsim's own routes are
	// logged beside.
	sgRoutes bool
}

const (
	ft16  = "fattree:k=4,n=2,bw=1,hop_ns=5000"
	ft64  = "fattree:k=4,n=3,bw=1,hop_ns=5000"
	tor16 = "torus:dims=4x4,bw=1,hop_ns=5000,nic=0,tie=simgrid"
	tor64 = "torus:dims=4x4x4,bw=1,hop_ns=5000,nic=0,tie=simgrid"
	// 256 ranks.
	ft256  = "fattree:k=4,n=4,bw=1,hop_ns=5000"
	tor256 = "torus:dims=16x16,bw=1,hop_ns=5000,nic=0,tie=simgrid"
	df256  = "dragonfly:groups=8,routers=8,hosts=4,wiring=simgrid,bw=1,hop_ns=5000"
	// Oversubscribed fat-trees as SimGrid builds them: fewer parents
	// (2:1 at every level), or one parent reached by parallel links.
	ft16o = "fattree:down=4x4,up=1x2,bw=1,hop_ns=5000"
	ft16p = "fattree:down=4x4,up=1x1,links=1x2,bw=1,hop_ns=5000"
	ft64o = "fattree:down=4x4x4,up=1x2x2,bw=1,hop_ns=5000"
	// Dragonflies with SimGrid's wiring: one chassis per group, and two.
	df16  = "dragonfly:groups=4,routers=4,hosts=1,wiring=simgrid,bw=1,hop_ns=5000"
	df64  = "dragonfly:groups=4,routers=4,hosts=4,wiring=simgrid,bw=1,hop_ns=5000"
	df64c = "dragonfly:groups=4,routers=4,hosts=2,chassis=2,wiring=simgrid,bw=1,hop_ns=5000"
)

var sgCases = []sgCase{
	{"ft16-ring", "ring", 16, 1 << 20, "FAT_TREE", "2;4,4;1,4;1,1", ft16, 0.02, false, false, false},
	{"ft16-a2a", "a2a", 16, 1 << 20, "FAT_TREE", "2;4,4;1,4;1,1", ft16, 0.05, false, false, false},
	{"ft16-perm", "perm", 16, 1 << 20, "FAT_TREE", "2;4,4;1,4;1,1", ft16, 0.05, false, false, false},
	{"ft16-stencil", "stencil", 16, 1 << 20, "FAT_TREE", "2;4,4;1,4;1,1", ft16, 0.02, false, false, false},
	{"ft64-ring", "ring", 64, 1 << 18, "FAT_TREE", "3;4,4,4;1,4,4;1,1,1", ft64, 0.02, false, false, false},
	{"ft64-a2a", "a2a", 64, 1 << 18, "FAT_TREE", "3;4,4,4;1,4,4;1,1,1", ft64, 0.05, false, false, false},
	{"tor16-ring", "ring", 16, 1 << 20, "TORUS", "4,4", tor16, 0.02, false, false, false},
	// SimGrid's lazy updates overload links: 6.6 % above its full updates.
	{"tor16-a2a", "a2a", 16, 1 << 20, "TORUS", "4,4", tor16, 0.05, true, false, false},
	{"tor16-perm", "perm", 16, 1 << 20, "TORUS", "4,4", tor16, 0.05, false, false, false},
	{"tor16-stencil", "stencil", 16, 1 << 20, "TORUS", "4,4", tor16, 0.02, false, false, false},
	// SimGrid's lazy updates: 4.6 % below its full updates.
	{"tor64-a2a", "a2a", 64, 1 << 18, "TORUS", "4,4,4", tor64, 0.05, true, false, false},
	{"ft16o-ring", "ring", 16, 1 << 20, "FAT_TREE", "2;4,4;1,2;1,1", ft16o, 0.02, false, false, false},
	{"ft16o-a2a", "a2a", 16, 1 << 20, "FAT_TREE", "2;4,4;1,2;1,1", ft16o, 0.05, false, false, false},
	{"ft16o-perm", "perm", 16, 1 << 20, "FAT_TREE", "2;4,4;1,2;1,1", ft16o, 0.05, false, false, false},
	{"ft16o-stencil", "stencil", 16, 1 << 20, "FAT_TREE", "2;4,4;1,2;1,1", ft16o, 0.05, false, false, false},
	{"ft16p-a2a", "a2a", 16, 1 << 20, "FAT_TREE", "2;4,4;1,1;1,2", ft16p, 0.05, false, false, false},
	{"ft16p-perm", "perm", 16, 1 << 20, "FAT_TREE", "2;4,4;1,1;1,2", ft16p, 0.05, false, false, false},
	// capsim 5.5 % above SimGrid, whose rounds stay in lockstep at
	// all-equal sizes; with sizes jittered by a byte or a few the two
	// agree on average (TestA2AJitterAgreesWithSimGrid,
	// docs/design/network.md).
	{"ft64o-a2a", "a2a", 64, 1 << 18, "FAT_TREE", "3;4,4,4;1,2,2;1,1,1", ft64o, 0.07, true, false, false},
	{"ft64o-perm", "perm", 64, 1 << 18, "FAT_TREE", "3;4,4,4;1,2,2;1,1,1", ft64o, 0.05, false, false, false},
	{"df16-ring", "ring", 16, 1 << 20, "DRAGONFLY", "4,1;1,1;4,1;1", df16, 0.02, false, false, false},
	{"df16-a2a", "a2a", 16, 1 << 20, "DRAGONFLY", "4,1;1,1;4,1;1", df16, 0.05, false, false, false},
	{"df16-perm", "perm", 16, 1 << 20, "DRAGONFLY", "4,1;1,1;4,1;1", df16, 0.05, false, false, false},
	{"df16-stencil", "stencil", 16, 1 << 20, "DRAGONFLY", "4,1;1,1;4,1;1", df16, 0.05, false, false, false},
	{"df64-a2a", "a2a", 64, 1 << 18, "DRAGONFLY", "4,1;1,1;4,1;4", df64, 0.05, true, false, false},
	{"df64-perm", "perm", 64, 1 << 18, "DRAGONFLY", "4,1;1,1;4,1;4", df64, 0.05, false, false, false},
	{"df64c-a2a", "a2a", 64, 1 << 18, "DRAGONFLY", "4,1;2,1;4,1;2", df64c, 0.05, true, false, true},
	{"df64c-perm", "perm", 64, 1 << 18, "DRAGONFLY", "4,1;2,1;4,1;2", df64c, 0.05, false, false, true},
	{"ft256-a2a", "a2a", 256, 1 << 16, "FAT_TREE", "4;4,4,4,4;1,4,4,4;1,1,1,1", ft256, 0.05, false, true, false},
	{"ft256-perm", "perm", 256, 1 << 18, "FAT_TREE", "4;4,4,4,4;1,4,4,4;1,1,1,1", ft256, 0.05, false, false, false},
	{"tor256-a2a", "a2a", 256, 1 << 16, "TORUS", "16,16", tor256, 0.05, false, true, false},
	// Chaotic: SimGrid's makespan moves by 17 % and capsim's by 15 % when
	// the messages grow or shrink by 1 or 100 bytes; the means of the 5
	// sizes agree within 1.3 % (docs/design/network.md).
	{"df256-a2a", "a2a", 256, 1 << 16, "DRAGONFLY", "8,1;1,1;8,1;4", df256, 0.25, true, true, false},
	{"tor256-perm", "perm", 256, 1 << 18, "TORUS", "16,16", tor256, 0.05, false, false, false},
	{"tor256-stencil", "stencil", 256, 1 << 18, "TORUS", "16,16", tor256, 0.02, false, false, false},
	{"df256-perm", "perm", 256, 1 << 18, "DRAGONFLY", "8,1;1,1;8,1;4", df256, 0.05, false, false, false},
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
	case "three": // TestSimGridLazyCapacity's flows A, B and C
		send(1, 3, 0)
		ops[0] = append(ops[0], "0 compute 5000") // 5 µs at 1 Gflop/s
		send(0, 2, 1)
		send(3, 5, 2)
		recv(3, 1, 0)
		recv(2, 0, 1)
		recv(5, 3, 2)
	default:
		t.Fatalf("workload %q", c.workload)
	}
	return writeTITrace(t, dir, c.name, ops)
}

// writeTITrace writes a SimGrid TI trace of ops (one list of actions per
// rank, without the init) under dir/name and returns its index's path.
func writeTITrace(t testing.TB, dir, name string, ops [][]string) string {
	t.Helper()
	p := len(ops)
	tdir := filepath.Join(dir, name)
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
	index := filepath.Join(dir, name+".txt")
	if err := os.WriteFile(index, []byte(idx.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return index
}

// sgNet is the endpoint model equivalent to SimGrid's settings: no
// overheads, every message eager, bytes priced by the links alone.
var sgNet = network.LogGOPS{GapPerByte: network.NsPerByte(1), EagerLimit: 1 << 40, LogGP: true}

// sgEnvelope is the MPI envelope (tag, destination, communicator) SMPI
// sends with every message: its transfers carry 16 bytes more than the
// message (smpi_request.cpp), which capsim's side of the comparison adds.
const sgEnvelope = 16

func capsimSG(t testing.TB, index string, c sgCase, neighbours, weighted bool) float64 {
	t.Helper()
	return float64(capsimSGRun(t, index, c, neighbours, weighted).Makespan) / 1e9
}

func capsimSGRun(t testing.TB, index string, c sgCase, neighbours, weighted bool) *Result {
	t.Helper()
	tr, err := simgrid.Read(index, simgrid.Options{Speed: 1e9})
	if err != nil {
		t.Fatal(err)
	}
	g, err := lower.Lower(tr, lower.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range g.Kind {
		if k == graph.Send || k == graph.Recv {
			g.Size[i] += sgEnvelope
		}
	}
	top, err := topo.Parse(c.capsim)
	if err != nil {
		t.Fatal(err)
	}
	if c.sgRoutes {
		top = sgDragonflyRoutes{top.(*topo.Dragonfly)}
	}
	res, err := Run(g, sgNet, Options{Flow: &FlowNetwork{Topology: top, Neighbours: neighbours, CM02: weighted}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// sgUpdates are the two ways SimGrid runs CM02's max-min solver: its
// default, lazy updates with selective re-solving of the constraints a
// change touched, and full updates re-solving every constraint at every
// step (docs/design/network.md explains why they differ on tor16-a2a).
var sgUpdates = [2][]string{
	{"--cfg=network/optim:Lazy"},
	{"--cfg=network/optim:Full", "--cfg=network/maxmin-selective-update:no"},
}

// readSGMakespans reads testdata/topology-simgrid.txt: per case, SimGrid's
// makespans with lazy and with full updates (sgUpdates).
func readSGMakespans(t *testing.T) map[string][2]float64 {
	t.Helper()
	f, err := os.Open("testdata/topology-simgrid.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[string][2]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 || strings.HasPrefix(fs[0], "#") {
			continue
		}
		if len(fs) != 3 {
			t.Fatalf("topology-simgrid.txt: line %q: want a case and two makespans", sc.Text())
		}
		var v [2]float64
		for i := range v {
			if v[i], err = strconv.ParseFloat(fs[1+i], 64); err != nil {
				t.Fatalf("topology-simgrid.txt: line %q: %v", sc.Text(), err)
			}
		}
		m[fs[0]] = v
	}
	return m
}

// TestTopologyAgreesWithSimGrid compares capsim's makespans with SimGrid's
// committed ones, case by case, within each case's tolerance (2 % without
// contention, 5 % with, more where docs/design/network.md explains why): with
// SimGrid's full updates always, with its default lazy updates except
// where those are off (lazyErr; checked to stay more than 1 % off
// SimGrid's own full updates). The equal-share columns of the table in
// docs/design/network.md are logged beside, for the 256-rank cases only with
// CAPSIM_SIMGRID_LONG=1 (they take a minute).
func TestTopologyAgreesWithSimGrid(t *testing.T) {
	want := readSGMakespans(t)
	dir := t.TempDir()
	long := os.Getenv("CAPSIM_SIMGRID_LONG") != ""
	for _, c := range sgCases {
		sg, ok := want[c.name]
		if !ok {
			t.Errorf("%s: no SimGrid makespan in testdata/topology-simgrid.txt", c.name)
			continue
		}
		index := writeSGTrace(t, dir, c)
		cm02 := capsimSG(t, index, c, false, true)
		lazy, full := sg[0], sg[1]
		msg := fmt.Sprintf("%-14s SimGrid full %.6f ms, lazy %.6f ms; capsim CM02 %.6f ms (%.5f, %.5f)",
			c.name, full*1e3, lazy*1e3, cm02*1e3, cm02/full, cm02/lazy)
		if c.sgRoutes {
			own := c
			own.sgRoutes = false
			x := capsimSG(t, index, own, false, true)
			msg += fmt.Sprintf("; with capsim's routes %.6f ms (%.5f)", x*1e3, x/full)
		}
		if !c.long || long {
			exact := capsimSG(t, index, c, false, false)
			local := capsimSG(t, index, c, true, false)
			msg += fmt.Sprintf("; equal shares: exact %.6f ms (%.5f), neighbours %.6f ms (%.5f)", exact*1e3, exact/full, local*1e3, local/full)
		}
		t.Log(msg)
		if math.Abs(cm02/full-1) > c.tol {
			t.Errorf("%s: capsim %.6f s vs SimGrid (full updates) %.6f s (ratio %.4f, allowed ±%g)", c.name, cm02, full, cm02/full, c.tol)
		}
		switch {
		case !c.lazyErr && math.Abs(cm02/lazy-1) > c.tol:
			t.Errorf("%s: capsim %.6f s vs SimGrid (lazy updates) %.6f s (ratio %.4f, allowed ±%g)", c.name, cm02, lazy, cm02/lazy, c.tol)
		case c.lazyErr && math.Abs(lazy/full-1) <= 0.01:
			t.Errorf("%s: SimGrid's lazy updates (%.6f s) are now within 1 %% of its full ones (%.6f s): clear lazyErr", c.name, lazy, full)
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

// sgAction matches an action's line in smpi_replay's verbose log as
// runSimGrid formats it: the simulated time it ended (9 decimals), the
// rank and the action.
var sgAction = regexp.MustCompile(`(?m)^([0-9]+\.[0-9]{9})_([0-9]+) ([a-z_]+)`)

// needSimGrid skips t unless smpirun is installed and -short is off.
func needSimGrid(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("smpirun"); err != nil {
		t.Skip("smpirun not found: install Debian's simgrid and libsimgrid-dev to compare with SimGrid live")
	}
	if testing.Short() {
		t.Skip("runs SimGrid (-short)")
	}
}

// runSimGrid replays case c (written under dir) in SimGrid with the
// update options opt (one of sgUpdates) and returns when each rank's last
// action ended, in ns (to the ns, unlike the µs of the "Simulation time"
// line), and the latest of them, in s.
func runSimGrid(t *testing.T, dir string, c sgCase, opt []string) (map[int]int64, string) {
	t.Helper()
	return runSimGridIndex(t, dir, c, writeSGTrace(t, dir, c), opt)
}

// runSimGridIndex is runSimGrid on the trace of index, on c's platform.
func runSimGridIndex(t *testing.T, dir string, c sgCase, index string, opt []string) (map[int]int64, string) {
	t.Helper()
	plat, hosts := sgPlatform(t, dir, c)
	args := append([]string{"-np", strconv.Itoa(c.ranks), "-platform", plat, "-hostfile", hosts,
		"-replay", index, "--cfg=network/model:CM02", "--log=root.thres:critical",
		"--log=smpi_replay.thres:verbose", "--log=smpi_replay.fmt:%.9r_%m%n"}, opt...)
	out, err := exec.Command("smpirun", args...).CombinedOutput()
	ms := sgAction.FindAllSubmatch(out, -1)
	if err != nil || len(ms) == 0 {
		t.Fatalf("%s: smpirun %v: %v\n%s", c.name, opt, err, out)
	}
	end := map[int]int64{}
	var last int64
	for _, m := range ms {
		sec, frac, _ := strings.Cut(string(m[1]), ".")
		ns, err1 := strconv.ParseInt(sec+frac, 10, 64)
		r, err2 := strconv.Atoi(string(m[2]))
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: smpi_replay log line %q", c.name, m[0])
		}
		if ns >= end[r] {
			end[r] = ns
		}
		last = max(last, ns)
	}
	return end, fmt.Sprintf("%d.%09d", last/1e9, last%1e9)
}

// TestTopologySimGridLive re-runs SimGrid on every case where smpirun is
// installed and checks it still gives the committed makespans; the
// 256-rank cases (minutes of SimGrid time) only with
// CAPSIM_SIMGRID_LONG=1. With CAPSIM_PRINT_SIMGRID=1 it prints them in
// testdata/topology-simgrid.txt's format; CAPSIM_SIMGRID_CASES=REGEXP
// restricts it to the cases whose names match.
func TestTopologySimGridLive(t *testing.T) {
	needSimGrid(t)
	want := readSGMakespans(t)
	dir := t.TempDir()
	only := regexp.MustCompile(os.Getenv("CAPSIM_SIMGRID_CASES"))
	for _, c := range sgCases {
		if !only.MatchString(c.name) || (c.long && os.Getenv("CAPSIM_SIMGRID_LONG") == "") {
			continue
		}
		var got [2]float64
		var text [2]string
		for i, opt := range sgUpdates {
			_, text[i] = runSimGrid(t, dir, c, opt)
			got[i], _ = strconv.ParseFloat(text[i], 64)
		}
		if os.Getenv("CAPSIM_PRINT_SIMGRID") != "" {
			fmt.Printf("%s %s %s\n", c.name, text[0], text[1])
		}
		if w := want[c.name]; w != got {
			t.Errorf("%s: SimGrid now gives %g s (lazy) and %g s (full), testdata/topology-simgrid.txt says %g and %g s", c.name, got[0], got[1], w[0], w[1])
		}
	}
}

// TestSimGridLazyCapacity replays TestFlowTorusCM02Simultaneous's three
// flows in SimGrid: with full updates SimGrid gives capsim's times (rank 3
// receives A, rank 2 B, rank 5 C; 16 bytes more each for SMPI's envelope);
// with its default lazy updates A runs at the full 1 B/ns of link
// (1,0)→(2,0) while B crosses it at 0.6, 1.6 B/ns on a 1 B/ns link, which
// is why tor16-a2a is off under lazy updates (docs/design/network.md). When B
// and C start to flow at the same instant (15 µs), SimGrid re-solves the
// links it marks as modified: C, enabled first, marks its links, among
// them (0,0)→(1,0); B's first link is that one, already marked, so B's
// other link, (1,0)→(2,0), and A on it are not marked and A keeps its
// rate of 1.
func TestSimGridLazyCapacity(t *testing.T) {
	needSimGrid(t)
	c := sgCase{"cm02-three", "three", 16, 1 << 20, "TORUS", "4,4", tor16, 0, false, false, false}
	dir := t.TempDir()
	index := writeSGTrace(t, dir, c)
	res := capsimSGRun(t, index, c, false, true)
	lazy, _ := runSimGrid(t, dir, c, sgUpdates[0])
	full, _ := runSimGrid(t, dir, c, sgUpdates[1])
	for _, r := range []int{3, 2, 5} {
		t.Logf("rank %d: capsim %d ns, SimGrid full %d ns, lazy %d ns", r, res.Ranks[r].Finish, full[r], lazy[r])
		if d := full[r] - res.Ranks[r].Finish; d < -2 || d > 2 {
			t.Errorf("rank %d: SimGrid (full updates) %d ns, capsim %d ns", r, full[r], res.Ranks[r].Finish)
		}
	}
	// Lazy: A at 1 B/ns from 10 µs to its end (2^20 + 16 bytes later, at
	// 1,058,592 ns); B at 0.6 from 15 µs (C's 0.4 beside it on
	// (0,0)→(1,0)), still 0.6 once A has ended: 1,048,592 − 0.6·1,043,592
	// = 422,436.8 bytes left at A's end take 704,061.3 ns more.
	if lazy[3] != 1_058_592 || lazy[2] != 1_762_653 {
		t.Errorf("SimGrid (lazy updates): A received at %d ns, B at %d ns; was 1,058,592 and 1,762,653", lazy[3], lazy[2])
	}
}

// sgDragonflyRoutes is a Dragonfly that routes messages inside a group
// as SimGrid 3.32's DragonflyZone does (network/topo's
// TestRoutesAgreeWithSimGrid checks every other route against
// SimGrid's): from chassis c ≠ 0 to another position b2, SimGrid takes
// the local link of chassis c to b2 and then continues as if it were at
// position b2 of chassis 0: to the destination's chassis if that is not
// 0 (a chassis link that does not start where the message is), not at
// all if it is 0 (the message never crosses to chassis 0).
type sgDragonflyRoutes struct{ *topo.Dragonfly }

func (t sgDragonflyRoutes) Route(buf []int32, src, dst int) []int32 {
	d := t.Dragonfly
	a, b := src/d.Hosts, dst/d.Hosts
	per := d.Chassis * d.Routers
	g := a / per
	cs, bs := a%per/d.Routers, a%d.Routers
	cd, bd := b%per/d.Routers, b%d.Routers
	if src == dst || g != b/per || cs == 0 || bs == bd {
		return d.Route(buf, src, dst)
	}
	// Link ids as Dragonfly documents them.
	n := d.Nodes()
	black := d.NumLinks() - d.Groups*d.Routers*d.Chassis*d.Chassis
	buf = append(buf, int32(src), int32(2*n+((g*d.Chassis+cs)*d.Routers+bs)*d.Routers+bd))
	if cd != 0 {
		buf = append(buf, int32(black+((g*d.Routers+bd)*d.Chassis)*d.Chassis+cd))
	}
	return append(buf, int32(n+dst))
}
