package main

import (
	"fmt"

	"github.com/capsim/capsim/compute/models"
	"github.com/capsim/capsim/optimize/aggregate"
)

// dongliAggRows are the task-aggregation checks of Dong Li's thesis
// (Ch. 4): hand-worked cases, and the recomputation of Table
// 4.1's sp.D.16 pattern 3 error rate by the rate the IPC model
// (Eqs. 4.1–4.3) reports. (The table's other rates come from unrounded
// IPCs: recomputed from the printed ones they agree within 0.06
// percentage points, which TestIPCErrorTable41 checks, not to their
// printed precision.)
func dongliAggRows() ([]Row, error) {
	const n = "002_dongli"
	ag := func(test string) string { return goTest("optimize/aggregate", test) }
	ps, err := aggregate.Patterns(aggregate.SystemG())
	if err != nil {
		return nil, err
	}
	// P1 = 100 + 20 s; P8…P4 worked out by hand.
	es := []aggregate.Estimate{{Pattern: ps[0], CompNs: 100, CommNs: 20}}
	for _, r := range []struct{ id, comp, comm float64 }{{8, 112, 30}, {7, 104, 24}, {6, 102, 23}, {5, 101, 21}, {4, 100, 19}} {
		es = append(es, aggregate.Estimate{Pattern: ps[int(r.id)-1], CompNs: r.comp, CommNs: r.comm})
	}
	chosen := aggregate.Select(es, aggregate.DefaultThreshold)
	if chosen < 0 {
		return nil, fmt.Errorf("T5: no pattern selected")
	}
	// T6: the edge costs and the cut of the grouping KL returns.
	c, err := aggregate.EdgeCosts(4, 2, []aggregate.PairTime{{I: 0, J: 1, Intra: 2, Inter: 3}, {I: 0, J: 2, Intra: 5, Inter: 3},
		{I: 1, J: 2, Intra: 4, Inter: 3.5}, {I: 2, J: 3, Intra: 1, Inter: 2}, {I: 0, J: 3, Intra: 3, Inter: 2.5}})
	if err != nil {
		return nil, fmt.Errorf("T6: %w", err)
	}
	kl, err := aggregate.Partition(c, 2)
	if err != nil {
		return nil, fmt.Errorf("T6: %w", err)
	}
	// T11: 16 tasks, P1 on 16 nodes against P8 on 2, equal time and node power.
	w := aggregate.Workload{ComputeNs: make([]int64, 16)}
	for i := range w.ComputeNs {
		w.ComputeNs[i] = 1e9
	}
	res, err := aggregate.Evaluate(w, aggregate.Config{Topology: aggregate.SystemG(), Threshold: aggregate.DefaultThreshold, Power: aggregate.Power{BaseW: 300}})
	if err != nil {
		return nil, fmt.Errorf("T11: %w", err)
	}
	saving := 100 * (1 - res.Estimates[7].EnergyJ/res.Estimates[0].EnergyJ)
	ipc := func(test string) string { return goTest("compute/models", test) }
	return []Row{
		match(n, "§9.6 T4", "compute time at IPC 2.0 (4e11 instructions, 2 GHz)", 100, aggregate.TimeFromIPC(4e11, 2.0, 2e9), 5e-4, "s", ag("TestTimeFromIPCT4")),
		match(n, "§9.6 T4", "compute time at IPC 1.6", 125, aggregate.TimeFromIPC(4e11, 1.6, 2e9), 5e-4, "s", ag("TestTimeFromIPCT4")),
		match(n, "§9.6 T5", "pattern chosen by Eq. 4.5, 5 % and the ranking", 6, float64(es[chosen].Pattern.ID), 0, "", ag("TestSelectT5")),
		match(n, "§9.6 T6", "edge cost c01 = C + 1 (C = k²·Δt = 8)", 9, c[0][1], 5e-4, "", ag("TestEdgeCostsT6")),
		match(n, "§9.6 T6", "cut of the Kernighan–Lin grouping {0,1}{2,3}", 4.5, aggregate.Cut(c, kl), 5e-4, "", ag("TestEdgeCostsT6")),
		match(n, "§9.6 T7", "groupings C(16, 4)", 1820, float64(aggregate.Groupings(16, 4)), 0, "", ag("TestCountingT7")),
		match(n, "§9.6 T7", "placements 8!/4!", 1680, float64(aggregate.Placements(8, 4)), 0, "", ag("TestCountingT7")),
		match(n, "§9.6 T11", "energy saving, P8 on 2 nodes against P1 on 16", 87.5, saving, 5e-4, "%", ag("TestEnergyT11")),
		match(n, "§3.3 [note]", "sp.D.16 pattern 3 recomputed (the table prints 0.3166 %)", 1.76, 100*models.IPCError(1.99, 1.955), 0.005, "%", ipc("TestIPCErrorTable41")),
	}, nil
}
