package models

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/internal/jsondup"
)

// KindIPCMLR is Dong Li's piecewise IPC regression for task aggregation
// (Dong Li, PhD thesis, Virginia Tech 2011, §4.1, Eqs. 4.1–4.3), see IPCMLR.
const KindIPCMLR = "ipc-mlr"

// IPCFormat is the "format" of an IPC model file.
const IPCFormat = "capsim-ipc-model"

// ThesisIPCBins are the boundaries of the thesis's four IPC categories,
// [0,1), [1,1.5), [1.5,2.0) and [2.0,+∞) (Dong Li's thesis §4.1).
var ThesisIPCBins = []float64{1, 1.5, 2}

// IPCRow is one measurement of a task (a "case": a rank of a training
// benchmark, or of the application to predict) under one aggregation
// pattern: its IPC and its hardware event rates (in the order of the
// events; NaN where not measured, which is allowed away from the sample
// patterns).
type IPCRow struct {
	Case    string
	Pattern int
	IPC     float64
	Rates   []float64
}

// ipcFixed are the columns of an IPC CSV that are not event rates.
var ipcFixed = []string{"case", "pattern", "ipc"}

// ReadIPCRows reads IPC measurements from CSV: a header with case,
// pattern (a pattern number, "4" or "P4") and ipc, then one column per
// hardware event rate; '#' starts a comment line; an empty event cell
// reads as NaN. It returns the rows and the event names in column order.
func ReadIPCRows(r io.Reader, name string) ([]IPCRow, []string, error) {
	cr, header, err := readHeader(r, name)
	if err != nil {
		return nil, nil, err
	}
	idx, events, evCol, err := splitHeader(name, header, ipcFixed)
	if err != nil {
		return nil, nil, err
	}
	for _, c := range ipcFixed {
		if _, ok := idx[c]; !ok {
			return nil, nil, fmt.Errorf("%s: header: missing column %q", name, c)
		}
	}
	var rows []IPCRow
	seen := map[[2]string]int{}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		var r IPCRow
		r.Case = strings.TrimSpace(rec[idx["case"]])
		if r.Case == "" {
			return nil, nil, fmt.Errorf("%s: line %d: empty case", name, line)
		}
		if r.Pattern, err = ParsePatternID(rec[idx["pattern"]]); err != nil {
			return nil, nil, fmt.Errorf("%s: line %d: column pattern: %w", name, line, err)
		}
		s := strings.TrimSpace(rec[idx["ipc"]])
		r.IPC, err = strconv.ParseFloat(s, 64)
		if err != nil || !(r.IPC > 0) || math.IsInf(r.IPC, 0) {
			return nil, nil, fmt.Errorf("%s: line %d: column ipc: %q is not a positive finite number", name, line, s)
		}
		key := [2]string{r.Case, strconv.Itoa(r.Pattern)}
		if prev, dup := seen[key]; dup {
			return nil, nil, fmt.Errorf("%s: line %d: case %q measured twice under P%d (first on line %d)", name, line, r.Case, r.Pattern, prev)
		}
		seen[key] = line
		r.Rates = make([]float64, len(events))
		for k, j := range evCol {
			s := strings.TrimSpace(rec[j])
			if s == "" {
				r.Rates[k] = math.NaN()
				continue
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, nil, fmt.Errorf("%s: line %d: column %s: %q is not a finite number", name, line, events[k], s)
			}
			r.Rates[k] = v
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		return nil, nil, fmt.Errorf("%s: no data rows", name)
	}
	return rows, events, nil
}

// ReadIPCRowsFile is ReadIPCRows on the file at path.
func ReadIPCRowsFile(path string) ([]IPCRow, []string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return ReadIPCRows(f, path)
}

// ParsePatternID reads an aggregation pattern number, "4" or "P4".
func ParsePatternID(s string) (int, error) {
	s = strings.TrimSpace(s)
	id, err := strconv.Atoi(strings.TrimPrefix(strings.ToUpper(s), "P"))
	if err != nil || id < 1 || id > 1<<20 {
		return 0, fmt.Errorf("pattern %q: want a pattern number ≥ 1, e.g. 4 or P4", s)
	}
	return id, nil
}

// IPCSet is the coefficient set of one target pattern and IPC category
// (Bin, an index into the categories of IPCMLR.Bins; -1 is the set fitted
// over all categories, used where a category had too few training cases):
// α_(t,i) per sample pattern i (Eq. 4.2), μ_(t,i,j,k) per event i and
// sample pair j < k, μ_(t,j,k,IPC) per sample pair, l_t (Eq. 4.3) and
// σ_t (Eq. 4.1). Cases and R2 are the fit's training cases and R².
type IPCSet struct {
	Pattern  int         `json:"pattern"`
	Bin      int         `json:"bin"`
	Alpha    []Alpha     `json:"alpha"`
	MuEvents [][]float64 `json:"mu_events,omitempty"`
	MuIPC    []float64   `json:"mu_ipc,omitempty"`
	L        float64     `json:"l,omitempty"`
	Sigma    float64     `json:"sigma,omitempty"`
	Cases    int         `json:"cases,omitempty"`
	R2       float64     `json:"r2,omitempty"`
}

// IPCMLR predicts a task's IPC under an untested aggregation pattern t
// from its IPC and event rates measured under the sample patterns S (the
// thesis samples patterns 4 and 5), Dong Li's thesis §4.1:
//
//	IPC_t = Σ_i IPC_i·α_(t,i)(e_(1..n,i)) + λ_t(e_(1..n,S)) + σ_t          (4.1)
//	α_t(e_(1..n,s)) = Σ_j (x_(t,j)·e_(j,s) + y_(t,j)) + z_t                 (4.2)
//	λ_t = Σ_i Σ_(j<k) μ_(t,i,j,k)·e_(i,j)·e_(i,k)
//	    + Σ_(j<k) μ_(t,j,k,IPC)·IPC_j·IPC_k + l_t                           (4.3)
//
// with λ_t and σ_t added once (the thesis prints them inside the sum over
// samples, which would count them |S| times). The model is piecewise: one coefficient set per target
// pattern and IPC category of the observed sample IPC (the thesis's
// categories ThesisIPCBins). Which sample's IPC decides the category the
// thesis does not say; here it is the mean of the sample IPCs [ours].
// A pattern's IPC is the average over its tasks ("the IPC for each
// aggregation pattern is the average value of the IPC of all tasks").
type IPCMLR struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	Kind    string `json:"kind"`
	// Topology is the node layout the pattern numbers refer to
	// (SOCKETSxDIESxCORES), when known.
	Topology string   `json:"topology,omitempty"`
	Events   []string `json:"events"`
	Samples  []int    `json:"samples"`
	// Bins are the category boundaries, ascending: category b is
	// [Bins[b-1], Bins[b]) with Bins[-1] = 0 and Bins[len] = +∞.
	Bins []float64 `json:"bins"`
	Sets []IPCSet  `json:"sets"`
}

// Validate checks the shapes of the coefficient sets against the samples
// and events, that every number is finite, the bins ascending and
// positive, and that no (pattern, category) has two sets.
func (m *IPCMLR) Validate() error {
	if m.Format != IPCFormat || m.Kind != KindIPCMLR {
		return fmt.Errorf("ipc-mlr: want format %q and kind %q, got %q and %q", IPCFormat, KindIPCMLR, m.Format, m.Kind)
	}
	if m.Version != 1 {
		return fmt.Errorf("ipc-mlr: version %d: this capsim reads version 1", m.Version)
	}
	n, s := len(m.Events), len(m.Samples)
	if s == 0 {
		return errors.New("ipc-mlr: no sample patterns")
	}
	for i, p := range m.Samples {
		if p < 1 {
			return fmt.Errorf("ipc-mlr: sample %d: pattern %d is not ≥ 1", i, p)
		}
		for _, q := range m.Samples[:i] {
			if p == q {
				return fmt.Errorf("ipc-mlr: sample pattern P%d given twice", p)
			}
		}
	}
	for i, b := range m.Bins {
		if !(b > 0) || math.IsInf(b, 0) || i > 0 && !(b > m.Bins[i-1]) {
			return fmt.Errorf("ipc-mlr: bins %v: want ascending positive finite boundaries", m.Bins)
		}
	}
	seen := map[[2]int]bool{}
	for k, t := range m.Sets {
		where := fmt.Sprintf("ipc-mlr: set %d (P%d, category %d)", k, t.Pattern, t.Bin)
		if t.Pattern < 1 || t.Bin < -1 || t.Bin > len(m.Bins) {
			return fmt.Errorf("%s: want a pattern ≥ 1 and a category in -1..%d", where, len(m.Bins))
		}
		for _, p := range m.Samples {
			if p == t.Pattern {
				return fmt.Errorf("%s: P%d is a sample pattern (its IPC is measured, not predicted)", where, p)
			}
		}
		if seen[[2]int{t.Pattern, t.Bin}] {
			return fmt.Errorf("%s: appears twice", where)
		}
		seen[[2]int{t.Pattern, t.Bin}] = true
		if len(t.Alpha) != s {
			return fmt.Errorf("%s: want one alpha per sample pattern (%d), got %d", where, s, len(t.Alpha))
		}
		if err := checkCoefs(where, t.Alpha, t.MuEvents, s, n); err != nil {
			return err
		}
		if t.MuIPC != nil && (len(t.MuIPC) != pairs(s) || !finite(t.MuIPC...)) {
			return fmt.Errorf("%s: mu_ipc: want %d finite values (one per sample pair)", where, pairs(s))
		}
		if !finite(t.L, t.Sigma, t.R2) {
			return fmt.Errorf("%s: l, sigma and r2 must be finite", where)
		}
	}
	return nil
}

// DecodeIPCMLR reads and validates an IPC model file; name names it in
// errors.
func DecodeIPCMLR(r io.Reader, name string) (*IPCMLR, error) {
	text, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := jsondup.Check(text); err != nil {
		return nil, fmt.Errorf("%s:%w", name, err)
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	m := &IPCMLR{}
	if err := dec.Decode(m); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: trailing data after the IPC model's closing brace", name)
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return m, nil
}

// LoadIPCMLR reads the IPC model file at path.
func LoadIPCMLR(path string) (*IPCMLR, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return DecodeIPCMLR(bytes.NewReader(b), path)
}

// IsIPCModel reports whether JSON text b is an IPC model file (its
// "format" is IPCFormat), to tell it from a compute-model file.
func IsIPCModel(b []byte) bool {
	var head struct {
		Format string `json:"format"`
	}
	return json.Unmarshal(b, &head) == nil && head.Format == IPCFormat
}

// Encode writes the model as indented JSON.
func (m *IPCMLR) Encode(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(m)
}

// IPCObs is a task's IPC and event rates (in the order of the model's
// events) under one sample pattern.
type IPCObs struct {
	IPC   float64
	Rates []float64
}

// Category returns the IPC category of a task observed under the sample
// patterns (obs in the order of Samples): the category of the mean sample
// IPC [ours], 0 for [0, Bins[0]).
func (m *IPCMLR) Category(obs []IPCObs) int {
	return category(m.Bins, obs)
}

func category(bins []float64, obs []IPCObs) int {
	var mean float64
	for _, o := range obs {
		mean += o.IPC
	}
	mean /= float64(len(obs))
	return sort.Search(len(bins), func(b int) bool { return mean < bins[b] })
}

// BinName names category b as "[1, 1.5)" (b = -1: "all").
func (m *IPCMLR) BinName(b int) string { return binName(m.Bins, b) }

func binName(bins []float64, b int) string {
	if b < 0 {
		return "all"
	}
	lo, hi := "0", "+inf"
	if b > 0 {
		lo = strconv.FormatFloat(bins[b-1], 'g', -1, 64)
	}
	if b < len(bins) {
		hi = strconv.FormatFloat(bins[b], 'g', -1, 64)
	}
	return "[" + lo + ", " + hi + ")"
}

// set returns the coefficient set of pattern in category b, or the
// pattern's set over all categories (pooled true), or nil.
func (m *IPCMLR) set(pattern, b int) (set *IPCSet, pooled bool) {
	for i := range m.Sets {
		if m.Sets[i].Pattern == pattern && m.Sets[i].Bin == b {
			return &m.Sets[i], false
		}
	}
	for i := range m.Sets {
		if m.Sets[i].Pattern == pattern && m.Sets[i].Bin == -1 {
			return &m.Sets[i], true
		}
	}
	return nil, false
}

// Patterns returns the pattern numbers the model gives an IPC for: the
// samples and the targets of its sets, ascending.
func (m *IPCMLR) Patterns() []int {
	seen := map[int]bool{}
	var ps []int
	for _, p := range m.Samples {
		seen[p] = true
		ps = append(ps, p)
	}
	for _, t := range m.Sets {
		if !seen[t.Pattern] {
			seen[t.Pattern] = true
			ps = append(ps, t.Pattern)
		}
	}
	sort.Ints(ps)
	return ps
}

// Predict returns a task's IPC under pattern (Eq. 4.1) from its
// observations under the sample patterns (in the order of Samples), and
// whether the set over all categories stood in for the task's category.
// Under a sample pattern it returns the observed IPC.
func (m *IPCMLR) Predict(obs []IPCObs, pattern int) (ipc float64, pooled bool, err error) {
	if len(obs) != len(m.Samples) {
		return 0, false, fmt.Errorf("ipc-mlr: %d observations for %d sample patterns", len(obs), len(m.Samples))
	}
	for i, o := range obs {
		if len(o.Rates) != len(m.Events) || !finite(o.Rates...) || !(o.IPC > 0) || !finite(o.IPC) {
			return 0, false, fmt.Errorf("ipc-mlr: observation under P%d: want a positive IPC and %d finite event rates", m.Samples[i], len(m.Events))
		}
		if m.Samples[i] == pattern {
			return o.IPC, false, nil
		}
	}
	b := m.Category(obs)
	t, pooled := m.set(pattern, b)
	if t == nil {
		return 0, false, fmt.Errorf("ipc-mlr: no coefficient set for P%d (IPC category %s)", pattern, m.BinName(b))
	}
	v := evalMLR(asSamples(obs), t.target())
	if !(v > 0) {
		return 0, pooled, fmt.Errorf("ipc-mlr: the P%d set (IPC category %s) predicts IPC %.4g, not positive: the task lies outside what the model was trained on", pattern, m.BinName(b), v)
	}
	return v, pooled, nil
}

// target is the set as an MLRTarget over IPC observations (evalMLR reads
// them as Seconds).
func (t *IPCSet) target() *MLRTarget {
	return &MLRTarget{Alpha: t.Alpha, MuEvents: t.MuEvents, MuTime: t.MuIPC, L: t.L, Sigma: t.Sigma}
}

func asSamples(obs []IPCObs) []MLRSample {
	ss := make([]MLRSample, len(obs))
	for i, o := range obs {
		ss[i] = MLRSample{Seconds: o.IPC, Rates: o.Rates}
	}
	return ss
}

// IPCError is the error rate of Table 4.1: |predicted − measured| /
// measured.
func IPCError(measured, predicted float64) float64 {
	return math.Abs(predicted-measured) / measured
}

// caseObs groups rows by case and returns, for every case measured under
// every sample pattern with every event rate of events there, its
// observations (events reordered from rowEvents by name), and every
// case's measured IPC by pattern.
func caseObs(rows []IPCRow, rowEvents, events []string, samples []int) (cases []string, obs map[string][]IPCObs, ipc map[string]map[int]float64, err error) {
	col := make([]int, len(events))
	for i, e := range events {
		col[i] = -1
		for j, r := range rowEvents {
			if r == e {
				col[i] = j
			}
		}
		if col[i] < 0 {
			return nil, nil, nil, fmt.Errorf("ipc-mlr: the measurements have no column for event %q", e)
		}
	}
	ipc = map[string]map[int]float64{}
	rates := map[string]map[int][]float64{}
	var all []string
	for _, r := range rows {
		if ipc[r.Case] == nil {
			ipc[r.Case], rates[r.Case] = map[int]float64{}, map[int][]float64{}
			all = append(all, r.Case)
		}
		ipc[r.Case][r.Pattern] = r.IPC
		v := make([]float64, len(events))
		for i, j := range col {
			v[i] = r.Rates[j]
		}
		rates[r.Case][r.Pattern] = v
	}
	sort.Strings(all)
	obs = map[string][]IPCObs{}
	for _, c := range all {
		o := make([]IPCObs, len(samples))
		ok := true
		for i, p := range samples {
			v, has := ipc[c][p]
			if !has {
				ok = false
				break
			}
			for j, e := range rates[c][p] {
				if math.IsNaN(e) {
					return nil, nil, nil, fmt.Errorf("ipc-mlr: case %q under sample P%d has no %s rate", c, p, events[j])
				}
			}
			o[i] = IPCObs{IPC: v, Rates: rates[c][p]}
		}
		if ok {
			cases = append(cases, c)
			obs[c] = o
		}
	}
	return cases, obs, ipc, nil
}

// FitIPCMLR fits the piecewise IPC regression (Eqs. 4.1–4.3) from
// training measurements (the thesis trains on the twelve SPEC MPI 2007
// benchmarks under several inputs): samples are the sample patterns S,
// bins the category boundaries (ThesisIPCBins when nil). Every other
// pattern measured is a target t; for each target and category, the
// coefficients are fitted by multivariate linear regression over the
// training cases of that category (by their mean sample IPC) measured
// under t, whose regressors are IPC_i, IPC_i·e_(j,i), e_(i,j)·e_(i,k),
// IPC_j·IPC_k (j < k) and a constant; the unidentifiable constants are
// folded (Σ_j y_(t,j) into z, l_t into σ_t). A category needs more cases
// than regressors; one with fewer (or with linearly dependent regressors)
// is left out, and the target's set over all categories stands in for
// it. It returns the model and one line per fitted or left-out set.
func FitIPCMLR(rows []IPCRow, events []string, samples []int, bins []float64) (*IPCMLR, []string, error) {
	if len(samples) == 0 {
		return nil, nil, errors.New("ipc-mlr: no sample patterns")
	}
	if bins == nil {
		bins = ThesisIPCBins
	}
	m := &IPCMLR{Format: IPCFormat, Version: 1, Kind: KindIPCMLR, Events: append([]string{}, events...),
		Samples: append([]int(nil), samples...), Bins: append([]float64{}, bins...)}
	if err := m.Validate(); err != nil {
		return nil, nil, err
	}
	cases, obs, ipc, err := caseObs(rows, events, events, samples)
	if err != nil {
		return nil, nil, err
	}
	if len(cases) == 0 {
		return nil, nil, errors.New("ipc-mlr: no case is measured under every sample pattern")
	}
	isSample := map[int]bool{}
	for _, p := range samples {
		isSample[p] = true
	}
	tseen := map[int]bool{}
	var targets []int
	for _, r := range rows {
		if !isSample[r.Pattern] && !tseen[r.Pattern] {
			tseen[r.Pattern] = true
			targets = append(targets, r.Pattern)
		}
	}
	sort.Ints(targets)
	if len(targets) == 0 {
		return nil, nil, errors.New("ipc-mlr: no measurement under a pattern other than the samples (nothing to predict)")
	}
	n, s := len(events), len(samples)
	ncol := s*(1+n) + n*pairs(s) + pairs(s) + 1
	var lines []string
	for _, tp := range targets {
		for b := -1; b <= len(bins); b++ {
			var train []string
			for _, c := range cases {
				if _, ok := ipc[c][tp]; ok && (b < 0 || category(bins, obs[c]) == b) {
					train = append(train, c)
				}
			}
			where := fmt.Sprintf("P%d, IPC category %s", tp, binName(bins, b))
			if len(train) == 0 && b >= 0 {
				continue
			}
			if len(train) <= ncol {
				if b < 0 {
					return nil, nil, fmt.Errorf("ipc-mlr: P%d: %d training cases for %d regressors (need more cases than regressors)", tp, len(train), ncol)
				}
				lines = append(lines, fmt.Sprintf("%s: %d training cases, too few for %d regressors: the set over all categories stands in", where, len(train), ncol))
				continue
			}
			X := mat.NewDense(len(train), ncol, nil)
			y := mat.NewVecDense(len(train), nil)
			for row, c := range train {
				X.SetRow(row, regressors(asSamples(obs[c]), n))
				y.SetVec(row, ipc[c][tp])
			}
			beta, r2, err := lstsq(X, y)
			if err != nil {
				if b < 0 {
					return nil, nil, fmt.Errorf("ipc-mlr: P%d: %w", tp, err)
				}
				lines = append(lines, fmt.Sprintf("%s: %v: the set over all categories stands in", where, err))
				continue
			}
			u := unpack(compute.Config{}, beta, s, n)
			m.Sets = append(m.Sets, IPCSet{Pattern: tp, Bin: b, Alpha: u.Alpha, MuEvents: u.MuEvents, MuIPC: u.MuTime,
				Sigma: u.Sigma, Cases: len(train), R2: r2})
			lines = append(lines, fmt.Sprintf("%s: %d training cases, %d regressors, R² %.6g", where, len(train), ncol, r2))
		}
	}
	if err := m.Validate(); err != nil {
		return nil, nil, err
	}
	return m, lines, nil
}

// PatternIPC is a pattern's IPC over the tasks of an application: the
// average of the tasks' predicted IPCs (the measured ones under a sample
// pattern) and, where the measurements include the pattern, the average
// measured IPC and Table 4.1's error rate between the two.
type PatternIPC struct {
	Pattern   int
	Sample    bool    // a sample pattern: Predicted is measured
	Tasks     int     // tasks averaged
	Pooled    int     // tasks whose category had no set of its own
	Predicted float64 // average IPC over the tasks
	// Measured is the average measured IPC over the tasks measured
	// under the pattern (MeasuredTasks of them); 0 when none is.
	Measured      float64
	MeasuredTasks int
	// Error is IPCError(Measured, Predicted) when Measured > 0.
	Error float64
}

// PatternIPCs predicts the IPC of every pattern of the model for the
// application measured in rows (every task, a case, under every sample
// pattern; events by name, in any column order).
func (m *IPCMLR) PatternIPCs(rows []IPCRow, events []string) ([]PatternIPC, error) {
	cases, obs, ipc, err := caseObs(rows, events, m.Events, m.Samples)
	if err != nil {
		return nil, err
	}
	if len(cases) == 0 {
		return nil, errors.New("ipc-mlr: no task is measured under every sample pattern")
	}
	all := map[string]bool{}
	for _, r := range rows {
		all[r.Case] = true
	}
	if len(all) != len(cases) {
		var miss []string
		for c := range all {
			if obs[c] == nil {
				miss = append(miss, c)
			}
		}
		sort.Strings(miss)
		return nil, fmt.Errorf("ipc-mlr: task %q is not measured under every sample pattern (%v)", miss[0], m.Samples)
	}
	var out []PatternIPC
	for _, p := range m.Patterns() {
		pi := PatternIPC{Pattern: p, Tasks: len(cases)}
		for _, q := range m.Samples {
			pi.Sample = pi.Sample || q == p
		}
		for _, c := range cases {
			v, pooled, err := m.Predict(obs[c], p)
			if err != nil {
				return nil, fmt.Errorf("task %q: %w", c, err)
			}
			pi.Predicted += v
			if pooled {
				pi.Pooled++
			}
			if mv, ok := ipc[c][p]; ok {
				pi.Measured += mv
				pi.MeasuredTasks++
			}
		}
		pi.Predicted /= float64(len(cases))
		if pi.MeasuredTasks > 0 {
			pi.Measured /= float64(pi.MeasuredTasks)
			pi.Error = IPCError(pi.Measured, pi.Predicted)
		}
		out = append(out, pi)
	}
	return out, nil
}

// PredictIPCFiles loads the IPC model at modelPath and the application's
// sample measurements at samplesPath (CSV, ReadIPCRows) and returns every
// pattern's IPC by pattern number, for a what-if's per-pattern IPC. A
// non-empty topology must be the model's, when the model records one
// (pattern numbers differ between topologies).
func PredictIPCFiles(modelPath, samplesPath, topology string) (map[int]float64, []PatternIPC, error) {
	m, err := LoadIPCMLR(modelPath)
	if err != nil {
		return nil, nil, err
	}
	return m.PredictFile(modelPath, samplesPath, topology)
}

// PredictFile is PredictIPCFiles for the model m, read from modelPath
// already (a pipe can be read only once).
func (m *IPCMLR) PredictFile(modelPath, samplesPath, topology string) (map[int]float64, []PatternIPC, error) {
	norm := func(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
	if topology != "" && m.Topology != "" && norm(topology) != norm(m.Topology) {
		return nil, nil, fmt.Errorf("%s: the model's pattern numbers are those of topology %s, not %s", modelPath, m.Topology, topology)
	}
	rows, events, err := ReadIPCRowsFile(samplesPath)
	if err != nil {
		return nil, nil, err
	}
	ps, err := m.PatternIPCs(rows, events)
	if err != nil {
		return nil, nil, fmt.Errorf("%s with %s: %w", modelPath, samplesPath, err)
	}
	out := make(map[int]float64, len(ps))
	for _, p := range ps {
		out[p.Pattern] = p.Predicted
	}
	return out, ps, nil
}
