// Package eiger fits Eiger-style statistical regression models (Anger's
// PhD thesis, Georgia Tech 2016, §3.1): zero-variance parameter removal,
// k-means clustering with deterministic seeding, and forward stepwise
// selection over the power-ladder model pool of Table 1 using adjusted R².
//
// Mode: "thesis-spec". The intercept is always included (not a pool member);
// a candidate is accepted when it raises adjusted R² by more than Threshold
// (Algorithm 1 line 19 in its corrected form, maximum − current > threshold).
// Regressors are evaluated on |x| and a power or log of x = 0 yields 1, as
// in the reference implementation. The VARIMAX rotation of the reference
// code is not applied: PCA is used only to drop zero-variance parameters,
// which is what the thesis prose prescribes.
package eiger

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Kind is the type of a regressor of the model pool (Table 1).
type Kind int

// Regressor kinds: the powers −2, −1, −½, log₂, ½, 1, 2 of one input, and the
// product of two inputs.
const (
	PowNeg2 Kind = iota
	PowNeg1
	PowNegHalf
	Log2
	PowHalf
	Pow1
	Pow2
	Product
)

var kindNames = [...]string{"x^-2", "x^-1", "x^-0.5", "log2", "x^0.5", "x", "x^2", "x*x"}

// Term is one regressor: Kind applied to input I (and J for Product).
// Indices refer to the model's retained inputs (Model.Params).
type Term struct {
	Kind Kind `json:"kind"`
	I    int  `json:"i"`
	J    int  `json:"j,omitempty"`
}

// Eval evaluates the term on the retained input vector x.
func (t Term) Eval(x []float64) float64 {
	a := math.Abs(x[t.I])
	if t.Kind == Product {
		return a * math.Abs(x[t.J])
	}
	if a == 0 {
		if t.Kind == Pow1 || t.Kind == Pow2 || t.Kind == PowHalf {
			return 0
		}
		return 1
	}
	switch t.Kind {
	case PowNeg2:
		return 1 / (a * a)
	case PowNeg1:
		return 1 / a
	case PowNegHalf:
		return 1 / math.Sqrt(a)
	case Log2:
		return math.Log2(a)
	case PowHalf:
		return math.Sqrt(a)
	case Pow1:
		return a
	case Pow2:
		return a * a
	}
	return math.NaN()
}

// String names the term with parameter names.
func (t Term) String(names []string) string {
	n := func(i int) string {
		if i < len(names) {
			return names[i]
		}
		return fmt.Sprintf("x%d", i)
	}
	switch t.Kind {
	case Product:
		return n(t.I) + "*" + n(t.J)
	case Log2:
		return "log2(" + n(t.I) + ")"
	case Pow1:
		return n(t.I)
	}
	return n(t.I) + kindNames[t.Kind][1:]
}

// Pool returns the Table 1 model pool over p inputs: seven powers per input
// and x_i·x_j for i < j.
func Pool(p int) []Term {
	var ts []Term
	for i := 0; i < p; i++ {
		for k := PowNeg2; k <= Pow2; k++ {
			ts = append(ts, Term{Kind: k, I: i})
		}
	}
	for i := 0; i < p; i++ {
		for j := i + 1; j < p; j++ {
			ts = append(ts, Term{Kind: Product, I: i, J: j})
		}
	}
	return ts
}

// Options control Fit.
type Options struct {
	K         int     // number of clusters; 0 means 1
	Threshold float64 // minimum gain in adjusted R² to accept a term
	MaxTerms  int     // 0 means no limit
}

// Cluster is one cluster's fitted model.
type Cluster struct {
	Center []float64 `json:"center"` // in standardized input space
	Terms  []Term    `json:"terms"`
	Beta   []float64 `json:"beta"` // Beta[0] is the intercept, Beta[i+1] multiplies Terms[i]
	Stats  Stats     `json:"stats"`
}

// Stats are fit statistics on the training samples.
type Stats struct {
	N     int     `json:"n"`
	R2    float64 `json:"r2"`
	AdjR2 float64 `json:"adj_r2"`
	MAPE  float64 `json:"mape"` // percent, 100·mean|(a−p)/a| over a ≠ 0
}

// Model is a fitted Eiger model.
type Model struct {
	Version  int       `json:"version"`
	Names    []string  `json:"names"`  // all input names, as given to Fit
	Params   []int     `json:"params"` // retained (non-zero-variance) input columns
	Mean     []float64 `json:"mean"`   // of retained inputs, for clustering
	Std      []float64 `json:"std"`
	Clusters []Cluster `json:"clusters"`
}

// ModelVersion is the JSON model file version.
const ModelVersion = 1

// Fit fits a model to samples X (rows = trials) and outputs y.
func Fit(names []string, X [][]float64, y []float64, opt Options) (*Model, error) {
	m := len(X)
	if m == 0 || m != len(y) {
		return nil, fmt.Errorf("eiger: %d sample rows and %d outputs", m, len(y))
	}
	n := len(X[0])
	for i, r := range X {
		if len(r) != n {
			return nil, fmt.Errorf("eiger: row %d has %d values, want %d", i, len(r), n)
		}
	}
	mod := &Model{Version: ModelVersion, Names: append([]string(nil), names...)}
	for j := 0; j < n; j++ {
		mu, sd := colStats(X, j)
		if sd > 0 {
			mod.Params = append(mod.Params, j)
			mod.Mean = append(mod.Mean, mu)
			mod.Std = append(mod.Std, sd)
		}
	}
	p := len(mod.Params)
	Z := make([][]float64, m) // retained raw inputs
	for i, r := range X {
		z := make([]float64, p)
		for k, j := range mod.Params {
			z[k] = r[j]
		}
		Z[i] = z
	}
	k := opt.K
	if k <= 0 {
		k = 1
	}
	if m < 2 {
		return nil, fmt.Errorf("eiger: %d sample: need at least 2 to fit", m)
	}
	if 2*k > m {
		return nil, fmt.Errorf("eiger: %d clusters of %d samples: a cluster needs at least 2 samples to fit (at most %d clusters)", k, m, m/2)
	}
	assign, centers := mod.kmeans(Z, k)
	pool := Pool(p)
	for c := 0; c < k; c++ {
		var zs [][]float64
		var ys []float64
		for i := range Z {
			if assign[i] == c {
				zs = append(zs, Z[i])
				ys = append(ys, y[i])
			}
		}
		if len(zs) < 2 {
			return nil, fmt.Errorf("eiger: cluster %d holds %d sample(s) of %d: too few to fit (fewer clusters?)", c, len(zs), m)
		}
		cl, err := selectForward(zs, ys, pool, opt)
		if err != nil {
			return nil, fmt.Errorf("eiger: cluster %d: %w", c, err)
		}
		cl.Center = centers[c]
		mod.Clusters = append(mod.Clusters, cl)
	}
	return mod, nil
}

func colStats(X [][]float64, j int) (mean, sd float64) {
	for _, r := range X {
		mean += r[j]
	}
	mean /= float64(len(X))
	for _, r := range X {
		d := r[j] - mean
		sd += d * d
	}
	if len(X) > 1 {
		sd = math.Sqrt(sd / float64(len(X)-1))
	} else {
		sd = 0
	}
	return mean, sd
}

// kmeans runs Lloyd's algorithm (≤ 50 iterations, squared Euclidean) on
// standardized inputs with initial centers = the first k rows.
func (mod *Model) kmeans(Z [][]float64, k int) ([]int, [][]float64) {
	p := len(mod.Params)
	S := make([][]float64, len(Z))
	for i, z := range Z {
		S[i] = mod.standardize(z, make([]float64, p))
	}
	centers := make([][]float64, k)
	for c := range centers {
		centers[c] = append([]float64(nil), S[c]...)
	}
	assign := make([]int, len(Z))
	for it := 0; it < 50 && k > 1; it++ {
		changed := false
		for i, s := range S {
			c := nearest(centers, s)
			if c != assign[i] || it == 0 {
				changed = changed || c != assign[i]
				assign[i] = c
			}
		}
		cnt := make([]int, k)
		for c := range centers {
			clear(centers[c])
		}
		for i, s := range S {
			cnt[assign[i]]++
			for d, v := range s {
				centers[assign[i]][d] += v
			}
		}
		for c := range centers {
			for d := range centers[c] {
				if cnt[c] > 0 {
					centers[c][d] /= float64(cnt[c])
				}
			}
		}
		if !changed && it > 0 {
			break
		}
	}
	return assign, centers
}

func nearest(centers [][]float64, s []float64) int {
	best, bd := 0, math.Inf(1)
	for c, ctr := range centers {
		d := 0.0
		for i, v := range s {
			e := v - ctr[i]
			d += e * e
		}
		if d < bd {
			best, bd = c, d
		}
	}
	return best
}

func (mod *Model) standardize(z, dst []float64) []float64 {
	for i, v := range z {
		dst[i] = (v - mod.Mean[i]) / mod.Std[i]
	}
	return dst
}

var errSingular = errors.New("singular fit")

// selectForward runs Algorithm 1 (corrected) with an always-present intercept.
// Candidates are scored through the correlation matrix of centered,
// unit-norm regressors (Cholesky); the chosen model is refitted by QR.
func selectForward(Z [][]float64, y []float64, pool []Term, opt Options) (Cluster, error) {
	m, P := len(Z), len(pool)
	F := mat.NewDense(m, P, nil)
	for i, z := range Z {
		for t, term := range pool {
			F.Set(i, t, term.Eval(z))
		}
	}
	ymean := 0.0
	for _, v := range y {
		ymean += v
	}
	ymean /= float64(m)
	sst := 0.0
	yc := make([]float64, m)
	for i, v := range y {
		yc[i] = v - ymean
		sst += yc[i] * yc[i]
	}
	// Center and normalize the pool columns; drop constant ones.
	norm := make([]float64, P)
	for t := 0; t < P; t++ {
		mu := 0.0
		for i := 0; i < m; i++ {
			mu += F.At(i, t)
		}
		mu /= float64(m)
		ss := 0.0
		for i := 0; i < m; i++ {
			v := F.At(i, t) - mu
			F.Set(i, t, v)
			ss += v * v
		}
		norm[t] = math.Sqrt(ss)
		if norm[t] > 0 {
			for i := 0; i < m; i++ {
				F.Set(i, t, F.At(i, t)/norm[t])
			}
		}
	}
	var G mat.SymDense
	G.SymOuterK(1, F.T())
	ycv := mat.NewVecDense(m, yc)
	var c mat.VecDense
	c.MulVec(F.T(), ycv)

	var chosen []int
	used := make([]bool, P)
	cur := math.Inf(-1)
	for opt.MaxTerms == 0 || len(chosen) < opt.MaxTerms {
		best, bestAdj := -1, math.Inf(-1)
		for t := 0; t < P; t++ {
			if used[t] || norm[t] == 0 {
				continue
			}
			r2, ok := scoreGram(&G, &c, sst, append(chosen, t))
			if !ok {
				continue
			}
			adj := adjR2(r2, m, len(chosen)+1)
			if adj > bestAdj {
				best, bestAdj = t, adj
			}
		}
		if best < 0 || !(bestAdj-cur > opt.Threshold) {
			break
		}
		chosen = append(chosen, best)
		used[best] = true
		cur = bestAdj
	}
	terms := make([]Term, len(chosen))
	for i, t := range chosen {
		terms[i] = pool[t]
	}
	beta, err := fitQR(Z, y, terms)
	if err != nil {
		return Cluster{}, err
	}
	cl := Cluster{Terms: terms, Beta: beta}
	cl.Stats = stats(Z, y, terms, beta)
	return cl, nil
}

func adjR2(r2 float64, n, p int) float64 {
	if n-p-1 <= 0 {
		return math.Inf(-1)
	}
	return 1 - (1-r2)*float64(n-1)/float64(n-p-1)
}

// scoreGram returns R² of the centered regression on columns idx.
func scoreGram(G *mat.SymDense, c *mat.VecDense, sst float64, idx []int) (float64, bool) {
	k := len(idx)
	S := mat.NewSymDense(k, nil)
	b := mat.NewVecDense(k, nil)
	for a, i := range idx {
		b.SetVec(a, c.AtVec(i))
		for bb := a; bb < k; bb++ {
			S.SetSym(a, bb, G.At(i, idx[bb]))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(S) || ch.Cond() > 1e12 {
		return 0, false
	}
	var x mat.VecDense
	if err := ch.SolveVecTo(&x, b); err != nil {
		return 0, false
	}
	if sst == 0 {
		return 1, true
	}
	return mat.Dot(&x, b) / sst, true
}

// fitQR solves the least-squares fit with intercept by Householder QR.
func fitQR(Z [][]float64, y []float64, terms []Term) ([]float64, error) {
	m, k := len(Z), len(terms)+1
	if m < k {
		return nil, fmt.Errorf("%d samples for %d coefficients: %w", m, k, errSingular)
	}
	U := mat.NewDense(m, k, nil)
	for i, z := range Z {
		U.Set(i, 0, 1)
		for j, t := range terms {
			U.Set(i, j+1, t.Eval(z))
		}
	}
	var qr mat.QR
	qr.Factorize(U)
	if qr.Cond() > 1e14 {
		return nil, errSingular
	}
	var beta mat.VecDense
	if err := qr.SolveVecTo(&beta, false, mat.NewVecDense(m, append([]float64(nil), y...))); err != nil {
		return nil, fmt.Errorf("least squares: %w", err)
	}
	return append([]float64(nil), beta.RawVector().Data...), nil
}

func stats(Z [][]float64, y []float64, terms []Term, beta []float64) Stats {
	m := len(y)
	mean := 0.0
	for _, v := range y {
		mean += v
	}
	mean /= float64(m)
	var sse, sst, ape float64
	na := 0
	for i, z := range Z {
		p := eval(terms, beta, z)
		sse += (y[i] - p) * (y[i] - p)
		sst += (y[i] - mean) * (y[i] - mean)
		if y[i] != 0 {
			ape += math.Abs((y[i] - p) / y[i])
			na++
		}
	}
	st := Stats{N: m, R2: 1}
	if sst > 0 {
		st.R2 = 1 - sse/sst
	}
	st.AdjR2 = adjR2(st.R2, m, len(terms))
	if na > 0 {
		st.MAPE = 100 * ape / float64(na)
	}
	return st
}

func eval(terms []Term, beta []float64, z []float64) float64 {
	s := beta[0]
	for j, t := range terms {
		s += beta[j+1] * t.Eval(z)
	}
	return s
}

// Predictor evaluates a model without allocating; it is not safe for
// concurrent use (create one per goroutine).
type Predictor struct {
	m    *Model
	z, s []float64
}

// NewPredictor returns a Predictor for m.
func (m *Model) NewPredictor() *Predictor {
	return &Predictor{m: m, z: make([]float64, len(m.Params)), s: make([]float64, len(m.Params))}
}

// Predict returns the model's output for the full input vector x (one value
// per name given to Fit), using the nearest cluster's expression.
func (p *Predictor) Predict(x []float64) (float64, error) {
	if len(x) != len(p.m.Names) {
		return 0, fmt.Errorf("eiger: %d inputs, want %d", len(x), len(p.m.Names))
	}
	for k, j := range p.m.Params {
		p.z[k] = x[j]
	}
	c := 0
	if len(p.m.Clusters) > 1 {
		p.m.standardize(p.z, p.s)
		best := math.Inf(1)
		for i := range p.m.Clusters {
			d := 0.0
			for q, v := range p.s {
				e := v - p.m.Clusters[i].Center[q]
				d += e * e
			}
			if d < best {
				best, c = d, i
			}
		}
	}
	cl := &p.m.Clusters[c]
	return eval(cl.Terms, cl.Beta, p.z), nil
}
