package scenarios

import (
	"regexp"
	"strings"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// ncclScenario is the default scenario's machine on four nodes of eight
// ranks running one allreduce of 256 bytes, with network lines extra.
func ncclScenario(t *testing.T, collectives, extra string) *Scenario {
	t.Helper()
	text := string(Default())
	text = strings.Replace(text, "nodes = 2", "nodes = 4", 1)
	text = strings.Replace(text, `caps = "290:380:10"`, `caps = "600:700:50"`, 1)
	text = strings.Replace(text, `collectives = "allreduce=recdoub"`, "collectives = \""+collectives+"\"\n"+extra, 1)
	text = strings.Replace(text, `generator = "stencil2d"`, `generator = "collective"`, 1)
	text = regexp.MustCompile(`(?s)\[workload\.params\].*?\n\[`).ReplaceAllString(text,
		"[workload.params]\nkind = \"allreduce\"\nranks = 32\nbytes = 256\nreps = 1\n\n[")
	sc, err := Parse("nccl.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// network.nccl_intra makes the nccl selector lower a small allreduce over
// four nodes to NCCL's tree, as NCCL's tuning model picks it for
// ranks_per_node 8 and a bus bandwidth of 1/G; without it, the ring.
func TestScenarioNCCLTuning(t *testing.T) {
	if got, _ := lower.TuneNCCL(mpi.Allreduce, 256, 32, 4, lower.NVLink, 1.0/6); got.Algorithm != "nccl-tree" {
		t.Fatalf("precondition: NCCL's model takes %q", got.Algorithm)
	}
	size := func(sc *Scenario) [2]int {
		t.Helper()
		g, err := sc.Graph(nil)
		if err != nil {
			t.Fatal(err)
		}
		return [2]int{g.NumOps(), g.NumDeps()}
	}
	tuned := size(ncclScenario(t, "nccl", `nccl_intra = "nvlink"`))
	tree := size(ncclScenario(t, "allreduce=nccl-tree", ""))
	ring := size(ncclScenario(t, "nccl", ""))
	if tuned != tree || tree == ring {
		t.Errorf("tuned nccl %v ops, deps; tree %v, ring %v", tuned, tree, ring)
	}
	if _, err := ncclScenario(t, "nccl", `nccl_intra = "infiniband"`).Graph(nil); err == nil || !strings.Contains(err.Error(), "network.nccl_intra") {
		t.Errorf("unknown link kind: error %v", err)
	}
	free := ncclScenario(t, "nccl", `nccl_intra = "pci"`)
	free.Network.GNsPerByte = network.PerByteFs(0)
	if _, err := free.Graph(nil); err == nil || !strings.Contains(err.Error(), "G_ns_per_byte") {
		t.Errorf("G = 0: error %v", err)
	}
}

// With network.nccl_intra set the tuned collective's messages carry NCCL's
// protocol (here the tree's LL across four nodes: NVLink within a node,
// the network between) and the scenario's message classes price each
// with its wire's parameters (LogGOPS.ForWire); without it no message has
// one and the replay runs on the base network alone.
func TestScenarioNCCLProtocolClasses(t *testing.T) {
	for _, extra := range []string{`nccl_intra = "nvlink"`, ""} {
		sc := ncclScenario(t, "nccl", extra)
		tr, g, err := sc.build(nil)
		if err != nil {
			t.Fatal(err)
		}
		cls, err := sc.Classes(g, tr)
		if err != nil {
			t.Fatal(err)
		}
		if extra == "" {
			if g.Wire != nil || cls != nil {
				t.Errorf("untuned: wires %v, classes %v; want none", g.Wire != nil, cls)
			}
			continue
		}
		if g.Wire == nil || cls == nil {
			t.Fatalf("tuned: wires %v, classes %v; want both", g.Wire != nil, cls)
		}
		base := sc.Net()
		seen := map[lower.Wire]bool{}
		for op, k := range g.Kind {
			if k != graph.Send {
				continue
			}
			w := lower.Wire(g.Wire[op])
			want, err := base.ForWire(w)
			if err != nil || w == 0 {
				t.Fatalf("send %d: wire %s: %v", op, w, err)
			}
			if got := cls.Params[cls.Of[op]]; got != want {
				t.Fatalf("send %d (%s): priced %+v, want %+v", op, w, got, want)
			}
			seen[w] = true
		}
		intra, _ := lower.NewWire("nccl-tree", lower.LL, lower.NVLink, 4)
		inter, _ := lower.NewWire("nccl-tree", lower.LL, lower.Net, 4)
		if len(seen) != 2 || !seen[intra] || !seen[inter] {
			t.Errorf("wires %v, want %s and %s", seen, intra, inter)
		}
		m := &sc.Machines[0]
		on, _, err := sc.replay(g, m, base, cls, "uncapped", 0)
		if err != nil {
			t.Fatal(err)
		}
		off, _, err := sc.replay(g, m, base, nil, "uncapped", 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("allreduce of 256 bytes on 32 ranks: %d ns with LL's parameters, %d ns with the network's", on.MakespanNs, off.MakespanNs)
		if on.MakespanNs == off.MakespanNs {
			t.Errorf("the protocol's parameters change nothing: %d ns", on.MakespanNs)
		}
	}
}
