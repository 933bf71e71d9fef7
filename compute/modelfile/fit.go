package modelfile

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/cos"
	"github.com/capsim/capsim/compute/dvfs"
	"github.com/capsim/capsim/compute/power"
	"github.com/capsim/capsim/compute/table"
	"github.com/capsim/capsim/internal/bom"
)

// Sample is one measured run of a region at a configuration: the input of
// Fit. Ts, LLCM and TPI are only used by the COS model.
type Sample struct {
	Region  string
	Config  compute.Config
	Seconds float64 // total time T
	Watts   float64 // average power (0 = unknown)
	Ts      float64 // pure stall time (COS)
	LLCM    float64 // last-level cache misses (COS)
	TPI     float64 // time per instruction (COS)
	Line    int     // the CSV line it was read from; 0: not from CSV
}

var sampleColumns = []string{"region", "device", "cpu_ghz", "threads", "mem_ghz", "mem_throttle", "seconds", "watts", "ts", "llcm", "tpi"}

// ReadSamples reads samples from CSV with a header naming columns among
// region, device, cpu_ghz, threads, mem_ghz, mem_throttle, seconds, watts,
// ts, llcm, tpi (region and seconds required; '#' starts a comment line).
func ReadSamples(r io.Reader, name string) ([]Sample, error) {
	cr := csv.NewReader(bom.Skip(r))
	cr.Comment = '#'
	cr.TrimLeadingSpace = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty file (need a header row)", name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	idx := map[string]int{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(h))
		ok := false
		for _, c := range sampleColumns {
			ok = ok || c == h
		}
		if !ok {
			return nil, fmt.Errorf("%s: line 1: unknown column %q (want %s)", name, h, strings.Join(sampleColumns, ", "))
		}
		if _, dup := idx[h]; dup {
			return nil, fmt.Errorf("%s: line 1: duplicate column %q", name, h)
		}
		idx[h] = i
	}
	for _, req := range []string{"region", "seconds"} {
		if _, ok := idx[req]; !ok {
			return nil, fmt.Errorf("%s: line 1: missing required column %q", name, req)
		}
	}
	var out []Sample
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		get := func(c string) string {
			if i, ok := idx[c]; ok {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		var perr error
		num := func(c string) float64 {
			s := get(c)
			if s == "" || perr != nil {
				return 0
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				perr = fmt.Errorf("%s: line %d: column %s: %q is not a finite non-negative number", name, line, c, s)
			}
			return v
		}
		s := Sample{Region: get("region"), Line: line}
		s.Config = compute.Config{Device: get("device"), CPUFreqGHz: num("cpu_ghz"), MemFreqGHz: num("mem_ghz"), MemThrottle: num("mem_throttle")}
		s.Seconds, s.Watts, s.Ts, s.LLCM, s.TPI = num("seconds"), num("watts"), num("ts"), num("llcm"), num("tpi")
		if t := get("threads"); t != "" && perr == nil {
			n, err := strconv.Atoi(t)
			if err != nil || n < 0 {
				perr = fmt.Errorf("%s: line %d: column threads: %q is not a non-negative integer", name, line, t)
			}
			s.Config.Threads = n
		}
		if perr != nil {
			return nil, perr
		}
		if err := s.Config.CheckClocks(); err != nil {
			return nil, fmt.Errorf("%s: line %d: column %w", name, line, err)
		}
		if s.Region == "" {
			return nil, fmt.Errorf("%s: line %d: empty region", name, line)
		}
		if !(s.Seconds > 0) {
			return nil, fmt.Errorf("%s: line %d: seconds must be positive", name, line)
		}
		if s.Seconds > compute.MaxSeconds {
			return nil, fmt.Errorf("%s: line %d: column seconds: %g s is past %g s (compute.MaxSeconds, about 31.7 years)", name, line, s.Seconds, float64(compute.MaxSeconds))
		}
		if s.Watts > power.MaxWatts {
			return nil, fmt.Errorf("%s: line %d: column watts: %g W is past %g W (power.MaxWatts)", name, line, s.Watts, float64(power.MaxWatts))
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no samples", name)
	}
	return out, nil
}

// FitOptions control Fit.
type FitOptions struct {
	Kind      compute.Kind   // table, dvfs or cos
	Recorded  compute.Config // configuration traces are recorded at (COS baseline, DVFS reference)
	Intercept bool           // COS: fit an intercept (not the paper's form)
}

// Report is the fit outcome of one region.
type Report struct {
	Region  string
	Kind    compute.Kind
	N       int    // samples used
	Stats   string // human-readable fit statistics
	Warning string // non-empty when the fit is suspect (e.g. rank-deficient)
}

// String formats r on one line.
func (r Report) String() string {
	s := fmt.Sprintf("%s: %s, %d samples, %s", r.Region, r.Kind, r.N, r.Stats)
	if r.Warning != "" {
		s += " WARNING: " + r.Warning
	}
	return s
}

// Fit fits one model per region of samples and returns a model file with
// one entry per region (its exact name as the pattern) and a measured
// default, plus a report per region in name order.
//
//   - table: the samples are the rows.
//   - dvfs: T = a + b/f fitted to the samples' cpu_ghz and seconds,
//     referenced to Recorded.CPUFreqGHz (or the highest frequency); mean
//     watts per frequency become the P-state power when all are known.
//   - cos: every ordered pair of samples with equal thread counts is a
//     regression row of Eq. 9; the baseline is the sample at Recorded
//     (CPU, memory, threads) if present, else the first at the lowest CPU
//     frequency.
func Fit(samples []Sample, opts FitOptions) (*File, []Report, error) {
	by := map[string][]Sample{}
	for _, s := range samples {
		by[s.Region] = append(by[s.Region], s)
	}
	names := make([]string, 0, len(by))
	for n := range by {
		names = append(names, n)
	}
	sort.Strings(names)
	f := New(opts.Recorded)
	def, _ := NewEntry("", compute.Measured{})
	f.Default = &def
	var reps []Report
	for _, name := range names {
		m, rep, err := fitRegion(name, by[name], opts)
		if err != nil {
			return nil, nil, fmt.Errorf("region %q: %w", name, err)
		}
		e, err := NewEntry(GlobQuote(name), m)
		if err != nil {
			return nil, nil, err
		}
		e.Note = rep.Stats
		f.Regions = append(f.Regions, e)
		reps = append(reps, rep)
	}
	return f, reps, nil
}

// GlobQuote escapes glob metacharacters (path.Match syntax) so the pattern
// matches name only, for model-file entries of one named region.
func GlobQuote(name string) string {
	var b strings.Builder
	for _, r := range name {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func fitRegion(name string, ss []Sample, opts FitOptions) (compute.Model, Report, error) {
	rep := Report{Region: name, Kind: opts.Kind, N: len(ss)}
	switch opts.Kind {
	case compute.KindTable:
		t := &table.Table{}
		for _, s := range ss {
			t.Rows = append(t.Rows, table.Row{Key: name, Config: s.Config, Seconds: s.Seconds, Watts: s.Watts})
		}
		if err := t.Validate(); err != nil {
			return nil, rep, err
		}
		m, _ := t.Model(name)
		rep.Stats = fmt.Sprintf("%d configurations", len(m.Rows))
		return m, rep, nil
	case compute.KindDVFS:
		runs := make([]dvfs.Run, len(ss))
		watts := map[float64][]float64{}
		allW := true
		for i, s := range ss {
			runs[i] = dvfs.Run{GHz: s.Config.CPUFreqGHz, Seconds: s.Seconds}
			watts[s.Config.CPUFreqGHz] = append(watts[s.Config.CPUFreqGHz], s.Watts)
			allW = allW && s.Watts > 0
		}
		m, err := dvfs.Fit(runs, opts.Recorded.CPUFreqGHz)
		if err != nil {
			return nil, rep, err
		}
		if !(m.Beta >= 0 && m.Beta <= 1) {
			// A model file refuses such a β: say which runs give it.
			return nil, rep, fmt.Errorf("dvfs: the runs give a frequency-sensitive fraction (beta) of %.4g at %g GHz, outside [0, 1] (%s): %s",
				m.Beta, m.RefGHz, map[bool]string{true: "slower at a higher clock", false: "more than proportional to 1/f"}[m.Beta < 0], dvfsRuns(ss))
		}
		if allW {
			var ps []power.PState
			for f, ws := range watts {
				var sum float64
				for _, w := range ws {
					sum += w
				}
				ps = append(ps, power.PState{GHz: f, Watts: sum / float64(len(ws))})
			}
			if m.Power, err = power.NewPStates(ps); err != nil {
				return nil, rep, err
			}
		}
		rep.Stats = fmt.Sprintf("beta %.4g at %g GHz (memory-bound fraction %.4g), R² %.4g, resid sd %.3g s", m.Beta, m.RefGHz, 1-m.Beta, m.Fit.R2, m.Fit.ResidSD)
		rep.Warning = m.Fit.Warning
		return m, rep, nil
	case compute.KindCOSIntel:
		meas := make([]cos.Baseline, len(ss))
		base := -1
		for i, s := range ss {
			meas[i] = cos.Baseline{At: s.Config, T: s.Seconds, Ts: s.Ts, LLCM: s.LLCM, TPI: s.TPI}
			r := opts.Recorded
			if base < 0 && s.Config.CPUFreqGHz == r.CPUFreqGHz && s.Config.MemFreqGHz == r.MemFreqGHz && s.Config.Threads == r.Threads {
				base = i
			}
		}
		if base < 0 {
			base = 0
			for i, s := range ss {
				if s.Config.CPUFreqGHz < ss[base].Config.CPUFreqGHz {
					base = i
				}
			}
		}
		m, err := cos.FitIntelPairs(meas, cos.FitOptions{Intercept: opts.Intercept})
		if err != nil {
			return nil, rep, err
		}
		m.Base = meas[base]
		res, err := m.Residual(m.Base)
		if err != nil {
			return nil, rep, err
		}
		st := m.Fit
		rep.N = st.N
		rep.Stats = fmt.Sprintf("alpha %.4g, %d pair rows, rank %d, cond %.3g, R² %.4g, resid sd %.3g s, baseline residual %.3g s",
			m.Alpha, st.N, st.Rank, st.Cond, st.R2, st.ResidSD, res)
		rep.Warning = st.Warning
		return m, rep, nil
	}
	return nil, rep, fmt.Errorf("cannot fit model kind %q (want %s, %s or %s)", opts.Kind, compute.KindTable, compute.KindDVFS, compute.KindCOSIntel)
}

// Predict prices seconds of work recorded at set.Recorded in region under
// target, with the model the set binds to region. It returns the
// prediction and the matching pattern ("" = default).
func Predict(set *compute.Set, region string, seconds float64, target compute.Config) (compute.Prediction, string, error) {
	if !(seconds >= 0) {
		return compute.Prediction{}, "", errors.New("predict: seconds must be non-negative")
	}
	m, pat, err := set.Lookup(region)
	if err != nil {
		return compute.Prediction{}, "", err
	}
	p, err := m.Predict(compute.Work{Seconds: seconds, At: set.Recorded}, target)
	if err != nil {
		return p, pat, fmt.Errorf("predict region %q (%s): %w", region, m.Kind(), err)
	}
	return p, pat, nil
}

// dvfsRuns lists a region's runs as "2.6 GHz 1 s (line 2), ...", the
// first eight.
func dvfsRuns(ss []Sample) string {
	var parts []string
	for i, s := range ss {
		if i == 8 {
			parts = append(parts, fmt.Sprintf("and %d more", len(ss)-i))
			break
		}
		p := fmt.Sprintf("%g GHz %g s", s.Config.CPUFreqGHz, s.Seconds)
		if s.Line > 0 {
			p += fmt.Sprintf(" (line %d)", s.Line)
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}
