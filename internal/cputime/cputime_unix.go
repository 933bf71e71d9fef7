//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Used returns the CPU time the process has used so far, all threads, in
// user space and in the kernel on its behalf (0 and 0 where getrusage
// fails).
func Used() (user, system time.Duration) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}
