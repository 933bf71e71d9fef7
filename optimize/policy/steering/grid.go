package steering

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/traces/gen"
	"github.com/capsim/capsim/traces/lower"
)

// GridSpec is the compute-intensity × imbalance grid of the thesis'
// Figs. 23–24 over the stencil generator's imbalance patterns.
type GridSpec struct {
	Patterns    []string  // gen.ImbalanceCharged, gen.ImbalanceWavefront, gen.ImbalanceRandom
	Intensities []float64 // compute intensity = frequency-sensitive share β, in [0, 1]
	Balances    []float64 // stencil balance: 0 = the pattern's full imbalance, 1 = balanced
	Dims        []int     // process grid
	Iterations  int
	ComputeNs   int64 // most loaded rank's compute per iteration
	HaloBytes   int64
	Seed        uint64
	Net         network.LogGOPS
	Options     Options // machine, budget, rule, prediction (Machine.Beta is replaced by the intensity)
}

// DefaultGrid is a 4×4 stencil of 20 iterations of 2 ms (4 KiB halos, so
// compute dominates as in the thesis' best case) on Anger's
// DPS machine (NoteMachine, budget = all cores at 1.7 GHz) under
// LogGOPSim's default network, over intensities and balances 0, 0.25, 0.5,
// 0.75, 1 and the three patterns.
func DefaultGrid() GridSpec {
	lv := []float64{0, 0.25, 0.5, 0.75, 1}
	return GridSpec{
		Patterns:    []string{gen.ImbalanceCharged, gen.ImbalanceWavefront, gen.ImbalanceRandom},
		Intensities: lv, Balances: lv, Dims: []int{4, 4}, Iterations: 20, ComputeNs: 2_000_000,
		HaloBytes: 4096, Seed: 1, Net: network.DefaultLogGOPS(), Options: Options{Machine: NoteMachine()},
	}
}

// GridRow is one grid point.
type GridRow struct {
	Pattern              string
	Intensity, Balance   float64
	BaseNs, SteeredNs    int64
	RuntimePct           float64 // runtime improvement over no steering
	EnergyPct            float64 // energy improvement over no steering
	GapPct               float64 // steered makespan vs the LP bound
	GapStatus            string
	BaseJ, SteeredJ      float64
	OverCapNs, OverPhase int64
}

// Grid generates and steers every point of the grid, patterns outermost,
// then intensities, then balances.
func Grid(s GridSpec) ([]GridRow, error) {
	var rows []GridRow
	for _, pat := range s.Patterns {
		for _, in := range s.Intensities {
			for _, b := range s.Balances {
				st := gen.Stencil{Dims: s.Dims, Iterations: s.Iterations, HaloBytes: s.HaloBytes, ComputeNs: s.ComputeNs,
					Imbalance: pat, Balance: b, Intensity: in, AllreduceBytes: 8, Seed: s.Seed}
				t, err := st.Generate()
				if err != nil {
					return nil, fmt.Errorf("steering grid %s intensity %g balance %g: %w", pat, in, b, err)
				}
				g, err := lower.Lower(t, lower.Options{})
				if err != nil {
					return nil, fmt.Errorf("steering grid %s intensity %g balance %g: %w", pat, in, b, err)
				}
				o := s.Options
				o.Machine.Beta = in
				res, err := Run(t, g, s.Net, o)
				if err != nil {
					return nil, fmt.Errorf("steering grid %s intensity %g balance %g: %w", pat, in, b, err)
				}
				rows = append(rows, GridRow{Pattern: pat, Intensity: in, Balance: b, BaseNs: res.Baseline.MakespanNs,
					SteeredNs: res.Steered.MakespanNs, RuntimePct: res.RuntimePct, EnergyPct: res.EnergyPct,
					GapPct: res.Gap.Pct, GapStatus: res.Gap.Status, BaseJ: res.Baseline.EnergyJ, SteeredJ: res.Steered.EnergyJ,
					OverCapNs: res.Steered.OverCapNs, OverPhase: int64(res.OverPhase)})
			}
		}
	}
	return rows, nil
}

// WriteGrid prints the grid as an aligned table.
func WriteGrid(w io.Writer, rows []GridRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "pattern\tintensity\tbalance\tbase_ns\tsteered_ns\truntime_%\tenergy_%\tlp_gap_%\tover_cap_ns\t")
	for _, r := range rows {
		gap := fmt.Sprintf("%.2f", r.GapPct)
		if r.GapStatus != "ok" {
			gap = r.GapStatus
		}
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%d\t%d\t%.2f\t%.2f\t%s\t%d\t\n", r.Pattern, r.Intensity, r.Balance, r.BaseNs, r.SteeredNs,
			r.RuntimePct, r.EnergyPct, gap, r.OverCapNs)
	}
	return tw.Flush()
}
