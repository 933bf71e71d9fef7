package report_test

import (
	"fmt"

	"github.com/capsim/capsim/scenarios/report"
	"github.com/capsim/capsim/scenarios/results"
)

// Figures draws makespan and energy against the power cap per policy.
func ExampleFigures() {
	s := results.Schema{{Name: "machine", Type: results.String}, {Name: "policy", Type: results.String},
		{Name: "cap_w", Type: results.Float64}, {Name: "makespan_ns", Type: results.Int64},
		{Name: "energy_j", Type: results.Float64}}
	rows := []results.Row{
		{Index: 0, Values: []any{"node", "static", 100.0, int64(2e9), 150.0}},
		{Index: 1, Values: []any{"node", "static", 150.0, int64(1.5e9), 170.0}},
	}
	figs, err := report.Figures(s, rows)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range figs {
		fmt.Println(f.Name)
	}
	// Output:
	// makespan_0
	// energy_0
}
