// Package simgrid reads SimGrid time-independent (TI) traces, the traces
// that SMPI writes with `smpirun -trace-ti`, into MPI traces (package
// traces/mpi).
//
// A TI trace lists, per rank and in program order, the MPI calls and the
// computations of a run as "actions": one line each, the rank first, then
// the action's name and its arguments, e.g.
//
//	0 init
//	0 compute 1.5e+06
//	0 isend 1 0 96 0
//	0 wait 0 1 0
//	0 allreduce 1 0 0
//	0 finalize
//
// SimGrid stores a trace as an index file that lists one action file per
// rank, one path a line (spaces included; relative paths start from the
// index's folder), or, with
// tracing/smpi/format/ti-one-file, as one action file holding every rank's
// lines. Read accepts the index, a single-file trace, and an index of one
// file. Lines that start with '#' are comments, as in SimGrid's replay.
//
// Sizes in a TI trace are element counts with an optional datatype id
// (SMPI's numbering of the predefined datatypes); Read turns them into bytes.
// The default datatype is MPI_BYTE, or MPI_DOUBLE after an "init" with an
// argument, as in SimGrid's replay. Computations are counted in flops and
// become nanoseconds through a host speed (Options.Speed).
//
// SimGrid's replay runs every action on MPI_COMM_WORLD: TI traces do not
// record communicators (comm_size, comm_split and comm_dup are no-ops), and
// Read maps every collective onto the world communicator too.
package simgrid

import (
	"bytes"
	"fmt"
)

// DefaultSpeed is the host speed, in flop/s, that Read assumes when neither
// Options.Speed nor the trace gives one: SimGrid's default smpi/host-speed,
// the speed with which SMPI converts measured CPU time into the flops it
// records unless told otherwise.
const DefaultSpeed = 20000

// SpeedComment starts the comment line that states the host speed a trace's
// flops assume, e.g. "# smpi/host-speed: 1Gf". It is capsim's convention
// (SimGrid does not write it); the recording script of capsim's own TI
// traces adds it, and Read uses it when Options.Speed is 0.
const SpeedComment = "# smpi/host-speed:"

// Options controls reading.
type Options struct {
	// Speed is the host speed in flop/s that turns "compute" flops (and
	// the reduction flops of collectives) into time. 0 means the speed of
	// the trace's SpeedComment line, or DefaultSpeed without one.
	Speed float64
}

// Error is a malformed TI trace: it names the file, the line and the
// action.
type Error struct {
	File   string
	Line   int    // 1-based; 0 when the error concerns the whole file
	Action string // the action's name, "" when unknown
	Msg    string
}

func (e *Error) Error() string {
	switch {
	case e.Line == 0:
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	case e.Action == "":
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Action, e.Msg)
}

// Sniff reports whether head, the first bytes of a file, looks like a
// SimGrid TI trace: either an action file (its first line that is not
// blank or a comment is a rank number followed by a known action) or an
// index (every complete line is one path, spaces allowed, the first naming
// a .txt file as SimGrid's do, and none an action).
func Sniff(head []byte) bool {
	lines := bytes.Split(head, []byte("\n"))
	if len(lines) > 1 {
		lines = lines[:len(lines)-1] // the last line may be cut short
	}
	index := 0
	for _, l := range lines {
		l = bytes.TrimSpace(l)
		if len(l) == 0 || l[0] == '#' {
			continue
		}
		if index == 0 {
			if actionLine(l) {
				return true
			}
			if !bytes.HasSuffix(l, []byte(".txt")) {
				return false
			}
		}
		if actionLine(l) || !printable(l) {
			return false
		}
		index++
	}
	return index > 0
}

func printable(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}
