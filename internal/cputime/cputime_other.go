//go:build !unix

package cputime

import "time"

// Used is not measured here (0 and 0).
func Used() (user, system time.Duration) { return 0, 0 }
