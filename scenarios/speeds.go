package scenarios

import (
	"fmt"
	"math"
	"path"
	"strings"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/models"
	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/frontier"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/mpi"
)

// speeds is how a machine runs each region of a workload at each of its
// P-states: the duration as a multiple of the recorded one (the machine's
// compute_speed_factor included) and the power the rank draws meanwhile.
// Index 0 of a row is for operations without a region; index i+1 for
// region i.
//
// Without models.file, every region follows the DVFS model of
// models.memory_boundness and draws the P-state's active power. With it,
// each region is priced by its model at the P-state's frequency on the CPU
// (cpu rows). Regions that match one of the machine's accelerators are
// priced for that device too (dev rows): where the model (an "accel"
// model, under its offload policy) runs them there, they draw the
// device's power (the model's, else the accelerator's power_w) instead of
// the core's, and offload is set; dev rows hold what they draw above the
// device's idle_w, which the machine's base power holds.
type speeds struct {
	cpuRatio, cpuWatts [][]float64 // [pstate][1+region]
	devRatio, devWatts [][]float64 // [pstate][1+region]; the cpu values where not offloaded
	offload            [][]bool    // [pstate][1+region]
	names              []string    // region names
	ghz                []float64   // the P-states' frequencies
	device             []string    // per region row: the accelerator it may run on ("" none)
	acc                []int       // per region row: its index in the machine's accelerators (−1 none)
}

// speedsOf prices the regions named in regions (graph region order) on
// machine m.
func (sc *Scenario) speedsOf(m *Machine, regions []string) (*speeds, error) {
	sp := &speeds{names: regions, device: make([]string, len(regions)+1), acc: make([]int, len(regions)+1)}
	for i := range sp.acc {
		sp.acc[i] = -1
	}
	dv := sc.dvfsModel(m)
	n := len(regions) + 1
	for _, p := range m.PStates {
		sp.ghz = append(sp.ghz, p.FreqGHz)
		cr, cw := make([]float64, n), make([]float64, n)
		dr, dw := make([]float64, n), make([]float64, n)
		off := make([]bool, n)
		f, err := dv.Factor(dv.RefGHz, p.FreqGHz)
		if err != nil {
			f = math.NaN()
		}
		for i := range cr {
			cr[i], cw[i] = f*m.SpeedFactor, p.ActivePowerW
			dr[i], dw[i] = cr[i], cw[i]
			if i == 0 || sc.set == nil {
				continue
			}
			name := regions[i-1]
			model, _, err := sc.set.Lookup(name)
			if err != nil {
				return nil, err
			}
			predict := func(device string) (compute.Prediction, error) {
				pred, err := model.Predict(compute.Work{Seconds: 1, At: sc.set.Recorded}, deviceTarget(p.FreqGHz, device, sc.set.Recorded))
				if err == nil && (!(pred.Seconds >= 0) || math.IsInf(pred.Seconds, 0)) {
					err = fmt.Errorf("invalid predicted ratio %g", pred.Seconds)
				}
				if err != nil {
					where := "the CPU"
					if device != "" {
						where = device
					}
					return pred, fmt.Errorf("%s: region %q on %s of machine %s at %g GHz (%s model): %w", sc.path(sc.Models.File), name, where, m.Name, p.FreqGHz, model.Kind(), err)
				}
				return pred, nil
			}
			pred, err := predict("")
			if err != nil {
				return nil, err
			}
			cr[i] = pred.Seconds * m.SpeedFactor
			dr[i] = cr[i]
			for k := range m.Accelerators {
				acc := &m.Accelerators[k]
				if ok, _ := path.Match(acc.Regions, name); !ok {
					continue
				}
				pred, err := predict(acc.Name)
				if err != nil {
					return nil, err
				}
				if pred.Kind == models.KindAccel {
					devShare := 1.0 // of the region's time on the device
					off[i] = true
					sp.device[i], sp.acc[i] = acc.Name, k
					dr[i], dw[i] = pred.Seconds*m.SpeedFactor, pred.Watts
					if pred.Flags&compute.NoPower != 0 || pred.Watts == 0 {
						dw[i] = acc.PowerW
					}
					if o, ok := model.(*models.Offload); ok {
						// Instances kept on the host draw the core's power:
						// the region's power is the time-weighted mix.
						rep, err := o.Decide(compute.Work{Seconds: 1, At: sc.set.Recorded}, deviceTarget(p.FreqGHz, acc.Name, sc.set.Recorded))
						if err != nil {
							return nil, fmt.Errorf("%s: region %q on %s of machine %s: %w", sc.path(sc.Models.File), name, acc.Name, m.Name, err)
						}
						if rep.HostS > 0 && pred.Seconds > 0 {
							devW := o.DeviceWatts
							if devW == 0 {
								devW = acc.PowerW
							}
							dw[i] = (cw[i]*rep.HostS + devW*(pred.Seconds-rep.HostS)) / pred.Seconds
							devShare = (pred.Seconds - rep.HostS) / pred.Seconds
						}
					}
					if acc.IdleW > 0 {
						// The machine's base power holds the device's idle
						// power: a region on it adds what it draws above.
						dw[i] -= acc.IdleW * devShare
						if !(dw[i] > 0) {
							return nil, fmt.Errorf("machine %s: accelerator %s: region %q draws %g W on it, not above its idle_w %g W", m.Name, acc.Name, name, dw[i]+acc.IdleW*devShare, acc.IdleW)
						}
					}
				}
				break
			}
		}
		sp.cpuRatio, sp.cpuWatts = append(sp.cpuRatio, cr), append(sp.cpuWatts, cw)
		sp.devRatio, sp.devWatts = append(sp.devRatio, dr), append(sp.devWatts, dw)
		sp.offload = append(sp.offload, off)
	}
	return sp, nil
}

// deviceTarget is the configuration a region is priced at: the P-state's
// frequency on device ("" for the host), other fields as recorded.
func deviceTarget(ghz float64, device string, recorded compute.Config) compute.Config {
	target := compute.Config{CPUFreqGHz: ghz, Device: device}.Merge(recorded)
	target.Device = device
	return target
}

// row returns how a rank at P-state index k runs each region: on the
// device where offload is true and useDevice agrees (onDev), else on the
// CPU.
func (sp *speeds) row(k int, useDevice func(region int) bool) (ratio, watts []float64, onDev []bool) {
	ratio = append([]float64(nil), sp.cpuRatio[k]...)
	watts = append([]float64(nil), sp.cpuWatts[k]...)
	onDev = make([]bool, len(ratio))
	for i, off := range sp.offload[k] {
		if off && (useDevice == nil || useDevice(i)) {
			ratio[i], watts[i], onDev[i] = sp.devRatio[k][i], sp.devWatts[k][i], true
		}
	}
	return ratio, watts, onDev
}

// deviceLabel is how configs labels a configuration on a device.
func deviceLabel(device string, ghz float64) string {
	return fmt.Sprintf("%s (host %g GHz)", device, ghz)
}

// hostWatts is the core power of the P-state that device configuration
// label (deviceLabel's) of region row i names: what the rank draws while
// it waits after the task, its device idle. 0 for any other label.
func (sp *speeds) hostWatts(i int, label string) float64 {
	for k, ghz := range sp.ghz {
		if label == deviceLabel(sp.device[i], ghz) {
			return sp.cpuWatts[k][i]
		}
	}
	return 0
}

// offloadWait is the LP's wait power after a task with configurations cs
// on machine m where some of them run on a device
// (bound.GraphOptions.WaitAfter): the least of m's P-state powers and
// cs's. A replay draws the core's power of the task's P-state in that
// wait (power.JobModel.OpWaitW) or the task's own, never less, so the LP
// stays a bound.
func offloadWait(m *Machine, cs []frontier.Config) (float64, bool) {
	dev := false
	w := math.Inf(1)
	for _, p := range m.PStates {
		w = min(w, p.ActivePowerW)
	}
	for _, c := range cs {
		dev = dev || isDeviceLabel(c.Label)
		w = min(w, c.Power)
	}
	return w, dev
}

// isDeviceLabel reports whether a configuration label is deviceLabel's.
func isDeviceLabel(label string) bool { return strings.Contains(label, " (host ") }

// onDevice reports whether configuration label of a task of region row
// i (as configs labels them) runs on the region's device.
func (sp *speeds) onDevice(i int32, label string) bool {
	return sp.device[i] != "" && strings.HasPrefix(label, sp.device[i]+" (host ")
}

// deviceOf is which of accelerator entry k's devices rank r uses,
// numbered node by node: a node's ranks share its per_node devices in
// blocks.
func (m *Machine) deviceOf(k, r int) int {
	per := m.Accelerators[k].PerNode
	node, local := r/m.RanksPerNode, r%m.RanksPerNode
	return node*per + local*per/m.RanksPerNode
}

// devices returns the shared device of every operation of g on machine m
// (sim.Options.Device), with calc op of rank r on its region's
// accelerator where onDev(op, r) says so; nil when no operation is.
// Devices are numbered by accelerator entry, then as deviceOf does.
func (sp *speeds) devices(g *graph.Graph, m *Machine, onDev func(op, r int32) bool) []int32 {
	base := make([]int32, len(m.Accelerators))
	next := int32(0)
	for k, a := range m.Accelerators {
		base[k] = next
		next += int32(m.Nodes * a.PerNode)
	}
	rank := g.OpRanks()
	var dev []int32
	for op, kind := range g.Kind {
		if kind != graph.Calc || !onDev(int32(op), rank[op]) {
			continue
		}
		k := sp.acc[g.Region[op]+1]
		if k < 0 {
			continue
		}
		if dev == nil {
			dev = make([]int32, g.NumOps())
			for i := range dev {
				dev[i] = -1
			}
		}
		dev[op] = base[k] + int32(m.deviceOf(k, int(rank[op])))
	}
	return dev
}

// configs returns the configurations of a task of region row index i
// (0: none) recorded at sec seconds: one per P-state on the CPU, and one
// per P-state on the device where the region can be offloaded (the same
// device time at every host P-state: the hull keeps one). Each is labeled
// with its frequency or device.
func (sp *speeds) configs(i int32, sec float64) []frontier.Config {
	return sp.configsAt(i, func(x float64) float64 { return sec * x })
}

// configsAt is configs with the time of each configuration of time ratio
// x given by dur(x), in seconds.
func (sp *speeds) configsAt(i int32, dur func(x float64) float64) []frontier.Config {
	cs := make([]frontier.Config, 0, 2*len(sp.cpuRatio))
	add := func(x, w float64, label string) {
		t := dur(x)
		if !(t > 0) {
			t = 1e-12 // an empty region still occupies its rank for an instant
		}
		cs = append(cs, frontier.Config{Time: t, Power: w, Label: label})
	}
	for k := range sp.cpuRatio {
		add(sp.cpuRatio[k][i], sp.cpuWatts[k][i], fmt.Sprintf("%g GHz", sp.ghz[k]))
		if sp.offload[k][i] {
			add(sp.devRatio[k][i], sp.devWatts[k][i], deviceLabel(sp.device[i], sp.ghz[k]))
		}
	}
	return cs
}

// plan is how every rank runs: per rank, its ratio and power rows and
// which regions it runs on their device.
type plan struct {
	ratio, watts [][]float64
	dev          [][]bool
}

// uniform is the plan with every rank at P-state index k, regions on
// their device where useDevice agrees (nil: wherever the model offloads).
func (sp *speeds) uniform(ranks, k int, useDevice func(region int) bool) plan {
	r, w, d := sp.row(k, useDevice)
	p := plan{ratio: make([][]float64, ranks), watts: make([][]float64, ranks), dev: make([][]bool, ranks)}
	for i := range p.ratio {
		p.ratio[i], p.watts[i], p.dev[i] = r, w, d
	}
	return p
}

// devices returns the shared device of every operation of g under plan
// pl (see speeds.devices).
func (pl plan) devices(g *graph.Graph, sp *speeds, m *Machine) []int32 {
	return sp.devices(g, m, func(op, r int32) bool { return pl.dev[r][g.Region[op]+1] })
}

// speedPricer prices the calc operations of a graph with every rank at its
// own P-state.
type speedPricer struct {
	g    *graph.Graph
	rank []int32
	rows [][]float64 // per rank: its P-state's ratios
	// gpu, when set, gives per rank the time ratio of its GPU's clock,
	// which prices the operations of its CPUs other than CPU 0 (onGPU).
	gpu []float64
}

// pricer returns the pricer of g under plan pl.
func (pl plan) pricer(g *graph.Graph) *speedPricer {
	return &speedPricer{g: g, rank: g.OpRanks(), rows: pl.ratio}
}

// CalcDuration implements sim.CalcPricer.
func (p *speedPricer) CalcDuration(op int32, start int64) int64 {
	if p.gpu != nil && p.g.CPU[op] != 0 {
		return graph.SatNs(float64(p.g.Size[op]) * p.gpu[p.rank[op]])
	}
	x := p.rows[p.rank[op]][p.g.Region[op]+1]
	if math.IsNaN(x) {
		return p.g.Size[op]
	}
	return graph.SatNs(float64(p.g.Size[op]) * x)
}

// opWatts returns the power of every calc operation of g under plan pl
// (0 for other operations, which draw their rank's active power).
func (pl plan) opWatts(g *graph.Graph) []float64 {
	rank := g.OpRanks()
	w := make([]float64, g.NumOps())
	for op, k := range g.Kind {
		if k == graph.Calc {
			w[op] = pl.watts[rank[op]][g.Region[op]+1]
		}
	}
	return w
}

// opWaitWatts returns, for every calc operation of g that plan pl runs on
// a device, the power its rank draws in the wait after it under
// wait_power "task": the rank's core power core[r] (the device idles while
// the rank waits in MPI); 0 for other operations. Nil when pl offloads
// nothing.
func (pl plan) opWaitWatts(g *graph.Graph, core []float64) []float64 {
	var w []float64
	rank := g.OpRanks()
	for op, k := range g.Kind {
		if k != graph.Calc || !pl.dev[rank[op]][g.Region[op]+1] {
			continue
		}
		if w == nil {
			w = make([]float64, g.NumOps())
		}
		w[op] = core[rank[op]]
	}
	return w
}

// markDevices tells the LP's DAG d of trace t which configurations of its
// tasks run on an accelerator that several ranks of a node share (fewer
// per_node than ranks_per_node), numbering each entry's devices as
// deviceOf does; a device per rank needs no rows (a rank runs one task at
// a time).
func (sp *speeds) markDevices(d *bound.DAG, t *mpi.Trace, m *Machine) {
	base := make([]int, len(m.Accelerators))
	for k, a := range m.Accelerators {
		base[k] = len(d.Devices)
		if a.PerNode >= m.RanksPerNode {
			base[k] = -1
			continue
		}
		for n := 0; n < m.Nodes; n++ {
			for j := 0; j < a.PerNode; j++ {
				d.Devices = append(d.Devices, bound.Device{Name: fmt.Sprintf("%s #%d of node %d", a.Name, j, n), Count: 1})
			}
		}
	}
	for i := range d.Tasks {
		tk := &d.Tasks[i]
		region := t.Ranks[tk.Rank].Events[tk.Event].Region
		k := sp.acc[region]
		if k < 0 || base[k] < 0 {
			continue
		}
		on := make([]bool, len(tk.Hull))
		any := false
		for g, c := range tk.Hull {
			on[g] = sp.onDevice(region, c.Label)
			any = any || on[g]
		}
		if !any {
			continue
		}
		tk.OnDevice, tk.Device = on, base[k]+m.deviceOf(k, tk.Rank)
	}
}
