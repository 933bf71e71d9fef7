package results

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/capsim/capsim/internal/atomicfile"
	"github.com/capsim/capsim/traces/arrowtrace"
)

// Metadata keys of the results Arrow file.
const (
	MetaFormat  = "capsim.format"
	MetaVersion = "capsim.version"
	formatName  = "sweep-results"
)

func arrowType(t Type) arrow.DataType {
	switch t {
	case Int64:
		return arrow.PrimitiveTypes.Int64
	case Float64:
		return arrow.PrimitiveTypes.Float64
	}
	return arrow.BinaryTypes.String
}

// arrowSchema is the Arrow schema of a results table: point index first.
func arrowSchema(s Schema) *arrow.Schema {
	fields := []arrow.Field{{Name: "point", Type: arrow.PrimitiveTypes.Int64}}
	for _, c := range s {
		fields = append(fields, arrow.Field{Name: c.Name, Type: arrowType(c.Type), Nullable: true})
	}
	md := arrow.NewMetadata([]string{MetaFormat, MetaVersion}, []string{formatName, journalVersion})
	return arrow.NewSchema(fields, &md)
}

// WriteArrow writes rows as an Arrow IPC file at path, atomically.
func WriteArrow(path string, s Schema, rows []Row) error {
	sc := arrowSchema(s)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for _, r := range rows {
		b.Field(0).(*array.Int64Builder).Append(int64(r.Index))
		for i, v := range r.Values {
			fb := b.Field(i + 1)
			if v == nil {
				fb.AppendNull()
				continue
			}
			switch x := v.(type) {
			case string:
				fb.(*array.StringBuilder).Append(x)
			case int64:
				fb.(*array.Int64Builder).Append(x)
			case float64:
				fb.(*array.Float64Builder).Append(x)
			}
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return atomicfile.Write(path, func(w io.Writer) error {
		fw, err := ipc.NewFileWriter(w, ipc.WithSchema(sc))
		if err != nil {
			return err
		}
		if err := fw.Write(rec); err != nil {
			return err
		}
		return fw.Close()
	})
}

// ReadArrow reads a results Arrow file written by WriteArrow.
func ReadArrow(path string) (Schema, []Row, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("results: %w", err)
	}
	return decodeArrow(data, path)
}

// decodeArrow reads a results table from the bytes of an Arrow IPC file;
// path names it in errors.
// Corrupt files can make the Arrow library panic or allocate without
// bound, so the footer is checked first, sizes are limited to the file's
// and a panic becomes an error.
func decodeArrow(data []byte, path string) (schema Schema, rows []Row, err error) {
	defer func() {
		if p := recover(); p != nil {
			schema, rows, err = nil, nil, fmt.Errorf("results: %s: malformed Arrow data: %v", path, p)
		}
	}()
	size := int64(len(data))
	if err := arrowtrace.CheckFooter(bytes.NewReader(data), size); err != nil {
		return nil, nil, fmt.Errorf("results: %s: not a readable Arrow file: %w", path, err)
	}
	fr, err := ipc.NewFileReader(bytes.NewReader(data), ipc.WithMetadataSizeLimit(size), ipc.WithBodySizeLimit(size))
	if err != nil {
		return nil, nil, fmt.Errorf("results: %s: not an Arrow file: %w", path, err)
	}
	defer fr.Close()
	sc := fr.Schema()
	if v, _ := sc.Metadata().GetValue(MetaFormat); v != formatName {
		return nil, nil, fmt.Errorf("results: %s: not a capsim results file (format %q)", path, v)
	}
	if sc.NumFields() == 0 || sc.Field(0).Name != "point" || sc.Field(0).Type.ID() != arrow.INT64 {
		return nil, nil, fmt.Errorf("results: %s: first column must be point int64", path)
	}
	for _, fld := range sc.Fields()[1:] {
		var t Type
		switch fld.Type.ID() {
		case arrow.STRING:
			t = String
		case arrow.INT64:
			t = Int64
		case arrow.FLOAT64:
			t = Float64
		default:
			return nil, nil, fmt.Errorf("results: %s: column %s has unsupported type %s", path, fld.Name, fld.Type)
		}
		schema = append(schema, Column{Name: fld.Name, Type: t})
	}
	for i := 0; i < fr.NumRecords(); i++ {
		rec, err := fr.RecordBatch(i)
		if err != nil {
			return nil, nil, fmt.Errorf("results: %s: batch %d: %w", path, i, err)
		}
		idx := rec.Column(0).(*array.Int64)
		for r := 0; r < int(rec.NumRows()); r++ {
			row := Row{Index: int(idx.Value(r)), Values: make([]any, len(schema))}
			for c := range schema {
				col := rec.Column(c + 1)
				if col.IsNull(r) {
					continue
				}
				switch a := col.(type) {
				case *array.String:
					row.Values[c] = a.Value(r)
				case *array.Int64:
					row.Values[c] = a.Value(r)
				case *array.Float64:
					row.Values[c] = a.Value(r)
				}
			}
			rows = append(rows, row)
		}
	}
	return schema, rows, nil
}

// FormatValue renders a value as it appears in the CSV file: integers in
// decimal, floats in the shortest form that reads back exactly, nulls empty.
func FormatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// WriteCSV writes rows as CSV at path, atomically, with a header line.
func WriteCSV(path string, s Schema, rows []Row) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		rec := make([]string, len(s)+1)
		rec[0] = "point"
		for i, c := range s {
			rec[i+1] = c.Name
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
		for _, r := range rows {
			rec[0] = strconv.Itoa(r.Index)
			for i, v := range r.Values {
				rec[i+1] = FormatValue(v)
			}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
		cw.Flush()
		return cw.Error()
	})
}

func writeTiming(path string, rows []Row, wall map[int]float64) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		if _, err := io.WriteString(w, "point,wall_s\n"); err != nil {
			return err
		}
		for _, r := range rows {
			if _, err := fmt.Fprintf(w, "%d,%s\n", r.Index, strconv.FormatFloat(wall[r.Index], 'f', 6, 64)); err != nil {
				return err
			}
		}
		return nil
	})
}

// Coverage says how a set of results directories covers a sweep's points.
type Coverage struct {
	Points    int   // points of the sweep
	Missing   []int // points no input holds
	Duplicate []int // points more than one input holds
}

// Complete reports whether every point is held exactly once.
func (c Coverage) Complete() bool { return len(c.Missing) == 0 && len(c.Duplicate) == 0 }

// ErrIncomplete is returned by Merge when the inputs do not hold every
// point of the sweep exactly once.
var ErrIncomplete = errors.New("the shards do not cover every point exactly once")

// MergeOptions controls Merge.
type MergeOptions struct {
	// Partial merges inputs that miss points or hold a point twice (with
	// the same values) instead of refusing; the Coverage says which.
	Partial bool
}

// Merge joins the journals of the results directories in dirs (the shards
// of one sweep) into the results directory out and finalizes it. Inputs
// are only read (read-only shards work) and must belong to the same sweep;
// out must not be one of them. Unless opt.Partial, the inputs must hold
// every point exactly once: a missing or repeated shard is ErrIncomplete,
// with the points listed. A point held by several inputs must have the
// same values in each.
func Merge(out string, dirs []string, opt MergeOptions) (*Store, Coverage, error) {
	var cov Coverage
	if len(dirs) == 0 {
		return nil, cov, fmt.Errorf("merge: no input directories")
	}
	for _, d := range dirs {
		if err := InUse(d); err != nil {
			return nil, cov, fmt.Errorf("merge: %w", err)
		}
		if same, err := sameDir(out, d); err != nil {
			return nil, cov, fmt.Errorf("merge: %w", err)
		} else if same {
			return nil, cov, fmt.Errorf("merge: the output %s is the input %s: write to a new directory", out, d)
		}
	}
	var hdr *header
	rows := map[int]Row{}
	walls := map[int]float64{}
	srcs := map[int]string{}
	dup := map[int]bool{}
	for _, d := range dirs {
		h, in, wall, err := readJournal(filepath.Join(d, JournalFile))
		if err != nil {
			return nil, cov, fmt.Errorf("merge: %w", err)
		}
		if hdr == nil {
			hdr = &h
		} else if h.Fingerprint != hdr.Fingerprint || h.Points != hdr.Points || !sameSchema(h.Schema, hdr.Schema) {
			return nil, cov, fmt.Errorf("merge: %w: %s holds sweep %s, %s holds sweep %s: %s", ErrMismatch, d, h.Fingerprint, dirs[0], hdr.Fingerprint,
				changes(hdr.Inputs, h.Inputs))
		}
		for i, r := range in {
			if prev, ok := rows[i]; ok {
				if !sameValues(prev.Values, r.Values) {
					return nil, cov, fmt.Errorf("merge: point %d differs between %s and %s", i, srcs[i], d)
				}
				dup[i] = true
				continue
			}
			rows[i], walls[i], srcs[i] = r, wall[i], d
		}
	}
	cov.Points = hdr.Points
	for i := 0; i < hdr.Points; i++ {
		if _, ok := rows[i]; !ok {
			cov.Missing = append(cov.Missing, i)
		}
		if dup[i] {
			cov.Duplicate = append(cov.Duplicate, i)
		}
	}
	if !cov.Complete() && !opt.Partial {
		return nil, cov, fmt.Errorf("merge: %w: %s%s (--partial merges them anyway)", ErrIncomplete, cov, givenTwice(dirs))
	}
	if h, err := readHeader(filepath.Join(out, JournalFile)); err == nil &&
		(h.Fingerprint != hdr.Fingerprint || h.Points != hdr.Points || !sameSchema(h.Schema, hdr.Schema)) {
		// A merge has no --restart: the remedy is another directory.
		return nil, cov, fmt.Errorf("merge: %w: the output %s holds sweep %s (%d points), the shards sweep %s (%d points): %s; merge into a new directory",
			ErrMismatch, out, h.Fingerprint, h.Points, hdr.Fingerprint, hdr.Points, changes(h.Inputs, hdr.Inputs))
	}
	st, err := OpenSweep(out, Sweep{Fingerprint: hdr.Fingerprint, Points: hdr.Points, Schema: hdr.Schema, Inputs: hdr.Inputs}, false)
	if err != nil {
		return nil, cov, fmt.Errorf("merge: %w", err)
	}
	idx := make([]int, 0, len(rows))
	for i := range rows {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for _, i := range idx {
		if st.Done(i) {
			continue
		}
		if err := st.Commit(rows[i], secs(walls[i])); err != nil {
			st.Close()
			return nil, cov, fmt.Errorf("merge: %w", err)
		}
	}
	if err := st.Finalize(); err != nil {
		st.Close()
		return nil, cov, fmt.Errorf("merge: %w", err)
	}
	return st, cov, nil
}

// String lists the missing and repeated points, ranges shortened.
func (c Coverage) String() string {
	var parts []string
	if len(c.Missing) > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d points missing (%s)", len(c.Missing), c.Points, ranges(c.Missing)))
	}
	if len(c.Duplicate) > 0 {
		parts = append(parts, fmt.Sprintf("%d points in more than one shard (%s)", len(c.Duplicate), ranges(c.Duplicate)))
	}
	if len(parts) == 0 {
		return fmt.Sprintf("all %d points, each once", c.Points)
	}
	return strings.Join(parts, "; ")
}

// ranges writes sorted point numbers as "0-3, 7, 9-10", at most 20 items.
func ranges(idx []int) string {
	var b strings.Builder
	n := 0
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && idx[j+1] == idx[j]+1 {
			j++
		}
		if n > 0 {
			b.WriteString(", ")
		}
		if n == 20 {
			b.WriteString("…")
			break
		}
		if j > i {
			fmt.Fprintf(&b, "%d-%d", idx[i], idx[j])
		} else {
			fmt.Fprintf(&b, "%d", idx[i])
		}
		n++
		i = j + 1
	}
	return b.String()
}

// sameDir reports whether out (which may not exist yet) is the directory
// in, after resolving symbolic links.
// givenTwice names the first directory of dirs given again (under the
// same or another name, as through a link): ", shard1 is given twice
// (as shard1 and link)"; "" when none is.
func givenTwice(dirs []string) string {
	for i, d := range dirs {
		for _, e := range dirs[:i] {
			if same, err := sameDir(e, d); err == nil && same {
				if e == d {
					return fmt.Sprintf("; %s is given twice", d)
				}
				return fmt.Sprintf("; %s is given twice (as %s and %s)", e, e, d)
			}
		}
	}
	return ""
}

func sameDir(out, in string) (bool, error) {
	si, err := os.Stat(in)
	if err != nil {
		return false, err
	}
	so, err := os.Stat(out)
	if err == nil {
		return os.SameFile(si, so), nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	// out does not exist: it can still be a path to in through a link
	// that dangles until created; compare resolved paths of the parent.
	a, err1 := filepath.EvalSymlinks(filepath.Dir(out))
	b, err2 := filepath.EvalSymlinks(in)
	if err1 != nil || err2 != nil {
		return false, nil
	}
	return filepath.Join(a, filepath.Base(out)) == b, nil
}

// readJournal reads a results journal without writing to it (read-only
// inputs work), dropping a torn last line.
func readJournal(path string) (header, map[int]Row, map[int]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return header{}, nil, nil, err
	}
	defer f.Close()
	s := &Store{rows: map[int]Row{}, wall: map[int]float64{}}
	h, err := readHeader(path)
	if err != nil {
		return header{}, nil, nil, err
	}
	s.hdr = h
	if _, err := s.load(f, path); err != nil {
		return header{}, nil, nil, err
	}
	return h, s.rows, s.wall, nil
}

func readHeader(path string) (header, error) {
	f, err := os.Open(path)
	if err != nil {
		return header{}, err
	}
	defer f.Close()
	var h header
	dec := jsonDecoder(f)
	if err := dec.Decode(&h); err != nil || h.Capsim == "" {
		return header{}, fmt.Errorf("%s: not a capsim results journal", path)
	}
	return h, nil
}

func sameValues(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if FormatValue(a[i]) != FormatValue(b[i]) || (a[i] == nil) != (b[i] == nil) {
			return false
		}
	}
	return true
}
