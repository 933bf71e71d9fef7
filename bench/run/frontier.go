package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// frontierSizes are the frontier table's sizes: the LP bound table's
// first three (10^3, 10^4 and 10^5 tasks).
var frontierSizes = boundSizes[:3]

// frontierPoints is how many deadlines (and as many budgets) the table's
// runs solve.
const frontierPoints = 11

// frontierTable prints the energy–time frontier's table: `capsim
// frontier` on the stencil of the LP table at each size from minTasks up
// to maxTasks (engine messages, no cap), each under timeout, stopping at
// the first size that exceeds it. Points/s counts the deadlines and budgets solved
// (the DAG, its order and the LP's build included) per second of wall
// and of CPU time; the LP's size is at the end (rows found on demand
// included), with the minimum-cost flow's arcs and pivots that solve it
// without a cap, and the load is the machine's 1-minute load average
// when the run starts.
func frontierTable(w io.Writer, bin, root, dir string, timeout time.Duration, minTasks, maxTasks int) error {
	fmt.Fprintf(w, "\nEnergy–time frontier (`capsim frontier --points %d` on examples/bound/stencil32.toml scaled as the LP table, engine messages, no cap: %d deadlines and %d budgets a run, the DAG, its order and the LP's build included, solved as the LP's dual min-cost flow; one run each, at most %s):\n\n",
		frontierPoints, frontierPoints, frontierPoints, timeout)
	fmt.Fprintf(w, "| tasks | ranks | load | points | wall | CPU | points/s (wall) | points/s (CPU) | time columns | columns | rows | rows added (rounds) | arcs | pivots | saved at 0 %% | saved at 5 %% | peak RSS |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, s := range frontierSizes {
		if s.tasks() > maxTasks {
			break
		}
		if s.tasks() < minTasks {
			continue
		}
		path, _, err := boundScenario(root, dir, s, "engine")
		if err != nil {
			return err
		}
		load := loadAvg1()
		run, err := runWithin(timeout, bin, "frontier", "--scenario", path, "--points", fmt.Sprint(frontierPoints), "--json")
		if run.timedOut {
			fmt.Fprintf(w, "| %d | %d | %s | | > %s (stopped) | %.1f s | | | | | | | | | | | %s |\n", s.tasks(), s.ranks(), load, timeout, run.cpu.Seconds(), mib(run.rss))
			break
		}
		if err != nil {
			return fmt.Errorf("capsim frontier on %d tasks: %w", s.tasks(), err)
		}
		var rep struct {
			Points   []json.RawMessage `json:"points"`
			ByBudget []json.RawMessage `json:"by_budget"`
			Saved0   float64           `json:"saved_pct_at_0"`
			Saved5   float64           `json:"saved_pct_at_5"`
			LP       struct {
				TimeColumns int `json:"time_columns"`
				Columns     int `json:"columns"`
				Rows        int `json:"rows"`
				RowsAdded   int `json:"rows_added"`
				Rounds      int `json:"rounds"`
				Arcs        int `json:"arcs"`
				Pivots      int `json:"pivots"`
			} `json:"lp"`
		}
		if err := json.Unmarshal(run.out, &rep); err != nil {
			return fmt.Errorf("capsim frontier on %d tasks: %w", s.tasks(), err)
		}
		n := len(rep.Points) + len(rep.ByBudget)
		fmt.Fprintf(w, "| %d | %d | %s | %d | %.1f s | %.1f s | %.2f | %.2f | %d | %d | %d | %d (%d) | %d | %d | %.2f %% | %.2f %% | %s |\n", s.tasks(), s.ranks(), load, n, run.wall.Seconds(), run.cpu.Seconds(),
			float64(n)/run.wall.Seconds(), float64(n)/run.cpu.Seconds(), rep.LP.TimeColumns, rep.LP.Columns, rep.LP.Rows, rep.LP.RowsAdded, rep.LP.Rounds, rep.LP.Arcs, rep.LP.Pivots,
			rep.Saved0, rep.Saved5, mib(run.rss))
	}
	return nil
}

// loadAvg1 is the machine's 1-minute load average ("?" where unknown).
func loadAvg1() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}
