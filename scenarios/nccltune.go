package scenarios

import (
	"fmt"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// lowerOptions are the options that lower the workload's collectives with
// the algorithms algs. With network.nccl_intra set they also carry the
// inputs of NCCL's tuning model, under which the nccl selector runs each
// allreduce with the algorithm (ring or tree) the model predicts fastest
// and each call the model covers with its fastest protocol (its messages'
// lower.Wire, which Scenario.Classes prices): the machines'
// ranks_per_node, the intra-node link kind, and a bus bandwidth of 1/G.
func (sc *Scenario) lowerOptions(algs map[mpi.Kind]string) (lower.Options, error) {
	o := lower.Options{Algorithm: algs}
	if sc.Network.NCCLIntra == "" {
		return o, nil
	}
	link, err := lower.ParseLink(sc.Network.NCCLIntra)
	if err != nil {
		return o, sc.keyError("network.nccl_intra", err.Error())
	}
	per := 0
	for _, m := range sc.Machines {
		if per != 0 && m.RanksPerNode != per {
			return o, sc.keyError("network.nccl_intra", fmt.Sprintf("machines differ in ranks_per_node (%d, %d); NCCL's tuning needs one placement", per, m.RanksPerNode))
		}
		per = m.RanksPerNode
	}
	G := float64(sc.Network.GNsPerByte.Femtoseconds()) / network.FsPerNs
	if per <= 0 || !(G > 0) {
		return o, sc.keyError("network.nccl_intra", fmt.Sprintf("NCCL's tuning needs machine.ranks_per_node > 0 and network.G_ns_per_byte > 0 (have %d and %g)", per, G))
	}
	o.RanksPerNode, o.IntraLink, o.BusBytesPerNs = per, link, 1/G
	return o, nil
}
