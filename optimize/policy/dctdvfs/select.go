package dctdvfs

import "fmt"

// Objective is what frequency selection minimizes (Li, 2011, §3.3).
type Objective int

const (
	// PhaseOnly counts the energy inside the OpenMP phases only, as the
	// thesis' Eqs. 3.8–3.9 do.
	PhaseOnly Objective = iota
	// WholeInterval adds the power drawn while waiting through the slack
	// left unused: Σ E + P_wait·(slack − Σ Δt).
	WholeInterval
)

// String returns "phase-only" or "whole-interval".
func (o Objective) String() string {
	if o == WholeInterval {
		return "whole-interval"
	}
	return "phase-only"
}

// ParseObjective maps "phase-only" or "whole-interval" to an Objective.
func ParseObjective(s string) (Objective, error) {
	switch s {
	case "phase-only", "":
		return PhaseOnly, nil
	case "whole-interval":
		return WholeInterval, nil
	}
	return 0, fmt.Errorf("dctdvfs: unknown objective %q (want phase-only or whole-interval)", s)
}

// Level is one phase at one frequency: its time and the average power
// while it runs. Level 0 of every phase is the fastest (f_max).
type Level struct {
	Seconds, Watts float64
}

// Selection is a frequency choice for the phases of one task and group.
type Selection struct {
	Levels  []int   // per phase, an index into its levels
	PhaseJ  float64 // Σ energy inside the phases
	UsedS   float64 // Σ Δt over f_max
	Rejects bool    // the objective's optimum broke Eq. 3.8 and was replaced
}

// SelectFrequencies picks one level per phase under slack seconds (Li,
// 2011, Eqs. 3.7–3.9) with the knapsack dynamic program, minimizing the
// objective; waitW is the power drawn while waiting (WholeInterval only).
// A choice whose phase energy exceeds the all-f_max energy is rejected
// by the energy constraint Eq. 3.8; the phase-only optimum, which always
// meets it, is used instead.
func SelectFrequencies(phases [][]Level, slack float64, obj Objective, waitW, quantum float64) (Selection, error) {
	items := make([][]Item, len(phases))
	var baseJ float64
	for j, lv := range phases {
		if len(lv) == 0 {
			return Selection{}, fmt.Errorf("dctdvfs: phase %d has no frequency levels", j)
		}
		baseJ += lv[0].Seconds * lv[0].Watts
		items[j] = make([]Item, len(lv))
		for k, l := range lv {
			w := l.Seconds - lv[0].Seconds
			if w < 0 {
				w = 0
			}
			items[j][k] = Item{Weight: w, Energy: l.Seconds * l.Watts}
			if obj == WholeInterval {
				// Σ E + P_wait·(slack − Σ w) = Σ (E − P_wait·w) + P_wait·slack.
				items[j][k].Energy -= waitW * w
			}
		}
	}
	choice, _, ok, err := Knapsack(items, slack, quantum)
	if err != nil {
		return Selection{}, err
	}
	if !ok {
		choice = make([]int, len(phases))
	}
	sel := measure(phases, choice)
	if sel.PhaseJ > baseJ*(1+1e-12) { // Eq. 3.8
		if obj == PhaseOnly {
			sel = measure(phases, make([]int, len(phases)))
		} else {
			po, err := SelectFrequencies(phases, slack, PhaseOnly, 0, quantum)
			if err != nil {
				return Selection{}, err
			}
			sel = po
		}
		sel.Rejects = true
	}
	return sel, nil
}

func measure(phases [][]Level, choice []int) Selection {
	s := Selection{Levels: choice}
	for j, k := range choice {
		l := phases[j][k]
		s.PhaseJ += l.Seconds * l.Watts
		if w := l.Seconds - phases[j][0].Seconds; w > 0 {
			s.UsedS += w
		}
	}
	return s
}
