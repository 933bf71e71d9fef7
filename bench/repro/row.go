package main

import (
	"fmt"
	"math"
)

// Kind says how a row is judged.
type Kind int

const (
	// Match rows have inputs the paper (or the note's worked example)
	// publishes: capsim's value must equal the paper's within Tol.
	Match Kind = iota
	// Qualitative rows run a stand-in workload: the paper's inputs are not
	// published, so the row checks the relation the paper claims (Holds),
	// and the numbers are shown for reference only.
	Qualitative
)

// Row is one line of the reproduction page.
type Row struct {
	Note    string  // the note, e.g. "000_cos"
	Section string  // the note's section and item, e.g. "§7.9 T1"
	What    string  // the quantity
	Paper   float64 // the paper's value (Match rows)
	Capsim  float64 // capsim's value (Match rows)
	Unit    string  // unit of Paper and Capsim, "" when none
	Tol     float64 // largest |Capsim − Paper| accepted (Match rows)
	Kind    Kind
	// StandIn marks a row computed on a stand-in workload (the paper's own
	// data is not published): invented per-block data whose sums are the
	// paper's tables, a synthetic trace mimicking a benchmark.
	StandIn bool
	// Claim is the paper's qualitative statement and Measured what capsim
	// gives (Qualitative rows); Holds says whether the claim holds.
	Claim, Measured string
	Holds           bool
	// Command is what a reader runs to see the number.
	Command string
}

// OK reports whether the row passes: a Match row within its tolerance, a
// Qualitative row whose relation holds.
func (r Row) OK() bool {
	if r.Kind == Qualitative {
		return r.Holds
	}
	return !math.IsNaN(r.Capsim) && math.Abs(r.Capsim-r.Paper) <= r.Tol
}

// RelErr is |capsim − paper| / |paper| (the absolute error when the paper's
// value is 0).
func (r Row) RelErr() float64 {
	d := math.Abs(r.Capsim - r.Paper)
	if r.Paper == 0 {
		return d
	}
	return d / math.Abs(r.Paper)
}

// match builds a Match row.
func match(note, sec, what string, paper, capsim, tol float64, unit, cmd string) Row {
	return Row{Note: note, Section: sec, What: what, Paper: paper, Capsim: capsim, Tol: tol, Unit: unit, Kind: Match, Command: cmd}
}

// qual builds a Qualitative row on a stand-in workload.
func qual(note, sec, what, claim string, holds bool, cmd, format string, args ...any) Row {
	return Row{Note: note, Section: sec, What: what, Kind: Qualitative, StandIn: true, Claim: claim, Holds: holds,
		Measured: fmt.Sprintf(format, args...), Command: cmd}
}

// goTest is the command that runs the named test of a package.
func goTest(pkg, test string) string { return "go test -run '^" + test + "$' ./" + pkg }
