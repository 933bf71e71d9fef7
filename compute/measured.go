package compute

import "fmt"

// Measured keeps the recorded duration, multiplied by Scale (1 when
// Scale is 0), at a constant power Watts (0 = unknown).
type Measured struct {
	Scale float64 `json:"scale,omitempty"`
	Watts float64 `json:"watts,omitempty"`
}

// Kind returns KindMeasured.
func (m Measured) Kind() Kind { return KindMeasured }

// Predict returns w.Seconds·Scale, ignoring target.
func (m Measured) Predict(w Work, target Config) (Prediction, error) {
	s := m.Scale
	if s == 0 {
		s = 1
	}
	if s < 0 {
		return Prediction{}, fmt.Errorf("measured model: negative scale %g", s)
	}
	p := Prediction{Seconds: w.Seconds * s, Watts: m.Watts, Kind: KindMeasured}
	if m.Watts == 0 {
		p.Flags |= NoPower
	}
	return p, nil
}
