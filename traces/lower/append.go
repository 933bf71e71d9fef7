package lower

import (
	"fmt"

	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/mpi"
)

// Call is one rank's part in one collective, for Append: formats whose
// ranks are dependency graphs rather than programs (Chakra execution
// traces) lower each collective node with it.
type Call struct {
	Kind mpi.Kind
	// Members are the ranks of the group in group order, Me the calling
	// rank's position among them and Root the root's (rooted kinds).
	Members  []int32
	Me, Root int32
	// Bytes is the payload as mpi.Event.Bytes counts it.
	Bytes int64
	// Lists are the block sizes of an alltoallv, per member and peer.
	Lists [][]int64
	// Tag is the tag of the call's messages; each parallel part (channel,
	// tree) of an NCCL algorithm uses the next one, up to Tag+TagsPerCall−1,
	// so that parts never match each other's messages.
	Tag int32
	// CPU, NIC and Region are given to every operation the call adds
	// (Region to its messages only).
	CPU, NIC uint8
	Region   int32
}

// TagsPerCall is the number of tags one Call may use.
const TagsPerCall = 4 * maxChannels

// Append adds rank's operations of call to b with algorithm alg (a name
// of Algorithms(call.Kind), "" for the default), each first operation
// requiring every operation in after. It returns the operations whose
// completion completes the call: after itself when the call adds none
// (a group of one).
func Append(b *graph.Builder, rank int, after []int32, call Call, alg string, opt Options) ([]int32, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	if alg != "" && !known(call.Kind, alg) {
		return nil, fmt.Errorf("lower: %s has no algorithm %q", call.Kind, alg)
	}
	p := int32(len(call.Members))
	switch {
	case p == 0 || call.Me < 0 || call.Me >= p:
		return nil, fmt.Errorf("lower: %s: rank %d is not member %d of a group of %d", call.Kind, rank, call.Me, p)
	case call.Kind.IsRooted() && (call.Root < 0 || call.Root >= p):
		return nil, fmt.Errorf("lower: %s root %d outside a group of %d", call.Kind, call.Root, p)
	case call.Bytes < 0:
		return nil, fmt.Errorf("lower: %s with negative size %d", call.Kind, call.Bytes)
	case tooLarge(call.Kind, call.Bytes, p) != "":
		return nil, fmt.Errorf("lower: %s", tooLarge(call.Kind, call.Bytes, p))
	case call.Kind == mpi.Alltoallv && len(call.Lists) != int(p):
		return nil, fmt.Errorf("lower: alltoallv with %d size lists for a group of %d", len(call.Lists), p)
	}
	if _, ok := algorithms[call.Kind]; !ok {
		return nil, fmt.Errorf("lower: %s is not a collective", call.Kind)
	}
	l := &lowerer{opt: opt, b: b}
	st := &rankState{rank: rank, last: append([]int32(nil), after...), started: -1,
		region: call.Region, cpu: call.CPU, nic: call.NIC}
	in := &instance{kind: call.Kind, root: call.Root, bytes: call.Bytes, lists: call.Lists}
	c := &coll{l: l, st: st, in: in, members: call.Members, p: p, me: call.Me, first: true,
		tag: call.Tag, base: call.Tag, forks: new(int32), tagStep: 1}
	switch alg {
	case "":
		alg = algorithms[call.Kind][0]
	case SelectOpenMPI, SelectMPICH, SelectNCCL:
		alg, c.wire = opt.selected(alg, call.Kind, call.Members, call.Bytes)
	}
	if p > 1 {
		c.run(call.Kind, alg)
	}
	if c.first {
		return st.last, nil
	}
	return c.front, nil
}
