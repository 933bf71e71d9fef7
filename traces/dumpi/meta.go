package dumpi

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxRanks bounds numprocs in a .meta file before any file is looked for.
const maxRanks = 1 << 22

// meta is the content of a .meta file: key=value lines, of which the
// reader needs numprocs (the rank count) and fileprefix (the per-rank
// files are fileprefix-NNNN.bin beside the .meta file, the rank written
// with at least four digits).
type meta struct {
	path     string
	numprocs int
	prefix   string // with the folder of the .meta file
	version  string // "version.subversion.subsubversion" as written, if given
	files    []string
}

// findMeta resolves path to a .meta file: the file itself, the only .meta
// file of a folder, or the .meta file beside a .bin file.
func findMeta(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	dir := path
	if !st.IsDir() {
		if strings.HasSuffix(path, ".bin") {
			dir = filepath.Dir(path)
		} else {
			return path, nil
		}
	}
	ms, err := filepath.Glob(filepath.Join(dir, "*.meta"))
	if err != nil {
		return "", err
	}
	switch len(ms) {
	case 0:
		return "", fmt.Errorf("%s: no DUMPI .meta file in %s", path, dir)
	case 1:
		return ms[0], nil
	}
	if !st.IsDir() { // a .bin file: take the .meta whose prefix it has
		for _, m := range ms {
			if strings.HasPrefix(filepath.Base(path), strings.TrimSuffix(filepath.Base(m), ".meta")+"-") {
				return m, nil
			}
		}
	}
	return "", fmt.Errorf("%s: %d .meta files in %s (%s); name the one to read", path, len(ms), dir, strings.Join(ms, ", "))
}

// readMeta parses a .meta file and finds its per-rank .bin files.
func readMeta(path string) (*meta, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) > 1<<20 {
		return nil, fmt.Errorf("%s: %d bytes is too large for a DUMPI .meta file", path, len(data))
	}
	m := &meta{path: path}
	var ver [3]string
	seen := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		if first, twice := seen[k]; twice && (k == "numprocs" || k == "fileprefix") {
			return nil, fmt.Errorf("%s:%d: %s given twice (first on line %d)", path, line, k, first)
		}
		seen[k] = line
		switch k {
		case "numprocs":
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n <= 0 || n > maxRanks {
				return nil, fmt.Errorf("%s:%d: numprocs %q is not a rank count in 1..%d", path, line, v, maxRanks)
			}
			m.numprocs = n
		case "fileprefix":
			v = strings.TrimSpace(v)
			if v == "" {
				return nil, fmt.Errorf("%s:%d: empty fileprefix", path, line)
			}
			m.prefix = filepath.Join(filepath.Dir(path), v)
		case "version":
			ver[0] = v
		case "subversion":
			ver[1] = v
		case "subsubversion":
			ver[2] = v
		}
	}
	if m.numprocs == 0 || m.prefix == "" {
		return nil, fmt.Errorf("%s: not a DUMPI .meta file: numprocs= and fileprefix= lines are required", path)
	}
	if ver[0] != "" {
		m.version = ver[0] + "." + ver[1] + "." + ver[2]
	}
	// The rank number has the smallest width, from four digits up, for
	// which every file exists (as sst-dumpi's own tools look for them).
	for _, w := range []int{4, 5, 6, 7, 8, 9, 1, 2, 3} {
		name := func(r int) string { return fmt.Sprintf("%s-%0*d.bin", m.prefix, w, r) }
		if !exists(name(0)) || !exists(name(m.numprocs-1)) {
			continue
		}
		files := make([]string, m.numprocs)
		for r := range files {
			files[r] = name(r)
			if !exists(files[r]) {
				return nil, fmt.Errorf("%s: numprocs=%d but %s is missing", path, m.numprocs, files[r])
			}
		}
		if extra := name(m.numprocs); exists(extra) {
			return nil, fmt.Errorf("%s: numprocs=%d but %s is there too: the trace would silently lose that rank", path, m.numprocs, extra)
		}
		m.files = files
		return m, nil
	}
	for _, w := range []int{4, 5, 6, 7, 8, 9, 1, 2, 3} {
		if first := fmt.Sprintf("%s-%0*d.bin", m.prefix, w, 0); exists(first) {
			for r := 1; r < m.numprocs; r++ {
				if f := fmt.Sprintf("%s-%0*d.bin", m.prefix, w, r); !exists(f) {
					return nil, fmt.Errorf("%s: numprocs=%d but %s is missing", path, m.numprocs, f)
				}
			}
		}
	}
	return nil, fmt.Errorf("%s: numprocs=%d but no per-rank files %s-0000.bin … were found", path, m.numprocs, m.prefix)
}

func exists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// Sniff reports whether a file is part of a DUMPI trace, from its first
// bytes (head) and its name (path, which may be empty): a per-rank .bin
// file starts with DUMPI's magic bytes; a .meta file is text with
// numprocs= and fileprefix= lines (the name is not needed: the tracer
// writes both keys, and its files are often renamed).
func Sniff(head []byte, path string) bool {
	if len(head) >= 8 && binary.BigEndian.Uint64(head) == magic {
		return true
	}
	if len(head) == 0 || head[0] == 0 || !utf8.Valid(head[:min(len(head), 512)]) && !strings.HasSuffix(path, ".meta") {
		return false
	}
	return metaKey(head, "numprocs=") && metaKey(head, "fileprefix=")
}

// metaKey reports whether key starts a line of head.
func metaKey(head []byte, key string) bool {
	return bytes.HasPrefix(head, []byte(key)) || bytes.Contains(head, []byte("\n"+key))
}

// SniffDir reports whether the folder at path holds a DUMPI trace: exactly
// one .meta file, which Sniff accepts.
func SniffDir(path string) bool {
	ms, err := filepath.Glob(filepath.Join(path, "*.meta"))
	if err != nil || len(ms) != 1 {
		return false
	}
	f, err := os.Open(ms[0])
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	return Sniff(head[:n], ms[0])
}
