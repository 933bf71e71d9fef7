package taskgraph

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/capsim/capsim/internal/bom"
)

// The text form of a DAG, one task per line in id order:
//
//	# capsim task graph: cholesky:2
//	POTRF(0)
//	TRSM(1,0) 0
//	SYRK(1,0) 1
//	POTRF(1) 2
//
// A line is a task: its kernel, optionally followed by up to three
// coordinates in parentheses, then the ids of the tasks it depends on.
// Blank lines and lines starting with # are skipped; a first comment
// "# capsim task graph: NAME" names the graph.

// MaxTextTasks bounds the tasks of a text DAG.
const MaxTextTasks = 1 << 24

// Format writes d in the text form.
func Format(w io.Writer, d *DAG) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# capsim task graph: %s\n", d.Name)
	for t := int32(0); int(t) < d.NumTasks(); t++ {
		bw.WriteString(d.Label(t))
		for _, p := range d.Predecessors(t) {
			bw.WriteByte(' ')
			bw.WriteString(strconv.Itoa(int(p)))
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// Parse reads a DAG in the text form; name is used in error messages,
// which give the line.
func Parse(r io.Reader, name string) (*DAG, error) {
	sc := bufio.NewScanner(bom.Skip(r))
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	b := NewBuilder(name)
	line := 0
	var lines []int // the line of each task
	errf := func(format string, a ...any) error {
		return fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, a...))
	}
	for sc.Scan() {
		line++
		text := sc.Text()
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		if strings.HasPrefix(text, "#") {
			if g, ok := strings.CutPrefix(text, "# capsim task graph:"); ok && line == 1 {
				b.name = strings.TrimSpace(g)
			}
			continue
		}
		if len(b.kernel) >= MaxTextTasks {
			return nil, errf("more than %d tasks", MaxTextTasks)
		}
		f := strings.Fields(text)
		kernel, c, err := parseLabel(f[0])
		if err != nil {
			return nil, errf("%v", err)
		}
		t := b.Add(kernel, c)
		lines = append(lines, line)
		for _, s := range f[1:] {
			p, err := strconv.Atoi(s)
			if err != nil || p < 0 || p >= MaxTextTasks {
				return nil, errf("dependency %q is not a task id", s)
			}
			if int32(p) == t {
				return nil, errf("task %d depends on itself", t)
			}
			b.Edge(int32(p), t)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	for i := range b.src {
		if int(b.src[i]) >= len(b.kernel) {
			return nil, fmt.Errorf("%s:%d: task %d depends on task %d, but the file has %d tasks (ids count tasks from 0)",
				name, lines[b.dst[i]], b.dst[i], b.src[i], len(b.kernel))
		}
	}
	if len(b.kernel) == 0 {
		return nil, fmt.Errorf("%s: %w (the file has only blank and # lines)", name, ErrEmpty)
	}
	d, err := b.Build()
	var cyc *CycleError
	if errors.As(err, &cyc) {
		return nil, fmt.Errorf("%s:%d: task %d (%s) is on a dependency cycle", name, lines[cyc.Task], cyc.Task, cyc.Label)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return d, nil
}

// parseLabel splits "GEMM(3,2,1)" into the kernel and its coordinates.
func parseLabel(s string) (string, Coord, error) {
	c := Coord{-1, -1, -1}
	k, rest, ok := strings.Cut(s, "(")
	if k == "" {
		return "", c, fmt.Errorf("task %q has no kernel name", s)
	}
	if !ok {
		if strings.ContainsAny(k, ")") {
			return "", c, fmt.Errorf("kernel name %q has a stray parenthesis", s)
		}
		return k, c, nil
	}
	inner, ok := strings.CutSuffix(rest, ")")
	if !ok {
		return "", c, fmt.Errorf("task %q: coordinates must end with )", s)
	}
	parts := strings.Split(inner, ",")
	if len(parts) > 3 {
		return "", c, fmt.Errorf("task %q: more than 3 coordinates", s)
	}
	v := [3]*int32{&c.I, &c.J, &c.K}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 1<<30 {
			return "", c, fmt.Errorf("task %q: coordinate %q is not an integer ≥ 0", s, p)
		}
		*v[i] = int32(n)
	}
	return k, c, nil
}
