package models

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/accel"
	"github.com/capsim/capsim/compute/modelfile"
	"github.com/capsim/capsim/compute/power"
)

// Offload policies: the baseline, blind porting (Meswani et al. Tables
// VI–VII) and the best device per instance or region (Tables VIII–IX).
const (
	PolicyNever       = "never"        // cpu_only: keep the region on the host
	PolicyBlind       = "blind"        // blind porting: every instance on the target's first device, whatever it costs
	PolicyPerRegion   = "per-region"   // the whole region on the host or on one allowed device, whichever is fastest
	PolicyPerInstance = "per-instance" // each instance (basic block) on the host or the allowed device where it is fastest
	PolicyAlways      = "always"       // the older name of blind
	PolicyWhenFaster  = "when-faster"  // the older name of per-region
)

// placementOf returns the accel placement of a policy name.
func placementOf(policy string) (accel.Placement, bool) {
	switch policy {
	case PolicyNever:
		return accel.HostOnly, true
	case PolicyBlind, PolicyAlways:
		return accel.Blind, true
	case PolicyPerRegion, PolicyWhenFaster:
		return accel.PerRegion, true
	case PolicyPerInstance:
		return accel.PerInstance, true
	}
	return 0, false
}

// Offload prices a region on the host with a CPU model, or on the
// accelerators of an inline device Profile when the target configuration
// names a device (docs/reference/models.md, "accel"). The target's device is one device of the
// profile or a set joined by "+" ("fpga+gpu": a node offering both, see
// accel.DeviceSet); the host is always allowed too.
//
// One execution of the region is either a single idiom instance (Idiom,
// Footprint, Bytes, CPUSeconds) or the list Instances: call sites or basic
// blocks, each with its idiom or idiom mixture, footprint, bytes moved,
// executions and host time per execution (Meswani et al. Sections V and
// VII.A.1). An
// instance of idiom k with footprint D moving V bytes takes setup +
// V/BW_k(D) on a device plus the exposed transfer X(r, D); its host time
// is its cpu_s, or V/BW_cpu,k(D) from the profile's CPU curves. The policy
// places the instances (accel.Place): never, blind, per-region or
// per-instance.
//
// Recorded work of w seconds is w/ref executions of the region, ref being
// the host seconds of one execution at the recorded configuration, so
// every time scales by that count (the ratio method); the host times of
// the instances follow the CPU model's prediction at the target.
type Offload struct {
	Profile     accel.Profile    `json:"profile"`
	Idiom       string           `json:"idiom,omitempty"`
	Footprint   float64          `json:"footprint_bytes,omitempty"`
	Bytes       float64          `json:"bytes_moved,omitempty"` // 0 means Footprint
	Instances   []accel.Instance `json:"instances,omitempty"`   // instead of Idiom, Footprint, Bytes and CPUSeconds
	Ratio       float64          `json:"ratio"`                 // non-overlapped transfer fraction r
	Policy      string           `json:"policy"`
	CPUSeconds  float64          `json:"cpu_s,omitempty"`
	DeviceWatts float64          `json:"device_watts,omitempty"` // power while offloaded (0 = unknown)
	CPU         *modelfile.Entry `json:"cpu,omitempty"`          // host model; nil means measured

	host compute.Model
	ref  float64 // host seconds of one execution of the region at the recorded configuration
}

// Kind returns KindAccel.
func (m *Offload) Kind() compute.Kind { return KindAccel }

// DecodeOffload decodes and validates the parameters of an "accel" entry;
// extra decodes its nested CPU model.
func DecodeOffload(params json.RawMessage, extra modelfile.Decoders) (*Offload, error) {
	m := &Offload{}
	if err := modelfile.DecodeParams(params, m); err != nil {
		return nil, err
	}
	if err := m.Init(extra); err != nil {
		return nil, err
	}
	return m, nil
}

// Init validates m and decodes its CPU model with extra.
func (m *Offload) Init(extra modelfile.Decoders) error {
	b, err := json.Marshal(m.Profile)
	if err != nil {
		return err
	}
	if _, err := accel.ReadProfile(bytes.NewReader(b), "profile"); err != nil {
		return err
	}
	if _, ok := placementOf(m.Policy); !ok {
		return fmt.Errorf("accel: policy %q: want %s, %s, %s or %s (or the older %s, %s)", m.Policy,
			PolicyNever, PolicyBlind, PolicyPerRegion, PolicyPerInstance, PolicyAlways, PolicyWhenFaster)
	}
	if !(m.Ratio >= 0 && m.Ratio <= 1) {
		return fmt.Errorf("accel: ratio %g is not in [0, 1]", m.Ratio)
	}
	if !(m.CPUSeconds >= 0) || math.IsInf(m.CPUSeconds, 0) {
		return fmt.Errorf("accel: cpu_s = %g: want a finite number ≥ 0", m.CPUSeconds)
	}
	if err := power.CheckWatts(m.DeviceWatts, false); err != nil {
		return fmt.Errorf("accel: device_watts: %w", err)
	}
	if len(m.Instances) > 0 {
		if m.Idiom != "" || m.Footprint != 0 || m.Bytes != 0 || m.CPUSeconds != 0 {
			return fmt.Errorf("accel: with instances, give idiom, footprint_bytes, bytes_moved and cpu_s per instance")
		}
		for i := range m.Instances {
			if m.Instances[i].Name == "" {
				m.Instances[i].Name = fmt.Sprintf("#%d", i+1)
			}
		}
	} else if m.Idiom == "" {
		return fmt.Errorf("accel: give the region's idiom (or its instances)")
	} else if !(m.Footprint > 0) || m.Footprint > 1e18 || !(m.Bytes >= 0) || m.Bytes > 1e18 {
		return fmt.Errorf("accel: footprint_bytes must be positive and bytes_moved non-negative")
	}
	m.ref = 0
	for _, in := range m.instances() {
		if err := in.Validate(); err != nil {
			return fmt.Errorf("accel: %w", err)
		}
		t, ok := m.Profile.HostTime(in)
		if !ok {
			if len(m.Instances) == 0 {
				return fmt.Errorf("accel: no cpu_s and no positive CPU curve for idiom %q in the profile at %g bytes", m.Idiom, m.Footprint)
			}
			return fmt.Errorf("accel: instance %q: no cpu_s and no positive CPU curve for its idioms in the profile", in.Name)
		}
		if err := m.Profile.CheckIdioms(&in); err != nil {
			return fmt.Errorf("accel: %w", err)
		}
		m.ref += t
	}
	if !(m.ref > 0) || math.IsInf(m.ref, 0) {
		return fmt.Errorf("accel: the host time of one execution, %g s, is not a positive finite number", m.ref)
	}
	m.host = compute.Measured{}
	if m.CPU != nil {
		if m.CPU.Kind == KindAccel {
			return fmt.Errorf("accel: the CPU model cannot itself be an accel model")
		}
		h, err := m.CPU.Model(extra)
		if err != nil {
			return fmt.Errorf("accel: cpu model (%s): %w", m.CPU.Kind, err)
		}
		m.host = h
	}
	return nil
}

// instances returns the instances of one execution of the region.
func (m *Offload) instances() []accel.Instance {
	if len(m.Instances) > 0 {
		return m.Instances
	}
	return []accel.Instance{{Idiom: m.Idiom, Footprint: m.Footprint, Bytes: m.Bytes, CPUTime: m.CPUSeconds}}
}

// OffloadReport is how an Offload model runs some recorded work under a
// target configuration: the host time at the target's CPU settings, the
// device compute and exposed transfer time, and the decision.
type OffloadReport struct {
	Device    string  // target device or device set ("" for the host)
	Policy    string  // offload policy applied
	Eligible  bool    // an allowed device has positive curves for some instance
	Offloaded bool    // some of the work runs on a device
	CPU       float64 // seconds of all the work on the host
	// HostS is the seconds of the instances kept on the host when some
	// are offloaded (0 when all or none are).
	HostS float64
	// DeviceS and TransferS are the device compute (setup included) and
	// exposed transfer seconds of the offloaded instances; when nothing is
	// offloaded, what blind porting to the first allowed device would cost.
	DeviceS, TransferS float64
	// Instances is where each instance of a model with Instances runs and
	// its times, summed over the executions of the work.
	Instances []accel.Choice
	Pred      compute.Prediction
}

// Decide prices w under target and reports the offload decision.
func (m *Offload) Decide(w compute.Work, target compute.Config) (OffloadReport, error) {
	if m.host == nil {
		return OffloadReport{}, fmt.Errorf("accel: model not initialized")
	}
	hostCfg := target
	hostCfg.Device = ""
	host, err := m.host.Predict(w, hostCfg)
	if err != nil {
		return OffloadReport{}, fmt.Errorf("accel: cpu model: %w", err)
	}
	rep := OffloadReport{Policy: m.Policy, CPU: host.Seconds, Pred: host}
	if target.IsCPU() {
		return rep, nil
	}
	rep.Device = target.Device
	allowed, err := accel.DeviceSet(target.Device)
	if err != nil {
		return OffloadReport{}, fmt.Errorf("accel: %w", err)
	}
	// Place one execution with its host times at the target (the CPU
	// model is homogeneous, so one execution scales like all of w), then
	// scale by the n = w/ref executions of the work.
	one, err := m.host.Predict(compute.Work{Seconds: m.ref, At: w.At}, hostCfg)
	if err != nil {
		return OffloadReport{}, fmt.Errorf("accel: cpu model: %w", err)
	}
	if !(one.Seconds > 0) || math.IsInf(one.Seconds, 0) {
		return OffloadReport{}, fmt.Errorf("accel: the cpu model prices one execution of the region (%g s recorded) at %g s; want a positive finite time", m.ref, one.Seconds)
	}
	scale, n := one.Seconds/m.ref, w.Seconds/m.ref
	insts := append([]accel.Instance(nil), m.instances()...)
	for i := range insts {
		t, _ := m.Profile.HostTime(insts[i])
		if c := insts[i].Count; c > 0 {
			t /= c // per execution of the instance
		}
		insts[i].CPUTime = scale * t
	}
	pol, _ := placementOf(m.Policy)
	plan, err := m.Profile.Place(insts, allowed, m.Ratio, pol)
	if err != nil {
		return OffloadReport{}, fmt.Errorf("accel: %w", err)
	}
	blind := plan
	if pol != accel.Blind {
		if blind, err = m.Profile.Place(insts, allowed[:1], m.Ratio, accel.Blind); err != nil {
			return OffloadReport{}, fmt.Errorf("accel: %w", err)
		}
	}
	rep.Eligible = blind.Offloaded > 0
	for _, d := range allowed[1:] {
		b, _ := m.Profile.Place(insts, []string{d}, m.Ratio, accel.Blind)
		rep.Eligible = rep.Eligible || b.Offloaded > 0
	}
	shown := plan
	if plan.Offloaded == 0 {
		shown = blind
	}
	rep.DeviceS, rep.TransferS = shown.Device*n, shown.Transfer*n
	if len(m.Instances) > 0 {
		rep.Instances = make([]accel.Choice, len(plan.Choices))
		for i, c := range plan.Choices {
			rep.Instances[i] = accel.Choice{Instance: c.Instance, Device: c.Device, HostTime: c.HostTime * n,
				DeviceTime: c.DeviceTime * n, XferTime: c.XferTime * n, Time: c.Time * n}
		}
	}
	if plan.Offloaded > 0 {
		rep.Offloaded = true
		dt := plan.Time * n
		rep.Pred = compute.Prediction{Seconds: dt, Watts: m.DeviceWatts, Kind: KindAccel}
		rep.HostS = plan.Host * n
		if plan.Host > 0 && dt > 0 {
			// Part of the work stays on the host: the time-weighted power.
			rep.Pred.Watts = (host.Watts*plan.Host + m.DeviceWatts*(plan.Device+plan.Transfer)) / plan.Time
		}
		if m.DeviceWatts == 0 || (plan.Host > 0 && host.Flags&compute.NoPower != 0) {
			rep.Pred.Flags |= compute.NoPower
		}
	}
	return rep, nil
}

// Predict returns the prediction of Decide.
func (m *Offload) Predict(w compute.Work, target compute.Config) (compute.Prediction, error) {
	r, err := m.Decide(w, target)
	return r.Pred, err
}
