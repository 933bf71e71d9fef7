// Package bench holds capsim's end-to-end benchmarks and reference
// workloads: the performance numbers of docs/perf come from here.
// Workloads lists the rows of that page's workload table, which
//
//	go run ./bench/run      (make bench)
//
// reruns and prints, followed by the scaling series, the LP bound's table
// (`capsim bound` from 10^3 tasks up, engine and replay message models side
// by side, each size under a timeout: about 10 minutes on 2 cores) and
// the sweeps' points per second with 1 and 2 workers (-tables picks
// tables);
//
//	go run ./bench/sweeptrace TRACE
//
// reads the trace of a 1-worker sweep (CAPSIM_SWEEP_TRACE) and prints
// where its CPU time goes and its critical path on more workers. The Go
// benchmarks run with
//
//	go test -run '^$' -bench . -benchmem ./bench/
//
// BenchmarkReplayRingAllreduce reads a 1024-rank ring allreduce of 1 MiB
// per rank from its Arrow execution-graph file and replays it;
// BenchmarkReplayRSS runs the capsim binary on the same file and reports
// its peak resident set size. BenchmarkReplayModeled replays a 1024-rank
// stencil of about 10 million events with recorded calc durations and with
// every calc priced through examples/models/stencil.json, and reports the
// modeled/unmodeled wall-time ratio. BenchmarkReadOTF2 imports 16-rank OTF2
// traces that the OTF2 library writes (544,000 and 2,176,000 records) and
// reports the bytes allocated per byte of the resulting events, which stays
// the same at both lengths (the import streams). BenchmarkReplayNetwork
// replays the ring allreduce under plain LogGOPS and with a crossbar
// topology (which must not reach the flow model) beside a 1,024-rank
// all-to-all on a fat-tree under the flow model, and reports flow events
// per CPU second (docs/design/network.md).
//
// The reproduction page docs/reference/reproductions.md, every checkable number of
// the source papers against capsim's, is written by
//
//	go run ./bench/repro    (make repro)
package bench
