//go:build !unix

package testenv

import "time"

// CPUTime is not measured here (0).
func CPUTime() time.Duration { return 0 }

// SystemTime is not measured here (0).
func SystemTime() time.Duration { return 0 }
