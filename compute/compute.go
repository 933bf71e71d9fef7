// Package compute defines how capsim prices a compute region: a Model
// answers "how long, and at what power, would this work take under that
// configuration?", and a Pricer applies models to the calc operations of an
// execution graph.
//
// Models live in sub-packages (compute/cos, compute/dvfs, compute/table,
// ...); compute/modelfile maps region-name patterns to models in a
// versioned JSON file.
//
// Models are homogeneous in the recorded duration (the ratio method of
// docs/design/models.md): doubling the recorded work doubles the predicted time.
// A Pricer relies on that to resolve each region once per configuration.
package compute

import (
	"fmt"
	"math"
	"strings"
)

// DeviceCPU is the name of the host CPU device. The empty Device also means
// the CPU.
const DeviceCPU = "cpu"

// Config is an operating configuration for a region: CPU frequency,
// thread count, memory frequency or bandwidth throttle, and device.
// A zero field means "not set / not applicable"; models that need a field
// report an error when it is missing.
type Config struct {
	CPUFreqGHz  float64 `json:"cpu_ghz,omitempty"`      // core clock (DVFS P-state)
	Threads     int     `json:"threads,omitempty"`      // thread count (DCT)
	MemFreqGHz  float64 `json:"mem_ghz,omitempty"`      // memory frequency (Intel DMT)
	MemThrottle float64 `json:"mem_throttle,omitempty"` // memory idle cycles between requests (BG/Q DBT); larger = slower
	Device      string  `json:"device,omitempty"`       // "" or "cpu" for the host CPU, else an accelerator name
}

// Validate reports a frequency, memory throttle or thread count that is
// negative or not finite (0 means "not given" for every field).
func (c Config) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"cpu_ghz", c.CPUFreqGHz}, {"mem_ghz", c.MemFreqGHz}, {"mem_throttle", c.MemThrottle}} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("configuration %s = %g: want a finite number ≥ 0", f.name, f.v)
		}
	}
	if err := c.CheckClocks(); err != nil {
		return fmt.Errorf("configuration %w", err)
	}
	if c.Threads < 0 {
		return fmt.Errorf("configuration threads = %d: want ≥ 0", c.Threads)
	}
	return nil
}

// MaxGHz is the fastest clock a frequency in GHz may give. It is some
// fifteen times the fastest CPU clocks; a larger value is a clock in MHz
// written where GHz are read (2600 for 2.6), which would scale every
// computation by a thousand without a word.
const MaxGHz = 100

// MaxSeconds is the longest time a measured sample may give: graph.MaxTimeNs
// (10^18 ns, about 31.7 years) in seconds, the longest time a replay
// represents.
const MaxSeconds = 1e9

// CheckClocks refuses a core or memory clock past MaxGHz (CheckGHz),
// naming its field as measurement files name their column: "cpu_ghz: …".
func (c Config) CheckClocks() error {
	if err := CheckGHz(c.CPUFreqGHz); err != nil {
		return fmt.Errorf("cpu_ghz: %w", err)
	}
	if err := CheckGHz(c.MemFreqGHz); err != nil {
		return fmt.Errorf("mem_ghz: %w", err)
	}
	return nil
}

// CheckGHz refuses a frequency in GHz above MaxGHz, naming the unit it
// was likely given in: MHz (2600 for 2.6), or kHz or Hz from 10^5 GHz
// on (2.6e6, 2.6e9), as gpu.CheckMHz names Hz or kHz past its range.
func CheckGHz(ghz float64) error {
	switch {
	case ghz >= 1e5:
		return fmt.Errorf("%g GHz is past %d GHz (compute.MaxGHz): a clock in kHz or Hz? (2.6 GHz is 2.6, not 2600000 or 2.6e9)", ghz, MaxGHz)
	case ghz > MaxGHz:
		return fmt.Errorf("%g GHz is past %d GHz (compute.MaxGHz): a clock in MHz? (2.6 GHz is 2.6, not 2600)", ghz, MaxGHz)
	}
	return nil
}

// CheckFinite returns an error naming name when v is NaN or infinite, or
// below lo (at or below lo when strict): the one range check the model
// decoders share.
func CheckFinite(name string, v, lo float64, strict bool) error {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return fmt.Errorf("%s = %g: want a finite number", name, v)
	case strict && !(v > lo):
		return fmt.Errorf("%s = %g: want a number > %g", name, v, lo)
	case v < lo:
		return fmt.Errorf("%s = %g: want a number ≥ %g", name, v, lo)
	}
	return nil
}

// IsCPU reports whether c runs on the host CPU.
func (c Config) IsCPU() bool { return c.Device == "" || c.Device == DeviceCPU }

// String formats c compactly, e.g. "cpu 2.4GHz x8 mem 1.6GHz".
func (c Config) String() string {
	var b strings.Builder
	if c.IsCPU() {
		b.WriteString(DeviceCPU)
	} else {
		b.WriteString(c.Device)
	}
	if c.CPUFreqGHz != 0 {
		fmt.Fprintf(&b, " %gGHz", c.CPUFreqGHz)
	}
	if c.Threads != 0 {
		fmt.Fprintf(&b, " x%d", c.Threads)
	}
	if c.MemFreqGHz != 0 {
		fmt.Fprintf(&b, " mem %gGHz", c.MemFreqGHz)
	}
	if c.MemThrottle != 0 {
		fmt.Fprintf(&b, " throttle %g", c.MemThrottle)
	}
	return b.String()
}

// Merge returns c with every zero field replaced by the field of def.
func (c Config) Merge(def Config) Config {
	if c.CPUFreqGHz == 0 {
		c.CPUFreqGHz = def.CPUFreqGHz
	}
	if c.Threads == 0 {
		c.Threads = def.Threads
	}
	if c.MemFreqGHz == 0 {
		c.MemFreqGHz = def.MemFreqGHz
	}
	if c.MemThrottle == 0 {
		c.MemThrottle = def.MemThrottle
	}
	if c.Device == "" {
		c.Device = def.Device
	}
	return c
}

// Kind names which kind of prediction a model made.
type Kind string

// Prediction kinds of the models in this module. Other packages may define
// more (e.g. "eiger", "accel").
const (
	KindMeasured Kind = "measured" // recorded duration, optionally scaled
	KindTable    Kind = "table"    // looked up in a measured configuration table
	KindDVFS     Kind = "dvfs"     // frequency-sensitive / insensitive split
	KindCOSIntel Kind = "cos"      // COS Eq. 9 (Intel: DVFS + DMT)
	KindCOSBGQ   Kind = "cos-bgq"  // COS Eq. 10–11 (BG/Q bandwidth throttling)
)

// Flags qualify a prediction.
type Flags uint8

// Prediction flags.
const (
	// Extrapolated: the target lies outside the model's training domain
	// (frequency, memory or thread hull, or a different device/regime).
	Extrapolated Flags = 1 << iota
	// Clamped: the raw prediction was non-positive and was floored.
	Clamped
	// Anchored: the target equals a measured configuration and the
	// measured value was returned instead of the model's.
	Anchored
	// NoPower: the model has no power information; Power is 0.
	NoPower
)

// String lists the set flags, e.g. "extrapolated|clamped".
func (f Flags) String() string {
	names := []string{"extrapolated", "clamped", "anchored", "no-power"}
	var parts []string
	for i, n := range names {
		if f&(1<<i) != 0 {
			parts = append(parts, n)
		}
	}
	return strings.Join(parts, "|")
}

// Work is the recorded computation to be priced: its duration in seconds
// and the configuration it was recorded at.
type Work struct {
	Seconds float64
	At      Config
}

// Prediction is a model's answer for some Work under a target Config.
type Prediction struct {
	Seconds float64 // predicted duration
	Watts   float64 // predicted average power while running (0 with NoPower)
	Kind    Kind    // which model made the prediction
	Flags   Flags

	// Scaled and Correction split Seconds for additive models such as
	// COS Eq. 9 (Scaled = (T−Ts)·fc/f'c, Correction = regression term),
	// before any clamping. They are zero for other models.
	Scaled, Correction float64
}

// Energy returns Seconds·Watts in joules.
func (p Prediction) Energy() float64 { return p.Seconds * p.Watts }

// Model predicts the duration and power of recorded work under a target
// configuration. Predict must be homogeneous of degree one in w.Seconds
// (the ratio method), must not keep state between calls, and must be safe
// for concurrent use.
type Model interface {
	Kind() Kind
	Predict(w Work, target Config) (Prediction, error)
}
