// Package dumpi reads MPI traces recorded by DUMPI, the MPI tracer of the
// SST simulator suite (sst-dumpi; SST/macro and CODES replay them), into
// an MPI trace (package traces/mpi). It is written from the format as
// sst-dumpi's sources define it and uses none of its code.
//
// # Files
//
// A run writes one text file PREFIX.meta (key=value lines: numprocs,
// fileprefix, hostname, the tracer's version, ...) and one binary file
// PREFIX-NNNN.bin per rank (the rank with at least four digits).
//
// A .bin file is big-endian throughout. It starts with 8 magic bytes
// (ff aa dd 44 55 4d 50 49), then the body: two 4-byte second offsets
// (CPU clock, wall clock) that are added back to every timestamp, then one
// record per MPI call in program order. After the records come a 2-byte
// end-of-stream marker and the header (version as three bytes, start
// time, host and user names, node mesh coordinates), the footer (a magic
// number, then per function the number of calls the tracer counted and
// the number it did not record), and the tables: the size of every
// predefined datatype on the recording machine, the names of
// compiler-instrumented functions by address, and the names of hardware
// counters. The file ends with an index of 8-byte offsets to these
// sections, preceded by the magic; older tracers wrote fewer entries.
//
// A record is a 2-byte function id, a 1-byte mask saying what follows
// (statuses, CPU and wall-clock times, thread index, counter values), the
// optional thread index, times and counter values, then the function's
// arguments in a fixed order per function (see funcs): 1-byte enumerations
// such as reduction operations, 2-byte handles for communicators,
// datatypes and groups, 4-byte integers for counts, ranks, tags and
// requests, 4-byte-length-prefixed arrays, and statuses. Records carry no
// length, so the reader knows the layout of every function the tracer can
// write, including those it ignores.
//
// # Versions
//
// The layouts are those of DUMPI 0.6.9 and later, which include 1.0, 1.1
// and the 8.1 of later SST releases (the version numbers jumped with SST's
// release numbering; the format did not change). The differences of older
// files that the reader handles: statuses without their tag before 0.6.3,
// MPI_Init's argument count written twice before 0.6.2, one displacement
// for MPI_Type_struct before 0.6.9 and one coordinate for MPI_Cart_get
// before 0.6.8, indexes without the datatype-size table before 0.6.6 (and
// without the function- and counter-label tables before that), header
// without node mesh sizes before 0.5.
//
// # Mapping
//
//   - MPI_Send, Bsend, Ssend, Rsend → Send; MPI_Recv → Recv; MPI_Isend,
//     Ibsend, Issend, Irsend → Isend; MPI_Irecv → Irecv. Peers stay ranks
//     of the call's communicator; MPI_ANY_SOURCE and MPI_ANY_TAG are kept;
//     MPI_PROC_NULL peers send nothing (counted in RankInfo.ProcNull).
//   - Persistent requests (MPI_Send_init, …, MPI_Recv_init) become an
//     Isend or Irecv at every MPI_Start or MPI_Startall.
//   - MPI_Sendrecv and MPI_Sendrecv_replace → Isend, Irecv, Waitall.
//   - MPI_Wait, Waitany, Waitall, Waitsome, and MPI_Test, Testany,
//     Testall, Testsome when they report completion → Wait or Waitall on
//     the requests that completed. Handles that name no outstanding
//     request are ignored (counted). MPI_Request_free forgets a request;
//     MPI_Cancel drops its operation.
//   - MPI_Barrier, Bcast, Reduce, Allreduce, Gather, Scatter, Allgather,
//     Alltoall, Reduce_scatter, Scan keep their kind; MPI_Exscan → Scan;
//     MPI_Gatherv, Scatterv, Allgatherv → Gather, Scatter, Allgather with
//     the mean per-member size (the root knows every member's count);
//     MPI_Alltoallv and MPI_Alltoallw → Alltoallv with per-member sizes.
//   - Communicator and group calls define communicators (see Read); the
//     rest (queries, datatype constructors, which only size derived
//     datatypes, MPI-IO, probes, ...) makes no event and is counted in
//     RankInfo.Skipped.
//   - Intercommunicators, spawned processes, one-sided communication and
//     distributed-array datatypes are errors naming the file, the record's
//     offset and the function.
//
// Tags are kept unless one is 2^20 or more (lowering's limit; MPI allows
// up to MPI_TAG_UB): then the trace's tags are renumbered 0, 1, 2, … in
// their order, which matches the same messages.
//
// Compute is the time between the end of one MPI call and the start of
// the next, by the wall clock unless Options.CPUClock. Time inside calls
// that make no event is not compute. Timestamps store seconds in 2 bytes;
// a clock that jumps back by more than 9 hours has wrapped (runs longer
// than 18.2 hours are followed across the wrap).
//
// # Memory
//
// Ranks are read one after another, each .bin file sequentially through a
// 64 KiB buffer; a record's arrays are read into buffers reused by the
// next record, and every length read from a file is checked against the
// bytes left in it before anything is allocated. What Read holds beyond
// the resulting trace is one rank's open requests, groups and derived
// datatypes, and the communicator-creating calls of all ranks.
package dumpi
