package models

import (
	"errors"
	"strings"
	"testing"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/eiger"
)

func TestFitFile(t *testing.T) {
	rec := compute.Config{CPUFreqGHz: 2.6}
	for _, tc := range []struct {
		name    string
		path    string
		o       FitFileOptions
		regions int
		line    string // a line of the fit's statistics
	}{
		{"dvfs", "testdata/dvfs_runs.csv", FitFileOptions{Kind: compute.KindDVFS, Recorded: rec}, 1, "stencil.compute"},
		{"eiger", "testdata/eiger_two_terms.csv", FitFileOptions{Kind: KindEiger, Recorded: rec, Region: "solve",
			Eiger: eiger.Options{K: 1, Threshold: 1e-6}}, 1, "2 terms: 5 +3·log2(x1) +0.25·x2^2"},
	} {
		file, lines, err := FitFile(tc.path, tc.o)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(file.Regions) != tc.regions || file.Recorded != rec || !strings.Contains(strings.Join(lines, "\n"), tc.line) {
			t.Errorf("%s: %d regions recorded at %s, lines\n%s", tc.name, len(file.Regions), file.Recorded, strings.Join(lines, "\n"))
		}
		if _, err := file.Set(Decoders()); err != nil {
			t.Errorf("%s: the fitted file does not load: %v", tc.name, err)
		}
	}
	for _, tc := range []struct {
		name string
		path string
		o    FitFileOptions
		want string // in the message, if not ""
	}{
		{"unknown kind", "testdata/dvfs_runs.csv", FitFileOptions{Kind: "nope"}, ""},
		{"eiger without a region", "testdata/eiger_two_terms.csv", FitFileOptions{Kind: KindEiger}, ""},
		// A column that selects nothing names the columns there are.
		{"eiger without its time column", "testdata/eiger_two_terms.csv", FitFileOptions{Kind: KindEiger, Region: "r", TimeColumn: "t"},
			`no output column "t" (set --time-column; its columns: "x1", "x2", "time_s")`},
		{"eiger input of another case", "testdata/eiger_two_terms.csv", FitFileOptions{Kind: KindEiger, Region: "r", Inputs: []string{"X1"}},
			`--inputs: no input column "X1" (its columns: "x1", "x2", "time_s")`},
		{"eiger without its power column", "testdata/eiger_two_terms.csv", FitFileOptions{Kind: KindEiger, Region: "r", PowerColumn: "watts"},
			`no power column "watts" (its columns: "x1", "x2", "time_s")`},
		{"eiger input is the output", "testdata/eiger_two_terms.csv", FitFileOptions{Kind: KindEiger, Region: "r", Inputs: []string{"time_s"}}, ""},
		{"eiger input given twice", "testdata/eiger_two_terms.csv", FitFileOptions{Kind: KindEiger, Region: "r", Inputs: []string{"x1", " x1"}}, ""},
		{"phase-mlr without samples", "testdata/dvfs_runs.csv", FitFileOptions{Kind: KindPhaseMLR}, ""},
	} {
		if _, _, err := FitFile(tc.path, tc.o); !errors.Is(err, ErrOption) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want ErrOption with %q", tc.name, err, tc.want)
		}
	}
	if _, _, err := FitFile("testdata/no-such.csv", FitFileOptions{Kind: compute.KindDVFS}); err == nil || errors.Is(err, ErrOption) {
		t.Errorf("missing file: %v", err)
	}
}

func TestArrowPath(t *testing.T) {
	for p, want := range map[string]bool{"a.arrow": true, "a.FEATHER": true, "b.ipc": true, "c.csv": false, "arrow": false} {
		if ArrowPath(p) != want {
			t.Errorf("ArrowPath(%q) = %v", p, !want)
		}
	}
}
