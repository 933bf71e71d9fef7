package main

import (
	"strings"
	"testing"
	"time"
)

// TestScaleTargets checks each target's verdict: met, not met, and not
// checked where a row did not run or LogGOPSim is missing.
func TestScaleTargets(t *testing.T) {
	row := func(label string, events int64, cpu time.Duration, rss int64) scaleRow {
		return scaleRow{label: label, events: events, cpu: cpu, rss: rss}
	}
	e7 := row("10^7", 10_000_000, 2*time.Second, 280<<20)
	ring := &peerResult{lgsMin: 2 * time.Second, lgsCPU: 2 * time.Second, lgsRSS: 576 << 20, check: "host 0 at 5 ns in both",
		capsim: stats{min: 500 * time.Millisecond, minCPU: 300 * time.Millisecond, rss: 100 << 20}}
	for _, c := range []struct {
		name string
		rows []scaleRow
		ring *peerResult
		want []string
	}{
		{"all met but the wall ratio", []scaleRow{e7, row("10^8", 100_000_000, 25*time.Second, 310<<20), row("10^9", 999_997_440, 300*time.Second, 300<<20)}, ring, []string{
			"| peak RSS at 10^8 events ≤ 1 GiB | 310 MiB | met |",
			"| 1.25× (250 and 200 ns) | met |",
			"| 999997440 events in 300 s CPU, peak RSS 300 MiB | met |",
			"| 0.25 (0.500 s and 2.000 s, least of each; CPU 0.15: 0.300 s and 2.000 s; the CPU ratio says otherwise",
			"| not met |",
			"| 0.17 (100 MiB and 576 MiB) | met |",
			"| host 0 at 5 ns in both | met |"}},
		{"too much memory and growth", []scaleRow{e7, row("10^8", 100_000_000, 40*time.Second, 2<<30), {label: "10^9", skipped: "not run: above -scale-max 1e+08"}}, nil, []string{
			"| 2048 MiB | not met |",
			"| 2.00× (400 and 200 ns) | not met |",
			"| a 10^9-event replay completes | not run: above -scale-max 1e+08 | not checked |",
			"| no LogGOPSim | not checked |",
			noPeer}},
		{"nothing above 10^7", []scaleRow{e7, {label: "10^8", skipped: "not run"}, {label: "10^9", skipped: "not run"}}, nil, []string{
			"| peak RSS at 10^8 events ≤ 1 GiB | not run | not checked |",
			"that at 10^7 | not run | not checked |"}},
	} {
		var b strings.Builder
		scaleTargets(&b, c.rows, c.ring)
		for _, s := range c.want {
			if !strings.Contains(b.String(), s) {
				t.Errorf("%s: no %q in\n%s", c.name, s, b.String())
			}
		}
	}
}
