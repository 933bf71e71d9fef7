package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"time"
)

// errInterrupted is the cause of a command's context when SIGINT (Ctrl-C)
// ended it.
var errInterrupted = errors.New("interrupted by SIGINT")

// exitInterrupted is the exit status after SIGINT: 128 + the signal number.
const exitInterrupted = 130

// interruptedError marks a command stopped by SIGINT (exit status 130).
type interruptedError struct{ err error }

func (e interruptedError) Error() string { return "interrupted by SIGINT (" + e.err.Error() + ")" }
func (e interruptedError) Unwrap() error { return e.err }

// stopGrace is how long a command may take to stop cleanly after SIGINT
// before signalContext ends the process itself. Journals stay intact (each
// point is one synced write) and temporary files left by a hard stop are
// removed by the next run (internal/atomicfile).
const stopGrace = time.Second

// signalContext returns a context that SIGINT cancels with cause
// errInterrupted, for commands that must stop promptly and cleanly on
// Ctrl-C (long LP solves, sweeps): LP solves and sweeps return at once.
// A command still busy stopGrace after the signal (a long replay or LP
// build, which do not poll the context), or a second SIGINT, ends the
// process with status 130.
func signalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 2)
	finished := make(chan struct{})
	signal.Notify(ch, os.Interrupt)
	go func() {
		select {
		case <-ch:
			cancel(errInterrupted)
		case <-ctx.Done():
			return
		}
		select {
		case <-finished:
			return
		case <-ch:
		case <-time.After(stopGrace):
		}
		fmt.Fprintln(os.Stderr, "capsim: interrupted by SIGINT; stopped without cleaning up (the next run resumes)")
		os.Exit(exitInterrupted)
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(finished)
		cancel(nil)
	}
}

// interrupted wraps err as an interruptedError when SIGINT ended ctx.
func interrupted(ctx context.Context, err error) error {
	if err != nil && errors.Is(context.Cause(ctx), errInterrupted) {
		return interruptedError{err}
	}
	return err
}
