package calibrate_test

import (
	"fmt"

	"github.com/capsim/capsim/network/calibrate"
	"github.com/capsim/capsim/traces/mpi"
)

// A ping-pong recorded on a network with L = 2 µs, o = 0.5 µs and
// G = 0.1 ns per byte: each message of s bytes arrives 2o + L + (s−1)·G
// after its send started, and rank 1 answers 1 µs after receiving.
func ExampleCalibrate() {
	const L, o, turn = 2000, 500, 1000
	tr := mpi.NewTrace(2)
	t := int64(0)
	for _, s := range []int64{1, 10001} {
		oneWay := 2*o + L + (s-1)/10
		tr.AppendStamped(0, mpi.Event{Kind: mpi.Send, Peer: 1, Bytes: s}, mpi.Stamp{Start: t, End: t + o})
		tr.AppendStamped(0, mpi.Event{Kind: mpi.Recv, Peer: 1, Bytes: s}, mpi.Stamp{Start: t + o, End: t + 2*oneWay + turn})
		tr.AppendStamped(1, mpi.Event{Kind: mpi.Recv, Peer: 0, Bytes: s}, mpi.Stamp{Start: t, End: t + oneWay})
		tr.AppendStamped(1, mpi.Event{Kind: mpi.Compute, Duration: turn}, mpi.Stamp{Start: t + oneWay, End: t + oneWay + turn})
		tr.AppendStamped(1, mpi.Event{Kind: mpi.Send, Peer: 0, Bytes: s}, mpi.Stamp{Start: t + oneWay + turn, End: t + oneWay + turn + o})
		t += 2*oneWay + turn
	}
	res, err := calibrate.Calibrate([]*mpi.Trace{tr}, calibrate.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Net)
	fmt.Println(res.Fit.Source, res.Fit.PingPongs)
	for _, u := range res.Unidentified {
		fmt.Println("unidentified:", u.Param, "=", u.Value)
	}
	// Output:
	// loggops:L=2000,o=500,g=500,G=0.1,O=0,S=65535
	// ping-pong 2
	// unidentified: O = 0
	// unidentified: g = 500
	// unidentified: S = 65535
}
