package sched

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/taskgraph"
)

// Row is one run of Compare: a graph under a policy at a cap.
type Row struct {
	Graph       string  `json:"graph"`
	Tasks       int     `json:"tasks"`
	Policy      string  `json:"policy"`
	CapW        float64 `json:"cap_w"`
	MakespanNs  int64   `json:"makespan_ns"`
	AvgPowerW   float64 `json:"avg_power_w"`
	PeakPowerW  float64 `json:"peak_power_w"`
	EnergyJ     float64 `json:"energy_j"`
	Utilization float64 `json:"utilization"`
	RelPerf     float64 `json:"rel_perf"`
	// GapBestPct is how much slower than the best policy of the same graph
	// and cap this run is, in percent: task graphs have no LP bound (the
	// LP does not model the thread limit), so the best policy found is the
	// reference.
	GapBestPct float64 `json:"gap_best_pct"`
	Events     int64   `json:"events"`
	Ticks      int64   `json:"ticks"`
	WallNs     int64   `json:"wall_ns"`
}

// ParsePolicies reads a comma-separated list of policy names (Names,
// any case) or "all", checking each against opt.
func ParsePolicies(s string, opt Options) ([]string, error) {
	if s == "all" {
		return Names, nil
	}
	var out []string
	for _, p := range strings.Split(s, ",") {
		p = strings.ToLower(strings.TrimSpace(p))
		if _, err := New(p, opt); err != nil {
			return nil, fmt.Errorf("--policy: %w", err)
		}
		if slices.Contains(out, p) {
			return nil, fmt.Errorf("--policy %q: %s listed twice", s, p)
		}
		out = append(out, p)
	}
	return out, nil
}

// Compare runs every graph under every cap (W over the node's idle power)
// and policy on a node of cores hardware threads whose tasks take their
// times and powers from prof. FS always runs, as the reference of each
// row's RelPerf (Anger, PhD thesis, Georgia Tech 2016, Fig. 25). When tl
// is not nil, every run's power timeline goes to it as CSV rows
// graph,cap_w,policy,time_ns,power_w.
func Compare(graphs []*taskgraph.DAG, prof *taskgraph.Profiles, cores int, caps []float64, pols []string, opt Options, tl io.Writer) ([]Row, error) {
	var rows []Row
	for _, d := range graphs {
		w, err := sim.NewTaskWorkload(d, prof)
		if err != nil {
			return nil, err
		}
		for _, capW := range caps {
			node := sim.Node{Cores: cores, Cap: capW, IdleW: prof.Machine.IdleW}
			var ref int64
			run := func(name string) (*sim.TaskResult, time.Duration, error) {
				pol, err := New(name, opt)
				if err != nil {
					return nil, 0, err
				}
				t0 := time.Now()
				res, err := sim.RunTasks(w, node, pol)
				if err != nil {
					return nil, 0, fmt.Errorf("%s at %g W: %w", d.Name, capW, err)
				}
				return res, time.Since(t0), nil
			}
			fs, _, err := run("fs")
			if err != nil {
				return nil, err
			}
			ref = fs.Makespan
			first := len(rows)
			best := fs.Makespan
			for _, name := range pols {
				res, wall, err := run(name)
				if err != nil {
					return nil, err
				}
				if tl != nil {
					for _, st := range res.Timeline {
						fmt.Fprintf(tl, "%s,%g,%s,%d,%s\n", d.Name, capW, name, st.Time, strconv.FormatFloat(st.Power, 'g', -1, 64))
					}
				}
				rows = append(rows, Row{
					Graph: d.Name, Tasks: d.NumTasks(), Policy: name, CapW: capW,
					MakespanNs: res.Makespan, AvgPowerW: res.AvgPower, PeakPowerW: res.PeakPower,
					EnergyJ: res.Energy, Utilization: res.Utilization,
					RelPerf: RelativePerformance(ref, res.Makespan),
					Events:  res.Events, Ticks: res.Ticks, WallNs: wall.Nanoseconds(),
				})
				best = min(best, res.Makespan)
			}
			for i := first; i < len(rows); i++ {
				rows[i].GapBestPct = math.Round(1e4*(float64(rows[i].MakespanNs)/float64(best)-1)) / 100
			}
		}
	}
	return rows, nil
}

// WriteTable writes rows as an aligned text table under a line naming
// the node (prof's machine with cores threads).
func WriteTable(out io.Writer, rows []Row, prof *taskgraph.Profiles, cores int) error {
	fmt.Fprintf(out, "# node: %s, %d threads, idle %.1f W; powers are W over idle\n", prof.Machine.Name, cores, prof.Machine.IdleW)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "graph\ttasks\tcap_W\tpolicy\tmakespan_ms\tavg_W\tpeak_W\tutil\trel_perf\tgap_best_%\twall_ms\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%g\t%s\t%.3f\t%.2f\t%.2f\t%.3f\t%.3f\t%.2f\t%.1f\t\n", r.Graph, r.Tasks, r.CapW, r.Policy,
			float64(r.MakespanNs)/1e6, r.AvgPowerW, r.PeakPowerW, r.Utilization, r.RelPerf, r.GapBestPct, float64(r.WallNs)/1e6)
	}
	return tw.Flush()
}
