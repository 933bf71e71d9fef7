package scenarios

import (
	"fmt"
	"math"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/scenarios/report"
)

// RecordedConfig is the configuration a scenario's compute times are
// taken as measured at: the frequency the DVFS model scales them from to
// each P-state. No shared trace format records the core frequency (DUMPI
// headers name the host and the process count, OTF2 definitions the
// timer, Chakra neither), so it comes from workload.recorded_ghz or the
// model file's recorded section; where neither gives it, the times are
// assumed measured at each machine's fastest P-state, and Assumed says so
// in every output that depends on it.
type RecordedConfig struct {
	GHz     float64 `json:"ghz"`     // 0: each machine's fastest P-state (assumed, or a generator's definition)
	Threads int     `json:"threads"` // threads per rank; 0 when not given
	Assumed bool    `json:"assumed"`
	Source  string  `json:"source"` // where GHz comes from
}

// RecordedConfig returns the scenario's recording configuration.
func (s *Scenario) RecordedConfig() RecordedConfig {
	if s.savedConfig != nil {
		return *s.savedConfig
	}
	return s.recordedConfig(s.Workload.Generator != "")
}

// recordedConfig is RecordedConfig for a generated workload (generated)
// or a trace: a trace given on the command line replaces the scenario's
// generator, and its times are not a generator's.
func (s *Scenario) recordedConfig(generated bool) RecordedConfig {
	switch {
	case s.set != nil && s.set.Recorded.CPUFreqGHz > 0:
		return RecordedConfig{GHz: s.set.Recorded.CPUFreqGHz, Threads: s.set.Recorded.Threads, Source: "models.file recorded section"}
	case s.Workload.RecordedGHz > 0:
		return RecordedConfig{GHz: s.Workload.RecordedGHz, Source: "workload.recorded_ghz"}
	case generated:
		return RecordedConfig{Source: "generator: its times are at each machine's fastest P-state"}
	}
	return RecordedConfig{Assumed: true, Source: "assumed: each machine's fastest P-state (set workload.recorded_ghz)"}
}

// String describes c in one line, for text outputs.
func (c RecordedConfig) String() string {
	if c.GHz == 0 && !c.Assumed {
		return "compute times at each machine's fastest P-state (" + c.Source + ")"
	}
	if c.Assumed {
		return "recording frequency unknown; " + c.Source
	}
	s := fmt.Sprintf("compute times measured at %s GHz", report.FormatNumber(c.GHz, 4))
	if c.Threads > 0 {
		s += fmt.Sprintf(", %d threads per rank", c.Threads)
	}
	return s + " (" + c.Source + ")"
}

// recordedRef is the frequency the DVFS model of machine m scales
// recorded times from.
func (s *Scenario) recordedRef(m *Machine) float64 {
	if s.Workload.RecordedGHz > 0 {
		return s.Workload.RecordedGHz
	}
	return m.PStates[0].FreqGHz
}

// SetRecordedGHz sets workload.recorded_ghz, as a command-line flag does:
// ghz must be a finite frequency > 0, and the scenario must have no model
// file (whose recorded section gives it).
func (s *Scenario) SetRecordedGHz(ghz float64) error {
	if !(ghz > 0) || math.IsInf(ghz, 0) {
		return fmt.Errorf("recorded frequency %g GHz: want a finite frequency > 0", ghz)
	}
	if err := compute.CheckGHz(ghz); err != nil {
		return fmt.Errorf("recorded frequency: %w", err)
	}
	if s.Models.File != "" {
		return fmt.Errorf("recorded frequency: scenario %s has a model file (%s) whose recorded section gives it", s.File, s.Models.File)
	}
	s.Workload.RecordedGHz = ghz
	return nil
}
