package sim

import (
	"fmt"

	"github.com/capsim/capsim/traces/graph"
)

// TruncationError reports a receive that matched a message larger than
// the receive: MPI_ERR_TRUNCATE in an MPI run, so the trace is broken or
// was misread, and replaying it would price bytes the program never
// moved. Only receives that name their source and tag are checked (see
// checksSize); a receive larger than its message is legal MPI (its size
// is an upper bound) and is replayed with the message's size.
type TruncationError struct {
	// Send and Recv are the graph operations of the message and of the
	// receive it matched; SendBytes and RecvBytes their sizes.
	Send, Recv           int32
	SendBytes, RecvBytes int64
	// SendCall and RecvCall describe the two operations, as
	// graph.Graph.Describe does or, after Rewrite, in the terms of the
	// trace the graph was lowered from.
	SendCall, RecvCall string
}

// Rewrite describes the two operations again with describe (for instance
// in the MPI terms of the trace the graph was lowered from:
// lower.EventMap.Describer).
func (e *TruncationError) Rewrite(describe func(op int32) string) {
	e.SendCall, e.RecvCall = describe(e.Send), describe(e.Recv)
}

func (e *TruncationError) Error() string {
	return fmt.Sprintf("replay cannot go on: a receive of %d bytes matched a message of %d bytes (MPI_ERR_TRUNCATE in an MPI run: the trace is broken or was misread)\n  receive: %s\n  message: %s",
		e.RecvBytes, e.SendBytes, e.RecvCall, e.SendCall)
}

// OpError is a replay error that names graph operations (*DeadlockError,
// *TruncationError, *TimeLimitError): a caller that lowered the graph from a trace names
// them again in the trace's terms with Rewrite.
type OpError interface {
	error
	Rewrite(describe func(op int32) string)
}

// checksSize reports whether a receive posted for (src, tag) must be at
// least as large as the message it matches. A receive with a wildcard
// source or tag is not checked: the replay's match need not be the run's
// (formats such as OTF2 record the size a wildcard receive got, which a
// message of another sender may exceed), so a size mismatch there proves
// no fault in the trace. Neither is a receive under
// Options.LibstdcxxOrder, which posts receives out of program order, nor
// under Options.LogGOPSimSizes.
func (e *engine) checksSize(src, tag int32) bool {
	return src != graph.AnySource && tag != graph.AnyTag && !e.opt.LibstdcxxOrder && !e.opt.LogGOPSimSizes
}

// truncated returns the error for receive recv matching the larger
// message of send.
func (e *engine) truncated(send, recv int32) error {
	if e.g == nil {
		return &WholeGraphError{Feature: "naming a receive smaller than its message"}
	}
	return &TruncationError{Send: send, Recv: recv, SendBytes: e.g.Size[send], RecvBytes: e.g.Size[recv],
		SendCall: e.g.Describe(send), RecvCall: e.g.Describe(recv)}
}
