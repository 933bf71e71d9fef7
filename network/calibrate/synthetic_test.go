package calibrate_test

import (
	"math"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/network/calibrate"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// pingPong returns a 2-rank trace of ping-pongs of the given sizes (rank
// 1 computes turn ns before answering), followed by back-to-back sends of
// burst bytes from rank 0, without recorded times.
func pingPong(sizes []int64, turn int64, burst int64, nburst int) *mpi.Trace {
	t := mpi.NewTrace(2)
	for _, s := range sizes {
		t.AppendCompute(0, "work", 1000)
		t.Append(0, mpi.Event{Kind: mpi.Send, Peer: 1, Bytes: s})
		t.Append(0, mpi.Event{Kind: mpi.Recv, Peer: 1, Bytes: s})
		t.Append(1, mpi.Event{Kind: mpi.Recv, Peer: 0, Bytes: s})
		t.AppendCompute(1, "work", turn)
		t.Append(1, mpi.Event{Kind: mpi.Send, Peer: 0, Bytes: s})
	}
	for range nburst {
		t.Append(0, mpi.Event{Kind: mpi.Send, Peer: 1, Tag: 1, Bytes: burst})
		t.Append(1, mpi.Event{Kind: mpi.Recv, Peer: 0, Tag: 1, Bytes: burst})
	}
	return t
}

// recorder is a sim.QueueObserver that keeps when each operation was
// queued (its rank reached it) and when its CPU work ended.
type recorder struct{ queued, end []int64 }

func (r *recorder) Busy(op int32, _, end int64)    { r.end[op] = max(r.end[op], end) }
func (r *recorder) Message(_, _ int32, _, _ int64) {}
func (r *recorder) Queued(op int32, t int64)       { r.queued[op] = t }

// record replays t under net and stamps its events with the replay's
// times, as a tracer would have recorded them: each call from the time
// its rank reached it to the end of its CPU work.
func record(tb testing.TB, t *mpi.Trace, net network.LogGOPS) int64 {
	tb.Helper()
	g, m, err := lower.LowerMapped(t, lower.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	rec := &recorder{queued: make([]int64, g.NumOps()), end: make([]int64, g.NumOps())}
	res, err := sim.Run(g, net, sim.Options{Observer: rec})
	if err != nil {
		tb.Fatal(err)
	}
	for r := range t.Ranks {
		rk := &t.Ranks[r]
		rk.Stamps = make([]mpi.Stamp, len(rk.Events))
		reqs := map[int64]int32{} // request → its operation
		for i, e := range rk.Events {
			from, to := m.Ops(r, i)
			switch {
			case e.Kind == mpi.Wait:
				// The wait returns when its request's CPU work ends.
				prev := rk.Stamps[i-1].End
				rk.Stamps[i] = mpi.Stamp{Start: prev, End: max(prev, rec.end[reqs[e.Req]])}
			case from == to:
				tb.Fatalf("%s became no operation", t.Describe(r, i))
			case e.Kind == mpi.Irecv:
				// Posting a receive returns at once.
				reqs[e.Req] = from
				rk.Stamps[i] = mpi.Stamp{Start: rec.queued[from], End: rec.queued[from]}
			default:
				reqs[e.Req] = from
				rk.Stamps[i] = mpi.Stamp{Start: rec.queued[from], End: rec.end[to-1]}
			}
		}
	}
	return res.Makespan
}

func TestRecoversKnownParameters(t *testing.T) {
	sizes := []int64{8, 1024, 8192, 65536, 262144, 1 << 20}
	for _, spec := range []string{
		"loggops:L=3000,o=400,g=1200,G=0.1,S=4194304",
		"loggp:L=1800,o=250,g=900,G=0.35,S=4194304",
		"loggops:L=5us,o=1us,g=2us,bw=12.5GB/s,S=4194304",
	} {
		t.Run(spec, func(t *testing.T) {
			net, err := network.ParseSpec(spec)
			if err != nil {
				t.Fatal(err)
			}
			tr := pingPong(sizes, 700, 64, 4)
			span := record(t, tr, net)
			res, err := calibrate.Calibrate([]*mpi.Trace{tr}, calibrate.Options{LogGP: net.LogGP})
			if err != nil {
				t.Fatal(err)
			}
			got := res.Net
			near := func(name string, got, want, tol float64) {
				if math.Abs(got-want) > tol {
					t.Errorf("%s = %g, want %g ± %g (fitted %s)", name, got, want, tol, res.Net)
				}
			}
			near("L", float64(got.Latency), float64(net.Latency), 1)
			near("o", float64(got.Overhead), float64(net.Overhead), 1)
			near("g", float64(got.Gap), float64(net.Gap), 1)
			near("G", float64(got.GapPerByte.Femtoseconds()), float64(net.GapPerByte.Femtoseconds()), 2)
			if got.LogGP != net.LogGP || res.Fit.Source != "ping-pong" || res.Fit.PingPongs != len(sizes) {
				t.Errorf("LogGP %v, source %s, %d round trips; want %v, ping-pong, %d", got.LogGP, res.Fit.Source, res.Fit.PingPongs, net.LogGP, len(sizes))
			}
			if r2 := res.Fit.OneWay.R2; r2 < 0.999999 {
				t.Errorf("R² = %g on exact data", r2)
			}
			// The calibrated network replays the trace as the original did.
			again := pingPong(sizes, 700, 64, 4)
			if pred := record(t, again, got); math.Abs(float64(pred-span)) > float64(span)/1e4 {
				t.Errorf("replay under the fitted %s: %d ns, under %s: %d ns", got, pred, net, span)
			}
		})
	}
}

// TestOneWayFromMessages calibrates from messages without round trips:
// the one-way time comes from the trace's clock, and g, with no
// back-to-back sends, is reported unidentified.
func TestOneWayFromMessages(t *testing.T) {
	net, err := network.ParseSpec("loggops:L=2000,o=300,g=100,G=0.25,S=4194304")
	if err != nil {
		t.Fatal(err)
	}
	tr := mpi.NewTrace(2)
	for _, s := range []int64{1, 100, 10000, 100000, 1000000} {
		tr.AppendCompute(0, "work", 50000)
		tr.Append(0, mpi.Event{Kind: mpi.Isend, Peer: 1, Bytes: s, Req: 1})
		tr.Append(0, mpi.Event{Kind: mpi.Wait, Req: 1})
		tr.Append(1, mpi.Event{Kind: mpi.Irecv, Peer: 0, Bytes: s, Req: 7})
		tr.Append(1, mpi.Event{Kind: mpi.Wait, Req: 7})
	}
	record(t, tr, net)
	res, err := calibrate.Calibrate([]*mpi.Trace{tr}, calibrate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Net
	if res.Fit.Source != "messages" || res.Fit.Messages != 5 || p.Latency != 2000 || p.Overhead != 300 || p.GapPerByte != net.GapPerByte {
		t.Errorf("from %s (%d messages): %s; want L=2000 o=300 G=0.25", res.Fit.Source, res.Fit.Messages, p)
	}
	var unid []string
	for _, u := range res.Unidentified {
		unid = append(unid, u.Param)
	}
	if p.Gap != p.Overhead || len(unid) != 3 || unid[0] != "O" || unid[1] != "g" || unid[2] != "S" {
		t.Errorf("g = %d, unidentified %v; want g = o, [O g S]", p.Gap, unid)
	}
}

func TestNoRecordedTimes(t *testing.T) {
	tr := pingPong([]int64{8}, 0, 0, 0)
	if _, err := calibrate.Calibrate([]*mpi.Trace{tr}, calibrate.Options{}); err == nil {
		t.Error("a trace without recorded times calibrated")
	}
	tr = mpi.NewTrace(1)
	tr.AppendStamped(0, mpi.Event{Kind: mpi.Compute, Duration: 5}, mpi.Stamp{Start: 1, End: 6})
	if _, err := calibrate.Calibrate([]*mpi.Trace{tr}, calibrate.Options{}); err == nil {
		t.Error("a trace without messages calibrated")
	}
}
