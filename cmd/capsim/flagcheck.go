package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/power"
	"github.com/capsim/capsim/optimize/aggregate"
	"github.com/capsim/capsim/traces/graph"
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
	// positive, frequency and threadCount are counts and sizes whose 0
	// would silently mean their default.
	positive    = flagRange{0, math.MaxFloat64, true, "must be a finite number > 0 (leave the flag out for its default)"}
	frequency   = flagRange{0, compute.MaxGHz, true, "must be a finite frequency > 0 GHz and at most 100 GHz (compute.MaxGHz; a clock in MHz?), or left out for the recorded one"}
	threadCount = flagRange{0, math.MaxFloat64, true, "must be a thread count > 0 (leave the flag out for the default)"}
	// fraction is a fraction (0.05 is 5 %), not a percentage.
	fraction = flagRange{0, 1, false, "outside [0, 1]: a fraction (0.05 is 5 %)"}
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
	"thread-overhead":    share,
	"cap":                {0, power.MaxWatts, true, "must be a positive power of at most 1e+09 W (power.MaxWatts)"},
	"workers":            workerCount,
	"speed":              {0, math.MaxFloat64, true, "the host speed must be a finite positive number of flop/s"},
	// Counts and sizes whose 0 would silently mean their default.
	"order-free-nodes": positive,
	"clusters":         positive,
	"iterations":       positive,
	"octants":          positive,
	"segments":         positive,
	"rounds":           positive,
	"sigma":            positive,
	"freq":             frequency,
	"mem":              frequency,
	"threads":          threadCount,
	"cores":            threadCount,
	"static-cores":     threadCount,
	"threshold":        fraction,
	"min-gain":         fraction,
	"points":           {2, 10000, false, "want 2 to 10000"},
	// Memory in GiB, whose bytes stay in int64.
	"node-mem-gb": {0, aggregate.MaxMemoryBytes >> 30, false, "must be GiB in [0, 1073741824] (aggregate.MaxMemoryBytes, 2^60 bytes)"},
	"task-mem-gb": {0, aggregate.MaxMemoryBytes >> 30, false, "must be GiB in [0, 1073741824] (aggregate.MaxMemoryBytes, 2^60 bytes)"},
	// Seconds of recorded work, at most graph.MaxTimeNs.
	"work": {0, float64(graph.MaxTimeNs) / 1e9, false, "must be seconds in [0, 1e9] (graph.MaxTimeNs, about 31.7 years)"},
}

// timeRange is the range of a flag named for its time unit (--gap-ns,
// --switch-us, --min-task-ms): at most graph.MaxTimeNs, the longest time a
// replay represents, so that sums of such times stay in int64. Other
// flags are nonNegative.
func timeRange(name string) flagRange {
	for _, u := range []struct {
		suffix string
		ns     float64
	}{{"-ns", 1}, {"-us", 1e3}, {"-ms", 1e6}} {
		if strings.HasSuffix(name, u.suffix) {
			hi := float64(graph.MaxTimeNs) / u.ns
			return flagRange{0, hi, false, fmt.Sprintf("must be a time in [0, %g] %s (graph.MaxTimeNs, about 31.7 years)", hi, u.suffix[1:])}
		}
	}
	return nonNegative
}

// flagNeed names the flag that gives another flag its meaning: on must be
// given (with a value other than false), or, with vals, have one of vals
// (its default counts).
type flagNeed struct {
	on   string
	vals []string
	list bool // on's value is a comma-separated list, "all" its every value: one of vals must be in it
}

// flagNeeds gives the flags that mean nothing without another, by name,
// or by "COMMAND FLAG" where the name means something else elsewhere. A
// flag given without what it needs would be silently ignored.
var flagNeeds = map[string]flagNeed{
	"order-free-nodes": {on: "order-free"},
	"switch-us":        {on: "rounding", vals: []string{"split", "staggered"}},
	"min-task-ms":      {on: "rounding", vals: []string{"split", "staggered"}},
	"mapping":          {on: "topology"},
	"flow-neighbours":  {on: "topology"},
	"flow-cm02":        {on: "topology"},
	"flow-bytes-first": {on: "topology"},
	"tp":               {on: "replicate"},
	"ipc-samples":      {on: "ipc-model"},
	"timeline-ranks":   {on: "timeline"},
	"timeline-window":  {on: "timeline"},
	"ccs-frontier":     {on: "policy", vals: []string{"ccs", "all"}, list: true},
	"ccs-largest":      {on: "policy", vals: []string{"ccs", "all"}, list: true},
	"defer-last":       {on: "policy", vals: []string{"pas", "sas", "all"}, list: true},
	"fit region":       {on: "kind", vals: []string{"eiger"}},
	"fit time-column":  {on: "kind", vals: []string{"eiger"}},
	"fit power-column": {on: "kind", vals: []string{"eiger"}},
	"fit inputs":       {on: "kind", vals: []string{"eiger"}},
	"fit fixed":        {on: "kind", vals: []string{"eiger"}},
	"fit clusters":     {on: "kind", vals: []string{"eiger"}},
	"fit max-terms":    {on: "kind", vals: []string{"eiger"}},
	"fit min-gain":     {on: "kind", vals: []string{"eiger"}},
	"fit intercept":    {on: "kind", vals: []string{"cos"}},
	"fit sample":       {on: "kind", vals: []string{"phase-mlr", "ipc-mlr"}},
	"fit ipc-bins":     {on: "kind", vals: []string{"ipc-mlr"}},
	"fit sockets":      {on: "kind", vals: []string{"ipc-mlr"}},
}

// checkFlagNeeds refuses a flag given without the flag that gives it a
// meaning (flagNeeds).
func checkFlagNeeds(cmd *cobra.Command) error {
	var err error
	flags := cmd.Flags()
	flags.Visit(func(f *pflag.Flag) {
		need, ok := flagNeeds[cmd.Name()+" "+f.Name]
		if !ok {
			need, ok = flagNeeds[f.Name]
		}
		if err != nil || !ok || f.Value.Type() == "bool" && f.Value.String() == "false" {
			return
		}
		on := flags.Lookup(need.on)
		if on == nil {
			return
		}
		v := on.Value.String()
		if need.vals == nil {
			if !on.Changed || v == "false" || v == "" {
				err = usagef("--%s needs --%s (without it --%s has no effect)", f.Name, need.on, f.Name)
			}
			return
		}
		given := []string{v}
		if need.list {
			given = strings.Split(strings.ToLower(v), ",")
		}
		for _, g := range given {
			if slices.Contains(need.vals, strings.TrimSpace(g)) {
				return
			}
		}
		err = usagef("--%s applies with --%s %s, not --%s %s (it would have no effect)", f.Name, need.on, strings.Join(need.vals, " or "), need.on, v)
	})
	return err
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
			r = timeRange(f.Name)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) || v < r.lo || v > r.hi || r.strict && v == r.lo {
			err = usagef("--%s %s: %s", f.Name, f.Value.String(), r.msg)
		}
	})
	return err
}
