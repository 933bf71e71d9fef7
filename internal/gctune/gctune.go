// Package gctune sets the garbage collector's target from the live heap:
// a process whose live heap is small collects as seldom as Go's default
// (GOGC=100), one whose live heap is large as often as it needs to keep
// its peak near the live data (GOGC=25).
//
// capsim's replays of large traces allocate almost nothing once the graph
// is loaded, and a low target keeps their peak RSS close to the graph
// itself; its sweeps and bounds replay one small workload under many
// schedules, each replay allocating its per-operation arrays, and at a
// low target they spend their time collecting a heap of a few MiB (the
// default scenario's 20-cap sweep: 276 collections in 2 s at 25 %, 64 at
// 100 %). One target cannot serve both; a target set from the live heap
// after each collection does.
package gctune

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// The targets' range, and the heap growth a small live heap is allowed.
const (
	// MinPercent is the target of a large live heap: the heap grows by a
	// quarter of its live data between collections.
	MinPercent = 25
	// MaxPercent is the target of a small live heap, Go's default.
	MaxPercent = 100
	// Headroom is the growth between collections a live heap of up to
	// Headroom·100/MinPercent bytes is allowed, within MaxPercent of it.
	Headroom = 64 << 20
)

// Percent returns the collector's target for a live heap of live bytes:
// MaxPercent up to Headroom, then what lets the heap grow by Headroom,
// down to MinPercent from 4·Headroom on. The heap so grows by at most
// Headroom, or a quarter of the live heap where that is more, between
// collections.
func Percent(live uint64) int {
	if live <= Headroom {
		return MaxPercent
	}
	return max(MinPercent, int(Headroom*100/live))
}

// Start sets the target to MaxPercent now, and after every collection to
// Percent of the live heap it left. It is meant for a process's main
// function (the target is the process's), before any work, and only
// where the user has not set GOGC.
func Start() {
	debug.SetGCPercent(MaxPercent)
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	last := MaxPercent
	var arm func()
	arm = func() {
		// A sentinel of 16 bytes is not tiny-allocated, so it is freed,
		// and its finalizer run, by the first collection after arm.
		s := new([16]byte)
		runtime.SetFinalizer(s, func(*[16]byte) {
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 {
				if p := Percent(sample[0].Value.Uint64()); p != last {
					debug.SetGCPercent(p)
					last = p
				}
			}
			arm()
		})
	}
	arm()
}
