package topo

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/capsim/capsim/internal/bom"
)

// Block maps ranks onto nodes in blocks: with ceil(ranks/nodes) ranks per
// node, rank r is on node r / that. It fails when nodes < 1.
func Block(ranks, nodes int) ([]int32, error) {
	if nodes < 1 {
		return nil, fmt.Errorf("mapping: %d nodes", nodes)
	}
	per := (ranks + nodes - 1) / nodes
	m := make([]int32, ranks)
	for r := range m {
		m[r] = int32(r / per)
	}
	return m, nil
}

// RoundRobin maps rank r onto node r mod nodes.
func RoundRobin(ranks, nodes int) ([]int32, error) {
	if nodes < 1 {
		return nil, fmt.Errorf("mapping: %d nodes", nodes)
	}
	m := make([]int32, ranks)
	for r := range m {
		m[r] = int32(r % nodes)
	}
	return m, nil
}

// ReadMapping reads a mapping file: one node number per line, line r for
// rank r; blank lines and lines starting with # are skipped, and so is a
// leading byte-order mark. name names the file in errors. It checks that
// there are exactly ranks entries, each in [0, nodes).
func ReadMapping(r io.Reader, name string, ranks, nodes int) ([]int32, error) {
	sc := bufio.NewScanner(bom.Skip(r))
	m := make([]int32, 0, ranks)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n >= nodes {
			return nil, fmt.Errorf("%s:%d: %q is not a node number in [0, %d)", name, line, s, nodes)
		}
		if len(m) == ranks {
			return nil, fmt.Errorf("%s:%d: more than %d ranks", name, line, ranks)
		}
		m = append(m, int32(n))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(m) != ranks {
		return nil, fmt.Errorf("%s: %d ranks mapped, want %d", name, len(m), ranks)
	}
	return m, nil
}

// Map returns the mapping of ranks onto t's nodes named by how: "block"
// (or ""), "round-robin", or else the name of a mapping file, read with
// ReadMapping.
func Map(how string, ranks int, t Topology) ([]int32, error) {
	n := t.Nodes()
	if n == 0 { // a crossbar sized by the replay
		n = ranks
	}
	switch how {
	case "", "block":
		return Block(ranks, n)
	case "round-robin", "roundrobin":
		return RoundRobin(ranks, n)
	}
	f, err := os.Open(how)
	if err != nil {
		return nil, fmt.Errorf("mapping (block, round-robin, or a file): %w", err)
	}
	defer f.Close()
	return ReadMapping(f, how, ranks, n)
}
