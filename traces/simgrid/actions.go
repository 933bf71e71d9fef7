package simgrid

import (
	"sort"
	"strings"

	"github.com/capsim/capsim/traces/mpi"
)

type actKind uint8

const (
	actInit actKind = iota
	actIgnore
	actCompute
	actSleep
	actLocation
	actP2P
	actWait
	actWaitall
	actSendRecv
	actBarrier
	actBcast
	actReduce
	actGather
	actGatherv
	actScatterv
	actAlltoallv
	actReduceScatter
)

// action describes one TI action: how to read it and what it becomes.
type action struct {
	name  string
	kind  actKind
	mpi   mpi.Kind // the collective it becomes
	min   int      // arguments it needs at least (per-rank lists aside)
	args  []string // names of the leading arguments, for errors
	usage string
}

// actions lists every action of SimGrid's TI replay (SimGrid 3.32's
// smpi_replay.cpp registers the same names), with the argument layout its
// tracer writes. Brackets mark optional arguments; n is the number of ranks.
var actions = map[string]*action{}

func init() {
	for _, a := range []action{
		{name: "init", kind: actInit, usage: "init [default-datatype-is-double]"},
		{name: "finalize", kind: actIgnore, usage: "finalize"},
		{name: "comm_size", kind: actIgnore, usage: "comm_size size"},
		{name: "comm_split", kind: actIgnore, usage: "comm_split"},
		{name: "comm_dup", kind: actIgnore, usage: "comm_dup"},
		{name: "compute", kind: actCompute, min: 1, args: []string{"flops"}, usage: "compute flops"},
		{name: "sleep", kind: actSleep, min: 1, args: []string{"seconds"}, usage: "sleep seconds"},
		{name: "location", kind: actLocation, min: 2, usage: "location file line"},
		{name: "send", kind: actP2P, min: 3, usage: "send dst tag count [datatype]"},
		{name: "isend", kind: actP2P, min: 3, usage: "isend dst tag count [datatype]"},
		{name: "recv", kind: actP2P, min: 3, usage: "recv src tag count [datatype]"},
		{name: "irecv", kind: actP2P, min: 3, usage: "irecv src tag count [datatype]"},
		{name: "wait", kind: actWait, min: 3, args: []string{"source", "destination", "tag"}, usage: "wait src dst tag"},
		{name: "test", kind: actWait, min: 3, args: []string{"source", "destination", "tag"}, usage: "test src dst tag"},
		{name: "waitall", kind: actWaitall, usage: "waitall [count]"},
		{name: "sendRecv", kind: actSendRecv, min: 4, usage: "sendRecv send-count dst recv-count src [datatype datatype]"},
		{name: "barrier", kind: actBarrier, mpi: mpi.Barrier, usage: "barrier"},
		{name: "bcast", kind: actBcast, mpi: mpi.Bcast, min: 1, usage: "bcast count [root [datatype]]"},
		{name: "reduce", kind: actReduce, mpi: mpi.Reduce, min: 2, usage: "reduce count flops [root [datatype]]"},
		{name: "allreduce", kind: actReduce, mpi: mpi.Allreduce, min: 2, usage: "allreduce count flops [datatype]"},
		{name: "scan", kind: actReduce, mpi: mpi.Scan, min: 2, usage: "scan count flops [datatype]"},
		{name: "exscan", kind: actReduce, mpi: mpi.Scan, min: 2, usage: "exscan count flops [datatype]"},
		{name: "alltoall", kind: actGather, mpi: mpi.Alltoall, min: 2, usage: "alltoall send-count recv-count [datatype datatype]"},
		{name: "alltoallv", kind: actAlltoallv, mpi: mpi.Alltoallv, min: 2, usage: "alltoallv send-size send-counts×n recv-size recv-counts×n [datatype datatype]"},
		{name: "gather", kind: actGather, mpi: mpi.Gather, min: 2, usage: "gather send-count recv-count [root [datatype datatype]]"},
		{name: "allgather", kind: actGather, mpi: mpi.Allgather, min: 2, usage: "allgather send-count recv-count [datatype datatype]"},
		{name: "scatter", kind: actGather, mpi: mpi.Scatter, min: 2, usage: "scatter send-count recv-count [root [datatype datatype]]"},
		{name: "gatherv", kind: actGatherv, mpi: mpi.Gather, min: 2, usage: "gatherv send-count recv-counts×n [root [datatype datatype]]"},
		{name: "allgatherv", kind: actGatherv, mpi: mpi.Allgather, min: 2, usage: "allgatherv send-count recv-counts×n [datatype datatype]"},
		{name: "scatterv", kind: actScatterv, mpi: mpi.Scatter, min: 2, usage: "scatterv send-counts×n recv-count [root [datatype datatype]]"},
		{name: "reducescatter", kind: actReduceScatter, mpi: mpi.ReduceScatter, min: 2, usage: "reducescatter recv-counts×n flops [datatype]"},
	} {
		actions[a.name] = &a
	}
	for old, name := range legacyNames {
		actions[old] = actions[name]
	}
}

// legacyNames maps the action names of SimGrid 3.16 and older (its replay
// registered "Isend", "waitAll", "allReduce", …) to today's.
var legacyNames = map[string]string{
	"Isend": "isend", "Irecv": "irecv", "waitAll": "waitall", "allReduce": "allreduce", "allToAll": "alltoall",
	"allToAllV": "alltoallv", "gatherV": "gatherv", "allGather": "allgather", "allGatherV": "allgatherv",
	"reduceScatter": "reducescatter",
}

// actionList names the known actions, for errors.
func actionList() string {
	names := make([]string, 0, len(actions))
	for n := range actions {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// datatypeSize gives the size in bytes, on x86-64 Linux, of SMPI's
// predefined datatypes by the id that TI traces record (SimGrid 3.32's
// numbering): 0 MPI_DOUBLE, 1 MPI_INT, 2 MPI_CHAR, 3 MPI_SHORT, 4 MPI_LONG,
// 5 MPI_FLOAT, 6 MPI_BYTE, 7 MPI_LONG_LONG, 8 MPI_SIGNED_CHAR,
// 9 MPI_UNSIGNED_CHAR, 10 MPI_UNSIGNED_SHORT, 11 MPI_UNSIGNED,
// 12 MPI_UNSIGNED_LONG, 13 MPI_UNSIGNED_LONG_LONG, 14 MPI_LONG_DOUBLE,
// 15 MPI_WCHAR, 16 MPI_C_BOOL, 17–24 MPI_INT8_T … MPI_UINT64_T,
// 25–27 the C complex types, 28 MPI_AINT, 29 MPI_OFFSET, 30–37 the
// pair types of MINLOC/MAXLOC (MPI_FLOAT_INT … MPI_2LONG), 38–49 the
// Fortran types (MPI_REAL … MPI_INTEGER16), 50 MPI_LONG_DOUBLE_INT,
// 51–54 the C++ types, 55 MPI_UB, 56 MPI_LB, 57 MPI_PACKED, 58 (SMPI's
// pointer type), 59 MPI_COUNT.
var datatypeSize = [...]int64{
	8, 4, 1, 2, 8, 4, 1, 8, 1, 1, // 0–9
	2, 4, 8, 8, 16, 4, 1, 1, 2, 4, // 10–19
	8, 1, 2, 4, 8, 8, 16, 32, 8, 8, // 20–29
	8, 16, 16, 8, 8, 8, 16, 16, 4, 4, // 30–39
	8, 16, 8, 16, 16, 4, 2, 4, 8, 16, // 40–49
	32, 1, 8, 16, 32, 0, 0, 1, 8, 8, // 50–59
}
