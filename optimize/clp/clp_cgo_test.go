//go:build cgo

package clp

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// hard is a random covering LP (min c·x, A·x ≥ 1, x ≥ 0) with m rows, n
// columns and a density share of nonzeros: the simplex takes seconds on it.
func hard(m, n int, density float64) *Problem {
	r := rand.New(rand.NewPCG(1, 2))
	p := &Problem{Start: []int32{0}}
	for j := 0; j < n; j++ {
		for i := 0; i < m; i++ {
			if r.Float64() < density {
				p.Index = append(p.Index, int32(i))
				p.Value = append(p.Value, r.Float64())
			}
		}
		p.Start = append(p.Start, int32(len(p.Index)))
		p.Obj = append(p.Obj, 1+r.Float64())
		p.ColLo = append(p.ColLo, 0)
		p.ColUp = append(p.ColUp, inf)
	}
	for i := 0; i < m; i++ {
		p.RowLo = append(p.RowLo, 1)
		p.RowUp = append(p.RowUp, inf)
	}
	return p
}

// TestWriteMPSCatchesCoinError: CLP throws a CoinError when it cannot open
// the file; the shim turns it into an error instead of aborting the
// process (SIGABRT before), and WriteMPS checks the folder first.
func TestWriteMPSCatchesCoinError(t *testing.T) {
	model, err := Load(small())
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	missing := filepath.Join(t.TempDir(), "no-such-dir", "x.mps")
	err = model.writeMPS(missing)
	if err == nil || !strings.Contains(err.Error(), "x.mps") {
		t.Errorf("shim: err = %v, want an error naming x.mps", err)
	}
	err = model.WriteMPS(missing)
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "x.mps") {
		t.Errorf("WriteMPS: err = %v, want not-exist naming x.mps", err)
	}
}

// TestSIGINTDuringSolve: CLP's initialSolve installs its own SIGINT handler
// (and restores Go's with signal(2) afterwards, without SA_SIGINFO and
// SA_ONSTACK), so a Ctrl-C during a solve never reached Go and the solve
// ran on. The shim switches CLP's handler off: the signal cancels the
// context and the solve stops at once.
func TestSIGINTDuringSolve(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a large LP")
	}
	model, err := Load(hard(2000, 4000, 0.05))
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var sent sentAt
	time.AfterFunc(300*time.Millisecond, func() { sent.mark(); syscall.Kill(os.Getpid(), syscall.SIGINT) })
	_, err = model.SolveContext(ctx, Dual)
	took := sent.since()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v %v after SIGINT, want context.Canceled (SIGINT did not reach Go)", err, took)
	}
	if took > time.Second {
		t.Errorf("stopped %v after SIGINT, want within a second", took)
	}
	// And after a solve, SIGINT still reaches Go.
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt)
	defer signal.Stop(ch)
	m2, err := Load(small())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m2.Solve(Dual); err != nil {
		t.Fatal(err)
	}
	m2.Close()
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatal("SIGINT after a solve never reached Go's handler")
	}
}

// TestSolveContextStops: cancelling the context stops a long solve within
// a fraction of a second (the simplex at its next iteration, the barrier
// by leaving it to finish in the background), and the model can still be
// closed (the barrier's memory is freed when its solve ends).
func TestSolveContextStops(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a large LP")
	}
	for _, m := range []Method{Dual, Primal, Barrier} {
		t.Run(m.String(), func(t *testing.T) {
			model, err := Load(hard(2000, 4000, 0.05))
			if err != nil {
				t.Fatal(err)
			}
			defer model.Close()
			ctx, cancel := context.WithCancel(context.Background())
			var sent sentAt
			time.AfterFunc(300*time.Millisecond, func() { sent.mark(); cancel() })
			_, err = model.SolveContext(ctx, m)
			took := sent.since()
			if err == nil {
				t.Skipf("the LP solved before the cancel (%v after it)", took)
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if took > time.Second {
				t.Errorf("stopped %v after the cancel, want within a second", took)
			}
			t.Logf("%s stopped %v after the cancel", m, took)
		})
	}
}

// sentAt records when a test cancelled a solve, so that how soon the solve
// stopped is measured from the cancel itself and not from a timer that a
// loaded machine may fire late.
type sentAt struct {
	mu sync.Mutex
	at time.Time
}

func (s *sentAt) mark() {
	s.mu.Lock()
	s.at = time.Now()
	s.mu.Unlock()
}

// since is the time from the mark to now, or 0 when there is no mark yet
// (the solve ended before the cancel was sent).
func (s *sentAt) since() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.at.IsZero() {
		return 0
	}
	return time.Since(s.at)
}
