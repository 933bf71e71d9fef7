package lower

import (
	"fmt"
	"sort"
	"strings"

	"github.com/capsim/capsim/traces/mpi"
)

// Algorithm names a collective algorithm.
type Algorithm string

// The collective algorithms lowering knows. Which ones apply to which
// collective kind is listed by Supported.
const (
	Binomial          Algorithm = "binomial"      // bcast, reduce: binomial tree rooted at the root
	Dissemination     Algorithm = "dissemination" // barrier: ⌈log2 p⌉ rounds, partner i±2^k
	RecursiveDoubling Algorithm = "recdoub"       // allreduce, scan: pairwise exchanges at distance 2^k
	Ring              Algorithm = "ring"          // allreduce, allgather, reduce_scatter
	ReduceBcast       Algorithm = "reduce_bcast"  // allreduce: binomial reduce to 0, then binomial bcast
	Linear            Algorithm = "linear"        // alltoall(v), gather, scatter, scan (chain)
	Pairwise          Algorithm = "pairwise"      // alltoall(v), reduce_scatter: p−1 exchange steps
)

var supported = map[mpi.Kind][]Algorithm{
	mpi.Barrier:       {Dissemination},
	mpi.Bcast:         {Binomial},
	mpi.Reduce:        {Binomial},
	mpi.Allreduce:     {RecursiveDoubling, Ring, ReduceBcast},
	mpi.Allgather:     {Ring},
	mpi.Alltoall:      {Linear, Pairwise},
	mpi.Alltoallv:     {Linear, Pairwise},
	mpi.Gather:        {Linear},
	mpi.Scatter:       {Linear},
	mpi.ReduceScatter: {Ring, Pairwise},
	mpi.Scan:          {Linear, RecursiveDoubling},
}

// Supported returns the algorithms available for collective kind k; the
// first one is the default.
func Supported(k mpi.Kind) []Algorithm { return append([]Algorithm(nil), supported[k]...) }

// Options controls lowering.
type Options struct {
	// Algorithms selects the algorithm per collective kind. Kinds not in
	// the map (or a nil map) use the default, the first of Supported(k).
	Algorithms map[mpi.Kind]Algorithm

	// ReduceNsPerByte is the compute cost of combining received data in
	// reducing collectives (reduce, allreduce, reduce_scatter, scan): after
	// every receive that is combined, a calc of bytes×ReduceNsPerByte ns
	// (rounded down) is inserted. 0 (the default) inserts nothing.
	ReduceNsPerByte float64
}

// algorithm returns the algorithm for k after checking it is supported.
func (o *Options) algorithm(k mpi.Kind) (Algorithm, error) {
	alg, ok := o.Algorithms[k]
	if !ok || alg == "" {
		return supported[k][0], nil
	}
	for _, a := range supported[k] {
		if a == alg {
			return a, nil
		}
	}
	return "", fmt.Errorf("algorithm %q is not available for %s (have %s)", alg, k, joinAlgs(supported[k]))
}

func joinAlgs(as []Algorithm) string {
	s := make([]string, len(as))
	for i, a := range as {
		s[i] = string(a)
	}
	return strings.Join(s, ", ")
}

// ParseAlgorithms parses a spec such as "allreduce=ring,bcast=binomial"
// into a map for Options.Algorithms. An empty spec gives an empty map.
func ParseAlgorithms(spec string) (map[mpi.Kind]Algorithm, error) {
	m := map[mpi.Kind]Algorithm{}
	if strings.TrimSpace(spec) == "" {
		return m, nil
	}
	for _, item := range strings.Split(spec, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			return nil, fmt.Errorf("collective spec %q: item %q is not kind=algorithm", spec, item)
		}
		kind, err := mpi.ParseKind(strings.TrimSpace(k))
		if err != nil || !kind.IsCollective() {
			return nil, fmt.Errorf("collective spec %q: %q is not a collective kind (have %s)", spec, k, collectiveNames())
		}
		if _, dup := m[kind]; dup {
			return nil, fmt.Errorf("collective spec %q: %s given twice", spec, kind)
		}
		o := Options{Algorithms: map[mpi.Kind]Algorithm{kind: Algorithm(strings.TrimSpace(v))}}
		alg, err := o.algorithm(kind)
		if err != nil {
			return nil, fmt.Errorf("collective spec %q: %w", spec, err)
		}
		m[kind] = alg
	}
	return m, nil
}

func collectiveNames() string {
	var s []string
	for k := range supported {
		s = append(s, k.String())
	}
	sort.Strings(s)
	return strings.Join(s, ", ")
}
