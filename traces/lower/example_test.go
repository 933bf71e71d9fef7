package lower_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

func ExampleLower() {
	tr := mpi.NewTrace(4)
	for r := 0; r < 4; r++ {
		tr.AppendCompute(r, "solve", 1000)
		tr.Append(r, mpi.Event{Kind: mpi.Allreduce, Bytes: 4096})
	}
	algs, err := lower.ParseAlgorithms("allreduce=ring")
	if err != nil {
		panic(err)
	}
	g, err := lower.Lower(tr, lower.Options{Algorithm: algs})
	if err != nil {
		panic(err)
	}
	// Per rank: the calc, then 2(p−1) = 6 ring steps of one send and one receive.
	fmt.Println(g.NumRanks(), "ranks,", g.NumOps(), "ops, regions", g.Regions)
	fmt.Println(g.Describe(1))
	// Output:
	// 4 ranks, 52 ops, regions [solve]
	// rank 0 l2: send 1024b to 1 tag 1073741824
}

func ExampleParseAlgorithms() {
	m, err := lower.ParseAlgorithms("allreduce=ring,bcast=binomial")
	fmt.Println(m[mpi.Allreduce], m[mpi.Bcast], err)
	_, err = lower.ParseAlgorithms("barrier=ring")
	fmt.Println(err != nil)
	// Output:
	// ring binomial <nil>
	// true
}

// A selector picks per call as the library would: MPICH's allreduce is
// recursive doubling up to 2 KiB and Rabenseifner's algorithm above, so the
// large call sends fewer bytes per rank.
func ExampleParseAlgorithms_selector() {
	algs, err := lower.ParseAlgorithms("mpich,alltoall=bruck")
	if err != nil {
		panic(err)
	}
	fmt.Println(algs[mpi.Allreduce], algs[mpi.Alltoall])
	for _, n := range []int64{1024, 1 << 20} {
		tr := mpi.NewTrace(8)
		for r := 0; r < 8; r++ {
			tr.Append(r, mpi.Event{Kind: mpi.Allreduce, Bytes: n})
		}
		g, err := lower.Lower(tr, lower.Options{Algorithm: algs})
		if err != nil {
			panic(err)
		}
		var sent int64
		for id := g.RankStart[0]; id < g.RankStart[1]; id++ {
			if g.Kind[id] == graph.Send {
				sent += g.Size[id]
			}
		}
		fmt.Printf("%d bytes: rank 0 sends %d bytes\n", n, sent)
	}
	// Output:
	// mpich bruck
	// 1024 bytes: rank 0 sends 3072 bytes
	// 1048576 bytes: rank 0 sends 1835008 bytes
}

// Lowering the same trace twice gives identical graphs.
func TestDeterministic(t *testing.T) {
	tr := mpi.NewTrace(13)
	sub := tr.AddComm("odd", []int32{11, 9, 7, 5, 3, 1})
	for r := 0; r < 13; r++ {
		for _, k := range mpi.Kinds() {
			if !k.IsCollective() {
				continue
			}
			tr.AppendList(r, mpi.Event{Kind: k, Bytes: 100}, make([]int64, 13))
			if r%2 == 1 && k != mpi.Alltoallv {
				tr.Append(r, mpi.Event{Kind: k, Comm: sub, Bytes: 64})
			}
		}
	}
	for _, k := range mpi.Kinds() {
		for _, alg := range lower.Algorithms(k) {
			o := lower.Options{Algorithm: map[mpi.Kind]string{k: alg}, ReduceNsPerByte: 0.25}
			a, err := lower.Lower(tr, o)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := lower.Lower(tr, o)
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s/%s: two lowerings differ", k, alg)
			}
		}
	}
}
