package sim

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/traces/goal"
)

// paramsFromTag reads a conformance file tag: "default" or e.g.
// "L5000o200g100G2O1S4096".
func paramsFromTag(tag string) (network.LogGOPS, error) {
	if tag == "default" {
		return network.DefaultLogGOPS(), nil
	}
	m := regexp.MustCompile(`^L(\d+)o(\d+)g(\d+)G(\d+)O(\d+)S(\d+)$`).FindStringSubmatch(tag)
	if m == nil {
		return network.LogGOPS{}, fmt.Errorf("unknown parameter tag %q", tag)
	}
	var v [6]int64
	for i := range v {
		v[i], _ = strconv.ParseInt(m[i+1], 10, 64)
	}
	return network.NewLogGOPS(v[0], v[1], v[2], v[3], v[4], v[5]), nil
}

func readTimes(path string) (map[int]int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	want := map[int]int64{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var r int
		var t int64
		if _, err := fmt.Sscanf(line, "%d %d", &r, &t); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		want[r] = t
	}
	return want, sc.Err()
}

// TestLogGOPSimConformance replays every schedule of the shared conformance
// folder under every parameter set listed for it and compares each host's
// finish time with LogGOPSim's, to the nanosecond, from the whole graph
// and from the file window by window (schedgen writes windowed form; the
// replays that need the whole graph, for dependencies on later operations
// or more than 16 receives without dependencies in libstdc++'s order,
// are left out).
func TestLogGOPSimConformance(t *testing.T) {
	// 14 parameter sets, both orders; reduce_binomial_12's dependencies
	// on later operations need the whole graph.
	if n := checkTimes(t, testenv.Shared(t, "conformance/loggopsim"), false); n < 26 {
		t.Errorf("%d replays streamed, want at least 26", n)
	}
}

// TestLogGOPSimDifferential does the same for random schedules
// (testdata/gendiff.go) with the times real LogGOPSim runs reported
// (testdata/README.md): irequires, several CPUs and NICs, wildcards, zero
// calcs and messages on both sides of S. Their receives are not the sizes
// of the messages they match, so they replay with LogGOPSim's sizes
// (Options.LogGOPSimSizes); the conformance set's schedgen schedules
// replay with the defaults, which check every size.
func TestLogGOPSimDifferential(t *testing.T) {
	checkTimes(t, filepath.Join("testdata", "differential"), true) // several CPUs and NICs: whole graphs
}

// checkTimes checks every schedule of dir whole and, where it can,
// streamed, with Options.LogGOPSimSizes set to sizes, and returns how many
// replays streamed.
func checkTimes(t *testing.T, dir string, sizes bool) int {
	times, _ := filepath.Glob(filepath.Join(dir, "*.times"))
	if len(times) == 0 {
		t.Fatalf("no .times files in %s", dir)
		return 0
	}
	streamed := 0
	for _, tf := range times {
		base := strings.TrimSuffix(filepath.Base(tf), ".times")
		i := strings.LastIndexByte(base, '.')
		name, tag := base[:i], base[i+1:]
		t.Run(base, func(t *testing.T) {
			net, err := paramsFromTag(tag)
			if err != nil {
				t.Fatal(err)
			}
			g, err := goal.ReadFile(filepath.Join(dir, name+".goal"))
			if err != nil {
				t.Fatal(err)
			}
			want, err := readTimes(tf)
			if err != nil {
				t.Fatal(err)
			}
			if len(want) != g.NumRanks() {
				t.Fatalf("%d times for %d ranks", len(want), g.NumRanks())
			}
			for _, lib := range []bool{false, true} {
				res, err := Run(g, net, Options{LibstdcxxOrder: lib, LogGOPSimSizes: sizes})
				if err != nil {
					t.Fatal(err)
				}
				for r, w := range want {
					if got := res.Ranks[r].Finish; got != w {
						t.Errorf("libstdc++ order %v: rank %d finishes at %d, LogGOPSim says %d (diff %+d)", lib, r, got, w, got-w)
					}
				}
				if streamedTimes(t, filepath.Join(dir, name+".goal"), net, Options{LibstdcxxOrder: lib, LogGOPSimSizes: sizes}, want) {
					streamed++
				}
			}
		})
	}
	return streamed
}

// streamedTimes replays the GOAL file at path window by window
// (goal.Windows, RunSource) and compares each rank's finish time with
// want; it reports false where the file is not in windowed form or the
// replay needs the whole graph.
func streamedTimes(t *testing.T, path string, net network.LogGOPS, opt Options, want map[int]int64) bool {
	t.Helper()
	gw, err := goal.OpenWindows(path)
	if errors.Is(err, goal.ErrNotWindowed) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	defer gw.Close()
	res, err := RunSource(gw, net, opt)
	var wg *WholeGraphError
	if errors.As(err, &wg) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	for r, w := range want {
		if got := res.Ranks[r].Finish; got != w {
			t.Errorf("streamed, libstdc++ order %v: rank %d finishes at %d, LogGOPSim says %d (diff %+d)", opt.LibstdcxxOrder, r, got, w, got-w)
		}
	}
	return true
}

// TestLogGOPSimDifferentialMakespan checks random schedules of 17 to 40
// ranks, for which LogGOPSim prints only the largest finish time and its
// host (files NAME.TAG.makespan hold "HOST TIME").
func TestLogGOPSimDifferentialMakespan(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "differential", "*.makespan"))
	if len(files) == 0 {
		t.Fatal("no .makespan files")
	}
	for _, mf := range files {
		base := strings.TrimSuffix(filepath.Base(mf), ".makespan")
		i := strings.LastIndexByte(base, '.')
		name, tag := base[:i], base[i+1:]
		t.Run(base, func(t *testing.T) {
			net, err := paramsFromTag(tag)
			if err != nil {
				t.Fatal(err)
			}
			g, err := goal.ReadFile(filepath.Join("testdata", "differential", name+".goal"))
			if err != nil {
				t.Fatal(err)
			}
			want, err := readTimes(mf)
			if err != nil || len(want) != 1 {
				t.Fatalf("%s: %v", mf, err)
			}
			res, err := Run(g, net, Options{LibstdcxxOrder: true, LogGOPSimSizes: true})
			if err != nil {
				t.Fatal(err)
			}
			for host, w := range want {
				first := -1 // LogGOPSim names the first host with the largest time
				for r, st := range res.Ranks {
					if st.Finish == res.Makespan {
						first = r
						break
					}
				}
				if res.Makespan != w || first != host {
					t.Errorf("makespan %d at host %d, LogGOPSim %d at host %d", res.Makespan, first, w, host)
				}
			}
		})
	}
}
