package testenv

import (
	"time"

	"github.com/capsim/capsim/internal/cputime"
)

// CPUTime returns the CPU time (user + system) the process has used, so
// that benchmarks can report rates per CPU second on a loaded machine (0
// where it is not measured).
func CPUTime() time.Duration {
	user, sys := cputime.Used()
	return user + sys
}

// SystemTime returns the part of CPUTime spent in the kernel on the
// process's behalf: page faults, for one, when a program first touches
// memory it was just given.
func SystemTime() time.Duration {
	_, sys := cputime.Used()
	return sys
}
