package critpath_test

import (
	"testing"

	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/sim/critpath"
)

// BenchmarkReplay replays a 64-rank ring plainly and with the path's
// recorder, to show what asking for the path costs (the plain replay is
// the engine alone: no recorder is attached unless asked).
func BenchmarkReplay(b *testing.B) {
	g := ring(b, 64, 4096)
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := sim.Run(g, net, sim.Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("critical-path", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, _, err := critpath.Run(g, net, sim.Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
