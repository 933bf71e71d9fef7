package cos

import (
	"encoding/json"
	"fmt"
	"math"
)

// MarshalJSON writes s with an infinite condition number (a rank-deficient
// design) as the string "inf", which JSON numbers cannot hold.
func (s FitStats) MarshalJSON() ([]byte, error) {
	type plain FitStats
	if !math.IsInf(s.Cond, 1) {
		return json.Marshal(plain(s))
	}
	return json.Marshal(struct {
		plain
		Cond string `json:"cond"`
	}{plain(s), "inf"})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (s *FitStats) UnmarshalJSON(b []byte) error {
	type plain FitStats
	aux := struct {
		*plain
		Cond json.RawMessage `json:"cond"`
	}{plain: (*plain)(s)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	switch string(aux.Cond) {
	case "":
		return nil
	case `"inf"`:
		s.Cond = math.Inf(1)
		return nil
	}
	if err := json.Unmarshal(aux.Cond, &s.Cond); err != nil {
		return fmt.Errorf("cond: %w", err)
	}
	return nil
}
