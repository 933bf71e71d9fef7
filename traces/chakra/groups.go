package chakra

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

var (
	pgNameRE  = regexp.MustCompile(`["']pg_name["']\s*:\s*["']([^"']*)["']`)
	pgRanksRE = regexp.MustCompile(`["']ranks["']\s*:\s*\[([0-9,\s]*)\]`)
)

// processGroups reads the process-group table of a process_group:init
// METADATA node: entries with a pg_name followed by a list of ranks. An
// empty or missing rank list means every NPU.
func processGroups(s string) (map[string][]int32, error) {
	groups := map[string][]int32{}
	names := pgNameRE.FindAllStringSubmatchIndex(s, -1)
	for i, m := range names {
		end := len(s)
		if i+1 < len(names) {
			end = names[i+1][0]
		}
		name := s[m[2]:m[3]]
		r := pgRanksRE.FindStringSubmatch(s[m[1]:end]) // the entry's ranks follow its name
		var ranks []int32
		if r != nil {
			for _, f := range strings.FieldsFunc(r[1], func(c rune) bool { return c == ',' || c == ' ' || c == '\n' || c == '\t' }) {
				v, err := strconv.ParseInt(f, 10, 32)
				if err != nil || v < 0 {
					return nil, fmt.Errorf("process group %q: bad rank %q", name, f)
				}
				ranks = append(ranks, int32(v))
			}
		}
		groups[name] = ranks
	}
	return groups, nil
}

// namer names the process group each rank runs a collective on, and holds
// the groups so named.
//
// Without replication the group is the node's pg_name. Replicated without
// tensor parallelism every collective spans all NPUs (""). Replicated with
// tensor parallelism of degree tp, a collective on a recorded group of
// more than one NPU that lies within one block of tp consecutive NPUs (a
// tensor-parallel group) runs on the same group of the rank's copy of the
// trace ("NAME@c", copy c = r / k); every other collective is data
// parallel and runs on the NPUs at the rank's position in every block
// ("dpX", X = r mod tp), N/tp of them.
type namer struct {
	replicate bool
	tp, k, n  int
	recorded  map[string][]int32 // the groups the files declare, "" every file's NPU
	groups    map[string][]int32 // the groups named so far
	recSize   map[string]int     // per named group, the size of the recorded group its calls were on
}

// name returns the group rank r runs collective node nd on; ok is false
// where nd names a group no file declares.
func (m *namer) name(nd *Node, r int) (string, bool) {
	a, _ := nd.Attr("pg_name")
	switch {
	case !m.replicate:
		_, ok := m.groups[a.Str]
		return a.Str, ok
	case m.tp == 0:
		return "", true
	}
	rec, ok := m.recorded[a.Str]
	if !ok {
		return a.Str, false
	}
	if len(rec) > 1 && withinBlock(rec, m.tp) {
		name := fmt.Sprintf("%s@%d", a.Str, r/m.k)
		if _, done := m.groups[name]; !done {
			shift := int32(r / m.k * m.k)
			members := make([]int32, len(rec))
			for i, x := range rec {
				members[i] = x + shift
			}
			m.groups[name], m.recSize[name] = members, len(rec)
		}
		return name, true
	}
	name := fmt.Sprintf("dp%d", r%m.tp)
	if _, done := m.groups[name]; !done {
		members := make([]int32, 0, m.n/m.tp)
		for x := r % m.tp; x < m.n; x += m.tp {
			members = append(members, int32(x))
		}
		m.groups[name], m.recSize[name] = members, len(rec)
	}
	return name, true
}

// withinBlock reports whether the ranks lie in one block of tp
// consecutive ranks.
func withinBlock(ranks []int32, tp int) bool {
	for _, x := range ranks {
		if int(x)/tp != int(ranks[0])/tp {
			return false
		}
	}
	return true
}

// resize gives a collective of the recorded size bytes, recorded on a group
// of recSize NPUs and run on a group of p, its size there: gathers and
// scatters keep each NPU's block (comm_size is the gathered whole),
// everything else keeps its size.
func resize(kind CollType, bytes int64, recSize, p int) int64 {
	switch kind {
	case AllGather, Gather, Scatter:
		if recSize > 0 && recSize != p {
			return (bytes + int64(recSize) - 1) / int64(recSize) * int64(p)
		}
	}
	return bytes
}
