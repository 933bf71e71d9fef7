package accel

import (
	"fmt"
	"math"
	"strings"
)

// Share is one idiom of an idiom mixture and the fraction of the block's
// footprint (and bytes moved) it operates on.
type Share struct {
	Idiom    string  `json:"idiom"`
	Fraction float64 `json:"fraction"`
}

// Instance is one call site or basic block of a region (Meswani et al.
// Section V: PEBIL records the data footprint per basic block): its idiom, or a
// mixture of idioms in one block, its footprint D, the bytes V it moves
// per execution, how often it executes, and its host time per execution.
//
// A mixture (the graph500 make_bfs block of Meswani et al. Section
// VII.A.1: a scatter and a
// stream in one basic block) is priced as Σ_m T_m(frac_m·D), each idiom's
// curve evaluated at its share of the footprint and moving its share of V.
type Instance struct {
	Name      string  `json:"name,omitempty"`
	Idiom     string  `json:"idiom,omitempty"`
	Mix       []Share `json:"mix,omitempty"`         // instead of Idiom: fractions > 0 summing to 1
	Footprint float64 `json:"footprint_bytes"`       // D
	Bytes     float64 `json:"bytes_moved,omitempty"` // V per execution; 0 means D
	Count     float64 `json:"count,omitempty"`       // executions; 0 means 1
	CPUTime   float64 `json:"cpu_s,omitempty"`       // host seconds per execution; 0: the profile's CPU curves
}

// MixTolerance is how far the fractions of a mixture may sum from 1.
const MixTolerance = 1e-9

// Validate reports an instance that cannot be priced: no idiom, both an
// idiom and a mixture, a fraction outside (0, 1] or fractions not summing
// to 1, or a footprint, byte count, count or host time that is negative,
// not finite or (footprint) zero.
func (in *Instance) Validate() error {
	switch {
	case in.Idiom == "" && len(in.Mix) == 0:
		return fmt.Errorf("instance %q: needs an idiom or a mix", in.Name)
	case in.Idiom != "" && len(in.Mix) > 0:
		return fmt.Errorf("instance %q: give an idiom or a mix, not both", in.Name)
	case !(in.Footprint > 0) || in.Footprint > 1e18:
		return fmt.Errorf("instance %q: footprint_bytes %g must be in (0, 1e18]", in.Name, in.Footprint)
	case !(in.Bytes >= 0) || in.Bytes > 1e18:
		return fmt.Errorf("instance %q: bytes_moved %g must be in [0, 1e18]", in.Name, in.Bytes)
	case !(in.Count >= 0) || math.IsInf(in.Count, 0):
		return fmt.Errorf("instance %q: count %g must be finite and ≥ 0", in.Name, in.Count)
	case !(in.CPUTime >= 0) || math.IsInf(in.CPUTime, 0):
		return fmt.Errorf("instance %q: cpu_s %g must be finite and ≥ 0", in.Name, in.CPUTime)
	}
	sum := 0.0
	for _, s := range in.Mix {
		if s.Idiom == "" || !(s.Fraction > 0 && s.Fraction <= 1) {
			return fmt.Errorf("instance %q: mix entry %q: needs an idiom and a fraction in (0, 1], got %g", in.Name, s.Idiom, s.Fraction)
		}
		sum += s.Fraction
	}
	if len(in.Mix) > 0 && math.Abs(sum-1) > MixTolerance {
		return fmt.Errorf("instance %q: mix fractions sum to %g, want 1", in.Name, sum)
	}
	return nil
}

// shares returns the instance's idioms with their fractions.
func (in *Instance) shares() []Share {
	if len(in.Mix) > 0 {
		return in.Mix
	}
	return []Share{{Idiom: in.Idiom, Fraction: 1}}
}

// CheckIdioms reports an idiom of instance in that no device of p
// lists: no placement could ever run it on a device, so a misspelt idiom
// would silently keep the region on the host.
func (p *Profile) CheckIdioms(in *Instance) error {
	for _, sh := range in.shares() {
		found := false
		for _, d := range p.Devices {
			if _, ok := d.Idioms[sh.Idiom]; ok {
				found = true
				break
			}
		}
		if !found {
			var have []string
			for _, d := range p.Devices {
				have = append(have, d.Name+": "+strings.Join(sortedKeys(d.Idioms), ", "))
			}
			return fmt.Errorf("instance %q: idiom %q is run by no device of the profile (%s)", in.Name, sh.Idiom, strings.Join(have, "; "))
		}
	}
	return nil
}

func (in *Instance) count() float64 {
	if in.Count == 0 {
		return 1
	}
	return in.Count
}

func (in *Instance) volume() float64 {
	if in.Bytes > 0 {
		return in.Bytes
	}
	return in.Footprint
}

// curvesTime is one execution of in under the idiom curves of one device:
// Σ_m frac_m·V / BW_m(frac_m·D), and false when a curve is missing or not
// positive at its share of the footprint.
func (in *Instance) curvesTime(curves map[string]Curve) (float64, bool) {
	v, t := in.volume(), 0.0
	for _, s := range in.shares() {
		c, ok := curves[s.Idiom]
		if !ok {
			return 0, false
		}
		ts, ok := c.Time(s.Fraction*v, s.Fraction*in.Footprint)
		if !ok {
			return 0, false
		}
		t += ts
	}
	return t, true
}

// HostTime returns the host seconds of all executions of in: Count ×
// CPUTime, or, without CPUTime, Count × the mixture's time under the
// profile's CPU curves; false when neither gives a positive time.
func (p *Profile) HostTime(in Instance) (float64, bool) {
	if in.CPUTime > 0 {
		return in.count() * in.CPUTime, true
	}
	t, ok := in.curvesTime(p.CPU)
	if !ok || !(t > 0) {
		return 0, false
	}
	return in.count() * t, true
}

// InstanceTime returns the compute (setup included) and exposed transfer
// seconds of all executions of in on d at transfer ratio r, and false
// when d cannot run every idiom of in. Each execution pays the setup once
// and migrates the whole footprint D (Meswani et al., Section VIII, price
// a migration per offload but give no formula; docs/reference/models.md gives the
// one used here).
func (d *Device) InstanceTime(in Instance, r float64) (compute, xfer float64, ok bool) {
	t, ok := in.curvesTime(d.Idioms)
	if !ok {
		return 0, 0, false
	}
	n := in.count()
	return n * (d.Setup + t), n * d.Transfer.Exposed(in.Footprint, r), true
}

// Placement is how a region's instances are assigned to devices (the
// blind porting of Meswani et al. Tables VI–VII and the optimal mapping
// of Tables VIII–IX).
type Placement int

const (
	// HostOnly keeps every instance on the host (cpu_only).
	HostOnly Placement = iota
	// Blind sends every instance to the first allowed device, whatever it
	// costs; instances the device cannot run stay on the host (Tables
	// VI/VII: blind porting, which can lose).
	Blind
	// PerRegion runs the whole region where it is fastest: the host, or
	// one allowed device under Blind (ties go to the host, then to the
	// earlier device).
	PerRegion
	// PerInstance runs each instance where it is fastest among the host
	// and the allowed devices, transfer included: Σ_b min_{d∈S} t_{b,d}
	// (Tables VIII/IX). Ties go to the host, then to the earlier device.
	PerInstance
)

// String names the placement as model files do.
func (p Placement) String() string {
	switch p {
	case HostOnly:
		return "never"
	case Blind:
		return "blind"
	case PerRegion:
		return "per-region"
	case PerInstance:
		return "per-instance"
	}
	return fmt.Sprintf("Placement(%d)", int(p))
}

// Choice is where one instance runs and what it costs there.
type Choice struct {
	Instance   string  // the instance's name
	Device     string  // "" for the host
	HostTime   float64 // seconds on the host
	DeviceTime float64 // device compute seconds on Device, setup included (0 on the host)
	XferTime   float64 // exposed transfer seconds on Device (0 on the host)
	Time       float64 // seconds where it runs
}

// Plan is a placement of a region's instances and its totals: host time of
// the instances kept on the host, device compute and transfer time of the
// offloaded ones, and their sum.
type Plan struct {
	Choices                      []Choice
	Host, Device, Transfer, Time float64
	Offloaded                    int
}

func (pl *Plan) add(c Choice) {
	pl.Choices = append(pl.Choices, c)
	if c.Device == "" {
		pl.Host += c.Time
	} else {
		pl.Offloaded++
		pl.Device += c.DeviceTime
		pl.Transfer += c.XferTime
	}
	pl.Time += c.Time
}

// Place assigns the instances of one region to the host or to the devices
// of p named in allowed, at transfer ratio r, under placement pol (Blind
// uses allowed[0]). Every instance needs a positive host time (CPUTime or
// the profile's CPU curves); devices that cannot run an instance (missing
// or non-positive curve) are skipped for it.
func (p *Profile) Place(insts []Instance, allowed []string, r float64, pol Placement) (Plan, error) {
	devs := make([]*Device, len(allowed))
	for k, name := range allowed {
		for i := range p.Devices {
			if p.Devices[i].Name == name {
				devs[k] = &p.Devices[i]
			}
		}
		if devs[k] == nil {
			return Plan{}, fmt.Errorf("device %q is not in the profile", name)
		}
	}
	if pol == Blind && len(devs) == 0 {
		return Plan{}, fmt.Errorf("blind placement needs a device")
	}
	host := make([]float64, len(insts))
	for i, in := range insts {
		if err := in.Validate(); err != nil {
			return Plan{}, err
		}
		t, ok := p.HostTime(in)
		if !ok {
			return Plan{}, fmt.Errorf("instance %q: no cpu_s and no positive CPU curve for its idioms", in.Name)
		}
		host[i] = t
	}
	onHost := func(i int) Choice { return Choice{Instance: insts[i].Name, HostTime: host[i], Time: host[i]} }
	// on returns instance i on d, or on the host when d cannot run it.
	on := func(i int, d *Device) Choice {
		c := onHost(i)
		if comp, x, ok := d.InstanceTime(insts[i], r); ok {
			c.Device, c.DeviceTime, c.XferTime, c.Time = d.Name, comp, x, comp+x
		}
		return c
	}
	blind := func(d *Device) Plan {
		var pl Plan
		for i := range insts {
			pl.add(on(i, d))
		}
		return pl
	}
	var pl Plan
	switch pol {
	case HostOnly:
		for i := range insts {
			pl.add(onHost(i))
		}
	case Blind:
		pl = blind(devs[0])
	case PerRegion:
		for i := range insts {
			pl.add(onHost(i))
		}
		for _, d := range devs {
			if b := blind(d); b.Time < pl.Time {
				pl = b
			}
		}
	case PerInstance:
		for i := range insts {
			best := onHost(i)
			for _, d := range devs {
				if c := on(i, d); c.Time < best.Time {
					best = c
				}
			}
			pl.add(best)
		}
	default:
		return Plan{}, fmt.Errorf("unknown placement %d", int(pol))
	}
	return pl, nil
}

// DeviceSet splits a target device into the allowed set of a placement:
// "gpu" allows one device, "fpga+gpu" a node offering both (Meswani et
// al. Tables VIII/IX compare {CPU, FPGA}, {CPU, GPU} and {CPU, GPU, FPGA}).
// The host is always allowed and is not named. It reports an empty or
// repeated name.
func DeviceSet(target string) ([]string, error) {
	names := strings.Split(target, "+")
	for i, n := range names {
		names[i] = strings.TrimSpace(n)
		if names[i] == "" {
			return nil, fmt.Errorf("device set %q: empty device name", target)
		}
		for _, m := range names[:i] {
			if m == names[i] {
				return nil, fmt.Errorf("device set %q: %q named twice", target, m)
			}
		}
	}
	return names, nil
}
