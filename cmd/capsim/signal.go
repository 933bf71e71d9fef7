package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/capsim/capsim/scenarios"
)

// signalCause is the cause of a command's context when a signal (SIGINT
// from Ctrl-C, SIGTERM from a batch system's time limit) ended it.
type signalCause struct{ sig syscall.Signal }

func (c signalCause) Error() string { return "interrupted by " + sigName(c.sig) }

// status is the exit status after the signal: 128 + its number (130 for
// SIGINT, 143 for SIGTERM).
func (c signalCause) status() int { return 128 + int(c.sig) }

func sigName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// interruptedError marks a command stopped by a signal; run exits with
// the signal's status.
type interruptedError struct {
	cause signalCause
	err   error
}

func (e interruptedError) Error() string {
	var st *scenarios.StoppedError
	if errors.As(e.err, &st) {
		return e.cause.Error() + ": " + st.Error() // the user's points, not the evaluator's terms
	}
	return e.cause.Error() + " (" + e.err.Error() + ")"
}

func (e interruptedError) Unwrap() error { return e.err }

// stopGrace is how long a command may take to stop cleanly after a signal
// before signalContextKeeping ends the process itself. Journals stay intact (each
// point is one synced write) and temporary files left by a hard stop are
// removed by the next run (internal/atomicfile).
const stopGrace = time.Second

// signalContextKeeping returns a context that SIGINT or SIGTERM cancels
// (with a signalCause), for commands that must stop promptly and cleanly
// (long LP solves, sweeps): LP solves and sweeps return at once. A
// command still busy stopGrace after the signal (a long replay or LP
// build, which do not poll the context), or a second signal, ends the
// process with the signal's status, saying kept: what the command saved
// and how to go on.
func signalContextKeeping(kept string) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 2)
	finished := make(chan struct{})
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		var cause signalCause
		select {
		case s := <-ch:
			cause = signalCause{s.(syscall.Signal)}
			cancel(cause)
		case <-ctx.Done():
			return
		}
		select {
		case <-finished:
			return
		case <-ch:
		case <-time.After(stopGrace):
		}
		fmt.Fprintf(os.Stderr, "capsim: %v; stopped at once (%s)\n", cause, kept)
		os.Exit(cause.status())
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(finished)
		cancel(nil)
	}
}

// interrupted wraps err as an interruptedError when a signal ended ctx.
func interrupted(ctx context.Context, err error) error {
	var c signalCause
	if err != nil && errors.As(context.Cause(ctx), &c) {
		return interruptedError{c, err}
	}
	return err
}
