package power

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// WaitMode says what a rank draws between two of its tasks.
type WaitMode uint8

// Wait modes.
const (
	// WaitTask: the power of the rank's most recent task, as the LP of
	// Bailey et al. (SC'15, §3.3) charges slack: the core stays in the configuration
	// its last task ran in while it calls MPI and waits. The default.
	WaitTask WaitMode = iota
	// WaitIdle: the core's idle power (it sleeps while it waits).
	WaitIdle
	// WaitFixed: a fixed polling power (WaitPower.Watts).
	WaitFixed
)

// WaitPower is the wait-power model shared by every replay's power
// accounting and the LP bound. A rank's power at every instant is:
//
//   - while one of its tasks (compute operations) runs, that task's
//     configuration power (the power of the task's current phase, for a
//     task that switches configuration);
//   - before its first task, the core's idle power;
//   - from the end of a task to the start of its next task (its MPI calls,
//     their CPU overheads and its waits), and after its last task until
//     the job ends, the wait power: Power(task, idle), where task is the
//     power of the core in the task's configuration for a task offloaded
//     to a device (its device idles while the rank waits;
//     JobModel.OpWaitW).
//
// The zero value is WaitTask, the paper's model.
type WaitPower struct {
	Mode  WaitMode
	Watts float64 // WaitFixed only
}

// ParseWaitPower reads a wait-power setting: "task", "idle", or a
// non-negative number of watts (a fixed polling power).
func ParseWaitPower(s string) (WaitPower, error) {
	switch strings.TrimSpace(s) {
	case "", "task":
		return WaitPower{}, nil
	case "idle":
		return WaitPower{Mode: WaitIdle}, nil
	}
	w, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return WaitPower{}, fmt.Errorf("power: wait power %q: want task, idle or a number of watts", s)
	}
	p := WaitPower{Mode: WaitFixed, Watts: w}
	return p, p.Validate()
}

// Validate reports an unknown mode or a fixed power that is negative or
// not finite.
func (w WaitPower) Validate() error {
	switch w.Mode {
	case WaitTask, WaitIdle:
		return nil
	case WaitFixed:
		if !(w.Watts >= 0) || math.IsInf(w.Watts, 0) {
			return fmt.Errorf("power: wait power %g W: want a finite number ≥ 0", w.Watts)
		}
		if w.Watts > MaxWatts {
			return fmt.Errorf("power: wait power %g W: above %g W (power.MaxWatts)", w.Watts, MaxWatts)
		}
		return nil
	}
	return fmt.Errorf("power: unknown wait mode %d", w.Mode)
}

// String returns the form ParseWaitPower reads.
func (w WaitPower) String() string {
	switch w.Mode {
	case WaitTask:
		return "task"
	case WaitIdle:
		return "idle"
	}
	return strconv.FormatFloat(w.Watts, 'g', -1, 64)
}

// Power returns what a waiting rank draws after a task that drew taskW
// (for a task that switched configuration, the power of its last phase),
// on a core whose idle power is idleW.
func (w WaitPower) Power(taskW, idleW float64) float64 {
	switch w.Mode {
	case WaitIdle:
		return idleW
	case WaitFixed:
		return w.Watts
	}
	return taskW
}

// MarshalText implements encoding.TextMarshaler (the String form).
func (w WaitPower) MarshalText() ([]byte, error) { return []byte(w.String()), nil }

// Phase is a stretch of a task at one configuration: Ns nanoseconds at
// Watts. A task's phases run in order from its start; the last lasts until
// the task ends.
type Phase struct {
	Ns    int64
	Watts float64
}

// UnmarshalTOML reads a wait-power setting from a TOML value: the string
// "task" or "idle", or a number of watts (the toml.Unmarshaler interface
// of github.com/BurntSushi/toml).
func (w *WaitPower) UnmarshalTOML(v any) error {
	var err error
	switch x := v.(type) {
	case string:
		if x == "" {
			return fmt.Errorf("power: empty wait power (want task, idle or a number of watts)")
		}
		*w, err = ParseWaitPower(x)
	case int64:
		*w = WaitPower{Mode: WaitFixed, Watts: float64(x)}
		err = w.Validate()
	case float64:
		*w = WaitPower{Mode: WaitFixed, Watts: x}
		err = w.Validate()
	default:
		err = fmt.Errorf("power: wait power %v: want \"task\", \"idle\" or a number of watts", v)
	}
	return err
}

// UnmarshalJSON reads a wait-power setting from JSON: "task", "idle", or a
// number of watts (also accepted as a string).
func (w *WaitPower) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("power: wait power %s: %w", b, err)
	}
	if f, ok := v.(float64); ok {
		*w = WaitPower{Mode: WaitFixed, Watts: f}
		return w.Validate()
	}
	return w.UnmarshalTOML(v)
}
