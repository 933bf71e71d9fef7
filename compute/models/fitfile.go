package models

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/arrowtab"
	"github.com/capsim/capsim/compute/eiger"
	"github.com/capsim/capsim/compute/modelfile"
)

// ErrOption is wrapped by the errors of FitFile and PredictRegion about
// their options (a column the samples lack, a region name they do not
// need, a parameter the model does not have), as opposed to errors in the
// samples or models themselves.
var ErrOption = errors.New("option")

type optionError struct{ msg string }

func (e optionError) Error() string        { return e.msg }
func (e optionError) Is(target error) bool { return target == ErrOption }

func optionf(format string, a ...any) error { return optionError{fmt.Sprintf(format, a...)} }

// FitFileOptions configure FitFile.
type FitFileOptions struct {
	// Kind is the model kind: compute.KindTable, compute.KindDVFS,
	// compute.KindCOSIntel, KindEiger or KindPhaseMLR.
	Kind compute.Kind
	// Recorded is the configuration the traces to be replayed were
	// recorded at (phase-mlr: the first sample when zero).
	Recorded  compute.Config
	Intercept bool // cos: fit an intercept (not the paper's form)

	// Eiger (Anger, PhD thesis, Georgia Tech 2016, Ch. 3).
	Region      string             // region of samples without a region column
	TimeColumn  string             // column of the time in s ("": time_s, else seconds)
	PowerColumn string             // column of the average power in W ("": no power model)
	Inputs      []string           // input columns (nil: every number column but the outputs and rank)
	Fixed       map[string]float64 // replay value of non-configuration inputs (default: their sample mean)
	Eiger       eiger.Options

	// Samples are phase-mlr's sample configurations (Li, PhD thesis,
	// Virginia Tech 2011, Eq. 3.17), in the order of its coefficients.
	Samples []compute.Config
}

// FitFile fits one model per region to the measured samples in the CSV
// or Arrow file at path (schemas in docs/reference/models.md; an Arrow file is told
// by its extension, ArrowPath) and returns the model file and the fit's
// statistics as lines of text. The file's Recorded configuration is
// o.Recorded (phase-mlr: the first sample when it is zero).
func FitFile(path string, o FitFileOptions) (*modelfile.File, []string, error) {
	switch o.Kind {
	case compute.KindTable, compute.KindDVFS, compute.KindCOSIntel:
		return fitSamplesFile(path, o)
	case KindEiger:
		return fitEigerFile(path, o)
	case KindPhaseMLR:
		return fitPhaseMLRFile(path, o)
	}
	return nil, nil, optionf("--kind %q: want table, dvfs, cos, eiger or phase-mlr", o.Kind)
}

// ArrowPath reports whether path names an Arrow IPC file by its
// extension (.arrow, .feather or .ipc); samples in other files are CSV.
func ArrowPath(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".arrow" || ext == ".feather" || ext == ".ipc"
}

// fitSamplesFile fits table, dvfs or cos models.
func fitSamplesFile(path string, o FitFileOptions) (*modelfile.File, []string, error) {
	var ss []modelfile.Sample
	if ArrowPath(path) {
		t, err := arrowtab.ReadFile(path)
		if err != nil {
			return nil, nil, err
		}
		if ss, err = modelfile.SamplesFromTable(t, path); err != nil {
			return nil, nil, err
		}
	} else {
		fh, err := os.Open(path)
		if err != nil {
			return nil, nil, err
		}
		defer fh.Close()
		if ss, err = modelfile.ReadSamples(fh, path); err != nil {
			return nil, nil, err
		}
	}
	file, reps, err := modelfile.Fit(ss, modelfile.FitOptions{Kind: o.Kind, Recorded: o.Recorded, Intercept: o.Intercept})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	lines := make([]string, len(reps))
	for i, r := range reps {
		lines[i] = r.String()
	}
	return file, lines, nil
}

// fitPhaseMLRFile fits the phase-time regression and IPS power model
// (Li's thesis, Eqs. 3.17 and 3.19).
func fitPhaseMLRFile(path string, o FitFileOptions) (*modelfile.File, []string, error) {
	if len(o.Samples) == 0 {
		return nil, nil, optionf("phase-mlr needs --sample for each sample configuration")
	}
	rec := o.Recorded
	if rec == (compute.Config{}) {
		rec = o.Samples[0]
	}
	var rows []PhaseRow
	var events []string
	if ArrowPath(path) {
		t, err := arrowtab.ReadFile(path)
		if err != nil {
			return nil, nil, err
		}
		if rows, events, err = PhaseRowsFromTable(t, path); err != nil {
			return nil, nil, err
		}
	} else {
		fh, err := os.Open(path)
		if err != nil {
			return nil, nil, err
		}
		defer fh.Close()
		if rows, events, err = ReadPhaseRows(fh, path); err != nil {
			return nil, nil, err
		}
	}
	fit, err := FitPhaseMLR(rows, events, o.Samples)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	file := modelfile.New(rec)
	def, _ := modelfile.NewEntry("", compute.Measured{})
	file.Default = &def
	for i, name := range fit.Regions {
		if _, _, err := fit.Models[i].Time(rec); err != nil {
			return nil, nil, optionf("--recorded %s: %v", rec, err)
		}
		e, err := Entry(modelfile.GlobQuote(name), fit.Models[i], "")
		if err != nil {
			return nil, nil, err
		}
		file.Regions = append(file.Regions, e)
	}
	lines := append([]string{fmt.Sprintf("phase-mlr: %d phase(s), %d sample configuration(s), %d event(s): %s",
		len(fit.Regions), len(o.Samples), len(events), strings.Join(events, ", "))}, fit.Lines...)
	return file, lines, nil
}

// eigerTable is the numeric columns of eiger samples plus region labels.
type eigerTable struct {
	names   []string
	rows    [][]float64
	regions []string // nil: all rows are one region
}

// readEigerTable reads lwperf CSV (numbers only) or an Arrow table with
// number columns and an optional string column "region".
func readEigerTable(path string) (*eigerTable, error) {
	if !ArrowPath(path) {
		fh, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer fh.Close()
		s, err := eiger.ReadCSV(fh, path)
		if err != nil {
			return nil, err
		}
		return &eigerTable{names: s.Names, rows: s.Rows}, nil
	}
	t, err := arrowtab.ReadFile(path)
	if err != nil {
		return nil, err
	}
	et := &eigerTable{rows: make([][]float64, t.Rows)}
	var num []*arrowtab.Column
	for i := range t.Columns {
		c := &t.Columns[i]
		switch {
		case c.Name == "region" && c.IsString():
			et.regions = c.Strings
		case c.IsString():
			return nil, fmt.Errorf("%s: column %q: eiger samples take numbers and one string column \"region\"", path, c.Name)
		default:
			et.names = append(et.names, c.Name)
			num = append(num, c)
		}
	}
	for i := range et.rows {
		r := make([]float64, len(num))
		for j, c := range num {
			r[j] = c.Numbers[i]
		}
		et.rows[i] = r
	}
	return et, nil
}

// quoteAll quotes names and joins them with commas.
func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// eigerColumns picks the time, power and input columns of t.
func eigerColumns(path string, t *eigerTable, o FitFileOptions) (oj, pj int, in []int, err error) {
	col := map[string]int{}
	for j, n := range t.names {
		col[n] = j
	}
	out := o.TimeColumn
	if out == "" {
		out = "time_s"
		if _, ok := col[out]; !ok {
			out = "seconds"
		}
	}
	has := "its columns: " + quoteAll(t.names)
	oj, ok := col[out]
	if !ok {
		return 0, 0, nil, optionf("%s: no output column %q (set --time-column; %s)", path, out, has)
	}
	pj = -1
	if o.PowerColumn != "" {
		if pj, ok = col[o.PowerColumn]; !ok {
			return 0, 0, nil, optionf("%s: no power column %q (%s)", path, o.PowerColumn, has)
		}
	}
	if o.Inputs != nil {
		seen := map[int]bool{}
		for _, n := range o.Inputs {
			j, ok := col[strings.TrimSpace(n)]
			if !ok {
				return 0, 0, nil, optionf("%s: --inputs: no input column %q (%s)", path, n, has)
			}
			if j == oj || j == pj {
				return 0, 0, nil, optionf("input %q is also an output", n)
			}
			if seen[j] {
				return 0, 0, nil, optionf("--inputs: column %q given twice (a regression cannot tell its two coefficients apart)", strings.TrimSpace(n))
			}
			seen[j] = true
			in = append(in, j)
		}
	} else {
		for j, n := range t.names {
			if j != oj && j != pj && n != "rank" && n != "energy_j" {
				in = append(in, j)
			}
		}
	}
	if len(in) == 0 {
		return 0, 0, nil, fmt.Errorf("%s: no input columns", path)
	}
	return oj, pj, in, nil
}

// fitEigerFile fits one Eiger model per region (Anger's thesis, Ch. 3).
func fitEigerFile(path string, o FitFileOptions) (*modelfile.File, []string, error) {
	t, err := readEigerTable(path)
	if err != nil {
		return nil, nil, err
	}
	oj, pj, in, err := eigerColumns(path, t, o)
	if err != nil {
		return nil, nil, err
	}
	groups := map[string][]int{}
	if t.regions == nil {
		if o.Region == "" {
			return nil, nil, optionf("%s has no region column: name the region with --region", path)
		}
		all := make([]int, len(t.rows))
		for i := range all {
			all[i] = i
		}
		groups[o.Region] = all
	} else {
		if o.Region != "" {
			return nil, nil, optionf("%s has a region column; --region is for files without one", path)
		}
		for i, r := range t.regions {
			if r == "" {
				return nil, nil, fmt.Errorf("%s: row %d: empty region", path, i+1)
			}
			groups[r] = append(groups[r], i)
		}
	}
	names := make([]string, 0, len(groups))
	for n := range groups {
		names = append(names, n)
	}
	sort.Strings(names)
	file := modelfile.New(o.Recorded)
	def, _ := modelfile.NewEntry("", compute.Measured{})
	file.Default = &def
	var lines []string
	inNames := make([]string, len(in))
	for k, j := range in {
		inNames[k] = t.names[j]
	}
	for _, reg := range names {
		idx := groups[reg]
		s := EigerSamples{Inputs: inNames, X: make([][]float64, len(idx)), Time: make([]float64, len(idx))}
		if pj >= 0 {
			s.Power = make([]float64, len(idx))
		}
		for k, i := range idx {
			row := t.rows[i]
			x := make([]float64, len(in))
			for q, j := range in {
				x[q] = row[j]
			}
			s.X[k], s.Time[k] = x, row[oj]
			if pj >= 0 {
				s.Power[k] = row[pj]
			}
		}
		m, ls, err := FitEiger(s, o.Eiger, o.Recorded, o.Fixed)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: region %q: %w", path, reg, err)
		}
		e, err := Entry(modelfile.GlobQuote(reg), m, strings.Join(ls, "; "))
		if err != nil {
			return nil, nil, err
		}
		file.Regions = append(file.Regions, e)
		lines = append(lines, fmt.Sprintf("%s: eiger, %d samples, inputs %s", reg, len(idx), strings.Join(inNames, ", ")))
		for _, l := range ls {
			lines = append(lines, "  "+l)
		}
	}
	return file, lines, nil
}
