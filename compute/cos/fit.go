package cos

import (
	"errors"
	"fmt"
	"math"

	"github.com/capsim/capsim/compute"
	"gonum.org/v1/gonum/mat"
)

// Row is one regression row of Eq. 9: baseline counters, target
// frequencies and the regressand Y = T' − (T − Ts)·fc/f'c (HPDC'17, Sec. 2.8).
type Row struct {
	LLCM, TPI, CPUGHz, MemGHz float64
	Y                         float64
}

// Pair builds the regression row for a (baseline, target measurement)
// pair; target.T is the measured time at target.At.
func Pair(base, target Baseline) (Row, error) {
	if base.At.CPUFreqGHz <= 0 || target.At.CPUFreqGHz <= 0 {
		return Row{}, ErrFrequency
	}
	return Row{
		LLCM: base.LLCM, TPI: base.TPI,
		CPUGHz: target.At.CPUFreqGHz, MemGHz: target.At.MemFreqGHz,
		Y: target.T - (base.T-base.Ts)*base.At.CPUFreqGHz/target.At.CPUFreqGHz,
	}, nil
}

// FitStats describes a least-squares fit.
type FitStats struct {
	N         int     `json:"n"`         // rows
	Rank      int     `json:"rank"`      // numerical rank of the design matrix
	Cond      float64 `json:"cond"`      // 2-norm condition number (+Inf when rank-deficient)
	R2        float64 `json:"r2"`        // uncentred R² (no intercept) or centred R² (intercept)
	ResidSD   float64 `json:"resid_sd"`  // residual standard deviation, sqrt(RSS/(N−Rank))
	MinNorm   bool    `json:"min_norm"`  // solution is the minimum-norm one (rank-deficient)
	Intercept bool    `json:"intercept"` // an intercept column was fitted
	Warning   string  `json:"warning,omitempty"`
}

// ErrRankDeficient is wrapped by warnings about rank-deficient designs.
var ErrRankDeficient = errors.New("cos: regression is rank-deficient")

// FitOptions control FitIntel.
type FitOptions struct {
	Intercept bool // fit a constant term (not the paper's form)
}

// FitIntel fits α1..α4 of Eq. 9 to rows by least squares (no intercept
// unless opts.Intercept), solving by QR when the design has full column
// rank. When it does not, it returns the minimum-norm solution (via SVD)
// with stats.Warning set and stats.MinNorm true; it never silently
// returns an arbitrary solution. The returned Intel has Alpha, Intercept
// and Fit set; Domain spans the rows' target frequencies.
func FitIntel(rows []Row, opts FitOptions) (*Intel, error) {
	p := 4
	if opts.Intercept {
		p = 5
	}
	n := len(rows)
	if n == 0 {
		return nil, errors.New("cos: no regression rows")
	}
	X := mat.NewDense(n, p, nil)
	y := mat.NewVecDense(n, nil)
	for i, r := range rows {
		vals := []float64{r.LLCM, r.TPI, r.CPUGHz, r.MemGHz, 1}
		for j := range p {
			if math.IsNaN(vals[j]) || math.IsInf(vals[j], 0) {
				return nil, fmt.Errorf("cos: row %d: non-finite regressor", i+1)
			}
			X.Set(i, j, vals[j])
		}
		if math.IsNaN(r.Y) || math.IsInf(r.Y, 0) {
			return nil, fmt.Errorf("cos: row %d: non-finite Y", i+1)
		}
		y.SetVec(i, r.Y)
	}
	beta, st, err := leastSquares(X, y, opts.Intercept)
	if err != nil {
		return nil, err
	}
	st.Intercept = opts.Intercept
	m := &Intel{Fit: &st}
	copy(m.Alpha[:], beta[:4])
	if opts.Intercept {
		m.Intercept = beta[4]
	}
	for i, r := range rows {
		m.Domain.add(compute.Config{CPUFreqGHz: r.CPUGHz, MemFreqGHz: r.MemGHz}, i == 0)
	}
	return m, nil
}

// leastSquares solves min ||Xb − y|| and reports rank and conditioning.
func leastSquares(X *mat.Dense, y *mat.VecDense, centred bool) ([]float64, FitStats, error) {
	n, p := X.Dims()
	var svd mat.SVD
	if !svd.Factorize(X, mat.SVDThin) {
		return nil, FitStats{}, errors.New("cos: SVD of the design matrix failed")
	}
	sv := svd.Values(nil)
	tol := float64(max(n, p)) * sv[0] * 2.220446049250313e-16
	rank := 0
	for _, s := range sv {
		if s > tol {
			rank++
		}
	}
	st := FitStats{N: n, Rank: rank}
	b := mat.NewVecDense(p, nil)
	if rank == p && n >= p {
		st.Cond = sv[0] / sv[p-1]
		var qr mat.QR
		qr.Factorize(X)
		if err := qr.SolveVecTo(b, false, y); err != nil {
			return nil, st, fmt.Errorf("cos: QR solve: %w", err)
		}
	} else {
		st.Cond = math.Inf(1)
		st.MinNorm = true
		st.Warning = fmt.Errorf("%w: rank %d < %d columns; returning the minimum-norm solution", ErrRankDeficient, rank, p).Error()
		var u, v mat.Dense
		svd.UTo(&u)
		svd.VTo(&v)
		for k := range rank {
			c := mat.Dot(u.ColView(k), y) / sv[k]
			b.AddScaledVec(b, c, v.ColView(k))
		}
	}
	// Statistics.
	var rss, tss, ym float64
	for i := range n {
		ym += y.AtVec(i)
	}
	ym /= float64(n)
	for i := range n {
		pred := mat.Dot(X.RowView(i), b)
		d := y.AtVec(i) - pred
		rss += d * d
		if centred {
			tss += (y.AtVec(i) - ym) * (y.AtVec(i) - ym)
		} else {
			tss += y.AtVec(i) * y.AtVec(i)
		}
	}
	if tss > 0 {
		st.R2 = 1 - rss/tss
	}
	if n > rank {
		st.ResidSD = math.Sqrt(rss / float64(n-rank))
	}
	return b.RawVector().Data, st, nil
}

// FitIntelPairs builds rows from every ordered pair (baseline, target) of
// distinct measurements that share a thread count, the better-conditioned
// pairwise scheme (the training of HPDC'17, Sec. 2.8, Algorithm 1), and fits them.
func FitIntelPairs(meas []Baseline, opts FitOptions) (*Intel, error) {
	var rows []Row
	for i, b := range meas {
		for j, t := range meas {
			if i == j || b.At.Threads != t.At.Threads {
				continue
			}
			r, err := Pair(b, t)
			if err != nil {
				return nil, fmt.Errorf("cos: measurements %d→%d: %w", i+1, j+1, err)
			}
			rows = append(rows, r)
		}
	}
	m, err := FitIntel(rows, opts)
	if err != nil {
		return nil, err
	}
	for i, b := range meas {
		m.Domain.add(b.At, i == 0)
	}
	return m, nil
}
