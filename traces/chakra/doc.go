// Package chakra reads Chakra execution traces (MLCommons Chakra, the
// format ASTRA-sim replays and PyTorch's execution-trace tools convert
// to) and lowers them into capsim's execution graph.
//
// A trace is one file per NPU, <prefix>.<npu>.et: a length-delimited
// protobuf stream of a global metadata message followed by node messages.
// Each node is an operation of its NPU with data dependencies (and control
// dependencies) on other nodes of the same NPU, so an NPU's nodes form a
// dependency graph rather than a program: the lowering keeps every data
// dependency as a Requires edge and nothing more, so independent nodes run
// concurrently. Control dependencies count only with Options.CtrlDeps, as
// Chakra's own feeder schedules on data dependencies alone.
//
// Streams. Every NPU has three resources, as ASTRA-sim's defaults do (one
// CPU operation, one GPU computation and one GPU communication in flight):
// nodes with is_cpu_op set run on CPU 0 of the rank (the host thread),
// other computation on CPU 1 (the GPU's compute stream) and communication
// on CPU 2 (the GPU's communication stream), each running one operation at
// a time.
//
// Nodes. COMP nodes become computations of their recorded duration
// (duration_micros, converted to ns exactly), MEM_LOAD and MEM_STORE nodes
// too; METADATA nodes take no time and, when named process_group:init,
// declare the process groups (pg_name and ranks). COMM_SEND and COMM_RECV
// become messages of comm_size bytes to comm_dst or from comm_src with
// tag comm_tag. COMM_COLL nodes with a comm_type become the collective on
// the group named by pg_name (every NPU without one), lowered with the
// collective algorithms of Options (NCCL's by default); their recorded
// duration is not used, the network model prices them. COMM_COLL nodes
// without a comm_type are the host side of a collective call (PyTorch's
// c10d wrappers): computations of their recorded duration.
package chakra
