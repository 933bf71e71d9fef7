package scenarios

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/capsim/capsim/compute/power"
)

// LoadOrDefault loads the scenario file at path, or the embedded default
// scenario (Default) when path is empty: every command that reads a
// machine or a network from a scenario takes its file as optional.
func LoadOrDefault(path string) (*Scenario, error) {
	if path == "" {
		return LoadDefault()
	}
	return Load(path)
}

// ErrNoMachine is the error MachineByName wraps when the scenario has no
// machine of the name asked for.
var ErrNoMachine = errors.New("scenario has no such machine")

// MachineByName returns the scenario's machine called name and its index
// in Machines; an empty name selects the first machine. The error wraps
// ErrNoMachine when there is no machine of that name.
func (s *Scenario) MachineByName(name string) (*Machine, int, error) {
	if len(s.Machines) == 0 {
		return nil, 0, fmt.Errorf("scenario %q has no machines: %w", s.Name, ErrNoMachine)
	}
	if name == "" {
		return &s.Machines[0], 0, nil
	}
	for i := range s.Machines {
		if s.Machines[i].Name == name {
			return &s.Machines[i], i, nil
		}
	}
	names := make([]string, len(s.Machines))
	for i := range s.Machines {
		names[i] = strconv.Quote(s.Machines[i].Name)
	}
	return nil, 0, noMachineError{fmt.Sprintf("scenario %q has no machine %q; its machines are %s", s.Name, name, strings.Join(names, ", "))}
}

// noMachineError is MachineByName's error for a name it lacks: it names
// the machines there are, and is ErrNoMachine.
type noMachineError struct{ msg string }

func (e noMachineError) Error() string        { return e.msg }
func (e noMachineError) Is(target error) bool { return target == ErrNoMachine }

// ParseCaps reads a list of power caps in watts: one value ("60"), a
// comma-separated list ("35,60,90") or a range FROM:TO:STEP
// (ParseCapRange). Every cap is a power in (0, power.MaxWatts], listed
// once.
func ParseCaps(s string) ([]float64, error) {
	if strings.Contains(s, ":") {
		return ParseCapRange(s)
	}
	var out []float64
	for _, p := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || !(v > 0) || v > power.MaxWatts {
			return nil, fmt.Errorf("caps %q: %q is not a positive number of watts up to %g (power.MaxWatts)", s, p, power.MaxWatts)
		}
		if slices.Contains(out, v) {
			return nil, fmt.Errorf("caps %q: %g W listed twice", s, v)
		}
		out = append(out, v)
	}
	return out, nil
}
