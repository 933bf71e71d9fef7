package calibrate

import (
	"math"
	"math/bits"
	"sort"
)

// sample is one measurement of a time as a function of message size.
type sample struct {
	bytes int64
	ns    float64
}

// Line is a least-squares fit of a time against message size,
// t(s) = Intercept + Slope·(s−1), over the lower envelope of the samples:
// the smallest time recorded for each size (each power-of-two size class
// when the samples have more than 64 distinct sizes). Recorded times
// include waiting (a receive posted early measures its wait as well as
// the transfer), which only ever adds time, so the fastest instance of
// each size is the one closest to the cost of the transfer alone.
type Line struct {
	Intercept float64 `json:"intercept_ns"`
	Slope     float64 `json:"slope_ns_per_byte"`
	// R2 is the coefficient of determination of the fit on the envelope
	// points; 1 when they lie on the line, 0 with fewer than 3 points
	// of different sizes.
	R2 float64 `json:"r2"`
	// RMS and MaxAbs are the root-mean-square and the largest absolute
	// residual of the envelope points, in ns.
	RMS    float64 `json:"rms_residual_ns"`
	MaxAbs float64 `json:"max_abs_residual_ns"`
	// MinBytes and MaxBytes are the range of sizes covered.
	MinBytes int64 `json:"min_bytes"`
	MaxBytes int64 `json:"max_bytes"`
	// Samples is the number of measurements, Points the envelope points
	// fitted (one per size or size class).
	Samples int `json:"samples"`
	Points  int `json:"points"`
}

// envelope returns the lower envelope of samples: per size (or per
// power-of-two size class when there are more than 64 sizes), the sample
// of the smallest time, in increasing size.
func envelope(ss []sample) []sample {
	sizes := map[int64]bool{}
	for _, s := range ss {
		sizes[s.bytes] = true
	}
	// Sizes 0 and 1 are one class: both carry no per-byte time.
	class := func(b int64) int64 { return max(b, 1) }
	if len(sizes) > 64 {
		class = func(b int64) int64 { return int64(64 - bits.LeadingZeros64(uint64(max(b, 1)))) }
	}
	best := map[int64]sample{}
	for _, s := range ss {
		c := class(s.bytes)
		if b, ok := best[c]; !ok || s.ns < b.ns || s.ns == b.ns && s.bytes < b.bytes {
			best[c] = s
		}
	}
	env := make([]sample, 0, len(best))
	for _, s := range best {
		env = append(env, s)
	}
	sort.Slice(env, func(i, j int) bool { return env[i].bytes < env[j].bytes })
	return env
}

// fitLine fits t = a + b·(s−1) by least squares to the lower envelope of
// ss. With a single size the slope is 0 and the intercept that size's
// time. ok is false without samples.
func fitLine(ss []sample) (l Line, ok bool) {
	if len(ss) == 0 {
		return l, false
	}
	env := envelope(ss)
	l.Samples, l.Points = len(ss), len(env)
	l.MinBytes, l.MaxBytes = env[0].bytes, env[len(env)-1].bytes
	if len(env) == 1 {
		l.Intercept = env[0].ns
		return l, true
	}
	var mx, my float64
	for _, p := range env {
		mx += float64(max(p.bytes-1, 0))
		my += p.ns
	}
	n := float64(len(env))
	mx, my = mx/n, my/n
	var sxx, sxy, syy float64
	for _, p := range env {
		dx, dy := float64(max(p.bytes-1, 0))-mx, p.ns-my
		sxx += dx * dx
		sxy += dx * dy
		syy += dy * dy
	}
	l.Slope = sxy / sxx
	l.Intercept = my - l.Slope*mx
	if l.Slope < 0 {
		// No per-byte time is negative: the best line of slope ≥ 0 is
		// then the flat one through the mean. Keeping the intercept of the
		// falling line priced every size at its extrapolation to 1 byte
		// (10^12 ns from three ~5 µs messages near 2 GB).
		l.Slope, l.Intercept = 0, my
	}
	var sse float64
	for _, p := range env {
		r := p.ns - (l.Intercept + l.Slope*float64(max(p.bytes-1, 0)))
		sse += r * r
		l.MaxAbs = max(l.MaxAbs, math.Abs(r))
	}
	l.RMS = math.Sqrt(sse / n)
	if len(env) >= 3 && syy > 0 {
		l.R2 = 1 - sse/syy
	}
	return l, true
}
