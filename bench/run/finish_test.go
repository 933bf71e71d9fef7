package main

import (
	"strings"
	"testing"
)

// TestSameFinish reads both forms of LogGOPSim's report (every host up to
// 16 hosts, the latest beyond) against capsim's finish times.
func TestSameFinish(t *testing.T) {
	small := "LogGP network backend; size: 3 (1 CPUs, 1 NICs); L=2500, o=1500 g=1000, G=6, O=0, P=3, S=65535\nPERFORMANCE: Processes: 3 \t Events: 12 \t Time: 0 s \t Speed: inf ev/s\nTimes: \nHost 0: 17000\nHost 1: 20500\nHost 2: 20500\n"
	big := "PERFORMANCE: Processes: 1024 \t Events: 6285312 \t Time: 4 s \t Speed: 1571328.00 ev/s\nMaximum finishing time at host 0: 23811348 (0.0238113 s)\n"
	for _, c := range []struct {
		name, out string
		finish    []int64
		err       string // "" for a match
	}{
		{"all hosts", small, []int64{17000, 20500, 20500}, ""},
		{"one host differs", small, []int64{17000, 20501, 20500}, "host 1"},
		{"fewer ranks", small, []int64{17000, 20500}, "host 2"},
		{"more ranks", small, []int64{17000, 20500, 20500, 1}, "3 host times for 4 ranks"},
		{"latest", big, []int64{23811348, 23811348, 5}, ""},
		{"latest time differs", big, []int64{23811347, 5}, "latest host 0 at 23811348"},
		{"latest host differs", big, []int64{5, 23811348}, "capsim: host 1"},
		{"no report", "deadlock\n", []int64{1}, "0 host times"},
		{"no capsim times", small, nil, "no finish times"},
	} {
		got, err := sameFinish([]byte(c.out), c.finish)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want one containing %q (got %q)", c.name, err, c.err, got)
		}
	}
}
