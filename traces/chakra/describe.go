package chakra

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/capsim/capsim/traces/graph"
)

// Describer returns a function that names operation op of g, the graph
// Read lowered from the trace at path, for error messages: g.Describe,
// and for a message, the node it was lowered from (its index, id, type
// and name; a collective's kind and process group) and the file that
// holds it, without the l<n> label capsim makes up for a collective's
// steps, so that a deadlock names the user's node and file rather
// than only the lowered send or receive. It returns nil when path does
// not give as many files as g's ranks are a multiple of.
//
// It finds an operation's node by its label: the lowering labels every
// node's entry operation node<ID> and appends a collective's messages
// right after its entry, so a message without a label belongs to the
// nearest labelled operation before it on its rank. The files are read
// again on the first call that needs one: error paths only.
func Describer(path string, g *graph.Graph) func(op int32) string {
	if g == nil || g.Labels == nil {
		return nil
	}
	paths, err := Paths(path)
	if err != nil || g.NumRanks()%len(paths) != 0 {
		return nil
	}
	files := make([]*File, len(paths))
	at := make([]map[uint64]int, len(paths))
	return func(op int32) string {
		s := g.Describe(op)
		if op < 0 || int(op) >= g.NumOps() || g.Kind[op] == graph.Calc {
			return s
		}
		r := g.RankOf(op)
		if g.Labels[op] == "" {
			// A collective's step has no node of its own: its l<n> is
			// capsim's, which no file holds.
			s = strings.Replace(s, " "+g.Label(op)+":", ":", 1)
		}
		id := op
		for id > g.RankStart[r] && g.Labels[id] == "" {
			id--
		}
		nodeID, err := strconv.ParseUint(strings.TrimPrefix(g.Labels[id], "node"), 10, 64)
		if err != nil || !strings.HasPrefix(g.Labels[id], "node") {
			return s
		}
		k := r % len(paths)
		if files[k] == nil {
			f, err := ReadFile(paths[k])
			if err != nil {
				return s
			}
			files[k], at[k] = f, make(map[uint64]int, len(f.Nodes))
			for i, nd := range f.Nodes {
				at[k][nd.ID] = i
			}
		}
		f := files[k]
		i, ok := at[k][nodeID]
		if !ok {
			return s
		}
		nd := &f.Nodes[i]
		what := ""
		if c, ok := nd.Attr("comm_type"); ok && nd.Type == CommCollNode {
			pg, _ := nd.Attr("pg_name")
			what = fmt.Sprintf(": %s on process group %q", CollType(c.Int), pg.Str)
		}
		step := ", a step of"
		if id == op {
			step = ", the message of"
		}
		return fmt.Sprintf("%s%s node %d (id %d, %s %q%s) of %s", s, step, i, nd.ID, nd.Type, nd.Name, what, f.Path)
	}
}
