package lower

import "github.com/capsim/capsim/traces/mpi"

// Selectors are algorithm names valid for every collective kind: they pick
// a lowering per call from the communicator size and the message size, as
// an MPI library's default decision does. See docs/reference/collectives.md.
//
// "openmpi" follows the fixed decision rules of Open MPI 4.1's coll/tuned
// component (ompi_coll_tuned_*_intra_dec_fixed in
// ompi/mca/coll/tuned/coll_tuned_decision_fixed.c, the tables measured for
// 4.1.0), assuming commutative reductions. Where Open MPI would run an
// algorithm capsim does not lower, the closest lowering stands in for it:
// linear for linear_sync and for the nonblocking linear allgather, ring for
// the segmented ring allreduce, binomial for the binary,
// split-binary and k-nomial bcast trees and for every reduce but linear,
// pipeline for the chain bcast, recursive halving for butterfly,
// dissemination for the recursive-doubling, Bruck and tree barriers,
// pairwise for the two-process alltoall.
//
// "mpich" follows MPICH 3.4's defaults (the MPIR_CVAR_* thresholds of the
// algorithm selection in src/mpi/coll/*/…_intra_auto); see mpichChoice.
const (
	SelectOpenMPI = "openmpi"
	SelectMPICH   = "mpich"
)

// band maps messages below a size (bytes) to an algorithm.
type band struct {
	below int64
	alg   string
}

// rule is one communicator-size row of a decision table: communicators
// smaller than commBelow (0: any size) use the first band whose size
// bound the message is below, else last.
type rule struct {
	commBelow int32
	bands     []band
	last      string
}

func pick(rules []rule, p int32, bytes int64) string {
	for _, r := range rules {
		if r.commBelow != 0 && p >= r.commBelow {
			continue
		}
		for _, b := range r.bands {
			if bytes < b.below {
				return b.alg
			}
		}
		return r.last
	}
	return ""
}

// Open MPI 4.1's tables, rows by communicator size, bands by the message
// size the rule reads: the whole vector (allreduce, bcast, reduce,
// reduce_scatter), one block (alltoall, allgather, gather, scatter).
const (
	lin, pair, bruck, rd, ring, rab = "linear", "pairwise", "bruck", "recdoub", "ring", "rabenseifner"
	redb, bin, pipe, nbr            = "reduce-bcast", "binomial", "pipeline", "neighbor"
	sag, sar, rh, rsc               = "scatter-rdb-allgather", "scatter-ring-allgather", "rechalving", "reduce-scatter"
)

var openmpiRules = map[mpi.Kind][]rule{
	mpi.Allreduce: {
		{4, []band{{8, ring}, {4096, rd}, {8192, ring}, {16384, rd}, {65536, ring}, {262144, ring}}, rab},
		{8, []band{{16, ring}, {8192, rd}}, rab},
		{16, []band{{8192, rd}}, rab},
		{32, []band{{64, ring}, {4096, rd}}, rab},
		{64, []band{{128, ring}}, rab},
		{128, []band{{262144, rd}}, rab},
		{256, []band{{131072, redb}, {262144, rd}}, rab},
		{512, []band{{4096, redb}}, rab},
		{2048, []band{{2048, redb}, {16384, rd}}, rab},
		{4096, []band{{2048, redb}, {4096, ring}, {16384, rd}}, rab},
		{0, []band{{2048, redb}, {16384, ring}, {32768, rd}}, rab},
	},
	mpi.Alltoall: {
		{3, []band{{2, pair}, {4, pair}, {16, pair}, {64, pair}, {256, pair}, {4096, pair}, {32768, pair}, {262144, lin}, {1048576, pair}}, pair},
		{8, []band{{8192, lin}, {16384, lin}, {65536, lin}, {524288, lin}, {1048576, pair}}, lin},
		{16, nil, lin},
		{32, []band{{4, lin}, {512, bruck}}, lin},
		{64, []band{{512, bruck}}, lin},
		{128, []band{{1024, bruck}, {262144, lin}}, pair},
		{256, []band{{1024, bruck}, {262144, lin}}, pair},
		{512, []band{{1024, bruck}, {32768, lin}}, pair},
		{1024, []band{{512, bruck}, {262144, lin}}, pair},
		{2048, []band{{512, bruck}}, lin},
		{4096, []band{{1024, bruck}}, lin},
		{0, []band{{2048, bruck}}, lin},
	},
	mpi.Alltoallv: {
		{4, nil, pair}, {64, nil, lin}, {128, nil, pair}, {256, nil, lin}, {1024, nil, pair}, {0, nil, lin},
	},
	mpi.Allgather: {
		{3, nil, ring},
		{32, nil, rd},
		{64, []band{{1024, rd}, {65536, nbr}}, ring},
		{128, []band{{512, rd}, {65536, nbr}}, ring},
		{256, []band{{512, rd}, {131072, nbr}, {524288, ring}, {1048576, nbr}}, ring},
		{512, []band{{32, rd}, {128, bruck}, {1024, rd}, {131072, nbr}, {524288, ring}, {1048576, nbr}}, ring},
		{1024, []band{{64, rd}, {256, bruck}, {2048, rd}}, nbr},
		{2048, []band{{4, rd}, {8, bruck}, {16, rd}, {32, bruck}, {256, rd}, {512, bruck}, {4096, rd}}, nbr},
		{4096, []band{{32, bruck}, {128, rd}, {512, bruck}, {4096, rd}}, nbr},
		{0, []band{{2, rd}, {8, bruck}, {16, rd}, {512, bruck}, {4096, rd}}, nbr},
	},
	mpi.Bcast: {
		{4, []band{{32, pipe}, {256, bin}, {512, pipe}, {1024, bin}, {32768, lin}, {131072, bin}, {262144, pipe}, {524288, lin}}, bin},
		{8, []band{{8192, bin}, {1048576, lin}}, pipe},
		{16, []band{{32768, bin}}, lin},
		{32, []band{{1048576, bin}}, sag},
		{64, nil, bin},
		{128, nil, bin},
		{256, []band{{16384, bin}, {32768, lin}}, bin},
		{1024, nil, bin},
		{2048, []band{{524288, bin}}, sag},
		{4096, []band{{262144, bin}}, sag},
		{0, []band{{262144, bin}}, sag},
	},
	mpi.ReduceScatter: {
		{4, []band{{65536, ring}, {131072, rh}}, ring},
		{8, []band{{8, rsc}, {262144, rh}}, ring},
		{32, []band{{262144, rh}}, ring},
		{64, []band{{64, rsc}, {524288, rh}}, ring},
		{128, []band{{256, rsc}}, rh},
		{256, []band{{256, rsc}}, rh},
		{512, []band{{256, rsc}}, rh},
		{1024, []band{{512, rsc}}, rh},
		{2048, []band{{512, rsc}}, rh},
		{4096, []band{{512, rsc}}, rh},
		{0, []band{{1024, rsc}}, rh},
	},
	mpi.Barrier: {{4, nil, "dissemination"}, {8, nil, lin}, {0, nil, "dissemination"}},
	mpi.Reduce: {
		{4, []band{{32, bin}, {262144, lin}}, bin},
		{8, []band{{262144, bin}, {524288, lin}, {1048576, bin}}, lin},
		{0, nil, bin},
	},
	mpi.Gather: {
		{4, []band{{4, lin}, {32768, bin}, {65536, lin}, {131072, bin}}, lin},
		{8, []band{{1024, bin}, {8192, lin}, {32768, bin}}, lin},
		{256, nil, bin},
		{512, []band{{2048, bin}, {8192, lin}}, bin},
		{0, nil, bin},
	},
	mpi.Scatter: {
		{4, nil, lin},
		{8, []band{{2048, bin}, {4096, lin}, {8192, bin}}, lin},
		{16, []band{{16384, bin}}, lin},
		{32, []band{{16384, bin}}, lin},
		{64, []band{{512, bin}, {8192, lin}, {16384, bin}}, lin},
		{0, []band{{512, bin}}, lin},
	},
	mpi.Scan: {{0, nil, lin}},
}

// choose returns the algorithm selector sel picks for a call of kind k on
// p ranks with n bytes (Event.Bytes; for alltoallv, the mean block).
func choose(sel string, k mpi.Kind, p int32, n int64) string {
	var alg string
	switch sel {
	case SelectMPICH:
		alg = mpichChoice(k, p, n)
	case SelectNCCL:
		alg = ncclChoice(k)
	default:
		alg = pick(openmpiRules[k], p, n)
	}
	if alg == "" || !known(k, alg) {
		return algorithms[k][0]
	}
	return alg
}

// MPICH 3.4's default thresholds, in bytes.
const (
	mpichAlltoallShort   = 256    // MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE
	mpichAlltoallMedium  = 32768  // MPIR_CVAR_ALLTOALL_MEDIUM_MSG_SIZE
	mpichAllgatherShort  = 81920  // MPIR_CVAR_ALLGATHER_SHORT_MSG_SIZE
	mpichAllgatherLong   = 524288 // MPIR_CVAR_ALLGATHER_LONG_MSG_SIZE
	mpichAllreduceShort  = 2048   // MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE
	mpichBcastShort      = 12288  // MPIR_CVAR_BCAST_SHORT_MSG_SIZE
	mpichBcastLong       = 524288 // MPIR_CVAR_BCAST_LONG_MSG_SIZE
	mpichBcastMinProcs   = 8      // MPIR_CVAR_BCAST_MIN_PROCS
	mpichRedscatLong     = 524288 // MPIR_CVAR_REDSCAT_COMMUTATIVE_LONG_MSG_SIZE
	mpichReduceShort     = 2048   // MPIR_CVAR_REDUCE_SHORT_MSG_SIZE
	mpichElementBytes    = 8      // the element size assumed for count ≥ pof2 tests
	mpichAlltoallvLinear = "linear"
)

// mpichChoice is MPICH's default algorithm for a call of kind k on p ranks
// with n bytes. Reductions are taken as commutative on 8-byte elements.
func mpichChoice(k mpi.Kind, p int32, n int64) string {
	pof2 := int64(pof2Below(p))
	switch k {
	case mpi.Alltoall:
		switch {
		case n <= mpichAlltoallShort && p >= 8:
			return bruck
		case n <= mpichAlltoallMedium:
			return lin
		}
		return "pairwise-xor" // XOR for powers of two, the shift otherwise
	case mpi.Alltoallv:
		return mpichAlltoallvLinear
	case mpi.Allgather:
		total := n * int64(p)
		switch {
		case total < mpichAllgatherLong && isPow2(p):
			return rd
		case total < mpichAllgatherShort:
			return bruck
		}
		return ring
	case mpi.Allreduce:
		if n <= mpichAllreduceShort || n/mpichElementBytes < pof2 {
			return rd
		}
		return rab
	case mpi.Bcast:
		switch {
		case n < mpichBcastShort || p < mpichBcastMinProcs:
			return bin
		case n < mpichBcastLong && isPow2(p):
			return sag
		}
		return sar
	case mpi.ReduceScatter:
		if n < mpichRedscatLong {
			return rh
		}
		return pair
	case mpi.Reduce, mpi.Gather, mpi.Scatter:
		return bin
	case mpi.Barrier:
		return "dissemination"
	case mpi.Scan:
		return rd
	}
	return ""
}
