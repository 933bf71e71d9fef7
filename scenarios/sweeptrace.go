package scenarios

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/capsim/capsim/internal/atomicfile"
	"github.com/capsim/capsim/internal/cputime"
)

// sweepTraceEnv names the environment variable that asks Run for a trace
// of its work: where set, Run writes to the file it names one line per
// span of work (a group, a point, a point replayed ahead of its group, an
// LP chain's cap, a headroom search, a wait for a chain another worker
// holds), tab-separated: the worker, the
// span's start and end (wall seconds since the run's start), the
// process's CPU seconds during it, and its name. With one worker a span's
// CPU time is its own work, and the spans' CPU times give the critical
// path of a run with more workers (README, Performance).
const sweepTraceEnv = "CAPSIM_SWEEP_TRACE"

// sweepTrace collects a run's spans.
type sweepTrace struct {
	start time.Time
	mu    sync.Mutex
	spans []traceSpan
}

type traceSpan struct {
	worker int
	name   string
	t0, t1 time.Duration
	cpu    time.Duration
}

// traceKey and workerKey are the context keys of a run's trace and of a
// worker's number.
type (
	traceKey  struct{}
	workerKey struct{}
)

// processCPU is the process's CPU time so far (user and system).
func processCPU() time.Duration {
	user, sys := cputime.Used()
	return user + sys
}

// span starts a span named by format and args in ctx's trace and returns
// what ends it (its arguments, if any, appended to the name); without a
// trace both do nothing.
func span(ctx context.Context, format string, args ...any) func(...any) {
	t, _ := ctx.Value(traceKey{}).(*sweepTrace)
	if t == nil {
		return func(...any) {}
	}
	w, _ := ctx.Value(workerKey{}).(int)
	name := fmt.Sprintf(format, args...)
	t0, c0 := time.Since(t.start), processCPU()
	return func(more ...any) {
		s := traceSpan{worker: w, name: name + fmt.Sprint(more...), t0: t0, t1: time.Since(t.start), cpu: processCPU() - c0}
		t.mu.Lock()
		t.spans = append(t.spans, s)
		t.mu.Unlock()
	}
}

// writeFile writes the trace's spans to path, in the order they ended,
// atomically (internal/atomicfile, as the sweep's other outputs).
func (t *sweepTrace) writeFile(path string) error {
	return atomicfile.Write(path, func(f io.Writer) error {
		w := bufio.NewWriter(f)
		t.mu.Lock()
		for _, s := range t.spans {
			fmt.Fprintf(w, "%d\t%.6f\t%.6f\t%.6f\t%s\n", s.worker, s.t0.Seconds(), s.t1.Seconds(), s.cpu.Seconds(), s.name)
		}
		t.mu.Unlock()
		return w.Flush()
	})
}
