package chakra

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// The streams of an NPU, as graph CPUs.
const (
	HostCPU    uint8 = 0 // nodes with is_cpu_op set
	GPUCompute uint8 = 1 // other computation
	GPUComm    uint8 = 2 // communication
)

// Options controls how a trace is lowered.
type Options struct {
	// Algorithm maps a collective kind to an algorithm of
	// lower.Algorithms; kinds left out take lower.SelectNCCL.
	Algorithm map[mpi.Kind]string
	// Lower are the lowering options (NCCL channels and chunk, the cost
	// of reductions); its Algorithm is not used.
	Lower lower.Options
	// CtrlDeps makes control dependencies (ctrl_deps) count as well as
	// data dependencies. Chakra's own feeder (src/feeder/et_feeder.cpp)
	// schedules on data_deps alone, and converters of PyTorch traces
	// store call-stack parents in ctrl_deps, which may name nodes the file
	// lacks (dropped) or form cycles (an error).
	CtrlDeps bool
	// Replicate, when positive, replays the trace on that many NPUs, a
	// multiple of the number of files: NPU r runs file r mod k, and every
	// collective spans all NPUs, as when a recorded step is scaled out by
	// data parallelism (tensor sizes stay as recorded).
	Replicate int
	// TP, with Replicate, is the degree of tensor parallelism: blocks of
	// TP consecutive NPUs are tensor-parallel groups. A collective
	// recorded on a group within one block stays on that group in each
	// copy of the trace; every other collective is data parallel and spans
	// the Replicate/TP NPUs at the rank's position in every block, with
	// gathers and scatters re-sized to keep each NPU's block. TP must
	// divide the number of files.
	TP int
	// Roofline, when set, times COMP, MEM_LOAD and MEM_STORE nodes
	// recorded without a duration from their num_ops and tensor_size;
	// nodes with a recorded duration keep it.
	Roofline *Roofline
}

// Trace is a Chakra trace and its execution graph.
type Trace struct {
	// Files are the per-NPU files as read.
	Files []*File
	Graph *graph.Graph
	// Groups are the process groups the collectives ran on: the recorded
	// ones and "" for every NPU.
	Groups map[string][]int32
}

var npuFileRE = regexp.MustCompile(`^(.*)\.([0-9]+)\.et$`)

// Paths returns the per-NPU files of the trace at path: a folder holding
// <prefix>.<npu>.et files, one such file (its siblings with the same
// prefix are the other NPUs), or a single file of another name (one NPU).
// NPUs must be numbered 0..k−1.
func Paths(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	dir, prefix := path, ""
	if !st.IsDir() {
		m := npuFileRE.FindStringSubmatch(filepath.Base(path))
		if m == nil {
			return []string{path}, nil
		}
		dir, prefix = filepath.Dir(path), m[1]
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	byNPU := map[int]string{}
	for _, e := range ents {
		m := npuFileRE.FindStringSubmatch(e.Name())
		if m == nil || e.IsDir() {
			continue
		}
		if prefix == "" {
			prefix = m[1]
		}
		if m[1] != prefix {
			if st.IsDir() {
				return nil, fmt.Errorf("%s: holds traces of two prefixes, %q and %q", path, prefix, m[1])
			}
			continue
		}
		npu, err := strconv.Atoi(m[2])
		if err != nil || npu >= graph.MaxRanks {
			return nil, fmt.Errorf("%s: NPU number %s out of range", filepath.Join(dir, e.Name()), m[2])
		}
		byNPU[npu] = filepath.Join(dir, e.Name())
	}
	if len(byNPU) == 0 {
		return nil, fmt.Errorf("%s: no <prefix>.<npu>.et files", path)
	}
	paths := make([]string, len(byNPU))
	for npu := range paths {
		p, ok := byNPU[npu]
		if !ok { // a gap: name the first missing NPU and a file after it
			later := ""
			for n, q := range byNPU {
				if n > npu && (later == "" || q < later) {
					later = q
				}
			}
			return nil, fmt.Errorf("%s: the file of NPU %d is missing, but %s is there (NPU files are numbered from 0 without gaps)", path, npu, filepath.Base(later))
		}
		paths[npu] = p
	}
	return paths, nil
}

// Read reads the trace at path (see Paths) and lowers it.
func Read(path string, opt Options) (*Trace, error) {
	paths, err := Paths(path)
	if err != nil {
		return nil, err
	}
	files := make([]*File, len(paths))
	for i, p := range paths {
		if files[i], err = ReadFile(p); err != nil {
			return nil, err
		}
	}
	return Build(files, opt)
}

// Build lowers per-NPU files into an execution graph.
func Build(files []*File, opt Options) (*Trace, error) {
	return build(files, opt, true)
}

// build is Build; with reduced, dependencies that others imply are left
// out of the graph (see reduce).
func build(files []*File, opt Options, reduced bool) (*Trace, error) {
	k := len(files)
	if k == 0 {
		return nil, fmt.Errorf("chakra: no files")
	}
	n := k
	if opt.Replicate > 0 {
		if opt.Replicate%k != 0 || opt.Replicate > graph.MaxRanks {
			return nil, fmt.Errorf("%s: cannot replicate %d NPU files to %d NPUs (want a multiple of %d, at most %d)", files[0].Path, k, opt.Replicate, k, graph.MaxRanks)
		}
		n = opt.Replicate
	}
	if opt.TP < 0 || opt.TP > 0 && (opt.Replicate == 0 || k%opt.TP != 0) {
		return nil, fmt.Errorf("%s: tensor parallelism %d needs replication and must divide the %d NPU files", files[0].Path, opt.TP, k)
	}
	if opt.Roofline != nil {
		if err := opt.Roofline.Validate(); err != nil {
			return nil, fmt.Errorf("%s: %w", files[0].Path, err)
		}
	}
	for kind, alg := range opt.Algorithm {
		if !contains(lower.Algorithms(kind), alg) {
			return nil, fmt.Errorf("%s: %s has no algorithm %q", files[0].Path, kind, alg)
		}
	}
	nodes := make([]*fileNodes, k)
	for i, f := range files {
		var err error
		if nodes[i], err = index(f, opt.CtrlDeps, reduced); err != nil {
			return nil, err
		}
	}
	nm := &namer{replicate: opt.Replicate > 0, tp: opt.TP, k: k, n: n, recSize: map[string]int{}}
	var err error
	switch {
	case opt.TP > 0:
		nm.recorded, err = collectGroups(nodes, k, false)
		nm.groups = map[string][]int32{}
	default:
		nm.groups, err = collectGroups(nodes, n, nm.replicate)
	}
	if err != nil {
		return nil, err
	}
	calls, err := matchCalls(nodes, nm)
	if err != nil {
		return nil, err
	}
	b := graph.NewBuilder(n)
	for r := 0; r < n; r++ {
		if err := emit(b, r, nodes[r%k], calls, nm, n, k, opt); err != nil {
			return nil, err
		}
	}
	g, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", files[0].Path, err)
	}
	g.Causal = true
	if span := spans(nodes); span != nil && opt.Replicate == 0 {
		g.Recorded = &graph.Recorded{SpanNs: span}
	}
	return &Trace{Files: files, Graph: g, Groups: nm.groups}, nil
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// fileNodes is one file's nodes with their dependencies resolved to node
// indices.
type fileNodes struct {
	f *File
	// all holds, per node, the indices of the nodes it depends on; deps
	// holds those the others do not imply (the same slices when the file
	// was not reduced). Every NPU that runs the file shares them.
	all, deps [][]int32
	coll      []bool   // per node, whether it is a collective call (has comm_type)
	labels    []string // per node, the label of its entry operation
}

// nodeErr formats an error about node i of f.
func nodeErr(f *File, i int, format string, a ...any) error {
	return fmt.Errorf("%s: %s", nodeName(f, i), fmt.Sprintf(format, a...))
}

// nodeName names node i of f by its file, index, id, type and name.
func nodeName(f *File, i int) string {
	return fmt.Sprintf("%s: node %d (id %d, %s %q)", f.Path, i, f.Nodes[i].ID, f.Nodes[i].Type, f.Nodes[i].Name)
}

// index resolves the dependencies of f's nodes and checks that they form
// no cycle: data dependencies must name another node of the file; control
// dependencies (with ctrl) on nodes the file lacks, or of a node on
// itself, are dropped, as converters leave both. With reduced it also
// finds the dependencies that others imply (see reduce).
func index(f *File, ctrl, reduced bool) (*fileNodes, error) {
	if len(f.Nodes) > 1<<30 {
		return nil, fmt.Errorf("%s: %d nodes (limit 2^30)", f.Path, len(f.Nodes))
	}
	at := make(map[uint64]int32, len(f.Nodes))
	for i, nd := range f.Nodes {
		if _, dup := at[nd.ID]; dup {
			return nil, nodeErr(f, i, "id used by node %d too", at[nd.ID])
		}
		at[nd.ID] = int32(i)
	}
	fn := &fileNodes{f: f, all: make([][]int32, len(f.Nodes)), coll: make([]bool, len(f.Nodes)), labels: make([]string, len(f.Nodes))}
	for i := range f.Nodes {
		nd := &f.Nodes[i]
		var ds []int32
		for _, id := range nd.DataDeps {
			j, ok := at[id]
			switch {
			case !ok:
				return nil, nodeErr(f, i, "depends on node id %d, which the file lacks", id)
			case j == int32(i):
				return nil, nodeErr(f, i, "depends on itself")
			case !containsInt(ds, j):
				ds = append(ds, j)
			}
		}
		for _, id := range nd.CtrlDeps {
			if j, ok := at[id]; ctrl && ok && j != int32(i) && !containsInt(ds, j) {
				ds = append(ds, j)
			}
		}
		fn.all[i] = ds
		fn.labels[i] = fmt.Sprintf("node%d", nd.ID)
		_, typed := nd.Attr("comm_type")
		fn.coll[i] = typed && nd.Type == CommCollNode
	}
	order, bad := topo(fn.all)
	if bad >= 0 {
		return nil, nodeErr(f, bad, "lies on a dependency cycle")
	}
	fn.deps = fn.all
	if reduced {
		fn.deps, _ = reduce(fn.all, order)
	}
	return fn, nil
}

func containsInt(s []int32, x int32) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// topo returns a topological order of deps, dependencies first, and −1,
// or a node on a dependency cycle (Kahn's algorithm).
func topo(deps [][]int32) (order []int32, cyclic int) {
	indeg := make([]int32, len(deps))
	users := make([][]int32, len(deps))
	for i, ds := range deps {
		indeg[i] = int32(len(ds))
		for _, d := range ds {
			users[d] = append(users[d], int32(i))
		}
	}
	var ready []int32
	for i, d := range indeg {
		if d == 0 {
			ready = append(ready, int32(i))
		}
	}
	order = make([]int32, 0, len(deps))
	for len(ready) > 0 {
		i := ready[len(ready)-1]
		ready = ready[:len(ready)-1]
		order = append(order, i)
		for _, u := range users[i] {
			if indeg[u]--; indeg[u] == 0 {
				ready = append(ready, u)
			}
		}
	}
	if len(order) == len(deps) {
		return order, -1
	}
	for i, d := range indeg {
		if d > 0 {
			return nil, i
		}
	}
	return nil, -1
}

// spans returns each file's recorded span, from the first node's start to
// the last node's end in ns (0 for a file without start times), or nil
// when no file records start times.
func spans(nodes []*fileNodes) []int64 {
	per := make([]int64, len(nodes))
	any := false
	for i, fn := range nodes {
		var lo, hi uint64
		seen := false
		for _, nd := range fn.f.Nodes {
			if nd.StartMicros == 0 {
				continue
			}
			end := nd.StartMicros + nd.DurationMicros
			if !seen || nd.StartMicros < lo {
				lo = nd.StartMicros
			}
			hi = max(hi, end)
			seen = true
		}
		if seen && hi-lo <= uint64(graph.MaxTimeNs/1000) {
			per[i] = int64(hi-lo) * 1000
			any = true
		}
	}
	if !any {
		return nil
	}
	return per
}

// collectGroups gathers the process groups of the files' METADATA nodes;
// "" is every NPU. With replicate, every collective runs on "".
func collectGroups(nodes []*fileNodes, n int, replicate bool) (map[string][]int32, error) {
	all := make([]int32, n)
	for i := range all {
		all[i] = int32(i)
	}
	groups := map[string][]int32{"": all}
	if replicate {
		return groups, nil
	}
	for _, fn := range nodes {
		for i, nd := range fn.f.Nodes {
			if nd.Type != MetadataNode || !strings.Contains(nd.Name, "process_group:init") {
				continue
			}
			pgs, err := processGroups(nd.Inputs)
			if err != nil {
				return nil, nodeErr(fn.f, i, "%v", err)
			}
			for name, ranks := range pgs {
				if len(ranks) == 0 {
					ranks = all
				}
				seen := map[int32]bool{}
				for _, r := range ranks {
					if r >= int32(n) || seen[r] {
						return nil, nodeErr(fn.f, i, "process group %q lists rank %d twice or outside 0..%d", name, r, n-1)
					}
					seen[r] = true
				}
				if old, ok := groups[name]; ok && name != "" && !equal(old, ranks) {
					return nil, nodeErr(fn.f, i, "process group %q is %v here but %v elsewhere", name, ranks, old)
				}
				groups[name] = ranks
			}
		}
	}
	return groups, nil
}

func equal(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// call is one collective as all members of its group run it.
type call struct {
	kind  CollType
	bytes int64 // comm_size (or tensor_size)
	tag   int32
}

// callKey names one rank's collective node: rank and node index.
type callKey struct{ rank, node int32 }

// matchCalls pairs the collective nodes of every group's members: the
// j-th call on a group in one member's file order is the j-th in every
// other's, and must agree on kind and size.
func matchCalls(nodes []*fileNodes, nm *namer) (map[callKey]call, error) {
	k, n := len(nodes), nm.n
	groups := nm.groups
	perGroup := map[string]map[int32][]int32{} // group → rank → its calls
	for r := 0; r < n; r++ {
		fn := nodes[r%k]
		for i := range fn.f.Nodes {
			if !fn.coll[i] {
				continue
			}
			nd := &fn.f.Nodes[i]
			name, ok := nm.name(nd, r)
			members := groups[name]
			if !ok {
				return nil, nodeErr(fn.f, i, "process group %q is not declared by a process_group:init node", name)
			}
			if !containsInt(members, int32(r)) {
				return nil, nodeErr(fn.f, i, "rank %d calls a collective on process group %q, which it is not a member of", r, name)
			}
			if perGroup[name] == nil {
				perGroup[name] = map[int32][]int32{}
			}
			perGroup[name][int32(r)] = append(perGroup[name][int32(r)], int32(i))
		}
	}
	names := make([]string, 0, len(perGroup))
	for name := range perGroup {
		names = append(names, name)
	}
	sort.Strings(names)
	calls := map[callKey]call{}
	var inst int64
	for _, name := range names {
		members := groups[name]
		first := members[0]
		ref := perGroup[name][first]
		if (inst+int64(len(ref)))*lower.TagsPerCall > int64(1<<31-1-lower.CollectiveTagBase) {
			return nil, fmt.Errorf("%s: more than %d collective calls", nodes[0].f.Path, (1<<31-1-lower.CollectiveTagBase)/lower.TagsPerCall)
		}
		for _, r := range members {
			got := perGroup[name][r]
			fn := nodes[int(r)%k]
			if len(got) != len(ref) {
				return nil, unmatched(nodes, name, r, got, first, ref)
			}
			for j, i := range got {
				c, err := collOf(fn.f, int(i))
				if err != nil {
					return nil, err
				}
				c.bytes = resize(c.kind, c.bytes, nm.recSize[name], len(members))
				c.tag = lower.CollectiveTagBase + int32((inst+int64(j))*lower.TagsPerCall)
				if r != first {
					rc := calls[callKey{first, ref[j]}]
					if rc.kind != c.kind || rc.bytes != c.bytes {
						return nil, nodeErr(fn.f, int(i), "collective #%d on %s is %s of %d bytes here but %s of %d bytes on rank %d (%s): every member makes the same call",
							j+1, groupName(name), c.kind, c.bytes, rc.kind, rc.bytes, first, nodeName(nodes[int(first)%k].f, int(ref[j])))
					}
				}
				calls[callKey{r, i}] = c
			}
		}
		inst += int64(len(ref))
	}
	return calls, nil
}

// groupName names process group name in a message: "" is every NPU.
func groupName(name string) string {
	if name == "" {
		return "the group of every NPU (no pg_name)"
	}
	return fmt.Sprintf("process group %q", name)
}

// unmatched is the error for rank r, whose collectives on group name are
// nodes got, against rank first's, ref, when they differ in number: the
// first call one of them makes that the other does not.
func unmatched(nodes []*fileNodes, name string, r int32, got []int32, first int32, ref []int32) error {
	k := len(nodes)
	more, fewer, calls := r, first, got
	if len(got) < len(ref) {
		more, fewer, calls = first, r, ref
	}
	j := min(len(got), len(ref))
	return fmt.Errorf("%s: rank %d makes %d collectives on %s but rank %d makes %d: rank %d has no collective #%d to match this one",
		nodeName(nodes[int(more)%k].f, int(calls[j])), r, len(got), groupName(name), first, len(ref), fewer, j+1)
}

// collOf reads the kind and size of collective node i.
func collOf(f *File, i int) (call, error) {
	nd := &f.Nodes[i]
	a, _ := nd.Attr("comm_type")
	if a.Int < int64(AllReduce) || a.Int > int64(Barrier) {
		return call{}, nodeErr(f, i, "unknown comm_type %d", a.Int)
	}
	s, err := commSize(f, i)
	if err != nil {
		return call{}, err
	}
	return call{kind: CollType(a.Int), bytes: s}, nil
}
