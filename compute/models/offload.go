package models

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/accel"
	"github.com/capsim/capsim/compute/modelfile"
)

// Offload policies (note 004 §3.4).
const (
	PolicyNever      = "never"       // cpu_only: keep the region on the host
	PolicyAlways     = "always"      // blind porting: offload whenever the device can run the idiom
	PolicyWhenFaster = "when-faster" // optimal({CPU, d}): offload only if strictly faster, transfer included
)

// Offload prices a region on the host with a CPU model, or on an
// accelerator of an inline device Profile when the target configuration
// names a device (note 004 §3.3): a region instance of idiom Idiom with
// footprint D and V bytes moved takes setup + V/BW(D) on the device plus
// the exposed transfer X(r, D). The recorded host time of one instance is
// CPUSeconds, or V/BW_cpu(D) from the profile's CPU curve of the idiom when
// CPUSeconds is 0; recorded work of w seconds is w/CPUSeconds instances,
// so device and transfer times scale by that count (the ratio method).
type Offload struct {
	Profile     accel.Profile    `json:"profile"`
	Idiom       string           `json:"idiom"`
	Footprint   float64          `json:"footprint_bytes"`
	Bytes       float64          `json:"bytes_moved,omitempty"` // 0 means Footprint
	Ratio       float64          `json:"ratio"`                 // non-overlapped transfer fraction r
	Policy      string           `json:"policy"`
	CPUSeconds  float64          `json:"cpu_s,omitempty"`
	DeviceWatts float64          `json:"device_watts,omitempty"` // power while offloaded (0 = unknown)
	CPU         *modelfile.Entry `json:"cpu,omitempty"`          // host model; nil means measured

	host compute.Model
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
	switch m.Policy {
	case PolicyNever, PolicyAlways, PolicyWhenFaster:
	default:
		return fmt.Errorf("accel: policy %q: want %s, %s or %s", m.Policy, PolicyNever, PolicyAlways, PolicyWhenFaster)
	}
	if !(m.Footprint > 0) || m.Footprint > 1e18 || !(m.Bytes >= 0) || m.Bytes > 1e18 {
		return fmt.Errorf("accel: footprint_bytes must be positive and bytes_moved non-negative")
	}
	if !(m.Ratio >= 0 && m.Ratio <= 1) {
		return fmt.Errorf("accel: ratio %g is not in [0, 1]", m.Ratio)
	}
	if !(m.CPUSeconds >= 0) || math.IsInf(m.CPUSeconds, 0) || !(m.DeviceWatts >= 0) || math.IsInf(m.DeviceWatts, 0) {
		return fmt.Errorf("accel: cpu_s and device_watts must be finite and non-negative")
	}
	if m.CPUSeconds == 0 {
		if _, ok := m.Profile.CPU[m.Idiom]; !ok {
			return fmt.Errorf("accel: no cpu_s and no CPU curve for idiom %q in the profile", m.Idiom)
		}
		if ref, ok := m.cpuRef(); !ok || !(ref > 0) {
			return fmt.Errorf("accel: the profile's CPU curve for idiom %q is not positive at %g bytes", m.Idiom, m.Footprint)
		}
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

// cpuRef returns the host seconds of one recorded instance.
func (m *Offload) cpuRef() (float64, bool) {
	if m.CPUSeconds > 0 {
		return m.CPUSeconds, true
	}
	return m.Profile.CPU[m.Idiom].Time(m.volume(), m.Footprint)
}

func (m *Offload) volume() float64 {
	if m.Bytes > 0 {
		return m.Bytes
	}
	return m.Footprint
}

// OffloadReport is how an Offload model runs some recorded work under a
// target configuration: the host time at the target's CPU settings, the
// device compute and exposed transfer time (zero when the device cannot
// run the idiom), and the decision.
type OffloadReport struct {
	Device    string  // target device ("" for the host)
	Policy    string  // offload policy applied
	Eligible  bool    // the device has a positive curve for the idiom
	Offloaded bool    // the work runs on the device
	CPU       float64 // seconds on the host
	DeviceS   float64 // device compute seconds, setup included
	TransferS float64 // exposed transfer seconds
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
	var dev *accel.Device
	for i := range m.Profile.Devices {
		if m.Profile.Devices[i].Name == target.Device {
			dev = &m.Profile.Devices[i]
		}
	}
	if dev == nil {
		return OffloadReport{}, fmt.Errorf("accel: device %q is not in the profile", target.Device)
	}
	ref, ok := m.cpuRef()
	if !ok || !(ref > 0) {
		return OffloadReport{}, fmt.Errorf("accel: no positive host time per instance")
	}
	g := accel.Region{Idiom: m.Idiom, Footprint: m.Footprint, Bytes: m.Bytes, CPUTime: ref}
	comp, xfer, ok := dev.DeviceTime(g, m.Ratio)
	if !ok {
		return rep, nil
	}
	n := w.Seconds / ref // recorded instances
	rep.Eligible, rep.DeviceS, rep.TransferS = true, comp*n, xfer*n
	dt := rep.DeviceS + rep.TransferS
	if m.Policy == PolicyAlways || (m.Policy == PolicyWhenFaster && dt < host.Seconds) {
		rep.Offloaded = true
		rep.Pred = compute.Prediction{Seconds: dt, Watts: m.DeviceWatts, Kind: KindAccel}
		if m.DeviceWatts == 0 {
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
