package gctune

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestPercent(t *testing.T) {
	for _, tc := range []struct {
		live uint64
		want int
	}{
		{0, 100},
		{15 << 20, 100},
		{64 << 20, 100},
		{96 << 20, 66},
		{128 << 20, 50},
		{256 << 20, 25},
		{4 << 30, 25},
	} {
		if got := Percent(tc.live); got != tc.want {
			t.Errorf("Percent(%d MiB) = %d, want %d", tc.live>>20, got, tc.want)
		}
	}
}

// TestStart checks that the target follows the live heap: 100 % with a
// small one, 25 % once 512 MiB are live, 100 % again once they are freed.
func TestStart(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 512 MiB")
	}
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	Start()
	percent := func() int {
		p := debug.SetGCPercent(-1)
		debug.SetGCPercent(p)
		return p
	}
	// wait collects until the target is want: a collection frees the
	// sentinel, whose finalizer runs soon after on the finalizer
	// goroutine, and the next collection finds the next sentinel.
	wait := func(what string, want int) {
		t.Helper()
		for range 500 {
			runtime.GC()
			time.Sleep(time.Millisecond)
			if percent() == want {
				return
			}
		}
		t.Fatalf("%s: target %d %%, want %d", what, percent(), want)
	}
	wait("small heap", 100)
	big := make([]byte, 512<<20)
	for i := 0; i < len(big); i += 4096 {
		big[i] = 1
	}
	wait("512 MiB live", 25)
	runtime.KeepAlive(big)
	big = nil
	wait("freed", 100)
}
