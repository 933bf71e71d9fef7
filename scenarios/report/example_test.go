package report_test

import (
	"fmt"

	"github.com/capsim/capsim/optimize/frontier"
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

// Frontier draws a task's configurations with the Pareto frontier and the
// lower convex hull the LP bound mixes from.
func ExampleFrontier() {
	cs := []frontier.Config{
		{Time: 1.0, Power: 12, Label: "2.1 GHz"},
		{Time: 1.2, Power: 9, Label: "1.7 GHz"},
		{Time: 1.2, Power: 10, Label: "1.7 GHz, 2 threads"}, // dominated
		{Time: 1.5, Power: 8.5, Label: "1.4 GHz"},           // above the hull
		{Time: 2.0, Power: 6, Label: "1.0 GHz"},
	}
	f, err := report.Frontier("task", "a task's configurations", cs)
	if err != nil {
		fmt.Println(err)
		return
	}
	svg, err := report.Render(f, "svg")
	fmt.Println(f.Name, err == nil && len(svg) > 0)
	// Output:
	// task true
}
