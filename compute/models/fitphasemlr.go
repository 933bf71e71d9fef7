package models

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/arrowtab"
	"github.com/capsim/capsim/compute/power"
	"github.com/capsim/capsim/internal/bom"
)

// PhaseRow is one measurement of an OpenMP phase (a region) at one
// configuration: the input of FitPhaseMLR. Rates are the event rates in
// the order of the fit's event names (needed at the sample
// configurations); Instructions and Watts (0 = unknown) train the power
// model.
type PhaseRow struct {
	Region       string
	Config       compute.Config
	Seconds      float64
	Instructions float64
	Watts        float64
	Rates        []float64
}

// phaseFixed are the columns of a phase CSV that are not event rates.
var phaseFixed = []string{"region", "cpu_ghz", "threads", "mem_ghz", "time_s", "instructions", "watts"}

// ReadPhaseRows reads phase measurements from CSV: a header with region,
// cpu_ghz, threads, time_s (required), mem_ghz, instructions, watts
// (optional) and one column per hardware event rate; '#' starts a comment
// line. An empty event cell is allowed (rates are only needed at the
// sample configurations) and reads as NaN. It returns the rows and the
// event names in column order.
func ReadPhaseRows(r io.Reader, name string) ([]PhaseRow, []string, error) {
	cr, header, err := readHeader(r, name)
	if err != nil {
		return nil, nil, err
	}
	return parsePhaseRows(name, "line", header, func() ([]string, int, error) {
		rec, err := cr.Read()
		if err != nil {
			return nil, 0, err
		}
		line, _ := cr.FieldPos(0)
		return rec, line, nil
	})
}

// PhaseRowsFromTable reads phase measurements from an Arrow table with
// the columns of ReadPhaseRows: region a string column, the others
// numbers. Arrow tables hold no empty cells: an event rate at a
// configuration that is not a sample is read but not used, so any number
// will do there.
func PhaseRowsFromTable(t *arrowtab.Table, name string) ([]PhaseRow, []string, error) {
	header := make([]string, len(t.Columns))
	for j := range t.Columns {
		c := &t.Columns[j]
		header[j] = c.Name
		if (c.Name == "region") != c.IsString() {
			if c.IsString() {
				return nil, nil, fmt.Errorf("%s: column %q: want numbers", name, c.Name)
			}
			return nil, nil, fmt.Errorf("%s: column \"region\": want strings", name)
		}
	}
	i := 0
	return parsePhaseRows(name, "row", header, func() ([]string, int, error) {
		if i >= t.Rows {
			return nil, 0, io.EOF
		}
		rec := make([]string, len(t.Columns))
		for j := range t.Columns {
			c := &t.Columns[j]
			if c.IsString() {
				rec[j] = c.Strings[i]
			} else if !math.IsNaN(c.Numbers[i]) {
				rec[j] = strconv.FormatFloat(c.Numbers[i], 'g', -1, 64)
			}
		}
		i++
		return rec, i, nil
	})
}

// parsePhaseRows parses phase measurements from a header and records;
// next returns io.EOF after the last record, and where names a record's
// position ("line" or "row") in errors.
func parsePhaseRows(name, where string, header []string, next func() ([]string, int, error)) ([]PhaseRow, []string, error) {
	idx, events, evCol, err := splitHeader(name, header, phaseFixed)
	if err != nil {
		return nil, nil, err
	}
	for _, c := range []string{"region", "cpu_ghz", "threads", "time_s"} {
		if _, ok := idx[c]; !ok {
			return nil, nil, fmt.Errorf("%s: header: missing column %q", name, c)
		}
	}
	var rows []PhaseRow
	for {
		rec, line, err := next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		num := func(col string, blank float64) (float64, error) {
			j, ok := idx[col]
			if !ok {
				return blank, nil
			}
			s := strings.TrimSpace(rec[j])
			if s == "" {
				return blank, nil
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, fmt.Errorf("%s: %s %d: column %s: %q is not a finite number", name, where, line, col, s)
			}
			return v, nil
		}
		var pr PhaseRow
		pr.Region = strings.TrimSpace(rec[idx["region"]])
		if pr.Region == "" {
			return nil, nil, fmt.Errorf("%s: %s %d: empty region", name, where, line)
		}
		var th float64
		vals := []*float64{&pr.Config.CPUFreqGHz, &th, &pr.Config.MemFreqGHz, &pr.Seconds, &pr.Instructions, &pr.Watts}
		for k, col := range []string{"cpu_ghz", "threads", "mem_ghz", "time_s", "instructions", "watts"} {
			if *vals[k], err = num(col, 0); err != nil {
				return nil, nil, err
			}
			if *vals[k] < 0 {
				return nil, nil, fmt.Errorf("%s: %s %d: column %s: %g is negative", name, where, line, col, *vals[k])
			}
		}
		if th != math.Trunc(th) || th < 1 || th > 1<<20 {
			return nil, nil, fmt.Errorf("%s: %s %d: threads %g is not a whole number ≥ 1", name, where, line, th)
		}
		pr.Config.Threads = int(th)
		if !(pr.Seconds > 0) {
			return nil, nil, fmt.Errorf("%s: %s %d: time_s must be positive", name, where, line)
		}
		if !(pr.Config.CPUFreqGHz > 0) {
			return nil, nil, fmt.Errorf("%s: %s %d: cpu_ghz must be positive", name, where, line)
		}
		if err := pr.Config.CheckClocks(); err != nil {
			return nil, nil, fmt.Errorf("%s: %s %d: column %w", name, where, line, err)
		}
		if pr.Seconds > compute.MaxSeconds {
			return nil, nil, fmt.Errorf("%s: %s %d: column time_s: %g s is past %g s (compute.MaxSeconds, about 31.7 years)", name, where, line, pr.Seconds, float64(compute.MaxSeconds))
		}
		if pr.Watts > power.MaxWatts {
			return nil, nil, fmt.Errorf("%s: %s %d: column watts: %g W is past %g W (power.MaxWatts)", name, where, line, pr.Watts, float64(power.MaxWatts))
		}
		pr.Rates = make([]float64, len(events))
		for k, j := range evCol {
			if pr.Rates[k], err = num(header[j], math.NaN()); err != nil {
				return nil, nil, err
			}
		}
		rows = append(rows, pr)
	}
	if len(rows) == 0 {
		return nil, nil, fmt.Errorf("%s: no data rows", name)
	}
	return rows, events, nil
}

// MLRFit is the result of FitPhaseMLR: one PhaseMLR per region (sorted by
// name), each with the region's own sample observations and the shared
// coefficient sets, and the fit statistics.
type MLRFit struct {
	Regions []string
	Models  []*PhaseMLR
	Lines   []string // fit statistics, one line per target and for the power model
}

// FitPhaseMLR fits Dong Li's phase-time regression (Eq. 3.17) and IPS
// power model (Eq. 3.19) from phase measurements. samples lists the
// sample configurations S (the thesis uses three or four: maximum
// concurrency at the highest frequency, two half-concurrency mappings at
// the second-highest, and minimum concurrency at the lowest); every other
// configuration measured is a target t with its own coefficient set,
// fitted by multivariate linear regression over the training phases: the
// regions measured at every sample and at t. The regressors are Time_i,
// Time_i·e_(j,i), e_(i,j)·e_(i,k) and Time_j·Time_k (j < k), and a
// constant, so the fit needs more training phases than regressors;
// unidentifiable constants are folded (Σ_j y_(t,j) into z, l_t into σ_t).
// k1 and k0 are fitted by least squares of watts on instructions/time_s
// over the rows with both. Every region measured at all samples gets a
// model, including those measured nowhere else (the phases to predict).
func FitPhaseMLR(rows []PhaseRow, events []string, samples []compute.Config) (*MLRFit, error) {
	if len(samples) == 0 {
		return nil, errors.New("phase-mlr: no sample configurations")
	}
	for i, c := range samples {
		for _, d := range samples[:i] {
			if c == d {
				return nil, fmt.Errorf("phase-mlr: sample configuration %s given twice", c)
			}
		}
	}
	byRegion, targets, err := phaseRowsByRegion(rows, samples)
	if err != nil {
		return nil, err
	}
	regions, obs, err := sampleObservations(byRegion, events, samples)
	if err != nil {
		return nil, err
	}
	fit := &MLRFit{Regions: regions}
	var sets []MLRTarget
	for _, tc := range targets {
		set, line, err := fitTarget(tc, regions, byRegion, obs, len(events), len(samples))
		if err != nil {
			return nil, err
		}
		sets = append(sets, set)
		fit.Lines = append(fit.Lines, line)
	}
	pw, line, err := fitIPSPower(rows)
	if err != nil {
		return nil, err
	}
	if pw != nil {
		fit.Lines = append(fit.Lines, line)
	}
	for _, name := range regions {
		m := &PhaseMLR{Events: append([]string(nil), events...), Samples: obs[name], Targets: sets, Power: pw}
		if err := m.Validate(); err != nil {
			return nil, fmt.Errorf("region %q: %w", name, err)
		}
		fit.Models = append(fit.Models, m)
	}
	return fit, nil
}

// phaseRowsByRegion indexes rows by region and configuration, and returns
// the target configurations (those that are not samples) in name order.
func phaseRowsByRegion(rows []PhaseRow, samples []compute.Config) (map[string]map[compute.Config]*PhaseRow, []compute.Config, error) {
	byRegion := map[string]map[compute.Config]*PhaseRow{}
	var targets []compute.Config
	tseen := map[compute.Config]bool{}
	for i := range rows {
		r := &rows[i]
		m := byRegion[r.Region]
		if m == nil {
			m = map[compute.Config]*PhaseRow{}
			byRegion[r.Region] = m
		}
		if _, dup := m[r.Config]; dup {
			return nil, nil, fmt.Errorf("phase-mlr: region %q measured twice at %s", r.Region, r.Config)
		}
		m[r.Config] = r
		if !slices.Contains(samples, r.Config) && !tseen[r.Config] {
			tseen[r.Config] = true
			targets = append(targets, r.Config)
		}
	}
	sort.Slice(targets, func(a, b int) bool { return targets[a].String() < targets[b].String() })
	return byRegion, targets, nil
}

// sampleObservations returns the regions measured at every sample, sorted,
// with their observations at the samples.
func sampleObservations(byRegion map[string]map[compute.Config]*PhaseRow, events []string, samples []compute.Config) ([]string, map[string][]MLRSample, error) {
	var regions []string
	obs := map[string][]MLRSample{}
	for name, m := range byRegion {
		ss := make([]MLRSample, len(samples))
		ok := true
		for i, c := range samples {
			r := m[c]
			if r == nil {
				ok = false
				break
			}
			for j, e := range r.Rates {
				if math.IsNaN(e) {
					return nil, nil, fmt.Errorf("phase-mlr: region %q at sample %s has no %s rate", name, c, events[j])
				}
			}
			ss[i] = MLRSample{Config: c, Seconds: r.Seconds, Rates: append([]float64(nil), r.Rates...), Instructions: r.Instructions}
		}
		if ok {
			regions = append(regions, name)
			obs[name] = ss
		}
	}
	if len(regions) == 0 {
		return nil, nil, fmt.Errorf("phase-mlr: no region is measured at every sample configuration: %s", missingSamples(byRegion, samples))
	}
	sort.Strings(regions)
	return regions, obs, nil
}

// missingSamples says why no region is measured at every sample: the
// samples no row measures, with the configurations the rows do measure
// (a --sample that names none of them), or else which sample each region
// lacks.
func missingSamples(byRegion map[string]map[compute.Config]*PhaseRow, samples []compute.Config) string {
	measured := map[string]bool{}
	for _, m := range byRegion {
		for c := range m {
			measured[c.String()] = true
		}
	}
	var nowhere []string
	for _, c := range samples {
		if !measured[c.String()] {
			nowhere = append(nowhere, c.String())
		}
	}
	if len(nowhere) > 0 {
		return fmt.Sprintf("no region is measured at sample %s (the rows measure %s)",
			strings.Join(nowhere, ", "), strings.Join(slices.Sorted(maps.Keys(measured)), ", "))
	}
	names := slices.Sorted(maps.Keys(byRegion))
	const most = 5
	var lacks []string
	for _, name := range names[:min(len(names), most)] {
		for _, c := range samples {
			if byRegion[name][c] == nil {
				lacks = append(lacks, fmt.Sprintf("region %q lacks sample %s", name, c))
				break
			}
		}
	}
	if len(names) > most {
		lacks = append(lacks, fmt.Sprintf("and %d more regions", len(names)-most))
	}
	return strings.Join(lacks, "; ")
}

// fitTarget fits the coefficient set of target tc over the regions
// measured at tc (n events, s samples), and returns it with its fit line.
func fitTarget(tc compute.Config, regions []string, byRegion map[string]map[compute.Config]*PhaseRow, obs map[string][]MLRSample, n, s int) (MLRTarget, string, error) {
	ncol := s*(1+n) + n*pairs(s) + pairs(s) + 1
	var train []string
	for _, name := range regions {
		if byRegion[name][tc] != nil {
			train = append(train, name)
		}
	}
	if len(train) <= ncol {
		return MLRTarget{}, "", fmt.Errorf("phase-mlr: target %s: %d training phases for %d regressors (need more phases than regressors)", tc, len(train), ncol)
	}
	X := mat.NewDense(len(train), ncol, nil)
	y := mat.NewVecDense(len(train), nil)
	for row, name := range train {
		x := regressors(obs[name], n)
		X.SetRow(row, x)
		y.SetVec(row, byRegion[name][tc].Seconds)
	}
	beta, r2, err := lstsq(X, y)
	if err != nil {
		return MLRTarget{}, "", fmt.Errorf("phase-mlr: target %s: %w", tc, err)
	}
	line := fmt.Sprintf("target %s: %d training phases, %d regressors, R² %.6g", tc, len(train), ncol, r2)
	return unpack(tc, beta, s, n), line, nil
}

// fitIPSPower fits P = k1·IPS + k0 by least squares over the rows with
// instructions and watts, and returns it with its fit line; nil if no row
// has both.
func fitIPSPower(rows []PhaseRow) (*power.IPS, string, error) {
	var ips, watts []float64
	for _, r := range rows {
		if r.Watts > 0 && r.Instructions > 0 {
			ips = append(ips, r.Instructions/r.Seconds)
			watts = append(watts, r.Watts)
		}
	}
	if len(ips) == 0 {
		return nil, "", nil
	}
	if len(ips) < 3 {
		return nil, "", fmt.Errorf("phase-mlr: power model: %d rows with instructions and watts (need 3 or more)", len(ips))
	}
	X := mat.NewDense(len(ips), 2, nil)
	for i, v := range ips {
		X.SetRow(i, []float64{v, 1})
	}
	beta, r2, err := lstsq(X, mat.NewVecDense(len(watts), watts))
	if err != nil {
		return nil, "", fmt.Errorf("phase-mlr: power model: %w", err)
	}
	pw := &power.IPS{K1: beta[0], K0: beta[1]}
	return pw, fmt.Sprintf("power P = %.6g·IPS + %.6g W over %d rows, R² %.6g", pw.K1, pw.K0, len(ips), r2), nil
}

// regressors returns the regressor row of one phase: Time_i and
// Time_i·e_(j,i) per sample i, e_(i,j)·e_(i,k) per event i and sample pair,
// Time_j·Time_k per sample pair, and 1.
func regressors(ss []MLRSample, n int) []float64 {
	var x []float64
	for _, sm := range ss {
		x = append(x, sm.Seconds)
		for j := 0; j < n; j++ {
			x = append(x, sm.Seconds*sm.Rates[j])
		}
	}
	s := len(ss)
	for i := 0; i < n; i++ {
		for j := 0; j < s-1; j++ {
			for k := j + 1; k < s; k++ {
				x = append(x, ss[j].Rates[i]*ss[k].Rates[i])
			}
		}
	}
	for j := 0; j < s-1; j++ {
		for k := j + 1; k < s; k++ {
			x = append(x, ss[j].Seconds*ss[k].Seconds)
		}
	}
	return append(x, 1)
}

// unpack maps the regression coefficients (in the order of regressors)
// onto a coefficient set.
func unpack(tc compute.Config, b []float64, s, n int) MLRTarget {
	t := MLRTarget{Config: tc}
	p := 0
	for i := 0; i < s; i++ {
		a := Alpha{Z: b[p], X: append([]float64(nil), b[p+1:p+1+n]...)}
		p += 1 + n
		t.Alpha = append(t.Alpha, a)
	}
	if n > 0 && s > 1 {
		for i := 0; i < n; i++ {
			t.MuEvents = append(t.MuEvents, append([]float64(nil), b[p:p+pairs(s)]...))
			p += pairs(s)
		}
	}
	if s > 1 {
		t.MuTime = append([]float64(nil), b[p:p+pairs(s)]...)
		p += pairs(s)
	}
	t.Sigma = b[p]
	return t
}

// lstsq solves min ‖Xβ − y‖ by QR and returns β and R²; a rank-deficient
// X is an error (the regressors do not determine the coefficients).
func lstsq(X *mat.Dense, y *mat.VecDense) ([]float64, float64, error) {
	r, c := X.Dims()
	if !finiteMatrix(X) || !finiteMatrix(y) {
		return nil, 0, errors.New("least squares: a regressor overflows (a measured value or event rate too large for a product of two to stay finite)")
	}
	var svd mat.SVD
	if !svd.Factorize(X, mat.SVDNone) {
		return nil, 0, errors.New("least squares: SVD failed")
	}
	sv := svd.Values(nil)
	if sv[0] == 0 || sv[len(sv)-1] <= sv[0]*1e-12*float64(max(r, c)) {
		return nil, 0, errors.New("least squares: the regressors are linearly dependent (rank-deficient); measure more varied phases")
	}
	var qr mat.QR
	qr.Factorize(X)
	var b mat.VecDense
	if err := qr.SolveVecTo(&b, false, y); err != nil {
		return nil, 0, fmt.Errorf("least squares: %w", err)
	}
	var mean float64
	for i := 0; i < r; i++ {
		mean += y.AtVec(i)
	}
	mean /= float64(r)
	var ssr, sst float64
	for i := 0; i < r; i++ {
		var fit float64
		for j := 0; j < c; j++ {
			fit += X.At(i, j) * b.AtVec(j)
		}
		ssr += (y.AtVec(i) - fit) * (y.AtVec(i) - fit)
		sst += (y.AtVec(i) - mean) * (y.AtVec(i) - mean)
	}
	r2 := 1.0
	if sst > 0 {
		r2 = 1 - ssr/sst
	}
	if !finiteMatrix(&b) || math.IsNaN(r2) || math.IsInf(r2, 0) {
		return nil, 0, errors.New("least squares: the fit overflows (measured values or event rates too large)")
	}
	return append([]float64(nil), b.RawVector().Data...), r2, nil
}

// finiteMatrix reports whether every element of m is finite.
func finiteMatrix(m mat.Matrix) bool {
	r, c := m.Dims()
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if v := m.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
		}
	}
	return true
}

// splitHeader indexes a CSV header's columns by name (trimmed) and lists,
// in order, the event columns: those not in fixed. name is the file in
// errors (an unnamed or duplicate column).
func splitHeader(name string, header, fixed []string) (idx map[string]int, events []string, evCol []int, err error) {
	idx = map[string]int{}
	for i, h := range header {
		h = strings.TrimSpace(h)
		if h == "" {
			return nil, nil, nil, fmt.Errorf("%s: header: column %d has no name", name, i+1)
		}
		if _, dup := idx[h]; dup {
			return nil, nil, nil, fmt.Errorf("%s: header: duplicate column %q", name, h)
		}
		idx[h] = i
		if !slices.Contains(fixed, h) {
			events = append(events, h)
			evCol = append(evCol, i)
		}
	}
	return idx, events, evCol, nil
}

// readHeader opens a measurement CSV ('#' starts a comment line, leading
// spaces trimmed) and reads its header row; name is the file in errors.
func readHeader(r io.Reader, name string) (*csv.Reader, []string, error) {
	cr := csv.NewReader(bom.Skip(r))
	cr.Comment = '#'
	cr.TrimLeadingSpace = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, nil, fmt.Errorf("%s: empty file (need a header row)", name)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	return cr, header, nil
}
