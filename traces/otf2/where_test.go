//go:build cgo && !nootf2

package otf2

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/capsim/capsim/traces/mpi"
)

// whereRe parses what Options.Where names an event by; its paths may hold
// spaces (a TMPDIR with them).
var whereRe = regexp.MustCompile(`^(.+) location (\d+) \((.+)\), time (\d+) ticks = (-?)(\d+)\.(\d{9}) s from the trace start$`)

// TestWhere: with Options.Where every event is named by the archive, a
// location of its rank with that location's event file, and a tick; the
// events are those of a read without it; an MPI event's tick is a
// record otf2-print lists at that location (not an ENTER or LEAVE), and
// its seconds are its tick's ns, not before the event's recorded start.
func TestWhere(t *testing.T) {
	fixture := writeFixture(t)
	for _, tc := range []struct {
		name   string
		anchor string
		opt    Options
	}{
		{"fixture", fixture, Options{}},
		{"fixture with gaps", fixture, Options{KeepGaps: true}},
		{"hybrid", filepath.Join("testdata", "dialects", "hybrid", "traces.otf2"), Options{}},
		{"hybrid with gaps", filepath.Join("testdata", "dialects", "hybrid", "traces.otf2"), Options{KeepGaps: true}},
		{"unwind", filepath.Join("testdata", "dialects", "unwind", "traces.otf2"), Options{}},
		{"epoch-us", filepath.Join("testdata", "dialects", "epoch-us", "traces.otf2"), Options{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plain, err := Read(tc.anchor, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if plain.Where != nil {
				t.Fatal("Where set without Options.Where")
			}
			o := tc.opt
			o.Where, o.Stamps = true, true
			tr, err := Read(tc.anchor, o)
			if err != nil {
				t.Fatal(err)
			}
			if tr.Where == nil {
				t.Fatal("Where not set with Options.Where")
			}
			records := printRecords(t, tc.anchor)
			for r, rk := range tr.Ranks {
				if len(rk.Events) != len(plain.Ranks[r].Events) {
					t.Fatalf("rank %d: %d events, %d without Where", r, len(rk.Events), len(plain.Ranks[r].Events))
				}
				for i, e := range rk.Events {
					if e != plain.Ranks[r].Events[i] {
						t.Fatalf("rank %d event %d: %+v, %+v without Where", r, i, e, plain.Ranks[r].Events[i])
					}
					src := tr.Source(r, i)
					m := whereRe.FindStringSubmatch(src)
					if m == nil {
						t.Fatalf("rank %d event %d named %q", r, i, src)
					}
					loc, _ := strconv.ParseUint(m[2], 10, 64)
					if m[1] != tc.anchor || m[3] != evtFile(tc.anchor, loc) {
						t.Errorf("rank %d event %d named %q: want archive %s and its event file of location %d", r, i, src, tc.anchor, loc)
					}
					if e.Kind == mpi.Compute {
						continue
					}
					key := m[2] + " " + m[4]
					if kinds := records[key]; records != nil && len(kinds) == 0 {
						t.Errorf("rank %d event %d (%v) named %q: otf2-print lists no record at location %s, tick %s", r, i, e.Kind, src, m[2], m[4])
					}
					sec, _ := strconv.ParseInt(m[6], 10, 64)
					frac, _ := strconv.ParseInt(m[7], 10, 64)
					ns := sec*1e9 + frac
					if m[5] == "-" {
						ns = -ns
					}
					if st := rk.Stamps[i]; ns < st.Start {
						t.Errorf("rank %d event %d named %q: %d ns, before its call's entry at %d ns", r, i, src, ns, st.Start)
					}
				}
			}
		})
	}
}

// printRecords returns the records otf2-print lists for anchor other
// than ENTER and LEAVE, by "LOCATION TICK"; nil without otf2-print.
func printRecords(t *testing.T, anchor string) map[string][]string {
	t.Helper()
	if _, err := exec.LookPath("otf2-print"); err != nil {
		t.Log("otf2-print not installed (Debian otf2-tools): records not checked against it")
		return nil
	}
	out, err := exec.Command("otf2-print", anchor).Output()
	if err != nil {
		t.Fatalf("otf2-print %s: %v", anchor, err)
	}
	recs := map[string][]string{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || f[0] == "ENTER" || f[0] == "LEAVE" {
			continue
		}
		if _, err := strconv.ParseUint(f[2], 10, 64); err != nil {
			continue
		}
		recs[f[1]+" "+f[2]] = append(recs[f[1]+" "+f[2]], f[0])
	}
	return recs
}
