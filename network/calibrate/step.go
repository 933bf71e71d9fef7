package calibrate

import "math"

// Step is a step in the one-way time against message size: above
// AfterBytes every message takes JumpNs longer than the line through the
// smaller ones says, as when an MPI library switches from its eager
// protocol to rendezvous, whose handshake adds a round trip. It is found
// by fitting t(s) = a + b·(s−1) + JumpNs·[s > AfterBytes] to the one-way
// envelope for every split between consecutive sizes (at least two sizes
// on each side) and testing the best against the plain line with an F
// test, Bonferroni-corrected for the number of splits tried.
type Step struct {
	AfterBytes int64   `json:"after_bytes"` // the largest size below the step: S
	JumpNs     float64 `json:"jump_ns"`
	// Slope is the common per-byte time of the two segments.
	Slope float64 `json:"slope_ns_per_byte"`
	// P is the Bonferroni-corrected p-value of the step against the
	// plain line (the F test of one added parameter).
	P float64 `json:"p_value"`
}

// stepAlpha is the significance level a step must reach, after the
// Bonferroni correction, for S to be taken from it.
const stepAlpha = 0.01

// findStep returns the significant upward step of the envelope env (in
// increasing size), or nil when there is none: fewer than five sizes, no
// split that lowers the residual, or a step not significant at stepAlpha.
func findStep(env []sample) *Step {
	n := len(env)
	if n < 5 {
		return nil
	}
	_, _, line := lsq(env, -1)
	var best *Step
	bestRSS := math.Inf(1)
	splits := 0
	for k := 2; k <= n-2; k++ {
		splits++
		b, d, rss := lsq(env, k)
		if d > 0 && rss < bestRSS {
			bestRSS = rss
			best = &Step{AfterBytes: env[k-1].bytes, JumpNs: d, Slope: b}
		}
	}
	if best == nil || !(bestRSS < line) {
		return nil
	}
	nu := float64(n - 3)
	p := 0.0 // an exact fit of the step: certain
	if bestRSS > 0 {
		f := (line - bestRSS) / (bestRSS / nu)
		p = betaInc(nu/2, 0.5, nu/(nu+f)) // P(F(1, ν) > f)
	}
	best.P = math.Min(1, p*float64(splits))
	if best.P >= stepAlpha {
		return nil
	}
	return best
}

// lsq fits t = a + b·(s−1) + d·[index ≥ k] to env by least squares (no
// step when k < 0) and returns b, d and the residual sum of squares.
func lsq(env []sample, k int) (b, d, rss float64) {
	// Normal equations of the columns 1, x, z (z the step indicator),
	// solved by eliminating a and d in closed form.
	var n, sx, sy, sxx, sxy, nz, sxz, syz float64
	for i, p := range env {
		x, y := float64(max(p.bytes-1, 0)), p.ns
		n++
		sx += x
		sy += y
		sxx += x * x
		sxy += x * y
		if k >= 0 && i >= k {
			nz++
			sxz += x
			syz += y
		}
	}
	m := [3][4]float64{{n, sx, nz, sy}, {sx, sxx, sxz, sxy}, {nz, sxz, nz, syz}}
	dim := 3
	if k < 0 {
		dim = 2
		m[0][2], m[1][2], m[0][3], m[1][3] = sy, sxy, 0, 0
	}
	coef, ok := solve(m, dim)
	if !ok {
		return 0, 0, math.Inf(1)
	}
	for i, p := range env {
		x := float64(max(p.bytes-1, 0))
		r := p.ns - coef[0] - coef[1]*x
		if k >= 0 && i >= k {
			r -= coef[2]
		}
		rss += r * r
	}
	if k < 0 {
		return coef[1], 0, rss
	}
	return coef[1], coef[2], rss
}

// solve solves the dim×dim system whose augmented rows are m (the right
// side in column dim) by Gaussian elimination with partial pivoting.
func solve(m [3][4]float64, dim int) ([3]float64, bool) {
	for c := 0; c < dim; c++ {
		p := c
		for r := c + 1; r < dim; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[p][c]) {
				p = r
			}
		}
		if m[p][c] == 0 {
			return [3]float64{}, false
		}
		m[c], m[p] = m[p], m[c]
		for r := 0; r < dim; r++ {
			if r == c {
				continue
			}
			f := m[r][c] / m[c][c]
			for j := c; j <= dim; j++ {
				m[r][j] -= f * m[c][j]
			}
		}
	}
	var x [3]float64
	for i := 0; i < dim; i++ {
		x[i] = m[i][dim] / m[i][i]
	}
	return x, true
}

// betaInc is the regularized incomplete beta function I_x(a, b), by its
// continued fraction (Press et al., Numerical Recipes, 3rd ed., §6.4).
func betaInc(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log(1-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

// betaCF evaluates the continued fraction of betaInc by Lentz's method.
func betaCF(a, b, x float64) float64 {
	const tiny, eps = 1e-300, 1e-15
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 300; m++ {
		fm := float64(m)
		for _, aa := range []float64{fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm)), -(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1))} {
			d = 1 + aa*d
			if math.Abs(d) < tiny {
				d = tiny
			}
			c = 1 + aa/c
			if math.Abs(c) < tiny {
				c = tiny
			}
			d = 1 / d
			h *= d * c
		}
		if math.Abs(d*c-1) < eps {
			break
		}
	}
	return h
}
