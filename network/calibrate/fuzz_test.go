package calibrate_test

import (
	"encoding/binary"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/network/calibrate"
	"github.com/capsim/capsim/traces/mpi"
)

// fuzzTrace builds a 3-rank stamped trace from data: each 12-byte chunk
// is one event (rank, kind, peer, size, start, duration), so the fuzzer
// reaches unmatched, wildcard, zero-size, huge and backwards-in-time
// messages.
func fuzzTrace(data []byte) *mpi.Trace {
	t := mpi.NewTrace(3)
	kinds := []mpi.Kind{mpi.Send, mpi.Recv, mpi.Isend, mpi.Irecv, mpi.Wait, mpi.Compute}
	for ; len(data) >= 12; data = data[12:] {
		r := int(data[0]) % 3
		k := kinds[int(data[1])%len(kinds)]
		peer := int32(data[2]%4) - 1 // −1 is a wildcard on receives
		size := int64(binary.LittleEndian.Uint16(data[3:5])) << (data[5] % 40)
		start := int64(int32(binary.LittleEndian.Uint32(data[6:10])))
		dur := int64(binary.LittleEndian.Uint16(data[10:12])) - 1000
		e := mpi.Event{Kind: k, Peer: peer, Bytes: size, Req: int64(data[2] % 3), Duration: max(dur, 0)}
		t.AppendStamped(r, e, mpi.Stamp{Start: start, End: start + dur})
	}
	return t
}

// FuzzCalibrate checks that any stamped trace calibrates to valid
// parameters whose spec parses back to them, or to an error, never a
// panic.
func FuzzCalibrate(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 2, 16, 0, 0, 0, 0, 0, 0, 244, 1, 1, 1, 1, 16, 0, 0, 100, 0, 0, 0, 232, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, lg := range []bool{false, true} {
			res, err := calibrate.Calibrate([]*mpi.Trace{fuzzTrace(data)}, calibrate.Options{LogGP: lg})
			if err != nil {
				continue
			}
			if err := res.Net.Validate(); err != nil {
				t.Fatalf("%s: %v", res.Net, err)
			}
			back, err := network.ParseSpec(res.Net.String())
			if err != nil || back != res.Net {
				t.Fatalf("spec %s parses to %v (%v)", res.Net, back, err)
			}
			_ = res.Report()
		}
	})
}
