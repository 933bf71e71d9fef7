package scenarios

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/capsim/capsim/compute/power"
)

// FuzzParseCaps checks cap lists and ranges: accepted caps are positive
// and at most power.MaxWatts, and a list prints back to the same caps.
func FuzzParseCaps(f *testing.F) {
	for _, s := range []string{"60", "35,60,90", "35:250:5", "0", "-1", "1,,2", "Inf", "1:2", "1e308,1e-308", "60,60", "1e300", "35:250:1e-300"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		caps, err := ParseCaps(s)
		if err != nil {
			return
		}
		if len(caps) == 0 {
			t.Fatalf("%q: no caps and no error", s)
		}
		var parts []string
		for _, c := range caps {
			if !(c > 0) || c > power.MaxWatts {
				t.Fatalf("%q: cap %g", s, c)
			}
			parts = append(parts, strconv.FormatFloat(c, 'g', -1, 64))
		}
		back, err := ParseCaps(strings.Join(parts, ","))
		if err != nil || fmt.Sprint(back) != fmt.Sprint(caps) {
			t.Fatalf("%q: round trip %v → %v, %v", s, caps, back, err)
		}
	})
}

// TestParseCapsRefused: a cap listed twice (two identical rows of
// capsim schedule) or past power.MaxWatts is refused.
func TestParseCapsRefused(t *testing.T) {
	for _, s := range []string{"60,60", "1e300", "60, 60.0"} {
		if _, err := ParseCaps(s); err == nil {
			t.Errorf("ParseCaps(%q) accepted", s)
		}
	}
}

func TestMachineByName(t *testing.T) {
	sc, err := LoadDefault()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		index int
		err   bool
	}{
		{"", 0, false},
		{sc.Machines[len(sc.Machines)-1].Name, len(sc.Machines) - 1, false},
		{"no-such-machine", 0, true},
	} {
		m, i, err := sc.MachineByName(tc.name)
		if tc.err {
			if !errors.Is(err, ErrNoMachine) || !strings.Contains(err.Error(), tc.name) || !strings.Contains(err.Error(), strconv.Quote(sc.Machines[0].Name)) ||
				strings.Contains(err.Error(), ErrNoMachine.Error()) {
				t.Errorf("%q: error %v, want ErrNoMachine naming it and the machines there are, once", tc.name, err)
			}
			continue
		}
		if err != nil || i != tc.index || m != &sc.Machines[tc.index] {
			t.Errorf("%q: machine %d, %v; want %d", tc.name, i, err, tc.index)
		}
	}
}

func TestLoadOrDefault(t *testing.T) {
	sc, err := LoadOrDefault("")
	if err != nil || sc.Name == "" {
		t.Fatalf("default: %v", err)
	}
	if _, err := LoadOrDefault("testdata/no-such-file.toml"); err == nil {
		t.Fatal("a missing file loaded")
	}
}
