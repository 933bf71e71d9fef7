package aggregate

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// ParseTopology reads "SOCKETSxDIESxCORES", e.g. "2x2x2" (System G).
// Memory is set apart (Topology.MemoryBytes).
func ParseTopology(s string) (Topology, error) {
	f := strings.Split(strings.ToLower(strings.TrimSpace(s)), "x")
	if len(f) != 3 {
		return Topology{}, fmt.Errorf("aggregate: topology %q: want SOCKETSxDIESxCORES, e.g. 2x2x2", s)
	}
	var v [3]int
	for i, x := range f {
		n, err := strconv.Atoi(x)
		if err != nil || n < 1 || n > 1024 {
			return Topology{}, fmt.Errorf("aggregate: topology %q: %q is not a count in 1..1024", s, x)
		}
		v[i] = n
	}
	return Topology{Sockets: v[0], DiesPerSocket: v[1], CoresPerDie: v[2]}, nil
}

// ParseIPC reads per-pattern IPCs "1=2.0,4=1.95,…" (pattern ID = IPC).
func ParseIPC(s string) (map[int]float64, error) {
	m := make(map[int]float64)
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		id, err1 := strconv.Atoi(strings.TrimPrefix(strings.ToUpper(k), "P"))
		ipc, err2 := strconv.ParseFloat(v, 64)
		if !ok || err1 != nil || err2 != nil || id < 1 || !(ipc > 0) || ipc > 1e6 {
			return nil, fmt.Errorf("aggregate: IPC entry %q: want PATTERN=IPC with a pattern number ≥ 1 and a positive IPC", kv)
		}
		if _, dup := m[id]; dup {
			return nil, fmt.Errorf("aggregate: IPC of pattern %d given twice", id)
		}
		m[id] = ipc
	}
	return m, nil
}

// ParsePower reads "base=W,core=W,sleep=W" (keys may be left out: 0).
func ParsePower(s string) (Power, error) {
	var p Power
	seen := map[string]bool{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		w, err := strconv.ParseFloat(v, 64)
		if !ok || err != nil || !(w >= 0) || w > 1e9 {
			return Power{}, fmt.Errorf("aggregate: power entry %q: want KEY=WATTS with a non-negative number", kv)
		}
		if seen[k] {
			return Power{}, fmt.Errorf("aggregate: power %q: %s given twice", s, k)
		}
		seen[k] = true
		switch k {
		case "base":
			p.BaseW = w
		case "core":
			p.CoreW = w
		case "sleep":
			p.SleepW = w
		default:
			return Power{}, fmt.Errorf("aggregate: power entry %q: key must be base, core or sleep", kv)
		}
	}
	return p, nil
}

// ParseClass reads a class name as Class.String writes it.
func ParseClass(s string) (Class, error) {
	for c := SameDie; c <= InterNode; c++ {
		if c.String() == s {
			return c, nil
		}
	}
	return 0, fmt.Errorf("aggregate: class %q: want same-die, same-socket, cross-socket or inter-node", s)
}

// ParseInterference reads rows "CLASS/NOISE/MAXBYTES=FACTOR,…", e.g.
// "cross-socket/2/0=2.82" (MAXBYTES 0: any size).
func ParseInterference(s string) (Interference, error) {
	var t Interference
	for _, row := range strings.Split(s, ",") {
		row = strings.TrimSpace(row)
		key, v, ok := strings.Cut(row, "=")
		f := strings.Split(key, "/")
		if !ok || len(f) != 3 {
			return nil, fmt.Errorf("aggregate: interference row %q: want CLASS/NOISE/MAXBYTES=FACTOR", row)
		}
		c, err := ParseClass(f[0])
		if err != nil {
			return nil, fmt.Errorf("aggregate: interference row %q: %w", row, err)
		}
		noise, err1 := strconv.Atoi(f[1])
		maxB, err2 := strconv.ParseInt(f[2], 10, 64)
		fac, err3 := strconv.ParseFloat(v, 64)
		if err1 != nil || err2 != nil || err3 != nil || noise < 0 || maxB < 0 || !(fac > 0) || fac > 1e6 {
			return nil, fmt.Errorf("aggregate: interference row %q: noise and size must be non-negative integers, the factor positive", row)
		}
		for _, g := range t {
			if g.Class == c && g.Noise == noise && g.MaxBytes == maxB {
				return nil, fmt.Errorf("aggregate: interference row %q: %s/%d/%d given twice", row, c, noise, maxB)
			}
		}
		t = append(t, Factor{Class: c, Noise: noise, MaxBytes: maxB, Factor: fac})
	}
	return t, nil
}

// WriteTable prints one line per pattern — nodes, predicted computation
// and communication, Eq. 4.5's Δt in % of the reference, whether it is a
// candidate, the modelled energy and, with rep, the replay's makespan,
// Δt and energy — then the choices.
func WriteTable(w io.Writer, res Result, rep []Replayed, bySim int) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "pattern\ttasks/node\tnodes\tcomp_ms\tcomm_ms\tdelta_%\tcandidate\tenergy_J\t"
	if rep != nil {
		head += "replay_ms\treplay_delta_%\treplay_J\t"
	}
	fmt.Fprintln(tw, head)
	r0 := res.Estimates[0].TotalNs()
	for i, e := range res.Estimates {
		if e.Err != nil {
			fmt.Fprintf(tw, "P%d\t%d\t-\t-\t-\t-\tinfeasible\t-\t", e.Pattern.ID, e.Pattern.TasksPerNode())
			if rep != nil {
				fmt.Fprint(tw, "-\t-\t-\t")
			}
			fmt.Fprintln(tw)
			continue
		}
		energy := "-"
		if res.ByEnergy >= 0 {
			energy = fmt.Sprintf("%.4g", e.EnergyJ)
		}
		fmt.Fprintf(tw, "P%d\t%d\t%d\t%.3f\t%.3f\t%+.2f\t%v\t%s\t", e.Pattern.ID, e.Pattern.TasksPerNode(), e.Nodes,
			e.CompNs/1e6, e.CommNs/1e6, pct(e.DeltaNs, r0), e.Candidate, energy)
		if rep != nil {
			re := "-"
			if res.ByEnergy >= 0 {
				re = fmt.Sprintf("%.4g", rep[i].EnergyJ)
			}
			fmt.Fprintf(tw, "%.3f\t%+.2f\t%s\t", float64(rep[i].MakespanNs)/1e6, pct(float64(rep[i].DeltaNs), float64(rep[0].MakespanNs)), re)
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, e := range res.Estimates {
		if e.Err != nil {
			fmt.Fprintf(w, "P%d infeasible: %s\n", e.Pattern.ID, strings.TrimPrefix(e.Err.Error(), "aggregate: "))
		}
	}
	name := func(i int) string {
		if i < 0 {
			return "none"
		}
		return res.Estimates[i].Pattern.String()
	}
	fmt.Fprintf(w, "Eq. 4.5 and the ranking (Li, PhD thesis 2011, §4.4): %s\n", name(res.Chosen))
	if res.ByEnergy >= 0 {
		fmt.Fprintf(w, "least modelled energy: %s\n", name(res.ByEnergy))
	}
	if rep != nil && bySim >= 0 {
		fmt.Fprintf(w, "least replayed energy: %s\n", name(bySim))
	}
	return nil
}

func pct(d, ref float64) float64 {
	if ref == 0 {
		return 0
	}
	return 100 * d / ref
}

// WriteCSV writes one row per pattern: pattern, tasks_per_node, sockets,
// dies, cores, feasible, nodes, comp_ns, comm_ns, delta_ns, candidate,
// energy_j, then with rep replay_ns, replay_delta_ns, replay_candidate,
// replay_energy_j, and last chosen (the rule's pick), by_energy and, with
// rep, by_replay (1 on the picked row). Infeasible patterns leave the
// numbers empty. Floats are printed with strconv 'g' -1, so equal inputs
// give identical files.
func WriteCSV(w io.Writer, res Result, rep []Replayed, bySim int) error {
	cw := csv.NewWriter(w)
	head := []string{"pattern", "tasks_per_node", "sockets", "dies", "cores", "feasible", "nodes", "comp_ns", "comm_ns", "delta_ns", "candidate", "energy_j"}
	if rep != nil {
		head = append(head, "replay_ns", "replay_delta_ns", "replay_candidate", "replay_energy_j")
	}
	head = append(head, "chosen", "by_energy")
	if rep != nil {
		head = append(head, "by_replay")
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	flag := func(b bool) string {
		if b {
			return "1"
		}
		return "0"
	}
	for i, e := range res.Estimates {
		p := e.Pattern
		row := []string{strconv.Itoa(p.ID), strconv.Itoa(p.TasksPerNode()), strconv.Itoa(p.Sockets), strconv.Itoa(p.Dies), strconv.Itoa(p.Cores), flag(e.Err == nil)}
		if e.Err != nil {
			row = append(row, "", "", "", "", "", "")
			if rep != nil {
				row = append(row, "", "", "", "")
			}
		} else {
			energy := ""
			if res.ByEnergy >= 0 {
				energy = f(e.EnergyJ)
			}
			row = append(row, strconv.Itoa(e.Nodes), f(e.CompNs), f(e.CommNs), f(e.DeltaNs), flag(e.Candidate), energy)
			if rep != nil {
				re := ""
				if res.ByEnergy >= 0 {
					re = f(rep[i].EnergyJ)
				}
				row = append(row, strconv.FormatInt(rep[i].MakespanNs, 10), strconv.FormatInt(rep[i].DeltaNs, 10), flag(rep[i].Candidate), re)
			}
		}
		row = append(row, flag(i == res.Chosen), flag(i == res.ByEnergy))
		if rep != nil {
			row = append(row, flag(i == bySim))
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
