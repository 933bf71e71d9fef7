package bound

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/capsim/capsim/optimize/clp"
)

// Form is how the LP writes a task's configuration choice (Bailey et al., SC'15, Figs. 5–6).
type Form int

// Task forms. All give the same optimum on a convex hull.
const (
	// FormDefault is FormIncrement, the fastest on the benchmarks
	// (optimize/bound/bench_test.go, scenarios' BenchmarkBoundStencil32Sweep;
	// numbers in README.md), or FormMix when the DAG has shared devices,
	// whose rows only the mix form writes.
	FormDefault Form = iota
	// FormSegment gives task i a duration d_i and a power p_i with one
	// row per hull segment: p_i ≥ p_k + slope_k·(d_i − d_k).
	FormSegment
	// FormMix gives task i one fraction c_ig ∈ [0,1] per hull point with
	// Σ_g c_ig = 1 (Eqs. 6–9, 11): d_i and p_i are substituted out.
	FormMix
	// FormIncrement gives task i one column per hull segment, δ_ig ∈
	// [0, t_{g+1} − t_g], with d_i = t_0 + Σ_g δ_ig and p_i = p_0 +
	// Σ_g slope_g·δ_ig: no row per task beyond its precedence row. On a
	// convex hull the cheapest filling is in segment order, so the optimum
	// is that of the other forms.
	FormIncrement
)

func (f Form) String() string {
	switch f {
	case FormSegment:
		return "segment"
	case FormMix:
		return "mix"
	case FormIncrement:
		return "increment"
	}
	return "default"
}

// ParseForm parses a Form's String form.
func ParseForm(s string) (Form, error) {
	for _, f := range []Form{FormDefault, FormSegment, FormMix, FormIncrement} {
		if f.String() == s {
			return f, nil
		}
	}
	return 0, fmt.Errorf("bound: unknown LP form %q (want segment or mix)", s)
}

// Options controls the LP.
type Options struct {
	Form Form // FormDefault: FormIncrement (FormMix with devices)
	// Method is CLP's algorithm for a block's first solve. clp.Auto (the
	// default): the dual simplex below 3,000 rows and columns, with over
	// 4 rows per column, or with a
	// column of over 256 entries (see denseCol); otherwise the barrier,
	// with crossover to a basis when KeepBasis is set, without otherwise.
	Method clp.Method
	// KeepBasis asks for an optimal basis from every solve, so that the
	// next cap re-solves warm with the dual simplex (set it for sweeps).
	// Without it, every cap is solved from scratch with Method.
	KeepBasis  bool
	TimeLimit  float64     // seconds per block solve, 0 for none
	Scaling    clp.Scaling // CLP's scaling (default clp.ScaleAuto)
	NoPresolve bool        // turn CLP's presolve off (on by default)
	LogLevel   int         // CLP's log level (0 silent); CLP logs to the C standard output
	// BlockCols is the least number of columns of a block: the LP splits
	// at separator events (see Solver) into blocks of at least this size
	// (default 500); a negative value solves one monolithic LP.
	BlockCols int
	// noReduce keeps every event's time column (tests compare the two).
	noReduce bool
	// noLazy writes every row of an engine LP (an Order with Chained
	// events) at once instead of on demand (lazy.go; tests compare).
	noLazy bool
	// CutTasks, for an engine LP (an Order with Chained events), is the
	// least number of tasks between two cuts of its relaxation (lazy.go):
	// 0 cuts every cutEvery tasks when the LP has over cutAbove tasks and
	// not otherwise; a negative value never cuts (the exact LP).
	CutTasks int
	// cutAll cuts at every event where the relaxation may be cut, CutTasks
	// apart, lossy or not (tests check that any cuts give a bound).
	cutAll bool
	// lazyVisits, when positive, replaces searchVisits (tests use few to
	// make the LP add rows on demand).
	lazyVisits int
	// noTwins solves every block from scratch, none from the basis of a
	// block of its shape (tests compare the two).
	noTwins bool
	// Round, when not nil, is called when a solve of an engine LP broke
	// rows it did not have (lazy.go) and the LP is solved again: with the
	// number of the solve to come (2, 3, …) and the rows added on demand
	// so far. A long solve (the exact LP of a large trace) reports its
	// progress with it.
	Round func(round, added int)
	// Workers is how many blocks are solved at once (default GOMAXPROCS;
	// each block is its own CLP model, so results do not depend on it).
	Workers int
	// NodeOf, when set, caps nodes instead of the job: rank r is on node
	// NodeOf[r] (−1: on no capped node), and the cap a Solve is given
	// bounds, between every two events, the power of each node's tasks
	// and loads (its ranks' cores and devices above what the caller took
	// off as the node's base power), one chain of power rows per node
	// that has a rank; the job's power is then not capped. Every rank of
	// a task or load must index it.
	NodeOf []int
}

// cutEvery and cutAbove are Options.CutTasks' default: an engine LP of
// over cutAbove tasks is relaxed into blocks of at least cutEvery tasks.
const (
	cutEvery = 64
	cutAbove = 512
)

// Stats describes the LP.
type Stats struct {
	Form      string  `json:"form"`
	Method    string  `json:"method"`
	Tasks     int     `json:"tasks"` // compute tasks of the DAG (before the engine LP's reduction)
	Variables int     `json:"variables"`
	Rows      int     `json:"rows"`
	Nonzeros  int     `json:"nonzeros"`
	Blocks    int     `json:"blocks"`  // independent LPs the problem splits into
	BuildS    float64 `json:"build_s"` // writing the LP in Go and loading it into CLP
	// OrderS is the time the caller took to make the DAG and its event
	// order (for an engine LP, FromGraph: the reference replay and the
	// rows' DAG); NewSolver leaves it 0.
	OrderS float64 `json:"order_s,omitempty"`
	SolveS float64 `json:"solve_s"`
	Iter   int     `json:"iterations"`
	Warm   bool    `json:"warm"` // re-solved from the previous basis
	// Rounds is how many times the cap's LP was solved: an engine LP adds
	// the rows its solution broke and solves again (lazy.go); LazyRows is
	// how many rows were added so, over all caps so far.
	Rounds   int `json:"rounds,omitempty"`
	LazyRows int `json:"lazy_rows,omitempty"`
	// Cuts is how many cuts the engine LP's relaxation has (lazy.go):
	// with cuts the bound is the relaxation's, looser than the exact LP's.
	Cuts int `json:"cuts,omitempty"`
	// DeviceRows is how many rows keep shared devices' busy time within
	// their windows (device.go).
	DeviceRows int `json:"device_rows,omitempty"`
}

// Bound is the LP's optimal schedule at one cap.
type Bound struct {
	CapW     float64
	Makespan float64   // v_fin, the bound
	Vertex   []float64 // vertex times
	// Duration and Power are per task: the hull's power at the duration
	// (≤ the LP's p_i, the §2.7 canonicalization), with every task then
	// made as fast as the power left at its events allows (see compact).
	Duration []float64
	Power    []float64
	Stats    Stats
}

// Solver holds a built LP for one DAG and order, to solve at many caps.
//
// An event s is a separator when no task or message runs across it (from
// an event before s to one after): then every task active just before s
// ends at s, and every one active at s starts there, so the LP splits
// exactly into independent LPs, one per stretch between separators, whose
// optimal lengths add up to the makespan (the LP's objective is the sum
// of the per-interval optima). Collectives over all
// ranks are separators. The Solver groups consecutive stretches into
// blocks of at least Options.BlockCols columns and solves each on its own;
// a cap sweep re-solves every block from its previous basis.
type Solver struct {
	d   *DAG
	o   *Order
	opt Options
	sep []bool // Separators(d, o)
	// devEnd is, per task on a shared device, the chained vertex its
	// device rows take as its end (deviceEnds, from the full DAG).
	devEnd  []int32
	devGap  []float64
	blocks  []*block
	taskCol []int32 // first column of each task in its block, −1 for a one-point task
	minCap  float64
	minAt   int
	stats   Stats
	capW    float64
	slack   slackTree // compact's, kept between solves
	// nodeSlack is compact's under node caps (Options.NodeOf).
	nodeSlack nodeSlack
	twins     int // blocks solved from the basis of a block of their shape, over all caps
	// lazy, for an engine LP, holds the full DAG; d is then the DAG of
	// the rows found so far (lazy.go).
	lazy *lazyRows
	// built is the LP as NewSolver built it, for Clone: its DAG, its
	// stats and an engine LP's first rows. Never written after NewSolver.
	built struct {
		d     *DAG
		stats Stats
		rows  []fixedEdge
	}
}

// block is one independent LP: events lo..hi, the vertices of those
// events (those of lo fixed at 0), and the edges leaving events lo..hi−1.
type block struct {
	lo, hi int
	verts  []int32 // the block's vertices, in event order
	vev    []int32 // the block's event of each of verts, from 0
	events *eventGraph
	key    []bool  // per event of the block: it has a time column
	kcol   []int32 // per event of the block: its time column, or −1
	tasks  []int32
	msgs   []int32
	loads  []int32
	pCol   []int32 // P columns of the block's power events, in order
	model  *clp.Model
	colUp  []float64
	solved bool
	cols   int
	rows   int
	dense  int // entries of the densest column
	// start and index are the LP's sparsity pattern (clp.Problem's), and
	// shape a hash of it with the numbers of rows and columns: blocks of
	// one shape (a code's repeated time steps) solve from one another's
	// basis (see solve).
	start, index []int32
	shape        uint64
	// needFast is the most power an event of the block draws with every
	// task at its fastest; at a cap at least this, the fastest
	// as-soon-as-possible schedule is optimal and no LP is solved. It is
	// +Inf when the initial schedule's times break the block's ties.
	needFast   float64
	fastLen    float64 // the block's length in that schedule
	devices    bool    // the block has device rows (its fastest schedule may break them)
	deviceRows int     // how many
	// tau is the block's unit of time in the LP, in seconds: its length
	// at the fastest schedule (1 when that is 0). CLP's tolerances are
	// absolute (1e-7), so times written in seconds would let microsecond
	// tasks move by a tenth of their length.
	tau float64
}

// twinChain is how many blocks of one shape solve one after the other,
// each from its predecessor's basis (see solve): more is fewer
// iterations, fewer is more chains to solve at once. On 32 ranks × 2,000
// iterations (885 of 1,000 blocks twins of 115 shapes), 130,267 simplex
// iterations with every twin from the first block's basis, 49,334 in
// chains of 32.
const twinChain = 32

// twinMinIter is the fewest simplex iterations the first block of a shape
// must take from scratch for its twins to start from a basis: below it a
// solve from scratch is as cheap as a start from any basis can make it.
const twinMinIter = 64

// denseCol is the column length above which a block is solved with the
// dual simplex even when large: a collective over many ranks is a vertex
// column with an entry per rank, and the barrier's normal matrix is then
// dense (a 1,024-rank collective: 5 s a block instead of 0.3 s).
const denseCol = 256

// NewSolver builds the LP of d with the fixed order o.
func NewSolver(d *DAG, o *Order, opt Options) (*Solver, error) {
	if opt.Form == FormDefault {
		opt.Form = FormIncrement
		if len(d.Devices) > 0 {
			opt.Form = FormMix
		}
	}
	if opt.Scaling == 0 {
		opt.Scaling = clp.ScaleAuto
	}
	if opt.BlockCols == 0 {
		opt.BlockCols = 500
	}
	if opt.Workers == 0 {
		opt.Workers = runtime.GOMAXPROCS(0)
	}
	start := time.Now()
	s := &Solver{d: d, o: o, opt: opt}
	if err := checkNodes(d, opt.NodeOf); err != nil {
		return nil, err
	}
	s.minCap, s.minAt = minFeasible(d, o, opt.NodeOf)
	s.stats.Form = opt.Form.String()
	s.stats.Tasks = len(d.Tasks)
	var err error
	if s.devEnd, s.devGap, err = deviceEnds(d, o); err != nil {
		return nil, err
	}
	if o.Chained != nil && !opt.noLazy {
		cut := opt.CutTasks
		if cut == 0 {
			cut = -1
			if len(d.Tasks) > cutAbove {
				cut = cutEvery
			}
		}
		s.lazy = newLazyRows(d, o, opt.lazyVisits, cut, opt.Workers, opt.cutAll)
		s.d = s.lazy.reduced()
		s.stats.Cuts = len(s.lazy.cutList)
	}
	if err := s.load(); err != nil {
		return nil, err
	}
	s.stats.BuildS = time.Since(start).Seconds()
	s.built.d, s.built.stats = s.d, s.stats
	if s.lazy != nil {
		s.built.rows = slices.Clone(s.lazy.rows)
	}
	return s, nil
}

// Clone returns a new Solver of the LP that NewSolver built for s: the
// same rows (without the rows an engine LP added on demand since), no
// basis, so that its solves give what s's solves would have given from
// the start. It only reads what no solve writes, so it may run while s
// solves in another goroutine, and the two may solve at the same time.
// Cloning skips the engine LP's search for rows (lazy.go): it costs
// loading the LP into CLP.
func (s *Solver) Clone() (*Solver, error) {
	start := time.Now()
	c := &Solver{d: s.built.d, o: s.o, opt: s.opt, minCap: s.minCap, minAt: s.minAt, stats: s.built.stats, devEnd: s.devEnd, devGap: s.devGap}
	if s.lazy != nil {
		c.lazy = s.lazy.clone(s.built.rows)
	}
	if err := c.load(); err != nil {
		return nil, err
	}
	c.stats.BuildS = time.Since(start).Seconds()
	return c, nil
}

// Fork returns a copy of s as it is now: its LP with the rows an engine
// LP added so far, and every block's last solution and basis (see
// clp.Model.Copy), so that the copy's next solve starts where s's next
// solve would. The two are then independent and may solve at the same
// time; s must not be solving while it is forked.
func (s *Solver) Fork() (*Solver, error) {
	c := &Solver{d: s.d, o: s.o, opt: s.opt, sep: s.sep, devEnd: s.devEnd, devGap: s.devGap,
		taskCol: s.taskCol, minCap: s.minCap, minAt: s.minAt, stats: s.stats, capW: s.capW, built: s.built}
	if s.lazy != nil {
		c.lazy = s.lazy.clone(s.lazy.rows)
		c.lazy.rounds, c.lazy.added = s.lazy.rounds, s.lazy.added
	}
	c.blocks = make([]*block, len(s.blocks))
	for j, b := range s.blocks {
		nb := *b
		nb.colUp = slices.Clone(b.colUp)
		if b.model != nil {
			m, err := b.model.Copy()
			if err != nil {
				c.Close()
				return nil, fmt.Errorf("bound: forking the LP of events %d–%d: %w", b.lo, b.hi, err)
			}
			nb.model = m
		}
		c.blocks[j] = &nb
	}
	return c, nil
}

// load splits s.d into blocks and loads each block's LP into CLP, on
// opt.Workers goroutines (a block's LP is its own: build writes only its
// block and its tasks' columns).
func (s *Solver) load() error {
	opt := s.opt
	s.blocks = nil
	s.stats.Variables, s.stats.Rows, s.stats.Nonzeros, s.stats.DeviceRows = 0, 0, 0, 0
	s.split()
	probs := make([]*clp.Problem, len(s.blocks))
	errs := make([]error, len(s.blocks))
	one := func(j int) {
		b := s.blocks[j]
		p, err := s.build(b)
		if err != nil {
			errs[j] = fmt.Errorf("bound: building the LP of events %d–%d: %w", b.lo, b.hi, err)
			return
		}
		m, err := clp.Load(p)
		if err != nil {
			errs[j] = fmt.Errorf("bound: loading the LP: %w", err)
			return
		}
		m.SetTimeLimit(opt.TimeLimit)
		m.SetLogLevel(opt.LogLevel)
		m.SetScaling(opt.Scaling)
		m.SetPresolve(!opt.NoPresolve)
		b.model, b.colUp, b.cols, b.rows = m, p.ColUp, len(p.Obj), len(p.RowLo)
		b.start, b.index, b.shape = p.Start, p.Index, shapeOf(p)
		for c := 0; c < b.cols; c++ {
			b.dense = max(b.dense, int(p.Start[c+1]-p.Start[c]))
		}
		probs[j] = p
	}
	if w := min(opt.Workers, len(s.blocks)); w > 1 {
		var wg sync.WaitGroup
		next := make(chan int)
		for range w {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range next {
					one(j)
				}
			}()
		}
		for j := range s.blocks {
			next <- j
		}
		close(next)
		wg.Wait()
	} else {
		for j := range s.blocks {
			if one(j); errs[j] != nil {
				break
			}
		}
	}
	for j, p := range probs {
		if errs[j] != nil {
			s.Close()
			return errs[j]
		}
		if p == nil {
			continue
		}
		s.stats.Variables += len(p.Obj)
		s.stats.Rows += len(p.RowLo)
		s.stats.Nonzeros += len(p.Index)
		s.stats.DeviceRows += s.blocks[j].deviceRows
	}
	s.stats.Blocks = len(s.blocks)
	return nil
}

// shapeOf hashes p's numbers of rows and columns and its sparsity
// pattern (FNV-1a over the 32-bit words).
func shapeOf(p *clp.Problem) uint64 {
	h := uint64(14695981039346656037)
	mix := func(x int32) {
		h ^= uint64(uint32(x))
		h *= 1099511628211
	}
	mix(int32(len(p.Obj)))
	mix(int32(len(p.RowLo)))
	for _, x := range p.Start {
		mix(x)
	}
	for _, x := range p.Index {
		mix(x)
	}
	return h
}

// sameShape reports whether blocks a and b have the same rows, columns
// and sparsity pattern.
func sameShape(a, b *block) bool {
	return a.shape == b.shape && a.cols == b.cols && a.rows == b.rows &&
		slices.Equal(a.start, b.start) && slices.Equal(a.index, b.index)
}

// Close frees the solver's LPs.
func (s *Solver) Close() {
	for _, b := range s.blocks {
		if b != nil && b.model != nil {
			b.model.Close()
			b.model = nil
		}
	}
}

// MinFeasibleCap returns the least feasible cap and the event needing it.
func (s *Solver) MinFeasibleCap() (float64, int) { return s.minCap, s.minAt }

// Stats returns the LP's size and build time.
func (s *Solver) Stats() Stats { return s.stats }

// split finds the separator events and cuts the LP into blocks.
func (s *Solver) split() {
	d, o := s.d, s.o
	K := o.Events
	s.taskCol = make([]int32, len(d.Tasks))
	sep := Separators(d, o)
	s.sep = sep
	// Columns a stretch adds, to size the blocks.
	weight := make([]int, K)
	for _, t := range d.Tasks {
		if h := len(t.Hull); h > 1 {
			switch s.opt.Form {
			case FormMix:
				weight[o.Event[t.Src]] += h
			case FormIncrement:
				weight[o.Event[t.Src]] += h - 1
			default:
				weight[o.Event[t.Src]] += 2
			}
		}
	}
	for v := 0; v < d.Vertices; v++ {
		weight[o.Event[v]]++
	}
	cuts := []int{0}
	if s.opt.BlockCols > 0 && o.Event[d.Fin] == K-1 {
		acc := 0
		for k := 0; k < K-1; k++ {
			acc += weight[k] + 1
			if k > 0 && sep[k] && acc >= s.opt.BlockCols {
				cuts = append(cuts, k)
				acc = 0
			}
		}
		if len(cuts) > 1 && acc < s.opt.BlockCols/2 {
			cuts = cuts[:len(cuts)-1] // fold a short tail into the last block
		}
	}
	cuts = append(cuts, K-1)
	// blockOf[k]: the block whose edges leave event k.
	blockOf := make([]int32, K)
	for j := 0; j+1 < len(cuts); j++ {
		b := &block{lo: cuts[j], hi: cuts[j+1]}
		s.blocks = append(s.blocks, b)
		for k := b.lo; k < b.hi; k++ {
			blockOf[k] = int32(j)
		}
	}
	last := s.blocks[len(s.blocks)-1]
	blockOf[K-1] = int32(len(s.blocks) - 1)
	if K == 1 {
		last.hi = 0
	}
	for i, t := range d.Tasks {
		b := s.blocks[blockOf[o.Event[t.Src]]]
		b.tasks = append(b.tasks, int32(i))
	}
	for i, m := range d.Messages {
		b := s.blocks[blockOf[o.Event[m.Src]]]
		b.msgs = append(b.msgs, int32(i))
	}
	for i, l := range d.Loads {
		b := s.blocks[blockOf[o.Event[l.Src]]]
		b.loads = append(b.loads, int32(i))
	}
	// Vertices in event order (a stable counting sort: the vertices of an
	// event keep their order); a separator's belong to both its blocks.
	at := make([]int32, K+1)
	for v := 0; v < d.Vertices; v++ {
		at[o.Event[v]+1]++
	}
	for k := range K {
		at[k+1] += at[k]
	}
	byEvent := make([]int32, d.Vertices)
	for v := 0; v < d.Vertices; v++ {
		byEvent[at[o.Event[v]]] = int32(v)
		at[o.Event[v]]++
	}
	j := 0
	for _, v := range byEvent {
		k := o.Event[v]
		for k > s.blocks[j].hi {
			j++
		}
		s.blocks[j].verts = append(s.blocks[j].verts, v)
		if k == s.blocks[j].hi && j+1 < len(s.blocks) {
			s.blocks[j+1].verts = append(s.blocks[j+1].verts, v)
		}
	}
}

// triplets collects a sparse matrix row by row and compresses it by
// columns with a counting sort (rows stay in increasing order).
type triplets struct {
	row, col []int32
	val      []float64
	rows     int
}

func (t *triplets) add(col int32, v float64) {
	t.row = append(t.row, int32(t.rows))
	t.col = append(t.col, col)
	t.val = append(t.val, v)
}

func (t *triplets) csc(ncol int) (start, index []int32, value []float64) {
	start = make([]int32, ncol+1)
	for _, c := range t.col {
		start[c+1]++
	}
	for c := 0; c < ncol; c++ {
		start[c+1] += start[c]
	}
	next := append([]int32(nil), start[:ncol]...)
	index = make([]int32, len(t.row))
	value = make([]float64, len(t.row))
	for k, c := range t.col {
		at := next[c]
		next[c]++
		index[at], value[at] = t.row[k], t.val[k]
	}
	return start, index, value
}

// keyEvents numbers the block's events (b.vev), builds their graph of
// fixed edges (b.events: messages, one per pair of events, and the chain),
// chooses the key events that keep a time column (b.key, b.kcol; see
// reduceEvents) and returns the rows between them, each vertex's event and
// the number of time columns.
func (s *Solver) keyEvents(b *block) (fixed []fixedEdge, evOf map[int32]int32, ncol int, err error) {
	d, o := s.d, s.o
	b.vev = make([]int32, len(b.verts))
	evOf = make(map[int32]int32, len(b.verts))
	nevAll := 0
	for j, v := range b.verts {
		if j > 0 && o.Event[v] != o.Event[b.verts[j-1]] {
			nevAll++
		}
		b.vev[j] = int32(nevAll)
		evOf[v] = int32(nevAll)
	}
	nevAll++
	var chained []bool
	if o.Chained != nil {
		chained = make([]bool, nevAll)
		for j, v := range b.verts {
			chained[b.vev[j]] = chained[b.vev[j]] || o.Chained[o.Event[v]]
		}
	}
	key := make([]bool, nevAll)
	key[0], key[nevAll-1] = true, true
	taskEdges := make([]fixedEdge, 0, len(b.tasks))
	for _, i := range b.tasks {
		t := &d.Tasks[i]
		e := fixedEdge{from: evOf[int32(t.Src)], to: evOf[int32(t.Dst)], w: t.Hull[0].Time, task: true}
		key[e.from], key[e.to] = true, true
		taskEdges = append(taskEdges, e)
	}
	s.markDeviceKeys(b, evOf, key) // the device rows' windows end there
	var msgs, back []fixedEdge
	// A nil index means every message to messageEdges: a block without
	// messages (a stretch of compute between two separators) passes an
	// empty one, or it would get the whole DAG's messages, their vertices
	// outside the block all at its first event, as rows t₀ − t₀ ≥ w that
	// no cap meets (glpsol found it; TestBlocksAreOneLP).
	idx := b.msgs
	if idx == nil {
		idx = []int32{}
	}
	for _, i := range messageEdges(d.Messages, idx, func(v int) int32 { return evOf[int32(v)] }, o.Chained == nil, key, &msgs) {
		m := &d.Messages[i]
		back = append(back, fixedEdge{from: evOf[int32(m.Src)], to: evOf[int32(m.Dst)], w: m.Time})
	}
	b.events = newEventGraph(nevAll, chained, msgs)
	ok := false
	if !s.opt.noReduce {
		fixed, ok = reduceEvents(b.events, key, taskEdges)
	}
	if !ok {
		for e := range key {
			key[e] = true
		}
		fixed = b.events.edges
	}
	fixed = append(fixed, back...)
	b.key = key
	b.kcol = make([]int32, nevAll)
	for e := range key {
		b.kcol[e] = -1
		if key[e] {
			b.kcol[e] = int32(ncol)
			ncol++
		}
	}
	return fixed, evOf, ncol, nil
}

// messageEdges appends to edges, for the messages ms[i] (i in idx, or
// every one when idx is nil), one edge per pair of events (ev gives a
// vertex's event) with the longest message as its length, and returns the
// messages against the event order (the slack policy or a tie can put a
// message's ends that way): their rows stay as they are, between key
// events (marked in key), and force them together (or are infeasible). A
// message that takes no time is dropped where the chain implies it: within
// one event, or anywhere when every event is chained.
func messageEdges(ms []Message, idx []int32, ev func(v int) int32, allChained bool, key []bool, edges *[]fixedEdge) (back []int32) {
	n := len(idx)
	if idx == nil {
		n = len(ms)
	}
	// The messages that make edges, in order, with their events; then a
	// stable counting sort of them by tail, so that each tail's messages
	// meet their heads in order in a table of the heads seen (no map: on
	// the 10,240-task stencil, 1.9 M messages, a map of pairs took 0.9 s).
	msg := make([]int32, 0, n)
	src := make([]int32, 0, n)
	dst := make([]int32, 0, n)
	for j := range n {
		i := int32(j)
		if idx != nil {
			i = idx[j]
		}
		m := &ms[i]
		a, b := ev(m.Src), ev(m.Dst)
		if b < a || (b == a && m.Time > 0) {
			key[a], key[b] = true, true
			back = append(back, i)
			continue
		}
		if m.Time <= 0 && (allChained || b == a) {
			continue // implied by the chain
		}
		msg, src, dst = append(msg, i), append(src, a), append(dst, b)
	}
	K := len(key)
	start := make([]int32, K+1)
	for _, a := range src {
		start[a+1]++
	}
	for e := range K {
		start[e+1] += start[e]
	}
	byTail := make([]int32, len(msg)) // positions in msg, by tail, in order within a tail
	next := slices.Clone(start[:K])
	for k, a := range src {
		byTail[next[a]] = int32(k)
		next[a]++
	}
	// seen[b] is 1 + the tail whose pair with head b was met last, and
	// first[b] that pair's first message (position in msg).
	seen, first := next, make([]int32, K) // next is spent: reuse it
	clear(seen)
	longest := make([]float64, len(msg)) // per pair's first message: the longest of the pair
	rep := make([]bool, len(msg))
	for _, k := range byTail {
		a, b := src[k], dst[k]
		w := ms[msg[k]].Time
		if seen[b] == a+1 {
			f := first[b]
			longest[f] = math.Max(longest[f], w)
			continue
		}
		seen[b], first[b] = a+1, k
		longest[k], rep[k] = w, true
	}
	nrep := 0
	for _, r := range rep {
		if r {
			nrep++
		}
	}
	*edges = slices.Grow(*edges, nrep)
	for k := range msg {
		if rep[k] {
			*edges = append(*edges, fixedEdge{from: src[k], to: dst[k], w: longest[k]})
		}
	}
	return back
}

// Solve returns the bound at capW, re-solving every block from its
// previous basis with the dual simplex after the first call (only the P
// columns' upper bounds change).
func (s *Solver) Solve(capW float64) (*Bound, error) {
	return s.SolveContext(context.Background(), capW)
}

// SolveContext is Solve that stops within a fraction of a second when ctx
// is done (CLP is stopped mid-solve); the error then wraps ctx.Err().
func (s *Solver) SolveContext(ctx context.Context, capW float64) (*Bound, error) {
	if s.lazy == nil {
		return s.solve(ctx, capW)
	}
	start := time.Now()
	var iter int
	for round := 1; ; round++ {
		out, err := s.solve(ctx, capW)
		if err != nil {
			return nil, err
		}
		iter += out.Stats.Iter
		tol := lazyTol * math.Max(out.Makespan, 1e-9)
		if s.lazy.check(out.Vertex, tol) == 0 || round == maxLazyRounds {
			out.Stats.Iter, out.Stats.Rounds = iter, round
			out.Stats.SolveS = time.Since(start).Seconds()
			out.Stats.LazyRows = s.lazy.added
			return out, nil
		}
		if s.opt.Round != nil {
			s.opt.Round(round+1, s.lazy.added)
		}
		s.Close()
		s.d = s.lazy.reduced()
		if err := s.load(); err != nil {
			return nil, err
		}
	}
}

// method is the CLP method that solves block b from scratch.
func (s *Solver) method(b *block) clp.Method {
	if m := s.opt.Method; m != clp.Auto {
		return m
	}
	switch {
	case b.cols+b.rows < 3000 || b.rows > 4*b.cols || b.dense > denseCol || (s.o.Chained != nil && len(s.d.Tasks) > cutAbove):
		// Small, or many rows per column, or the engine's rows of a large
		// trace (FromGraph: the barrier took 40 s on 458 columns and 3,614
		// rows that the dual simplex solves in 0.5 s; on
		// tracer-stencil4d-64 cut into 10 blocks at 1,160 W, the barrier
		// without crossover stopped on its iteration limit, with
		// crossover it took 10.4 s of CPU time, the dual simplex 1.4 s).
		return clp.Dual
	case s.opt.KeepBasis:
		return clp.Barrier
	}
	return clp.BarrierNoCross
}

// WriteMPS writes the LP of the last cap solved (or of no cap) as one MPS
// file (free format, see clp.Model.WriteMPS): the blocks in a single LP,
// which has the same optimum, with the makespan in nanoseconds (the JSON's
// bound_ns, unrounded) as its objective. The rows keep the LP's unit, the
// block's length. Nanoseconds, not seconds: with the objective in
// seconds its coefficient is the run's length in seconds, 10⁻⁴ on a short
// trace, and a solver with absolute tolerances on reduced costs (GLPK's
// 10⁻⁷) stops short of the optimum: glpsol's was 2.3·10⁻⁶ above it on a
// 25-task trace, 1.4·10⁻³ with its presolve and scaling off (docs/design/bound.md,
// "Checked against glpsol").
func (s *Solver) WriteMPS(path string) error {
	whole := &Solver{d: s.d, o: s.o, opt: s.opt}
	whole.opt.BlockCols = -1
	whole.split()
	b := whole.blocks[0]
	p, err := whole.build(b)
	if err != nil {
		return fmt.Errorf("bound: building the LP for %s: %w", path, err)
	}
	if s.capW > 0 {
		for _, c := range b.pCol {
			p.ColUp[c] = s.capW
		}
	}
	for c := range p.Obj {
		p.Obj[c] *= b.tau * 1e9 // the makespan in ns; the rows keep the unit
	}
	m, err := clp.Load(p)
	if err != nil {
		return fmt.Errorf("bound: writing %s: %w", path, err)
	}
	defer m.Close()
	return m.WriteMPS(path)
}
