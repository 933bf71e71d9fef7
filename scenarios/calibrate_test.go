package scenarios

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/capsim/capsim/optimize/bound"
)

// With messages calibrated on a replay, the LP's fastest as-soon-as-
// possible schedule is the replay's: its unconstrained makespan equals the
// uncapped replay's to the nanosecond on stencils (with NIC and CPU
// serialization of halos and a recursive-doubling allreduce), the sweep3d
// wavefront and collective benchmarks. Uncontended LogGOPS costs, the
// other message model, are optimistic.
func TestCalibratedLPFollowsReplay(t *testing.T) {
	base := string(Default())
	gen := base[strings.Index(base, "[workload]"):strings.Index(base, "[models]")]
	for _, tc := range []struct {
		name, workload string
		ranks          int // machine: 2 nodes × ranks/2
		exact          bool
	}{
		{"default stencil", gen, 16, true},
		{"stencil3d periodic", "[workload]\ngenerator = \"stencil3d\"\n[workload.params]\npx = 2\npy = 2\npz = 2\nperiodic = true\nimbalance = \"random\"\nbalance = 0.3\nhalo_bytes = 4096\n", 8, true},
		{"sweep3d", "[workload]\ngenerator = \"sweep3d\"\n[workload.params]\npx = 4\npy = 2\nblocks = 4\n", 8, true},
		{"alltoall", "[workload]\ngenerator = \"collective\"\n[workload.params]\nkind = \"alltoall\"\nranks = 8\nbytes = 2048\ngap_ns = 50000\n", 8, true},
		{"stencil rendezvous halos", "[workload]\ngenerator = \"stencil2d\"\n[workload.params]\npx = 4\npy = 2\nhalo_bytes = 100000\niterations = 5\nimbalance = \"wavefront\"\nbalance = 0.4\n", 8, true},
		{"bcast", "[workload]\ngenerator = \"collective\"\n[workload.params]\nkind = \"bcast\"\nranks = 16\nbytes = 8192\ngap_ns = 20000\n", 16, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Replace(base, gen, tc.workload, 1)
			text = strings.Replace(text, "ranks_per_node = 8", "ranks_per_node = "+strconv.Itoa(tc.ranks/2), 1)
			for _, messages := range []string{MessagesReplay, MessagesLogGOPS} {
				sc, err := Parse("cal.toml", []byte(text+"\n[bound]\nmessages = \""+messages+"\"\n"))
				if err != nil {
					t.Fatal(err)
				}
				tr, g, err := sc.build(nil)
				if err != nil {
					t.Fatal(err)
				}
				m := &sc.Machines[0]
				met, err := sc.Replay(g, m, sc.Net(), "uncapped", 0)
				if err != nil {
					t.Fatal(err)
				}
				d, err := sc.BoundDAG(tr, m, sc.Net())
				if err != nil {
					t.Fatal(err)
				}
				o, err := bound.InitialOrder(d)
				if err != nil {
					t.Fatal(err)
				}
				lp := int64(math.Round(o.Makespan * 1e9))
				switch {
				case messages == MessagesReplay && tc.exact && lp != met.MakespanNs:
					t.Errorf("calibrated LP makespan %d ns, replay %d ns", lp, met.MakespanNs)
				case messages == MessagesLogGOPS && lp > met.MakespanNs:
					t.Errorf("uncontended LP makespan %d ns above the replay's %d ns", lp, met.MakespanNs)
				}
				t.Logf("%s: LP %d ns, replay %d ns", messages, lp, met.MakespanNs)
			}
		})
	}
}
