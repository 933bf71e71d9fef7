// Package aggregate is the task-aggregation what-if of Dong Li's thesis,
// Ch. 4 ("Power-aware MPI task aggregation"): given the T
// ranks of a trace, place them on fewer nodes. It enumerates the
// aggregation patterns a node topology allows (the 8 patterns of 2
// sockets × 2 dies × 2 cores), checks them against the node's memory,
// groups the ranks into nodes by their communication (Kernighan–Lin on the
// edge costs of §4.2, or exhaustively for small T), prices computation by
// IPC (§4.1: t = I/(IPC·f)) and communication by per-placement-class LogGP
// parameters with an interference table (§4.3), and chooses a
// pattern by Eq. 4.5 with the 5 % threshold and the thesis ranking (§4.4),
// or by modelled energy with unused nodes in deep sleep (our choice).
package aggregate

import (
	"fmt"
	"sort"
)

// Topology is a node's core layout: Sockets processors of DiesPerSocket
// dies of CoresPerDie cores, and MemoryBytes of DRAM (0: not checked).
type Topology struct {
	Sockets       int
	DiesPerSocket int
	CoresPerDie   int
	MemoryBytes   int64
}

// SystemG is the node of the thesis's System G (Li, 2011, Ch. 4): two
// quad-core Xeon E5462, each of two dies shared by two cores, 8 GB.
func SystemG() Topology {
	return Topology{Sockets: 2, DiesPerSocket: 2, CoresPerDie: 2, MemoryBytes: 8 << 30}
}

// MaxCores bounds a topology's cores per node: every choice of sockets,
// dies and cores used is a pattern to enumerate and price, so a node of
// MaxCores cores has as many patterns (64×64×16 take about 2 s).
const MaxCores = 1 << 16

// MaxMemoryBytes bounds a node's and a task's memory: 2^60 bytes (2^30
// GiB) keeps the byte counts and their products in int64.
const MaxMemoryBytes = 1 << 60

// Validate reports a topology without cores, with more than MaxCores, or
// with memory outside 0..MaxMemoryBytes.
func (t Topology) Validate() error {
	if t.Sockets < 1 || t.DiesPerSocket < 1 || t.CoresPerDie < 1 {
		return fmt.Errorf("aggregate: topology %d sockets × %d dies × %d cores: each must be at least 1", t.Sockets, t.DiesPerSocket, t.CoresPerDie)
	}
	if n := float64(t.Sockets) * float64(t.DiesPerSocket) * float64(t.CoresPerDie); n > MaxCores {
		return fmt.Errorf("aggregate: topology %d sockets × %d dies × %d cores has %.0f cores per node, more than %d (aggregate.MaxCores; each choice of cores used is a pattern to price)",
			t.Sockets, t.DiesPerSocket, t.CoresPerDie, n, MaxCores)
	}
	if t.MemoryBytes < 0 || t.MemoryBytes > MaxMemoryBytes {
		return fmt.Errorf("aggregate: topology memory %d bytes is outside 0..2^60 (aggregate.MaxMemoryBytes)", t.MemoryBytes)
	}
	return nil
}

// Pattern is one aggregation pattern: the tasks of a node use Sockets
// sockets, Dies dies on each of them and Cores cores on each such die, so
// a node holds Sockets·Dies·Cores tasks, spread evenly.
type Pattern struct {
	ID      int // 1-based, in the order of Patterns
	Sockets int // sockets used per node
	Dies    int // dies used per used socket
	Cores   int // cores used per used die
}

// TasksPerNode is the number of tasks a node holds under p (k in Li, 2011, §4.2).
func (p Pattern) TasksPerNode() int { return p.Sockets * p.Dies * p.Cores }

// DiesUsed is the number of dies a node uses under p.
func (p Pattern) DiesUsed() int { return p.Sockets * p.Dies }

// String names the pattern as "P5 (4/node; sockets×dies×cores 2×2×1)".
func (p Pattern) String() string {
	return fmt.Sprintf("P%d (%d/node; sockets×dies×cores %d×%d×%d)", p.ID, p.TasksPerNode(), p.Sockets, p.Dies, p.Cores)
}

// Slot is a core of a node: socket, die within the socket, core within
// the die.
type Slot struct{ Socket, Die, Core int }

// Slots lists the cores a node uses under p, socket by socket, die by die.
func (p Pattern) Slots() []Slot {
	s := make([]Slot, 0, p.TasksPerNode())
	for a := 0; a < p.Sockets; a++ {
		for b := 0; b < p.Dies; b++ {
			for c := 0; c < p.Cores; c++ {
				s = append(s, Slot{a, b, c})
			}
		}
	}
	return s
}

// Patterns enumerates every pattern t allows: every choice of sockets
// used, dies used per socket and cores used per die. They are numbered by
// tasks per node, then by more sockets, then by more dies, which on
// System G gives the 8 patterns of Li, 2011, Ch. 4, in the thesis's order
// (P2 one core on each processor, P3 same processor different dies, P4
// same die, P5 one core of each die, P6 one full die on each processor,
// P7 one full processor, P8 all cores).
func Patterns(t Topology) ([]Pattern, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	var ps []Pattern
	for s := 1; s <= t.Sockets; s++ {
		for d := 1; d <= t.DiesPerSocket; d++ {
			for c := 1; c <= t.CoresPerDie; c++ {
				ps = append(ps, Pattern{Sockets: s, Dies: d, Cores: c})
			}
		}
	}
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.TasksPerNode() != b.TasksPerNode() {
			return a.TasksPerNode() < b.TasksPerNode()
		}
		if a.Sockets != b.Sockets {
			return a.Sockets > b.Sockets
		}
		return a.Dies > b.Dies
	})
	for i := range ps {
		ps[i].ID = i + 1
	}
	return ps, nil
}

// Feasible reports why p cannot place tasks ranks of taskMemBytes each on
// at most nodes nodes of topology t (nodes ≤ 0: no limit), or nil. The
// thesis's assumptions (Li, 2011, Ch. 4): every node holds the same number of tasks, and a
// node's tasks fit in its DRAM.
func Feasible(t Topology, p Pattern, tasks int, taskMemBytes int64, nodes int) error {
	k := p.TasksPerNode()
	if tasks < 1 {
		return fmt.Errorf("aggregate: %d tasks: need at least one", tasks)
	}
	if tasks%k != 0 {
		return fmt.Errorf("aggregate: %v: %d tasks do not divide into nodes of %d", p, tasks, k)
	}
	if n := tasks / k; nodes > 0 && n > nodes {
		return fmt.Errorf("aggregate: %v: needs %d nodes, the machine has %d", p, n, nodes)
	}
	if t.MemoryBytes > 0 && taskMemBytes > 0 && int64(k) > t.MemoryBytes/taskMemBytes {
		return fmt.Errorf("aggregate: %v: %d tasks of %d bytes exceed the node's %d bytes of memory", p, k, taskMemBytes, t.MemoryBytes)
	}
	return nil
}

// Class is the placement class of a pair of tasks: where a message
// between them travels.
type Class int

// The placement classes, from closest to farthest.
const (
	SameDie     Class = iota // two cores of one die
	SameSocket               // different dies of one socket
	CrossSocket              // different sockets of one node
	InterNode                // different nodes
)

// String names the class.
func (c Class) String() string {
	switch c {
	case SameDie:
		return "same-die"
	case SameSocket:
		return "same-socket"
	case CrossSocket:
		return "cross-socket"
	case InterNode:
		return "inter-node"
	}
	return fmt.Sprintf("Class(%d)", int(c))
}

// ClassOf is the class of two tasks on nodes na, nb in slots a, b.
func ClassOf(na int, a Slot, nb int, b Slot) Class {
	switch {
	case na != nb:
		return InterNode
	case a.Socket != b.Socket:
		return CrossSocket
	case a.Die != b.Die:
		return SameSocket
	}
	return SameDie
}

// Groupings is the number of ways to choose a node's k tasks out of n,
// the binomial coefficient of Li, 2011, §4.2 (n = 16, k = 4: 1820).
func Groupings(n, k int) int64 {
	if k < 0 || k > n {
		return 0
	}
	r := int64(1)
	for i := 1; i <= k; i++ {
		r = r * int64(n-k+i) / int64(i)
	}
	return r
}

// Placements is the number of ways to put k tasks on p cores, p!/(p−k)!
// (Li, 2011, §4.2; p = 8, k = 4: 1680).
func Placements(p, k int) int64 {
	if k < 0 || k > p {
		return 0
	}
	r := int64(1)
	for i := 0; i < k; i++ {
		r *= int64(p - i)
	}
	return r
}
