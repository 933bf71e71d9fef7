package scenarios

import (
	"regexp"
	"strings"
	"testing"

	"github.com/capsim/capsim/network"
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
