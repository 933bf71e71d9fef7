package scenarios

import (
	"fmt"
	"math"

	"github.com/capsim/capsim/network"
)

// Ns is a time in a scenario's network tables (L_ns, o_ns, g_ns): a TOML
// integer of ns, or a string with a unit as network.ParseNs reads it
// ("1.5us", "800ns"). The per-byte keys (G_ns_per_byte, O_ns_per_byte)
// are network.PerByte values: a number of ns per byte (6, 0.08) or a
// bandwidth string ("100Gb/s").
type Ns int64

// UnmarshalTOML reads a time from a TOML value (the BurntSushi/toml
// Unmarshaler interface). Negative integers are kept, for the range
// checks to report with their key.
func (n *Ns) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case int64:
		*n = Ns(v)
	case float64:
		if v != math.Trunc(v) || math.Abs(v) > math.MaxInt64/2 {
			return fmt.Errorf("%v is not a whole number of ns", v)
		}
		*n = Ns(v)
	case string:
		x, err := network.ParseNs(v)
		if err != nil {
			return fmt.Errorf("%q is not a time like 1500, \"800ns\" or \"1.5us\": %w", v, err)
		}
		*n = Ns(x)
	default:
		return fmt.Errorf("%v is not a time like 1500, \"800ns\" or \"1.5us\"", v)
	}
	return nil
}

// checkPerByte returns what is wrong with a time per byte read from a
// scenario, or "".
func checkPerByte(x network.PerByte) string {
	switch {
	case x.Femtoseconds() < 0:
		return fmt.Sprintf("must be ≥ 0, got %s", x)
	case x.Femtoseconds() > network.MaxPerByteNs*network.FsPerNs:
		return fmt.Sprintf("%s ns per byte exceeds %d ns per byte", x, int64(network.MaxPerByteNs))
	}
	return ""
}
