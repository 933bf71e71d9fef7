// Package results keeps the table of a sweep's points: one row per point,
// committed to an append-only journal as each point finishes, and
// materialized as an Arrow IPC file and a CSV file.
//
// The journal makes a sweep crash-safe and resumable. Each committed row is
// one JSON line written with a single write and flushed to stable storage
// before Commit returns; a line cut short by a crash (SIGKILL included) is
// discarded when the journal is reopened, so a rerun skips exactly the
// points that finished and recomputes the rest. The table files are written
// atomically (temporary file and rename) with rows sorted by point index,
// so they are never half-written and are byte-identical for the same
// scenario whatever order points finished in, whichever shards ran them.
//
// Per-point wall times are not deterministic, so they are kept out of the
// table files, in the journal and in timing.csv.
package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/capsim/capsim/internal/atomicfile"
)

// File names inside a results directory.
const (
	JournalFile = "points.jsonl"
	ArrowFile   = "results.arrow"
	CSVFile     = "results.csv"
	TimingFile  = "timing.csv"
)

// Type is the type of a column.
type Type uint8

// Column types.
const (
	String Type = iota
	Int64
	Float64
)

func (t Type) String() string {
	switch t {
	case String:
		return "string"
	case Int64:
		return "int64"
	case Float64:
		return "float64"
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// Column names and types one column of the table.
type Column struct {
	Name string `json:"name"`
	Type Type   `json:"type"`
}

// Schema is the ordered list of a table's columns.
type Schema []Column

// Index returns the position of the named column, or -1.
func (s Schema) Index(name string) int {
	for i, c := range s {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// Row is one point's values, in schema order. A value is a string, an
// int64, a float64 or nil (null), matching its column's type.
type Row struct {
	Index  int   // the point's index in the sweep, 0-based
	Values []any // one per column
}

// check verifies that r fits schema s.
func (s Schema) check(r Row) error {
	if len(r.Values) != len(s) {
		return fmt.Errorf("row %d has %d values, schema has %d columns", r.Index, len(r.Values), len(s))
	}
	for i, v := range r.Values {
		if v == nil {
			continue
		}
		ok := false
		switch s[i].Type {
		case String:
			_, ok = v.(string)
		case Int64:
			_, ok = v.(int64)
		case Float64:
			_, ok = v.(float64)
		}
		if !ok {
			return fmt.Errorf("row %d column %s: value %v (%T) is not %s", r.Index, s[i].Name, v, v, s[i].Type)
		}
	}
	return nil
}

// header is the journal's first line: it ties the journal to one sweep.
type header struct {
	Capsim      string  `json:"capsim_results"`
	Fingerprint string  `json:"fingerprint"`
	Points      int     `json:"points"`
	Schema      Schema  `json:"schema"`
	Inputs      []Input `json:"inputs,omitempty"`
}

// Input is one thing a sweep's results depend on: the scenario text, a
// file it reads (a trace, a model file), the capsim version. A journal
// records its sweep's inputs so that a mismatch can say which one changed.
type Input struct {
	Name string `json:"name"`           // what it is: "scenario", "workload.trace", "capsim", …
	Path string `json:"path,omitempty"` // the file, if it is one
	Hash string `json:"hash"`           // SHA-256 of its content (a version string for capsim)
}

// Sweep identifies the sweep a results directory holds.
type Sweep struct {
	// Fingerprint is a hash of everything the results depend on (see
	// Input); journals of different fingerprints are never mixed.
	Fingerprint string
	Points      int
	Schema      Schema
	Inputs      []Input // what the fingerprint covers, for messages
}

// changes lists how the inputs now differ from those recorded in a
// journal, e.g. "workload.trace t.arrow changed (sha256 1a2b… then, 3c4d… now)".
func changes(then, now []Input) string {
	if len(then) == 0 {
		return "the scenario, a file it reads or the capsim version changed (this journal predates per-file hashes)"
	}
	old := map[string]Input{}
	for _, in := range then {
		old[in.Name] = in
	}
	// A file read from another path with the same content (a folder
	// moved, or a path now given from another folder) matters only when
	// nothing else explains the mismatch: beside a changed file it would
	// bury it under every unchanged one.
	var parts, moved []string
	for _, in := range now {
		o, ok := old[in.Name]
		delete(old, in.Name)
		what := in.Name
		if in.Path != "" {
			what += " " + in.Path
		}
		switch {
		case !ok:
			parts = append(parts, what+" is new")
		case o.Hash != in.Hash && in.Name == "capsim":
			parts = append(parts, fmt.Sprintf("the capsim version changed (%s then, %s now)", o.Hash, in.Hash))
		case o.Hash != in.Hash:
			parts = append(parts, fmt.Sprintf("%s changed (sha256 %.12s… then, %.12s… now)", what, o.Hash, in.Hash))
		case o.Path != in.Path:
			moved = append(moved, fmt.Sprintf("%s was %s (same content)", in.Name, o.Path))
		}
	}
	for _, in := range then {
		if _, gone := old[in.Name]; gone {
			parts = append(parts, in.Name+" is no longer read")
		}
	}
	if len(parts) == 0 {
		parts = moved
	}
	if len(parts) == 0 {
		return "the sweep's size or columns changed"
	}
	return strings.Join(parts, "; ")
}

const journalVersion = "1"

// entry is one journal line after the header.
type entry struct {
	Index  int               `json:"i"`
	Values []json.RawMessage `json:"v"`
	WallS  float64           `json:"wall_s"`
}

// Store is an open results directory. It is safe for concurrent use.
type Store struct {
	dir    string
	hdr    header
	mu     sync.Mutex
	f      *os.File
	rows   map[int]Row
	wall   map[int]float64
	closed bool
	lock   *os.File // holds LockFile's flock while the store is open
}

// ErrMismatch is returned by Open when a directory holds the results of a
// different sweep.
var ErrMismatch = errors.New("results directory belongs to a different sweep")

// Open opens or creates the results directory dir for a sweep of points
// points with the given schema. fingerprint identifies the sweep (for
// instance a hash of the scenario); an existing journal with another
// fingerprint or schema is refused with ErrMismatch rather than mixed.
// Rows already committed are loaded, and a torn last line is discarded.
// Open is OpenSweep without inputs and without restart.
func Open(dir, fingerprint string, points int, schema Schema) (*Store, error) {
	return OpenSweep(dir, Sweep{Fingerprint: fingerprint, Points: points, Schema: schema}, false)
}

// OpenSweep opens or creates the results directory dir for the sweep sw.
// An existing journal of another sweep (another fingerprint, point count
// or schema) is refused with ErrMismatch, naming the inputs that changed,
// rather than mixed; with restart, its points are discarded instead and
// the sweep starts over. Rows already committed are loaded, and a torn
// last line is discarded.
//
// The store holds an exclusive lock on dir (LockFile) until Close: a
// second Open of dir, by this or another process, fails at once with
// ErrLocked and names the holder. Temporary files that a killed writer
// left in dir are removed.
func OpenSweep(dir string, sw Sweep, restart bool) (_ *Store, err error) {
	if err := checkForeign(dir, filepath.Join(dir, JournalFile)); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		if to, lerr := os.Readlink(dir); lerr == nil {
			return nil, fmt.Errorf("results: %s is a symbolic link to %s, which is no directory: create it, or name another directory", dir, to)
		}
		return nil, fmt.Errorf("results: %w", err)
	}
	lock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			lock.Close()
		}
	}()
	if _, err := atomicfile.CleanDir(dir); err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	s := &Store{dir: dir, rows: map[int]Row{}, wall: map[int]float64{}, lock: lock,
		hdr: header{Capsim: journalVersion, Fingerprint: sw.Fingerprint, Points: sw.Points, Schema: sw.Schema, Inputs: sw.Inputs}}
	path := filepath.Join(dir, JournalFile)
	if restart {
		// The tables of the old sweep go too: nothing of it may remain
		// to be mistaken for the new one's.
		for _, name := range []string{JournalFile, ArrowFile, CSVFile, TimingFile} {
			if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("results: restart: %w", err)
			}
		}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	good, err := s.load(f, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	// Drop a torn tail so that the next append starts on a fresh line.
	if err := f.Truncate(good); err != nil {
		f.Close()
		return nil, fmt.Errorf("results: %s: %w", path, err)
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return nil, fmt.Errorf("results: %s: %w", path, err)
	}
	s.f = f
	if good == 0 {
		line, _ := json.Marshal(s.hdr)
		if err := s.appendLine(line); err != nil {
			f.Close()
			return nil, err
		}
	}
	return s, nil
}

// load reads the journal and returns the length of its intact prefix.
func (s *Store) load(f *os.File, path string) (int64, error) {
	r := bufio.NewReaderSize(f, 1<<16)
	var off int64
	lineNo := 0
	for {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			return off, nil // a line without its newline is a torn write: drop it
		}
		if err != nil {
			return 0, fmt.Errorf("results: %s: %w", path, err)
		}
		lineNo++
		body := line[:len(line)-1]
		if lineNo == 1 {
			var h header
			if err := json.Unmarshal(body, &h); err != nil || h.Capsim == "" {
				return 0, fmt.Errorf("results: %s line 1: not a capsim results journal", path)
			}
			if h.Fingerprint != s.hdr.Fingerprint || h.Points != s.hdr.Points || !sameSchema(h.Schema, s.hdr.Schema) {
				if rest, err := io.ReadAll(r); err == nil && !bytes.Contains(rest, []byte{'\n'}) {
					// A sweep that stopped before committing any point
					// (a failed first point, a bad workload) left only
					// its header: nothing is lost by starting over.
					return 0, nil
				}
				return 0, fmt.Errorf("%w: %s was written for sweep %s (%d points); this sweep is %s (%d points): %s; use another output directory, or restart to discard its points (capsim sweep --restart)",
					ErrMismatch, path, h.Fingerprint, h.Points, s.hdr.Fingerprint, s.hdr.Points, changes(h.Inputs, s.hdr.Inputs))
			}
		} else {
			row, wall, err := decodeEntry(body, s.hdr.Schema)
			if err != nil {
				return 0, fmt.Errorf("results: %s line %d: %w", path, lineNo, err)
			}
			if row.Index < 0 || row.Index >= s.hdr.Points {
				return 0, fmt.Errorf("results: %s line %d: point %d outside 0..%d", path, lineNo, row.Index, s.hdr.Points-1)
			}
			s.rows[row.Index] = row
			s.wall[row.Index] = wall
		}
		off += int64(len(line))
	}
}

func sameSchema(a, b Schema) bool {
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

func decodeEntry(body []byte, schema Schema) (Row, float64, error) {
	var e entry
	e.Index = -1 // a line without "i" is not an entry of point 0
	d := json.NewDecoder(bytes.NewReader(body))
	d.DisallowUnknownFields()
	if err := d.Decode(&e); err != nil {
		return Row{}, 0, fmt.Errorf("not a results entry: %w", err)
	}
	if d.More() {
		return Row{}, 0, errors.New("not a results entry: text after the entry")
	}
	if e.Index < 0 {
		return Row{}, 0, errors.New(`not a results entry: want a point index "i" ≥ 0`)
	}
	if len(e.Values) != len(schema) {
		return Row{}, 0, fmt.Errorf("point %d has %d values, want %d", e.Index, len(e.Values), len(schema))
	}
	row := Row{Index: e.Index, Values: make([]any, len(schema))}
	for i, raw := range e.Values {
		v, err := decodeValue(raw, schema[i].Type)
		if err != nil {
			return Row{}, 0, fmt.Errorf("point %d column %s: %w", e.Index, schema[i].Name, err)
		}
		row.Values[i] = v
	}
	return row, e.WallS, nil
}

// Floats that JSON cannot carry (NaN, ±Inf) are journaled as strings.
func encodeValue(v any) json.RawMessage {
	if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
		b, _ := json.Marshal(strconv.FormatFloat(f, 'g', -1, 64))
		return b
	}
	b, _ := json.Marshal(v)
	return b
}

func decodeValue(raw json.RawMessage, t Type) (any, error) {
	if bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	switch t {
	case String:
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	case Int64:
		var n int64
		err := json.Unmarshal(raw, &n)
		return n, err
	case Float64:
		var f float64
		if err := json.Unmarshal(raw, &f); err == nil {
			return f, nil
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return strconv.ParseFloat(s, 64)
	}
	return nil, fmt.Errorf("unknown column type %d", t)
}

func (s *Store) appendLine(line []byte) error {
	buf := make([]byte, 0, len(line)+1)
	buf = append(append(buf, line...), '\n')
	if _, err := s.f.Write(buf); err != nil {
		return fmt.Errorf("results: append to %s: %w", filepath.Join(s.dir, JournalFile), err)
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("results: sync %s: %w", filepath.Join(s.dir, JournalFile), err)
	}
	return nil
}

// Done reports whether point i has been committed.
func (s *Store) Done(i int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.rows[i]
	return ok
}

// Len returns the number of committed points.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.rows)
}

// Commit records a finished point durably. Committing a point twice is an
// error: a sweep computes each point once.
func (s *Store) Commit(r Row, wall time.Duration) error {
	if err := s.hdr.Schema.check(r); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	if r.Index < 0 || r.Index >= s.hdr.Points {
		return fmt.Errorf("results: point %d outside 0..%d", r.Index, s.hdr.Points-1)
	}
	line, err := encodeEntry(r, wall.Seconds())
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("results: store is closed")
	}
	if _, dup := s.rows[r.Index]; dup {
		return fmt.Errorf("results: point %d committed twice", r.Index)
	}
	if err := s.appendLine(line); err != nil {
		return err
	}
	s.rows[r.Index] = Row{Index: r.Index, Values: append([]any(nil), r.Values...)}
	s.wall[r.Index] = wall.Seconds()
	return nil
}

// encodeEntry is the journal line of row r, computed in wallS seconds.
func encodeEntry(r Row, wallS float64) ([]byte, error) {
	e := entry{Index: r.Index, Values: make([]json.RawMessage, len(r.Values)), WallS: wallS}
	for i, v := range r.Values {
		e.Values[i] = encodeValue(v)
	}
	line, err := json.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("results: point %d: %w", r.Index, err)
	}
	return line, nil
}

// Keep discards the committed points for which keep is false, rewriting
// the journal atomically (a crash leaves the old journal or the new one),
// and returns how many it discarded: the points of a run whose inputs
// changed while it ran must not be resumed, nor finalized.
func (s *Store) Keep(keep func(i int) bool) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, errors.New("results: store is closed")
	}
	path := filepath.Join(s.dir, JournalFile)
	hdr, err := json.Marshal(s.hdr)
	if err != nil {
		return 0, fmt.Errorf("results: %w", err)
	}
	var gone []int
	err = atomicfile.Write(path, func(w io.Writer) error {
		if _, err := w.Write(append(hdr, '\n')); err != nil {
			return err
		}
		for _, r := range sortedRows(s.rows) {
			if !keep(r.Index) {
				gone = append(gone, r.Index)
				continue
			}
			line, err := encodeEntry(r, s.wall[r.Index])
			if err != nil {
				return err
			}
			if _, err := w.Write(append(line, '\n')); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("results: %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return 0, fmt.Errorf("results: %w", err)
	}
	s.f.Close()
	s.f = f
	for _, i := range gone {
		delete(s.rows, i)
		delete(s.wall, i)
	}
	return len(gone), nil
}

// Rows returns the committed rows sorted by point index.
func (s *Store) Rows() []Row {
	s.mu.Lock()
	defer s.mu.Unlock()
	return sortedRows(s.rows)
}

func sortedRows(m map[int]Row) []Row {
	rows := make([]Row, 0, len(m))
	for _, r := range m {
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Index < rows[j].Index })
	return rows
}

// Schema returns the table's schema.
func (s *Store) Schema() Schema { return s.hdr.Schema }

// Finalize writes results.arrow, results.csv and timing.csv from the
// committed rows, each atomically.
func (s *Store) Finalize() error {
	s.mu.Lock()
	rows := sortedRows(s.rows)
	wall := make(map[int]float64, len(s.wall))
	for k, v := range s.wall {
		wall[k] = v
	}
	s.mu.Unlock()
	if err := WriteArrow(filepath.Join(s.dir, ArrowFile), s.hdr.Schema, rows); err != nil {
		return err
	}
	if err := WriteCSV(filepath.Join(s.dir, CSVFile), s.hdr.Schema, rows); err != nil {
		return err
	}
	return writeTiming(filepath.Join(s.dir, TimingFile), rows, wall)
}

// Close closes the journal. It does not finalize.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	err := s.f.Close()
	s.lock.Close() // releases the flock
	return err
}

func jsonDecoder(r io.Reader) *json.Decoder { return json.NewDecoder(r) }

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// checkForeign refuses a folder without a journal that holds files of its
// own (a typo'd -o, a folder of the user's): the sweep would write its
// tables over files of the same names and leave the rest mixed with its
// results.
func checkForeign(dir, journal string) error {
	if _, err := os.Stat(journal); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	var foreign []string
	for _, e := range entries {
		if e.Name() != LockFile {
			foreign = append(foreign, e.Name())
		}
	}
	if len(foreign) == 0 {
		return nil
	}
	more := ""
	if len(foreign) > 3 {
		foreign, more = foreign[:3], fmt.Sprintf(" and %d more", len(foreign)-3)
	}
	return fmt.Errorf("results: %s is not a results folder (it has no %s) and is not empty: it holds %s%s; write the results to a new or empty folder",
		dir, JournalFile, strings.Join(foreign, ", "), more)
}
