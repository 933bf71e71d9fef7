package sim

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/traces/graph"
)

// stepLog records everything a StepObserver is told, in order.
type stepLog struct{ lines []string }

func (l *stepLog) Busy(op int32, start, end int64) {
	l.lines = append(l.lines, fmt.Sprint("busy ", op, start, end))
}
func (l *stepLog) Message(send, recv int32, sent, matched int64) {
	l.lines = append(l.lines, fmt.Sprint("msg ", send, recv, sent, matched))
}
func (l *stepLog) Queued(op int32, t int64) { l.lines = append(l.lines, fmt.Sprint("queued ", op, t)) }
func (l *stepLog) Step(s Step)              { l.lines = append(l.lines, fmt.Sprintf("step %+v", s)) }

// randomGraph builds a graph of ranks with several CPUs and NICs: calcs
// (some of zero time), sends and receives of eager and rendezvous sizes
// matched by tag, and random requires and irequires dependencies on
// earlier operations of the rank, so that many operations wait on busy
// CPUs. Some graphs deadlock; both engines must then fail alike.
func randomGraph(rng *rand.Rand, ranks, ops, cpus, nics int) *graph.Graph {
	b := graph.NewBuilder(ranks)
	tag := int32(0)
	for i := 0; i < ops; i++ {
		r := rng.IntN(ranks)
		var op graph.Op
		var peer int
		msg := ranks > 1 && rng.IntN(3) == 0
		if msg {
			peer = (r + 1 + rng.IntN(ranks-1)) % ranks
			op = graph.SendOp(int64(rng.IntN(3))*40_000, int32(peer), tag)
		} else {
			op = graph.CalcOp(int64(rng.IntN(4)) * 1000)
		}
		op.CPU, op.NIC = uint8(rng.IntN(cpus)), uint8(rng.IntN(nics))
		id := b.Add(r, op)
		addDeps(rng, b, r, id)
		if msg {
			recv := graph.RecvOp(op.Size, int32(r), tag)
			recv.CPU, recv.NIC = uint8(rng.IntN(cpus)), uint8(rng.IntN(nics))
			addDeps(rng, b, peer, b.Add(peer, recv))
			tag++
		}
	}
	g, err := b.Build()
	if err != nil {
		panic(err)
	}
	return g
}

func addDeps(rng *rand.Rand, b *graph.Builder, r int, id int32) {
	for k := rng.IntN(3); k > 0 && id > 0; k-- {
		kind := graph.Requires
		if rng.IntN(4) == 0 {
			kind = graph.Irequires
		}
		b.Dep(r, id, rng.Int32N(id), kind)
	}
}

// TestReadyQueuesKeepOrder replays random multi-CPU graphs with the CPUs'
// ready queues and with every waiting operation put back in the event
// queue (LogGOPSim's way), and requires the same steps, in the same
// order, at the same times, and the same results, with fewer events.
func TestReadyQueuesKeepOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var saved, total int64
	for i := 0; i < 300; i++ {
		g := randomGraph(rng, 1+rng.IntN(4), 10+rng.IntN(120), 1+rng.IntN(3), 1+rng.IntN(2))
		g.Causal = rng.IntN(2) == 0
		// Some networks have o < O, so that an empty message's
		// processing moves its CPU's clock back (see network.PerByte.Charge).
		o := int64(rng.IntN(2000))
		if rng.IntN(3) == 0 {
			o = int64(rng.IntN(3))
		}
		net := network.NewLogGOPS(int64(rng.IntN(3000)), o, int64(rng.IntN(2000)), int64(rng.IntN(8)), int64(rng.IntN(8)), 65535)
		opt := Options{LibstdcxxOrder: rng.IntN(2) == 0}
		if rng.IntN(3) == 0 {
			opt.Release = make([]int64, g.NumOps())
			for op := range opt.Release {
				opt.Release[op] = int64(rng.IntN(4)) * 2500
			}
		}
		var got, want stepLog
		ref := opt
		ref.noReadyQueues, ref.Observer = true, &want
		wres, werr := Run(g, net, ref)
		opt.Observer = &got
		res, err := Run(g, net, opt)
		name := fmt.Sprintf("graph %d (%d ops, causal %v)", i, g.NumOps(), g.Causal)
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Fatalf("%s: error %v, want %v", name, err, werr)
		}
		if !reflect.DeepEqual(got.lines, want.lines) {
			for j := range min(len(got.lines), len(want.lines)) {
				if got.lines[j] != want.lines[j] {
					t.Fatalf("%s: observation %d: %s, want %s", name, j, got.lines[j], want.lines[j])
				}
			}
			t.Fatalf("%s: %d observations, want %d", name, len(got.lines), len(want.lines))
		}
		if err != nil {
			continue
		}
		if res.Makespan != wres.Makespan || !reflect.DeepEqual(res.Ranks, wres.Ranks) {
			t.Fatalf("%s: result %+v, want %+v", name, res, wres)
		}
		if res.Events > wres.Events {
			t.Fatalf("%s: %d events, more than the reference's %d", name, res.Events, wres.Events)
		}
		saved += wres.Events - res.Events
		total += wres.Events
	}
	if saved == 0 {
		t.Fatalf("the ready queues saved no event in %d", total)
	}
	t.Logf("ready queues saved %d of %d events", saved, total)
}
