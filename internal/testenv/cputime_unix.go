//go:build unix

package testenv

import (
	"syscall"
	"time"
)

// CPUTime returns the CPU time (user + system) the process has used, so
// that benchmarks can report rates per CPU second on a loaded machine.
func CPUTime() time.Duration {
	user, sys := rusage()
	return user + sys
}

// SystemTime returns the part of CPUTime spent in the kernel on the
// process's behalf: page faults, for one, when a program first touches
// memory it was just given.
func SystemTime() time.Duration {
	_, sys := rusage()
	return sys
}

// rusage returns the process's user and system time (0 where getrusage
// fails).
func rusage() (user, sys time.Duration) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}
