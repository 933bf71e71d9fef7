package sched

import (
	"testing"

	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/taskgraph"
)

// BenchmarkCholesky40 schedules the 40×40-tile Cholesky graph (11,480
// tasks) on the default Xeon Phi node under a 60 W incremental cap, once
// per policy.
func BenchmarkCholesky40(b *testing.B) {
	d, err := taskgraph.Cholesky(40)
	if err != nil {
		b.Fatal(err)
	}
	w, err := sim.NewTaskWorkload(d, taskgraph.DefaultProfiles())
	if err != nil {
		b.Fatal(err)
	}
	node := sim.Node{Cores: 112, Cap: 60, IdleW: 106.9}
	for _, name := range Names {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var events, ticks int64
			for i := 0; i < b.N; i++ {
				pol, _ := New(name, Options{})
				res, err := sim.RunTasks(w, node, pol)
				if err != nil {
					b.Fatal(err)
				}
				events += res.Events
				ticks += res.Ticks
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(ticks)/float64(b.N), "ticks/op")
		})
	}
}
