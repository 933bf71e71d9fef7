// Package lpchain solves one power-constrained LP (optimize/bound) at a
// fixed list of power caps, sharing warm bases: the caps are split into
// chains of consecutive caps, each chain solved by its own copy of the
// LP, in cap order, each cap from the previous cap's basis and the
// chain's first cap from none. Several goroutines may ask for caps at
// once; the chains are solved at the same time.
//
// The LP's optimum is degenerate (another basis path gives other last
// digits of the bound and another schedule), so every result depends on
// the chains alone, never on which goroutine asks first or how many
// there are: the chains depend on the number of caps alone (Split).
// Right after a cap marked for forking, its chain forks its LP
// (bound.Solver.Fork) so that a caller can search from that cap's basis
// while the chain goes on.
package lpchain

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/capsim/capsim/optimize/bound"
)

// MaxCaps is the most caps one chain solves. A chain's first cap is
// solved from scratch, which costs about as much as 5 to 10 warm
// re-solves of the next caps on the default scenario (0.3 s against
// 0.03–0.2 s), so chains are long enough to keep that overhead small and
// give a long list of caps chains to solve at the same time.
const MaxCaps = 10

// Split splits n caps, in order, into chains of consecutive caps: as few
// as hold at most MaxCaps each, of lengths that differ by at most one.
// Chain c holds caps lo..hi-1 of chains[c] = [lo, hi]. It depends on n
// alone, so every run over the same caps, whatever its workers, shards or
// resumptions, solves the same chains.
func Split(n int) [][2]int {
	k := (n + MaxCaps - 1) / MaxCaps
	out := make([][2]int, k)
	for c := range out {
		out[c] = [2]int{c * n / k, (c + 1) * n / k}
	}
	return out
}

// Of returns the chain of cap k of n (Split).
func Of(n, k int) int {
	for c, r := range Split(n) {
		if k < r[1] {
			return c
		}
	}
	return -1
}

// Options configure a Set.
type Options struct {
	// CapsW are the caps the chains solve, in order (job watts).
	CapsW []float64
	// LPCap converts a cap of CapsW into the LP's cap (bound.Solver's
	// task power).
	LPCap func(capW float64) float64
	// Fork reports whether the chain forks its LP right after solving
	// cap k of CapsW (Set.Fork takes it). Nil: never. It is read while
	// solving, so it must not change after the first solve.
	Fork func(k int) bool
	// Span, where set, times a step ("clone", "bound", "wait") for a
	// trace of the run: it returns the function that ends the span.
	Span func(ctx context.Context, format string, args ...any) func(...any)
}

// Set is an LP solved at the caps of Options.CapsW in chains (Split),
// and at any other cap by a copy of the LP kept for them.
type Set struct {
	s   *bound.Solver // the LP as built (chain 0 solves it)
	opt Options
	// mu guards chains (the slice) and free.
	mu     sync.Mutex
	chains []*chain
	free   *bound.Solver // a copy for caps not of CapsW, solved in the order asked
}

// chain is one chain of caps: its LP (closed once every cap is solved)
// and its solutions so far, in cap order, and the forks of its LP after
// the caps Options.Fork marks, not yet taken (under fmu).
type chain struct {
	mu    sync.Mutex
	s     *bound.Solver
	done  []*bound.Bound
	fmu   sync.Mutex
	forks map[int]*bound.Solver
}

// New returns the chains of LP s at the caps of opt. The Set owns s: its
// Close closes it.
func New(s *bound.Solver, opt Options) *Set {
	return &Set{s: s, opt: opt}
}

// span starts a span of opt.Span, or none.
func (c *Set) span(ctx context.Context, format string, args ...any) func(...any) {
	if c.opt.Span == nil {
		return func(...any) {}
	}
	return c.opt.Span(ctx, format, args...)
}

// Solve returns the LP's schedule at a cap, or nil where the cap is below
// what the fixed order needs. A cap of Options.CapsW is solved in its
// chain, after the chain's caps before it; another cap by a copy of the
// LP kept for them.
func (c *Set) Solve(ctx context.Context, capW float64) (*bound.Bound, error) {
	caps := c.opt.CapsW
	k := slices.Index(caps, capW)
	if k < 0 {
		return c.solveFree(ctx, capW)
	}
	n := Of(len(caps), k)
	r := Split(len(caps))[n]
	ch := c.chain(n)
	// While another goroutine solves this chain, solve the next cap of a
	// chain nobody is solving: the chains' solves do not depend on who
	// makes them, only on their order within the chain.
	for !ch.mu.TryLock() {
		helped, err := c.helpOther(ctx, n)
		if err != nil {
			return nil, err
		}
		if !helped {
			end := c.span(ctx, "wait chain %d cap %g", n, capW)
			ch.mu.Lock()
			end()
			break
		}
	}
	defer ch.mu.Unlock()
	for len(ch.done) <= k-r[0] {
		if err := c.step(ctx, ch, r); err != nil {
			return nil, err
		}
	}
	return ch.done[k-r[0]], nil
}

// solveFree solves a cap not of Options.CapsW on the copy of the LP kept
// for them.
func (c *Set) solveFree(ctx context.Context, capW float64) (*bound.Bound, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.free == nil {
		s, err := c.s.Clone()
		if err != nil {
			return nil, err
		}
		c.free = s
	}
	return c.solveLP(ctx, c.free, capW)
}

// Busy says whether solving cap capW would now wait for another
// goroutine: its chain is being solved (a caller may then do other work
// first). Caps not of Options.CapsW are never busy.
func (c *Set) Busy(capW float64) bool {
	caps := c.opt.CapsW
	k := slices.Index(caps, capW)
	if k < 0 {
		return false
	}
	ch := c.chain(Of(len(caps), k))
	if !ch.mu.TryLock() {
		return true
	}
	ch.mu.Unlock()
	return false
}

// chain returns chain n of the caps (Split), made on first use.
func (c *Set) chain(n int) *chain {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.chains == nil {
		c.chains = make([]*chain, len(Split(len(c.opt.CapsW))))
		c.chains[0] = &chain{s: c.s}
	}
	if c.chains[n] == nil {
		c.chains[n] = &chain{}
	}
	return c.chains[n]
}

// step solves the next cap of chain ch, the caps r of Options.CapsW,
// with its lock held.
func (c *Set) step(ctx context.Context, ch *chain, r [2]int) error {
	if ch.s == nil {
		end := c.span(ctx, "clone chain %v", r)
		s, err := c.s.Clone()
		end()
		if err != nil {
			return err
		}
		ch.s = s
	}
	k := r[0] + len(ch.done)
	capW := c.opt.CapsW[k]
	end := c.span(ctx, "bound chain %v cap %g", r, capW)
	defer end()
	res, err := c.solveLP(ctx, ch.s, capW)
	if err != nil {
		return err
	}
	if res != nil && c.opt.Fork != nil && c.opt.Fork(k) {
		f, err := ch.s.Fork()
		if err != nil {
			return fmt.Errorf("LP at %g W: %w", capW, err)
		}
		ch.fmu.Lock()
		if ch.forks == nil {
			ch.forks = map[int]*bound.Solver{}
		}
		ch.forks[k] = f
		ch.fmu.Unlock()
	}
	ch.done = append(ch.done, res)
	if len(ch.done) == r[1]-r[0] { // the chain is done: free its LP
		ch.s.Close()
	}
	return nil
}

// helpOther solves the next cap of the first chain other than chain own
// that is neither done nor being solved, and says whether there was one.
func (c *Set) helpOther(ctx context.Context, own int) (bool, error) {
	for n, r := range Split(len(c.opt.CapsW)) {
		if n == own {
			continue
		}
		ch := c.chain(n)
		if !ch.mu.TryLock() {
			continue
		}
		if len(ch.done) == r[1]-r[0] {
			ch.mu.Unlock()
			continue
		}
		err := c.step(ctx, ch, r)
		ch.mu.Unlock()
		return err == nil, err
	}
	return false, nil
}

// solveLP solves the LP s at a cap (nil below its least feasible cap).
func (c *Set) solveLP(ctx context.Context, s *bound.Solver, capW float64) (*bound.Bound, error) {
	return SolveFeasible(ctx, s, c.opt.LPCap(capW))
}

// SolveFeasible solves s at an LP cap (task power, watts): nil where the
// cap is below the LP's least feasible one.
func SolveFeasible(ctx context.Context, s *bound.Solver, lpCapW float64) (*bound.Bound, error) {
	res, err := s.SolveContext(ctx, lpCapW)
	var ie *bound.InfeasibleError
	if errors.As(err, &ie) {
		return nil, nil
	}
	return res, err
}

// Fork returns the LP's schedule at a cap and a fork of the LP
// (bound.Solver.Fork) as it was right after solving it; the caller closes
// the fork. Both are nil where the LP has no schedule at the cap. A cap
// of Options.CapsW is solved in its chain and must be one Options.Fork
// marks; another cap by a new copy of the LP, from scratch.
func (c *Set) Fork(ctx context.Context, capW float64) (*bound.Bound, *bound.Solver, error) {
	caps := c.opt.CapsW
	k := slices.Index(caps, capW)
	if k < 0 {
		s, err := c.s.Clone()
		if err != nil {
			return nil, nil, err
		}
		res, err := c.solveLP(ctx, s, capW)
		if err != nil || res == nil {
			s.Close()
			return nil, nil, err
		}
		return res, s, nil
	}
	res, err := c.Solve(ctx, capW)
	if err != nil || res == nil {
		return nil, nil, err
	}
	ch := c.chain(Of(len(caps), k))
	ch.fmu.Lock()
	f := ch.forks[k]
	delete(ch.forks, k)
	ch.fmu.Unlock()
	if f == nil {
		return nil, nil, fmt.Errorf("LP at %g W: no fork of its chain's LP there (taken twice, or not asked for)", capW)
	}
	return res, f, nil
}

// Close frees the LP, its copies and the forks not taken.
func (c *Set) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.s.Close()
	if c.free != nil {
		c.free.Close()
	}
	for _, ch := range c.chains {
		if ch == nil {
			continue
		}
		if ch.s != nil {
			ch.s.Close()
		}
		ch.fmu.Lock()
		for _, f := range ch.forks {
			f.Close()
		}
		ch.forks = nil
		ch.fmu.Unlock()
	}
}
