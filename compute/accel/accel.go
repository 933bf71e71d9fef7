// Package accel models offloading compute regions to an accelerator
// (Meswani et al., "Modeling and Predicting Performance of HPC
// Applications on Hardware Accelerators"): per-idiom throughput curves against data size,
// data-migration cost with a non-overlapped fraction r, and offload policies.
//
// A region is either one Region decided as a whole (Device.Decide, Run) or
// a list of Instances, its call sites or basic blocks with their own
// footprints and idiom mixtures, placed by Profile.Place: all on the host,
// blind porting to one device, the best single placement of the whole
// region, or per instance over an allowed device set (Meswani et al.
// Section VII.A, Tables VI–IX).
//
// Units: bytes, seconds, and GB/s with GB = 1e9 bytes.
//
// Curve interpolation rule: a Curve is either the saturating log-linear form
// of the paper's Eq. 2, BW(D) = A·ln(D) + B for D ≤ Sat and Plateau above
// (discontinuity kept as published), or a table of (D, BW) points
// interpolated linearly in ln(D) and held constant outside the table. A
// curve value ≤ 0 makes the device ineligible for that region.
package accel

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
)

// GB is the number of bytes in the GB of GB/s bandwidths.
const GB = 1e9

// Point is one (data size, bandwidth) sample of a tabulated curve.
type Point struct {
	Bytes float64 `json:"bytes"`
	GBps  float64 `json:"gbps"`
}

// Curve is a bandwidth curve against data size.
type Curve struct {
	// Log-linear form: BW = A*ln(D)+B for D <= Sat, Plateau above.
	A       float64 `json:"a,omitempty"`
	B       float64 `json:"b,omitempty"`
	Sat     float64 `json:"sat_bytes,omitempty"`
	Plateau float64 `json:"plateau_gbps,omitempty"`
	// Points, if non-empty, replaces the log-linear form.
	Points []Point `json:"points,omitempty"`
}

// Constant returns a curve with the same bandwidth at every size.
func Constant(gbps float64) Curve { return Curve{Sat: 0, Plateau: gbps} }

// BW returns the bandwidth in GB/s at data size d bytes; it may be ≤ 0
// (invalid) for the log-linear form below its zero crossing.
func (c Curve) BW(d float64) float64 {
	if len(c.Points) > 0 {
		p := c.Points
		if d <= p[0].Bytes {
			return p[0].GBps
		}
		if d >= p[len(p)-1].Bytes {
			return p[len(p)-1].GBps
		}
		i := sort.Search(len(p), func(i int) bool { return p[i].Bytes >= d })
		x0, x1 := math.Log(p[i-1].Bytes), math.Log(p[i].Bytes)
		t := (math.Log(d) - x0) / (x1 - x0)
		return p[i-1].GBps + t*(p[i].GBps-p[i-1].GBps)
	}
	if d > c.Sat {
		return c.Plateau
	}
	if d <= 0 {
		return 0
	}
	return c.A*math.Log(d) + c.B
}

// Time returns the seconds to move v bytes at the curve's bandwidth for
// footprint d, and false if the curve is not positive at d.
func (c Curve) Time(v, d float64) (float64, bool) {
	bw := c.BW(d)
	if !(bw > 0) {
		return 0, false
	}
	return v / (bw * GB), true
}

// TransferMode selects how the non-overlapped fraction r is costed.
type TransferMode string

const (
	// ExposedSize costs a transfer of r·D bytes: T(r·D) = L + r·D/B (default).
	ExposedSize TransferMode = "exposed_size"
	// FractionOfFull costs r times the time of a full transfer of D bytes.
	FractionOfFull TransferMode = "fraction_of_full"
)

// Transfer is the host↔device migration model: a transfer of s > 0 bytes
// costs Latency + s/(GBps·GB) seconds; a transfer of 0 bytes costs nothing.
type Transfer struct {
	Latency    float64      `json:"latency_s"`
	GBps       float64      `json:"gbps"`
	Directions int          `json:"directions,omitempty"` // 0 means 1
	Mode       TransferMode `json:"mode,omitempty"`       // empty means ExposedSize
}

// Time returns the seconds to transfer s bytes.
func (t Transfer) Time(s float64) float64 {
	if s <= 0 {
		return 0
	}
	return t.Latency + s/(t.GBps*GB)
}

// Exposed returns the non-overlapped migration cost for footprint d and ratio r.
func (t Transfer) Exposed(d, r float64) float64 {
	dirs := t.Directions
	if dirs <= 0 {
		dirs = 1
	}
	dx := d * float64(dirs)
	if t.Mode == FractionOfFull {
		return r * t.Time(dx)
	}
	return t.Time(r * dx)
}

// Device is an accelerator profile.
type Device struct {
	Name     string           `json:"name"`
	Setup    float64          `json:"setup_s,omitempty"`
	Idioms   map[string]Curve `json:"idioms"`
	Transfer Transfer         `json:"transfer"`
}

// Profile is the versioned JSON file of devices plus optional CPU idiom curves.
type Profile struct {
	Version int              `json:"version"`
	CPU     map[string]Curve `json:"cpu,omitempty"`
	Devices []Device         `json:"devices"`
}

// ProfileVersion is the profile file version this package reads and writes.
const ProfileVersion = 1

// ReadProfile decodes and validates a profile; name is used in errors.
func ReadProfile(r io.Reader, name string) (*Profile, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var p Profile
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: trailing data after the profile", name)
	}
	if p.Version != ProfileVersion {
		return nil, fmt.Errorf("%s: unsupported version %d (want %d)", name, p.Version, ProfileVersion)
	}
	for i, d := range p.Devices {
		if d.Name == "" {
			return nil, fmt.Errorf("%s: devices[%d]: empty name", name, i)
		}
		if err := d.validate(); err != nil {
			return nil, fmt.Errorf("%s: device %q: %w", name, d.Name, err)
		}
		for _, k := range sortedKeys(d.Idioms) {
			if err := d.Idioms[k].Validate(); err != nil {
				return nil, fmt.Errorf("%s: device %q idiom %q: %w", name, d.Name, k, err)
			}
		}
	}
	for _, k := range sortedKeys(p.CPU) {
		if err := p.CPU[k].Validate(); err != nil {
			return nil, fmt.Errorf("%s: cpu idiom %q: %w", name, k, err)
		}
	}
	return &p, nil
}

// MaxSeconds is the longest time a profile may give one setup or
// transfer latency: 10^9 s, the engine's time limit (graph.MaxTimeNs).
const MaxSeconds = 1e9

// validate checks a device's setup time and transfer model: times finite
// and in [0, MaxSeconds] (a negative latency would price an offload at a
// negative time), the bandwidth finite and > 0, directions ≥ 0 and a known
// mode.
func (d Device) validate() error {
	for _, c := range []struct {
		key string
		v   float64
	}{{"setup_s", d.Setup}, {"transfer latency_s", d.Transfer.Latency}} {
		if !(c.v >= 0 && c.v <= MaxSeconds) {
			return fmt.Errorf("%s = %g: want a finite number of seconds in [0, %g]", c.key, c.v, MaxSeconds)
		}
	}
	if !(d.Transfer.GBps > 0) || math.IsInf(d.Transfer.GBps, 0) {
		return fmt.Errorf("transfer gbps = %g: must be a finite number > 0", d.Transfer.GBps)
	}
	if d.Transfer.Directions < 0 {
		return fmt.Errorf("transfer directions = %d: want 1 or more (0 means 1)", d.Transfer.Directions)
	}
	if m := d.Transfer.Mode; m != "" && m != ExposedSize && m != FractionOfFull {
		return fmt.Errorf("unknown transfer mode %q", m)
	}
	return nil
}

// Validate checks a curve read from a file: a tabulated curve's points
// have increasing positive sizes; a log-linear one has sat_bytes ≥ 0 and
// a plateau_gbps > 0, the bandwidth at every size above sat_bytes (a
// plateau ≤ 0, or one left out, would make the device silently
// ineligible for every large region).
func (c Curve) Validate() error {
	if len(c.Points) > 0 {
		for j, pt := range c.Points {
			if !(pt.Bytes > 0) || math.IsInf(pt.Bytes, 0) || (j > 0 && pt.Bytes <= c.Points[j-1].Bytes) {
				return errors.New("points must have increasing positive finite bytes")
			}
			if math.IsNaN(pt.GBps) || math.IsInf(pt.GBps, 0) {
				return fmt.Errorf("points[%d]: gbps = %g: want a finite number", j, pt.GBps)
			}
		}
		return nil
	}
	if math.IsNaN(c.A) || math.IsInf(c.A, 0) || math.IsNaN(c.B) || math.IsInf(c.B, 0) {
		return fmt.Errorf("a = %g, b = %g: want finite numbers", c.A, c.B)
	}
	if !(c.Sat >= 0) {
		return fmt.Errorf("sat_bytes = %g: want a number ≥ 0", c.Sat)
	}
	if !(c.Plateau > 0) || math.IsInf(c.Plateau, 0) {
		return fmt.Errorf("plateau_gbps = %g: want a finite number > 0 (the bandwidth above sat_bytes)", c.Plateau)
	}
	return nil
}

// sortedKeys returns m's keys in order, so that errors are deterministic.
func sortedKeys(m map[string]Curve) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Region is one compute region (basic block instance) considered for offload.
type Region struct {
	Name      string
	Idiom     string  // idiom of the region; "" means not offloadable
	Footprint float64 // D, bytes
	Bytes     float64 // V, bytes moved; 0 means Footprint
	CPUTime   float64 // seconds on the host
}

// Policy selects the offload rule.
type Policy int

const (
	// Never keeps every region on the CPU.
	Never Policy = iota
	// Always offloads every region whose idiom the device supports with a valid curve.
	Always
	// WhenFaster offloads only if the device time including transfer is strictly smaller.
	WhenFaster
)

// Report is the per-region outcome.
type Report struct {
	Region     string
	Offloaded  bool
	CPUTime    float64 // host time if kept (the region's CPU time)
	DeviceTime float64 // device compute time incl. setup (0 if ineligible)
	XferTime   float64 // exposed transfer time (0 if ineligible)
	Time       float64 // chosen time
}

// DeviceTime returns the device compute and transfer seconds of region g at
// transfer ratio r, and false if the device cannot run it.
func (d *Device) DeviceTime(g Region, r float64) (compute, xfer float64, ok bool) {
	c, found := d.Idioms[g.Idiom]
	if !found || g.Idiom == "" {
		return 0, 0, false
	}
	v := g.Bytes
	if v == 0 {
		v = g.Footprint
	}
	t, ok := c.Time(v, g.Footprint)
	if !ok {
		return 0, 0, false
	}
	return d.Setup + t, d.Transfer.Exposed(g.Footprint, r), true
}

// Decide applies policy p to region g at transfer ratio r.
func (d *Device) Decide(g Region, r float64, p Policy) Report {
	rep := Report{Region: g.Name, CPUTime: g.CPUTime, Time: g.CPUTime}
	comp, x, ok := d.DeviceTime(g, r)
	if !ok {
		return rep
	}
	rep.DeviceTime, rep.XferTime = comp, x
	off := p == Always || (p == WhenFaster && comp+x < g.CPUTime)
	if off {
		rep.Offloaded, rep.Time = true, comp+x
	}
	return rep
}

// BreakEven returns the largest r at which offloading g (exposed_size,
// one direction of D, r > 0) still ties the CPU: r* = (CPU − dev − L)/(D·dirs/B).
// It returns NaN if the device cannot run g.
func (d *Device) BreakEven(g Region) float64 {
	comp, _, ok := d.DeviceTime(g, 0)
	if !ok {
		return math.NaN()
	}
	dirs := d.Transfer.Directions
	if dirs <= 0 {
		dirs = 1
	}
	full := g.Footprint * float64(dirs) / (d.Transfer.GBps * GB)
	if d.Transfer.Mode == FractionOfFull {
		return (g.CPUTime - comp) / (d.Transfer.Latency + full)
	}
	return (g.CPUTime - comp - d.Transfer.Latency) / full
}

// Optimal returns the minimum over {CPU} ∪ per-block times: Σ_b min(cpu_b, dev_b).
func Optimal(cpu, dev []float64) float64 {
	s := 0.0
	for i := range cpu {
		s += math.Min(cpu[i], dev[i])
	}
	return s
}

// Improvement is the application-level roll-up (ΣCPU − Σchosen)/Tapp.
func Improvement(tapp, idiomCPU, idiomChosen float64) float64 {
	return (idiomCPU - idiomChosen) / tapp
}

// Totals sums per-region reports: CPU time of regions kept on the host,
// device compute time and transfer time of offloaded regions, and the total.
type Totals struct {
	CPU, Device, Transfer, Total float64
	Offloaded                    int
}

// Run applies policy p at ratio r to every region and returns the per-region
// reports and their totals. A nil device keeps everything on the CPU.
func Run(d *Device, regions []Region, r float64, p Policy) ([]Report, Totals) {
	reps := make([]Report, len(regions))
	var t Totals
	for i, g := range regions {
		if d == nil {
			reps[i] = Report{Region: g.Name, CPUTime: g.CPUTime, Time: g.CPUTime}
		} else {
			reps[i] = d.Decide(g, r, p)
		}
		if reps[i].Offloaded {
			t.Offloaded++
			t.Device += reps[i].DeviceTime
			t.Transfer += reps[i].XferTime
		} else {
			t.CPU += reps[i].CPUTime
		}
		t.Total += reps[i].Time
	}
	return reps, t
}
