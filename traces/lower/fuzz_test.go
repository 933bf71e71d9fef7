package lower

import (
	"testing"

	"github.com/capsim/capsim/traces/mpi"
)

// FuzzParseAlgorithms: any spec either parses into known algorithms or
// fails with an error; it never panics.
func FuzzParseAlgorithms(f *testing.F) {
	for _, s := range []string{"", "allreduce=ring,bcast=binomial", "allreduce", "=", ",,", "scan=recdoub, barrier = linear", "send=ring",
		"openmpi", "mpich,alltoall=bruck", "default,bcast=pipeline", "allreduce=mpich", "openmpi=ring", "nccl,allreduce=nccl-tree",
		"allreduce=recdoub,allreduce=ring", "barrier=linear,default,barrier=linear"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		m, err := ParseAlgorithms(spec)
		if err != nil {
			return
		}
		for k, a := range m {
			if !known(k, a) {
				t.Fatalf("%q: accepted unknown algorithm %s/%s", spec, k, a)
			}
		}
	})
}

// FuzzLower decodes bytes into a small trace of 3 ranks (events of any
// kind with small, possibly invalid fields, a sub-communicator) and lowers
// it: Lower must return an error or a valid graph, never panic.
func FuzzLower(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17})
	f.Add([]byte{3, 0, 1, 0, 5, 0, 0, 4, 1, 0, 0, 5, 6, 0, 0, 5, 6, 1})
	f.Add([]byte{8, 0, 0, 0, 0, 0, 8, 0, 0, 0, 0, 0, 8, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		const n = 3
		tr := mpi.NewTrace(n)
		sub := tr.AddComm("sub", []int32{2, 0})
		tr.Region("r")
		for i := 0; i+6 <= len(data) && i < 600; i += 6 {
			d := data[i : i+6]
			r := int(d[0]>>5) % n
			e := mpi.Event{
				Kind:     mpi.Kind(d[0] & 31 % 20),
				Comm:     int32(d[1]%3) - int32(d[1]/3%2)*5, // 0, 1, 2 or invalid
				Peer:     int32(d[2]%5) - 1,
				Tag:      int32(d[3]%4) - 1,
				Bytes:    int64(d[4]) - 8,
				Duration: int64(d[4]) * 10,
				Req:      int64(d[5] % 4),
				Region:   int32(d[5]%3) - 1,
				ParamOff: -1,
			}
			if e.Comm == 1 {
				e.Comm = sub
			}
			switch e.Kind {
			case mpi.Waitall:
				tr.AppendList(r, e, []int64{int64(d[5] % 4), int64(d[4] % 4)})
			case mpi.Alltoallv:
				tr.AppendList(r, e, []int64{int64(d[4]), int64(d[5]), 3}[:1+int(d[3])%3])
			default:
				tr.Append(r, e)
			}
		}
		for _, alg := range []string{"", "ring", "reduce-bcast", SelectOpenMPI, SelectMPICH, SelectNCCL, ncclTree} {
			o := Options{ReduceNsPerByte: float64(len(data) % 3), Channels: len(data) % 4, ChunkBytes: int64(len(data) % 5)}
			switch alg {
			case "":
			case SelectOpenMPI, SelectMPICH, SelectNCCL:
				o.Algorithm, _ = ParseAlgorithms(alg)
			default:
				o.Algorithm = map[mpi.Kind]string{mpi.Allreduce: alg}
			}
			g, err := Lower(tr, o)
			if err != nil {
				continue
			}
			if err := g.Validate(); err != nil {
				t.Fatalf("Lower returned an invalid graph: %v", err)
			}
		}
	})
}

// TestParseAlgorithmsTwice: a collective given twice is refused (the
// later one silently won); a selector then one collective, or the same
// collective after "default", is not a repetition.
func TestParseAlgorithmsTwice(t *testing.T) {
	for _, tc := range []struct {
		spec, want string
	}{
		{"allreduce=recdoub,allreduce=ring", `collective spec "allreduce=recdoub,allreduce=ring": allreduce given twice`},
		{"barrier=linear, bcast=binomial, barrier=linear", "collective spec \"barrier=linear, bcast=binomial, barrier=linear\": barrier given twice"},
		{"mpich,alltoall=bruck", ""},
		{"barrier=linear,default,barrier=dissemination", ""},
	} {
		_, err := ParseAlgorithms(tc.spec)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || err.Error() != tc.want) {
			t.Errorf("%q: %v, want %q", tc.spec, err, tc.want)
		}
	}
}
