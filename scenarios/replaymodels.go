package scenarios

import (
	"fmt"
	"io"
	"strconv"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/modelfile"
	"github.com/capsim/capsim/compute/models"
	"github.com/capsim/capsim/compute/power"
	"github.com/capsim/capsim/internal/atomicfile"
	"github.com/capsim/capsim/internal/units"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/sim/timeline"
	"github.com/capsim/capsim/traces/graph"
)

// ModelOptions are the compute and power models of a replay
// (docs/reference/models.md).
type ModelOptions struct {
	// File is the compute-model file pricing calc operations by region
	// ("": the trace's recorded times).
	File string
	// Config is the configuration of all regions (compute.ParseConfig;
	// unset fields: the file's recorded configuration) and Regions those
	// of the regions matching a glob (compute.ParseConfigRule; the first
	// match wins).
	Config  string
	Regions []string
	// PowerFile, when set, receives the per-rank power timeline as an
	// Arrow file (it needs machine power).
	PowerFile string
	// Machine is the machine power (modelfile.ParseMachine), overriding
	// the model file's "machine".
	Machine string
	// RanksPerDevice ranks share one accelerator (0: a device per rank).
	RanksPerDevice int
	// RecordedGHz, when > 0, is the core frequency the trace's compute
	// times were measured at, overriding the model file's recorded
	// cpu_ghz.
	RecordedGHz float64
}

// modelRun prices one replay and accounts its power.
type modelRun struct {
	g        *graph.Graph
	set      *compute.Set
	pricer   *compute.Pricer
	acct     *power.Accountant
	machine  *modelfile.Machine
	opts     *ModelOptions
	warnings []string
}

// teeObserver passes engine notifications to two observers.
type teeObserver struct{ a, b sim.Observer }

func (t teeObserver) Busy(op int32, start, end int64) {
	t.a.Busy(op, start, end)
	t.b.Busy(op, start, end)
}
func (t teeObserver) Message(send, recv int32, sent, matched int64) {
	t.a.Message(send, recv, sent, matched)
	t.b.Message(send, recv, sent, matched)
}

// LinkFlows passes link counters (sim.LinkObserver) to those of the two
// observers that take them.
func (t teeObserver) LinkFlows(link int32, ts int64, flows int32) {
	for _, o := range []sim.Observer{t.a, t.b} {
		if l, ok := o.(sim.LinkObserver); ok {
			l.LinkFlows(link, ts, flows)
		}
	}
}

// setup loads the models and sets the pricer and power observer in opts.
// It returns nil when no model flag is given.
func (f *ModelOptions) setup(g *graph.Graph, opts *sim.Options) (*modelRun, error) {
	if f.File == "" && f.Machine == "" {
		return nil, nil
	}
	r := &modelRun{g: g, opts: f, set: &compute.Set{}}
	if f.File != "" {
		file, set, err := models.Load(f.File)
		if err != nil {
			return nil, err
		}
		r.set, r.machine = set, file.Machine
		if f.RecordedGHz > 0 {
			r.set.Recorded.CPUFreqGHz = f.RecordedGHz
		}
	}
	if f.Machine != "" {
		m, err := modelfile.ParseMachine(f.Machine)
		if err != nil {
			return nil, asOption(err)
		}
		r.machine = &m
	}
	if f.PowerFile != "" && r.machine == nil {
		return nil, optionf("--power needs machine power: a \"machine\" section in %s or --machine-power", f.File)
	}
	def, err := compute.ParseConfig(f.Config)
	if err != nil {
		return nil, asOption(err)
	}
	t := compute.Target{Default: def.Merge(r.set.Recorded)}
	for _, s := range f.Regions {
		cr, err := compute.ParseConfigRule(s)
		if err != nil {
			return nil, asOption(err)
		}
		t.Rules = append(t.Rules, cr)
	}
	if err := t.CheckRules(g); err != nil {
		return nil, optionf("--config-region: %w", err)
	}
	if f.File != "" {
		if r.pricer, err = compute.NewPricer(g, r.set, t); err != nil {
			return nil, fmt.Errorf("%s: %w", f.File, err)
		}
		opts.Pricer = r.pricer
		if f.RanksPerDevice > 0 {
			opts.Device = deviceMap(g, r.pricer, f.RanksPerDevice)
		}
	}
	if r.machine != nil && r.machine.Sockets != nil && r.pricer != nil {
		for _, p := range r.pricer.Regions() {
			if p.Pred.Watts > 0 {
				r.warnings = append(r.warnings, "the machine's socket model sets node power; the models' per-region power is not used")
				break
			}
		}
	}
	if r.machine != nil {
		r.acct = power.NewAccountant(g)
		if opts.Observer == nil {
			opts.Observer = r.acct
		} else {
			opts.Observer = teeObserver{opts.Observer, r.acct}
		}
	}
	return r, nil
}

// Offload is an accelerator model's offload decision for a region
// (models.OffloadReport) in ns.
type Offload struct {
	Device     string            `json:"device,omitempty"`
	Policy     string            `json:"policy"`
	Eligible   bool              `json:"eligible"`
	Offloaded  bool              `json:"offloaded"`
	CPUNs      int64             `json:"cpu_ns"`
	DeviceNs   int64             `json:"device_ns"`
	TransferNs int64             `json:"transfer_ns"`
	Instances  []OffloadInstance `json:"instances,omitempty"`
}

// OffloadInstance is where one instance (call site, basic block) of an accel
// model's region runs, and its times there, summed over the priced work.
type OffloadInstance struct {
	Name       string `json:"name"`
	Device     string `json:"device"` // "cpu" for the host
	HostNs     int64  `json:"host_ns"`
	DeviceNs   int64  `json:"device_ns"`
	TransferNs int64  `json:"transfer_ns"`
	TimeNs     int64  `json:"time_ns"`
}

// NewOffload reports an offload decision.
func NewOffload(d models.OffloadReport) *Offload {
	o := &Offload{Device: d.Device, Policy: d.Policy, Eligible: d.Eligible, Offloaded: d.Offloaded,
		CPUNs: nsOf(d.CPU), DeviceNs: nsOf(d.DeviceS), TransferNs: nsOf(d.TransferS)}
	for _, c := range d.Instances {
		dev := c.Device
		if dev == "" {
			dev = compute.DeviceCPU
		}
		o.Instances = append(o.Instances, OffloadInstance{Name: c.Instance, Device: dev, HostNs: nsOf(c.HostTime),
			DeviceNs: nsOf(c.DeviceTime), TransferNs: nsOf(c.XferTime), TimeNs: nsOf(c.Time)})
	}
	return o
}

// RegionReport is how a model priced the calc operations of one region.
type RegionReport struct {
	Region     string   `json:"region"`
	Pattern    string   `json:"pattern"`
	Kind       string   `json:"kind"`
	Config     string   `json:"config"`
	Calcs      int      `json:"calcs"`
	RecordedNs int64    `json:"recorded_ns"`
	PricedNs   int64    `json:"priced_ns"`
	Ratio      float64  `json:"ratio"`
	Watts      float64  `json:"watts,omitempty"`
	Flags      string   `json:"flags,omitempty"`
	Offload    *Offload `json:"offload,omitempty"`
}

// EnergyReport is a replay's energy under the machine's power model.
type EnergyReport struct {
	Model        string  `json:"model"` // "cores" (base, idle, active) or "sockets"
	Nodes        int     `json:"nodes,omitempty"`
	RanksPerNode int     `json:"ranks_per_node,omitempty"`
	TotalJ       float64 `json:"total_j"`
	IdleJ        float64 `json:"idle_j"`
	DynamicJ     float64 `json:"dynamic_j"`
	AvgW         float64 `json:"avg_w"`
	PeakW        float64 `json:"peak_w"`
	// CapW is the job power cap and OverCapNs how long the job
	// drew more than it; both absent without a cap.
	CapW      float64 `json:"cap_w,omitempty"`
	OverCapNs *int64  `json:"over_cap_ns,omitempty"`
	BaseW     float64 `json:"base_w"`
	IdleW     float64 `json:"idle_w"`
	ActiveW   float64 `json:"active_w"`
}

// ModelsReport is what the compute and power models of a replay
// found: the regions' pricing, the energy and the files written.
type ModelsReport struct {
	Models string `json:"models,omitempty"`
	// RecordedConfig is what the model file's models take the trace's
	// compute times as measured at (absent without a model file: the
	// times are replayed as recorded).
	RecordedConfig *RecordedConfig `json:"recorded_config,omitempty"`
	Regions        []RegionReport  `json:"regions,omitempty"`
	Energy         *EnergyReport   `json:"energy,omitempty"`
	PowerFile      string          `json:"power_file,omitempty"`
	Warnings       []string        `json:"warnings,omitempty"`
}

// finish reports the regions' pricing and offload decisions, the energy
// (and the time above the job power cap capW, when > 0), and writes the
// power timeline: the Arrow file, and timeline counters per rank or node,
// per node of perNode ranks (when > 0), for the job and for its cap.
func (r *modelRun) finish(res *sim.Result, tl *timeline.Writer, perNode int, capW float64) (*ModelsReport, error) {
	if r == nil {
		return nil, nil
	}
	out := &ModelsReport{Models: r.opts.File}
	if r.opts.File != "" {
		out.RecordedConfig = modelRecorded(r.set.Recorded, r.opts.RecordedGHz > 0)
	}
	if r.pricer != nil {
		regs, err := r.regionReport()
		if err != nil {
			return nil, err
		}
		out.Regions = regs
		out.Warnings = r.warnings
	}
	if r.acct == nil {
		return out, nil
	}
	pw, err := r.powerCurves(res.Makespan, tl != nil || r.opts.PowerFile != "" || capW > 0)
	if err != nil {
		return nil, err
	}
	out.Energy = pw.energy
	if capW > 0 {
		over := pw.job.Over(capW)
		out.Energy.CapW, out.Energy.OverCapNs = capW, &over
	}
	if e := out.Energy; e != nil {
		e.TotalJ, e.IdleJ, e.DynamicJ = units.Joules(e.TotalJ), units.Joules(e.IdleJ), units.Joules(e.DynamicJ)
		e.AvgW, e.PeakW = units.Watts(e.AvgW), units.Watts(e.PeakW)
	}
	if tl != nil {
		for n, s := range pw.curves {
			name := "power " + pw.unit + " " + strconv.Itoa(n) + " (W)"
			owner := -1 // a node's curve is job-wide
			if pw.unit == "rank" {
				owner = n
			}
			for i, t := range s.Times {
				tl.CounterOn(owner, name, t, s.Watts[i])
			}
			tl.CounterOn(owner, name, s.End, s.Watts[len(s.Watts)-1])
		}
		if pw.unit == "rank" && perNode > 0 {
			nodes, err := power.ByNode(pw.curves, perNode, pw.baseW)
			if err != nil {
				return nil, err
			}
			for n, s := range nodes {
				name := "power node " + strconv.Itoa(n) + " (W)"
				for i, t := range s.Times {
					tl.Counter(name, t, s.Watts[i])
				}
				tl.Counter(name, s.End, s.Watts[len(s.Watts)-1])
			}
		}
		for i, t := range pw.job.Times {
			tl.Counter("power job (W)", t, pw.job.Watts[i])
		}
		tl.Counter("power job (W)", res.Makespan, pw.job.Watts[len(pw.job.Watts)-1])
		if capW > 0 {
			tl.Counter("power cap (W)", 0, capW)
			tl.Counter("power cap (W)", res.Makespan, capW)
		}
	}
	if p := r.opts.PowerFile; p != "" {
		e := pw.energy
		meta := map[string]string{
			"energy_j":  strconv.FormatFloat(e.TotalJ, 'g', -1, 64),
			"idle_j":    strconv.FormatFloat(e.IdleJ, 'g', -1, 64),
			"dynamic_j": strconv.FormatFloat(e.DynamicJ, 'g', -1, 64),
			"idle_w":    strconv.FormatFloat(e.IdleW, 'g', -1, 64),
		}
		if err := atomicfile.Write(p, func(w io.Writer) error { return power.WriteTimeline(w, pw.unit, pw.curves, pw.baseW, meta) }); err != nil {
			return nil, fmt.Errorf("--power %s: %w", p, err)
		}
		out.PowerFile = p
	}
	return out, nil
}

// powerResult is the energy of a replay and, when asked for, its power
// curves per rank or node and for the job.
type powerResult struct {
	energy *EnergyReport
	unit   string       // "rank" or "node"
	curves []power.Step // per rank or node, without baseW
	baseW  float64      // constant power on top of the curves
	job    power.Step
}

// powerCurves accounts the replay's energy with the per-core model (base,
// idle and active power, the models' per-region power) or, when the
// machine has sockets, with the per-socket two-segment node model.
func (r *modelRun) powerCurves(makespan int64, curves bool) (*powerResult, error) {
	g := r.g
	mc := r.machine
	T := float64(makespan) / 1e9
	if s := mc.Sockets; s != nil {
		nodes, err := r.acct.NodeProfiles(*s, mc.PerNode(), g.NumRanks(), makespan)
		if err != nil {
			return nil, err
		}
		job := power.Job(nodes)
		e := &EnergyReport{Model: "sockets", Nodes: len(nodes), RanksPerNode: mc.PerNode(), IdleW: s.Idle, TotalJ: job.Energy(), PeakW: job.Peak()}
		e.IdleJ = float64(len(nodes)) * s.Idle * T
		e.DynamicJ = e.TotalJ - e.IdleJ
		e.AvgW = power.AvgW(e.TotalJ, makespan, e.PeakW)
		return &powerResult{energy: e, unit: "node", curves: nodes, job: job}, nil
	}
	m := power.JobModel{BaseW: mc.BaseW, IdleW: mc.IdleW, ActiveW: make([]float64, g.NumRanks()), Wait: mc.Wait}
	for i := range m.ActiveW {
		m.ActiveW[i] = mc.ActiveW
	}
	if r.pricer != nil {
		m.OpW = make([]float64, g.NumOps())
		for op := range m.OpW {
			m.OpW[op] = r.pricer.Watts(int32(op))
		}
		m.OpWaitW = offloadedWait(g, r.pricer, mc.ActiveW)
	}
	rep, err := r.acct.Report(m, makespan, 0)
	if err != nil {
		return nil, err
	}
	pr := &powerResult{unit: "rank", baseW: m.BaseW, energy: &EnergyReport{Model: "cores", TotalJ: rep.EnergyJ, IdleJ: rep.IdleJ,
		DynamicJ: rep.DynamicJ, AvgW: rep.AvgW, PeakW: rep.PeakW, BaseW: m.BaseW, IdleW: m.IdleW, ActiveW: mc.ActiveW}}
	if curves {
		if pr.curves, err = r.acct.RankProfiles(m, makespan); err != nil {
			return nil, err
		}
		times, watts := r.acct.Profile(m)
		pr.job = power.Step{Times: times, Watts: watts, End: makespan}
	}
	return pr, nil
}

// regionReport sums recorded and priced calc time per region and asks
// offload models for their CPU, device and transfer times.
func (r *modelRun) regionReport() ([]RegionReport, error) {
	g := r.g
	rp := r.pricer.Regions()
	rec := make([]int64, len(rp))
	priced := make([]int64, len(rp))
	calcs := make([]int, len(rp))
	for op := int32(0); op < int32(g.NumOps()); op++ {
		if g.Kind[op] != graph.Calc || g.Region[op] < 0 {
			continue
		}
		reg := g.Region[op]
		rec[reg] += g.Size[op]
		priced[reg] += r.pricer.Duration(op)
		calcs[reg]++
	}
	var out []RegionReport
	for i, p := range rp {
		if calcs[i] == 0 {
			continue
		}
		j := RegionReport{Region: p.Name, Pattern: p.Pattern, Kind: string(p.Pred.Kind), Config: p.Target.String(), Calcs: calcs[i],
			RecordedNs: rec[i], PricedNs: priced[i], Ratio: p.Ratio, Watts: p.Pred.Watts, Flags: p.Pred.Flags.String()}
		m, _, err := r.set.Lookup(p.Name)
		if err != nil {
			return nil, err
		}
		off, ok := m.(*models.Offload)
		if !ok && !p.Target.IsCPU() {
			r.warnings = append(r.warnings, fmt.Sprintf("region %q: its %s model has no accelerator; %s priced on the host", p.Name, m.Kind(), p.Target.Device))
		}
		if ok {
			d, err := off.Decide(compute.Work{Seconds: float64(rec[i]) / 1e9, At: r.set.Recorded}, p.Target)
			if err != nil {
				return nil, fmt.Errorf("region %q: %w", p.Name, err)
			}
			j.Offload = NewOffload(d)
		}
		out = append(out, j)
	}
	return out, nil
}

// deviceMap puts every calc whose region the pricer runs on an
// accelerator on device rank / perDevice (sim.Options.Device); nil when
// no region is offloaded.
func deviceMap(g *graph.Graph, p *compute.Pricer, perDevice int) []int32 {
	rp := p.Regions()
	rank := g.OpRanks()
	var dev []int32
	for op, k := range g.Kind {
		if k != graph.Calc || g.Region[op] < 0 || rp[g.Region[op]].Pred.Kind != models.KindAccel {
			continue
		}
		if dev == nil {
			dev = make([]int32, g.NumOps())
			for i := range dev {
				dev[i] = -1
			}
		}
		dev[op] = rank[op] / int32(perDevice)
	}
	return dev
}

// nsOf converts seconds to whole nanoseconds, saturating.
func nsOf(s float64) int64 { return graph.SatNs(s * 1e9) }

// offloadedWait gives every calc operation that p prices on an accelerator
// (an "accel" model) the power its rank waits at after it, the core's
// activeW: the device idles while the rank then waits in MPI
// (power.JobModel.OpWaitW). Nil when p offloads nothing.
func offloadedWait(g *graph.Graph, p *compute.Pricer, activeW float64) []float64 {
	var w []float64
	regions := p.Regions()
	for op, k := range g.Kind {
		if r := g.Region[op]; k != graph.Calc || r < 0 || regions[r].Pred.Kind != models.KindAccel {
			continue
		}
		if w == nil {
			w = make([]float64, g.NumOps())
		}
		w[op] = activeW
	}
	return w
}

// modelRecorded is the recording configuration a model file gives
// (flag: from --recorded-ghz). Without a frequency the models scale from
// their own reference frequencies, which the output marks as assumed.
func modelRecorded(c compute.Config, flag bool) *RecordedConfig {
	rc := &RecordedConfig{GHz: c.CPUFreqGHz, Threads: c.Threads, Source: "models file recorded section"}
	switch {
	case flag:
		rc.Source = "--recorded-ghz"
	case c.CPUFreqGHz == 0:
		rc.Assumed = true
		rc.Source = "assumed: the models' reference frequencies (the model file records no cpu_ghz)"
	}
	return rc
}
