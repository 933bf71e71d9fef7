package topo

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// sgRoutes builds testdata/sgroutes.cpp (a program of ours that prints
// the route SimGrid gives between every pair of hosts of a platform)
// against Debian's libsimgrid-dev, or skips t where it cannot.
func sgRoutes(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs a SimGrid program (-short)")
	}
	flags, err := exec.Command("pkg-config", "--cflags", "--libs", "simgrid").Output()
	if err != nil {
		t.Skip("pkg-config finds no simgrid: install Debian's libsimgrid-dev to compare routes with SimGrid")
	}
	if _, err := exec.LookPath("g++"); err != nil {
		t.Skip("no g++")
	}
	bin := filepath.Join(t.TempDir(), "sgroutes")
	args := append([]string{"-O1", "-o", bin, "testdata/sgroutes.cpp"}, strings.Fields(string(flags))...)
	if out, err := exec.Command("g++", args...).CombinedOutput(); err != nil {
		t.Fatalf("building sgroutes: %v\n%s", err, out)
	}
	return bin
}

// sgPlatformRoutes returns SimGrid's routes (link names, by source and
// destination) on a SPLITDUPLEX cluster of n hosts of the given topology.
func sgPlatformRoutes(t *testing.T, bin, topology, params string, n int) map[[2]int][]string {
	t.Helper()
	plat := filepath.Join(t.TempDir(), "p.xml")
	xml := fmt.Sprintf(`<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="world" routing="Full">
    <cluster id="c" prefix="node-" radical="0-%d" suffix="" speed="1Gf" bw="1GBps" lat="5us"
             sharing_policy="SPLITDUPLEX" topology="%s" topo_parameters="%s"/>
  </zone>
</platform>
`, n-1, topology, params)
	if err := os.WriteFile(plat, []byte(xml), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, plat, strconv.Itoa(n), "--log=root.thres:critical").Output()
	if err != nil {
		t.Fatalf("sgroutes %s %s: %v", topology, params, err)
	}
	routes := map[[2]int][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		s, err1 := strconv.Atoi(f[0])
		d, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil {
			t.Fatalf("sgroutes: line %q", sc.Text())
		}
		routes[[2]int{s, d}] = f[2:]
	}
	if len(routes) != n*(n-1) {
		t.Fatalf("sgroutes %s %s: %d routes, want %d", topology, params, len(routes), n*(n-1))
	}
	return routes
}

// TestRoutesAgreeWithSimGrid compares capsim's routes with SimGrid 3.32's
// on the fat-trees and dragonflies of the SimGrid comparison
// (sim/simgrid_topo_test.go) and a few more: for every pair of hosts the
// same number of links, and one bijection between SimGrid's links and
// capsim's maps every route onto the other's. skip marks the pairs
// where SimGrid's dragonfly routes a message inside a group over a
// chassis link its router does not have (docs/design/network.md): from chassis
// c ≠ 0 to another position, SimGrid's route continues from chassis 0.
func TestRoutesAgreeWithSimGrid(t *testing.T) {
	bin := sgRoutes(t)
	for _, c := range []struct {
		topology, params, capsim string
		skip                     func(s, d int) bool
	}{
		{"FAT_TREE", "2;4,4;1,4;1,1", "fattree:k=4,n=2", nil},
		{"FAT_TREE", "3;4,4,4;1,4,4;1,1,1", "fattree:k=4,n=3", nil},
		{"FAT_TREE", "2;4,4;1,2;1,1", "fattree:down=4x4,up=1x2", nil},
		{"FAT_TREE", "2;4,4;1,1;1,2", "fattree:down=4x4,up=1x1,links=1x2", nil},
		{"FAT_TREE", "3;4,4,4;1,2,2;1,1,1", "fattree:down=4x4x4,up=1x2x2", nil},
		{"FAT_TREE", "3;4,4,4;1,2,4;1,1,1", "fattree:down=4x4x4,up=1x2x4", nil},
		{"FAT_TREE", "3;2,2,3;1,2,2;1,2,3", "fattree:down=2x2x3,up=1x2x2,links=1x2x3", nil},
		{"FAT_TREE", "3;3,2,2;2,2,1;2,1,2", "fattree:down=3x2x2,up=2x2x1,links=2x1x2", nil},
		{"DRAGONFLY", "4,1;1,1;4,1;1", "dragonfly:groups=4,routers=4,hosts=1,wiring=simgrid", nil},
		{"DRAGONFLY", "4,1;1,1;4,1;4", "dragonfly:groups=4,routers=4,hosts=4,wiring=simgrid", nil},
		{"DRAGONFLY", "3,2;1,1;5,3;2", "dragonfly:groups=3,routers=5,hosts=2,wiring=simgrid", nil},
		{"DRAGONFLY", "3,1;2,1;3,1;1", "dragonfly:groups=3,routers=3,hosts=1,chassis=2,wiring=simgrid",
			func(s, d int) bool { return s/6 == d/6 && s%6/3 != 0 && s%3 != d%3 }},
	} {
		top, err := Parse(c.capsim)
		if err != nil {
			t.Fatal(err)
		}
		n := top.Nodes()
		sg := sgPlatformRoutes(t, bin, c.topology, c.params, n)
		toSG, fromSG := map[int32]string{}, map[string]int32{}
		var buf []int32
		skipped := 0
		for s := range n {
			for d := range n {
				if s == d {
					continue
				}
				buf = top.Route(buf[:0], s, d)
				want := sg[[2]int{s, d}]
				if c.skip != nil && c.skip(s, d) {
					skipped++
					continue
				}
				if len(buf) != len(want) {
					t.Fatalf("%s (SimGrid %s %s): %d→%d crosses %d links, SimGrid's route %d: %v", top, c.topology, c.params, s, d, len(buf), len(want), want)
				}
				for i, l := range buf {
					x, ok1 := toSG[l]
					y, ok2 := fromSG[want[i]]
					if (ok1 && x != want[i]) || (ok2 && y != l) {
						t.Fatalf("%s: %d→%d: capsim's link %d and SimGrid's %s are not the same link in every route", top, s, d, l, want[i])
					}
					toSG[l], fromSG[want[i]] = want[i], l
				}
			}
		}
		// The skipped pairs are those SimGrid routes differently: its
		// route, in capsim's link ids, is not capsim's.
		for s := range n {
			for d := range n {
				if s == d || c.skip == nil || !c.skip(s, d) {
					continue
				}
				buf = top.Route(buf[:0], s, d)
				same := len(buf) == len(sg[[2]int{s, d}])
				for i, name := range sg[[2]int{s, d}] {
					if l, ok := fromSG[name]; !ok || !same || l != buf[i] {
						same = false
					}
				}
				if same {
					t.Errorf("%s: %d→%d is skipped but SimGrid routes it as capsim does", top, s, d)
				}
			}
		}
		t.Logf("%s %s = %s: %d routes agree over %d links (%d skipped)", c.topology, c.params, top, n*(n-1)-skipped, len(toSG), skipped)
	}
}
