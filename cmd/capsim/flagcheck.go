package main

import (
	"math"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/capsim/capsim/compute/power"
)

// flagRange is the range of a numeric flag: [lo, hi], above lo when
// strict.
type flagRange struct {
	lo, hi float64
	strict bool
	msg    string // what the message says of a value out of range
}

var (
	nonNegative = flagRange{0, math.MaxFloat64, false, "must be a finite number ≥ 0"}
	share       = flagRange{0, 1, false, "outside [0, 1]"}
	workerCount = flagRange{0, 1 << 16, false, "must be a count in 0..65536 (0: the default)"}
)

// flagRanges gives the numeric flags whose range is not nonNegative, by
// name (the same name means the same quantity in every command).
var flagRanges = map[string]flagRange{
	"beta":               share,
	"serial":             share,
	"balance":            share,
	"intensity":          share,
	"conductor-margin":   share,
	"conductor-critical": share,
	"cap":                {0, power.MaxWatts, true, "must be a positive power of at most 1e+09 W (power.MaxWatts)"},
	"workers":            workerCount,
	"speed":              {0, math.MaxFloat64, true, "the host speed must be a finite positive number of flop/s"},
}

// checkNumberFlags is every command's first check: each numeric flag given
// on the command line (int, uint or float kinds) must be finite and in its
// range (nonNegative unless flagRanges says otherwise). pflag accepts
// "NaN" and "Inf" for a float, which then flowed into models and the LP.
func checkNumberFlags(cmd *cobra.Command) error {
	var err error
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if err != nil {
			return
		}
		switch f.Value.Type() {
		case "float64", "float32", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		default:
			return
		}
		v, perr := strconv.ParseFloat(f.Value.String(), 64)
		if perr != nil {
			return // the flag's own parser accepted it: leave it to the command
		}
		r, ok := flagRanges[f.Name]
		if !ok {
			r = nonNegative
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || v < r.lo || v > r.hi || r.strict && v == r.lo {
			err = usagef("--%s %s: %s", f.Name, f.Value.String(), r.msg)
		}
	})
	return err
}
