// Package gpu models a GPU's streaming-multiprocessor (SM) clock: how long
// a kernel takes and how much the board draws at each clock, what it draws
// idle, and the clocks a power limit leaves.
//
// Time. A kernel recorded at clock f_rec for t_rec seconds has a
// memory-bound part t_mem = m·t_rec that does not scale with the SM clock
// and a compute part that does, so at clock f it takes
//
//	t(f) = t_mem + t_comp·f_max/f,  t_comp = (1−m)·t_rec·f_rec/f_max,
//
// that is t(f) = t_rec·(m + (1−m)·f_rec/f): the frequency-insensitive split
// of the CPU DVFS model (compute/dvfs) applied to the SM clock.
//
// Power. Clocks is a table of (clock, board power while a kernel runs):
// P-states, or points of a power–clock curve, interpolated linearly
// between neighbours. The board draws IdleW whenever it runs no kernel.
//
// Limits. A power limit (nvidia-smi -pl) makes the driver lower the SM
// clock until the board's power is within it: Limit returns the table's
// clocks whose power fits, and, where the limit falls between two clocks,
// the clock at which the interpolated curve reaches the limit as the
// fastest.
//
// Units: MHz and watts.
package gpu

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// Clock is one SM clock and the board power while a kernel runs at it.
type Clock struct {
	MHz    float64 `json:"mhz" toml:"mhz"`
	PowerW float64 `json:"power_w" toml:"power_w"`
}

// MaxMHz is the fastest clock a GPU clock in MHz may give: 100 GHz, as
// compute.MaxGHz for a CPU. A clock past it is in other units (Hz or kHz).
const MaxMHz = 100000

// MinMHz is the slowest clock a GPU clock in MHz may give: GPUs idle at
// a few hundred MHz, so a clock below it is in GHz (1.41 for 1410).
const MinMHz = 10

// CheckMHz refuses a clock that is not finite and positive, is below
// MinMHz or is past MaxMHz.
func CheckMHz(mhz float64) error {
	if !(mhz > 0) || math.IsInf(mhz, 0) {
		return fmt.Errorf("%g MHz: want a finite number > 0", mhz)
	}
	if mhz < MinMHz {
		return fmt.Errorf("%g MHz is below %d MHz (gpu.MinMHz): a clock in GHz? (1.41 GHz is 1410)", mhz, MinMHz)
	}
	if mhz > MaxMHz {
		return fmt.Errorf("%g MHz is past %d MHz (gpu.MaxMHz): a clock in Hz or kHz? (1410 MHz is 1410)", mhz, MaxMHz)
	}
	return nil
}

// Model is a GPU: its clocks, idle power and kernels' memory-bound share.
type Model struct {
	// Clocks are the SM clocks, fastest first after Normalize.
	Clocks []Clock
	// IdleW is the board's power while it runs no kernel.
	IdleW float64
	// MemoryBound is the share m of a kernel's recorded time that does
	// not scale with the SM clock, in [0, 1].
	MemoryBound float64
	// RecordedMHz is the clock kernel times were recorded at; 0 means the
	// fastest clock.
	RecordedMHz float64
}

// Normalize sorts the clocks fastest first and checks the model: clocks
// positive and distinct, powers finite and at least the idle power,
// power not falling with the clock, m in [0, 1], the recorded clock
// positive where given.
func (m *Model) Normalize() error {
	if len(m.Clocks) == 0 {
		return errors.New("gpu: no clocks")
	}
	if !(m.IdleW >= 0) || math.IsInf(m.IdleW, 0) {
		return fmt.Errorf("gpu: idle power %g W: want a finite number ≥ 0", m.IdleW)
	}
	if !(m.MemoryBound >= 0 && m.MemoryBound <= 1) {
		return fmt.Errorf("gpu: memory-bound share %g: want a number in [0, 1]", m.MemoryBound)
	}
	if m.RecordedMHz != 0 {
		if err := CheckMHz(m.RecordedMHz); err != nil {
			return fmt.Errorf("gpu: recorded clock %w", err)
		}
	}
	sort.SliceStable(m.Clocks, func(i, j int) bool { return m.Clocks[i].MHz > m.Clocks[j].MHz })
	for i, c := range m.Clocks {
		if err := CheckMHz(c.MHz); err != nil {
			return fmt.Errorf("gpu: clock %w", err)
		}
		if !(c.PowerW >= m.IdleW) || math.IsInf(c.PowerW, 0) {
			return fmt.Errorf("gpu: clock %g MHz: power %g W: want a finite number ≥ the idle power (%g W)", c.MHz, c.PowerW, m.IdleW)
		}
		if i > 0 {
			prev := m.Clocks[i-1]
			if c.MHz == prev.MHz {
				return fmt.Errorf("gpu: clock %g MHz given twice", c.MHz)
			}
			if c.PowerW > prev.PowerW {
				return fmt.Errorf("gpu: clock %g MHz draws %g W, more than the faster %g MHz (%g W)", c.MHz, c.PowerW, prev.MHz, prev.PowerW)
			}
		}
	}
	return nil
}

// Recorded returns the clock kernel times were recorded at.
func (m *Model) Recorded() float64 {
	if m.RecordedMHz > 0 {
		return m.RecordedMHz
	}
	return m.Clocks[0].MHz
}

// Ratio returns a kernel's time at clock mhz over its recorded time:
// m + (1−m)·f_rec/f.
func (m *Model) Ratio(mhz float64) float64 {
	return m.MemoryBound + (1-m.MemoryBound)*m.Recorded()/mhz
}

// Power returns the board power while a kernel runs at clock mhz,
// interpolated linearly between the table's clocks and held at the end
// values outside them.
func (m *Model) Power(mhz float64) float64 {
	cs := m.Clocks
	if mhz >= cs[0].MHz {
		return cs[0].PowerW
	}
	for i := 1; i < len(cs); i++ {
		if mhz >= cs[i].MHz {
			a, b := cs[i], cs[i-1]
			return a.PowerW + (b.PowerW-a.PowerW)*(mhz-a.MHz)/(b.MHz-a.MHz)
		}
	}
	return cs[len(cs)-1].PowerW
}

// Limit returns the clocks a power limit of limitW watts leaves, fastest
// first: the table's clocks whose power is within it and, where the limit
// falls strictly between two clocks' powers, the clock at which the
// interpolated curve draws exactly the limit. limitW 0 means no limit. A
// limit below the slowest clock's power is an error: no clock fits it.
func (m *Model) Limit(limitW float64) ([]Clock, error) {
	if limitW == 0 {
		return append([]Clock(nil), m.Clocks...), nil
	}
	if !(limitW > 0) || math.IsInf(limitW, 0) {
		return nil, fmt.Errorf("gpu: power limit %g W: want a finite number > 0", limitW)
	}
	cs := m.Clocks
	last := cs[len(cs)-1]
	if limitW < last.PowerW {
		return nil, fmt.Errorf("gpu: power limit %g W is below the slowest clock's power (%g W at %g MHz)", limitW, last.PowerW, last.MHz)
	}
	var out []Clock
	for i, c := range cs {
		if c.PowerW <= limitW {
			if i > 0 && cs[i-1].PowerW > limitW && c.PowerW < limitW {
				b := cs[i-1]
				f := c.MHz + (b.MHz-c.MHz)*(limitW-c.PowerW)/(b.PowerW-c.PowerW)
				out = append(out, Clock{MHz: f, PowerW: limitW})
			}
			out = append(out, cs[i:]...)
			break
		}
	}
	return out, nil
}
