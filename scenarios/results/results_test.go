package results

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var testSchema = Schema{{"policy", String}, {"cap_w", Float64}, {"makespan_ns", Int64}, {"gap_pct", Float64}}

func row(i int) Row {
	var gap any = float64(i) / 3
	if i%4 == 3 {
		gap = nil
	}
	return Row{Index: i, Values: []any{[]string{"static", "lp"}[i%2], 100 + float64(i)*12.5, int64(1000 * (i + 1)), gap}}
}

func fill(t *testing.T, dir string, idx []int) *Store {
	t.Helper()
	st, err := Open(dir, "fp1", 10, testSchema)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range idx {
		if st.Done(i) {
			continue
		}
		if err := st.Commit(row(i), time.Duration(i)*time.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

func all() []int { return []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9} }

func TestResumeSkipsCommitted(t *testing.T) {
	dir := t.TempDir()
	st := fill(t, dir, []int{0, 3, 5})
	st.Close()
	st2, err := Open(dir, "fp1", 10, testSchema)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	for i := 0; i < 10; i++ {
		want := i == 0 || i == 3 || i == 5
		if st2.Done(i) != want {
			t.Errorf("Done(%d) = %v, want %v", i, st2.Done(i), want)
		}
	}
	if err := st2.Commit(row(3), 0); err == nil {
		t.Error("committing a point twice succeeded")
	}
}

// TestKeepDiscardsPoints: Keep drops the points it is told to from the
// journal and from the store, later commits append after the points it
// kept, and a reopened store holds exactly those.
func TestKeepDiscardsPoints(t *testing.T) {
	dir := t.TempDir()
	st := fill(t, dir, []int{0, 3, 5, 7})
	n, err := st.Keep(func(i int) bool { return i == 3 || i == 7 })
	if err != nil || n != 2 {
		t.Fatalf("Keep = %d, %v; want 2 points discarded", n, err)
	}
	if st.Done(0) || !st.Done(3) {
		t.Errorf("after Keep: Done(0) = %v, Done(3) = %v", st.Done(0), st.Done(3))
	}
	if err := st.Commit(row(0), time.Millisecond); err != nil {
		t.Fatalf("commit after Keep: %v", err)
	}
	st.Close()
	st2, err := Open(dir, "fp1", 10, testSchema)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	var got []int
	for _, r := range st2.Rows() {
		got = append(got, r.Index)
	}
	if fmt.Sprint(got) != "[0 3 7]" {
		t.Errorf("reopened store holds points %v, want [0 3 7]", got)
	}
}

func TestTornLineDiscarded(t *testing.T) {
	dir := t.TempDir()
	st := fill(t, dir, []int{0, 1})
	st.Close()
	p := filepath.Join(dir, JournalFile)
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"i":2,"v":["lp",12`) // a write cut short by SIGKILL
	f.Close()
	st2 := fill(t, dir, all())
	defer st2.Close()
	if st2.Len() != 10 {
		t.Fatalf("after resume %d points, want 10", st2.Len())
	}
	b, _ := os.ReadFile(p)
	if bytes.Count(b, []byte("\n")) != 11 || strings.Contains(string(b), `12{`) {
		t.Fatalf("journal not repaired:\n%s", b)
	}
}

func TestMismatchRefused(t *testing.T) {
	dir := t.TempDir()
	fill(t, dir, []int{0}).Close()
	for _, tc := range []struct {
		fp     string
		points int
		schema Schema
	}{
		{"fp2", 10, testSchema},
		{"fp1", 11, testSchema},
		{"fp1", 10, testSchema[:2]},
	} {
		if _, err := Open(dir, tc.fp, tc.points, tc.schema); !errors.Is(err, ErrMismatch) {
			t.Errorf("Open(%s, %d, %d cols) = %v, want ErrMismatch", tc.fp, tc.points, len(tc.schema), err)
		}
	}
}

func TestBadValueRejected(t *testing.T) {
	st := fill(t, t.TempDir(), nil)
	defer st.Close()
	bad := row(1)
	bad.Values[2] = 1.5 // float in an int64 column
	if err := st.Commit(bad, 0); err == nil || !strings.Contains(err.Error(), "makespan_ns") {
		t.Errorf("err = %v, want a message naming makespan_ns", err)
	}
	if err := st.Commit(Row{Index: 12, Values: row(1).Values}, 0); err == nil {
		t.Error("point outside the sweep accepted")
	}
}

// Finishing order and sharding must not change a single byte of the tables.
func TestDeterministicAndShardsMerge(t *testing.T) {
	base := t.TempDir()
	single := filepath.Join(base, "single")
	st := fill(t, single, all())
	if err := st.Finalize(); err != nil {
		t.Fatal(err)
	}
	st.Close()

	reversed := filepath.Join(base, "reversed")
	st = fill(t, reversed, []int{9, 8, 7, 6, 5, 4, 3, 2, 1, 0})
	if err := st.Finalize(); err != nil {
		t.Fatal(err)
	}
	st.Close()

	var shards []string
	for k := 0; k < 3; k++ {
		d := filepath.Join(base, "shard", string(rune('0'+k)))
		var mine []int
		for i := k; i < 10; i += 3 {
			mine = append(mine, i)
		}
		fill(t, d, mine).Close()
		shards = append(shards, d)
	}
	merged := filepath.Join(base, "merged")
	m, _, err := Merge(merged, shards, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m.Close()

	for _, name := range []string{ArrowFile, CSVFile} {
		want, err := os.ReadFile(filepath.Join(single, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{reversed, merged} {
			got, err := os.ReadFile(filepath.Join(d, name))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s of %s differs from the single run", name, filepath.Base(d))
			}
		}
	}
}

func TestArrowRoundTrip(t *testing.T) {
	dir := t.TempDir()
	st := fill(t, dir, all())
	st.Commit(Row{}, 0) // ignored error: wrong shape
	if err := st.Finalize(); err != nil {
		t.Fatal(err)
	}
	schema, rows, err := ReadArrow(filepath.Join(dir, ArrowFile))
	if err != nil {
		t.Fatal(err)
	}
	if !sameSchema(schema, testSchema) || len(rows) != 10 {
		t.Fatalf("schema %v, %d rows", schema, len(rows))
	}
	for i, r := range rows {
		if r.Index != i || !sameValues(r.Values, row(i).Values) {
			t.Errorf("row %d = %v, want %v", i, r.Values, row(i).Values)
		}
	}
	csv, _ := os.ReadFile(filepath.Join(dir, CSVFile))
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if lines[0] != "point,policy,cap_w,makespan_ns,gap_pct" || lines[4] != "3,lp,137.5,4000," {
		t.Errorf("csv header/row 3 = %q / %q", lines[0], lines[4])
	}
}

func TestNonFiniteFloatsSurvive(t *testing.T) {
	dir := t.TempDir()
	st, err := Open(dir, "fp", 2, Schema{{"x", Float64}})
	if err != nil {
		t.Fatal(err)
	}
	st.Commit(Row{Index: 0, Values: []any{math.Inf(1)}}, 0)
	st.Commit(Row{Index: 1, Values: []any{math.NaN()}}, 0)
	st.Close()
	st, err = Open(dir, "fp", 2, Schema{{"x", Float64}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rs := st.Rows()
	if len(rs) != 2 || !math.IsInf(rs[0].Values[0].(float64), 1) || !math.IsNaN(rs[1].Values[0].(float64)) {
		t.Fatalf("rows = %v", rs)
	}
}

// FuzzDecodeArrow feeds arbitrary bytes (seeded with a real results file
// and truncations of it) to the results-table reader: it must never panic,
// errors must name the file, and an accepted table must write back and
// read again to the same rows.
func FuzzDecodeArrow(f *testing.F) {
	dir := f.TempDir()
	good := filepath.Join(dir, "good.arrow")
	rows := []Row{row(0), row(1), row(2), row(3)}
	if err := WriteArrow(good, testSchema, rows); err != nil {
		f.Fatal(err)
	}
	b, err := os.ReadFile(good)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add(b[:len(b)/2])
	f.Add(b[:len(b)-10])
	f.Add([]byte("ARROW1\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		const name = "fuzz.arrow"
		schema, rows, err := decodeArrow(data, name)
		if err != nil {
			if !strings.Contains(err.Error(), name) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, r := range rows {
			if len(r.Values) != len(schema) {
				t.Fatalf("row %d has %d values, schema %d", r.Index, len(r.Values), len(schema))
			}
		}
		out := filepath.Join(t.TempDir(), "back.arrow")
		if err := WriteArrow(out, schema, rows); err != nil {
			t.Fatalf("write back: %v", err)
		}
		schema2, rows2, err := ReadArrow(out)
		if err != nil || !sameSchema(schema, schema2) || len(rows2) != len(rows) {
			t.Fatalf("round trip: %v, %d rows → %d", err, len(rows), len(rows2))
		}
	})
}

// FuzzOpenJournal feeds arbitrary journal text (after a valid header, or
// in its place) to Open: it must never panic, errors must name the
// journal, and the rows it loads must fit the schema.
func FuzzOpenJournal(f *testing.F) {
	f.Add(true, []byte(`{"point":1,"values":["static",200,12345,0.5],"wall_s":0.1}`+"\n"))
	f.Add(true, []byte(`{"point":1,"values":["static",200,12345,"NaN"]}`+"\n"+`{"point":2,"val`))
	f.Add(true, []byte(`{"point":99,"values":["static",200,1,null]}`+"\n"))
	f.Add(true, []byte(`{"point":1,"values":[1,2,3,4]}`+"\n"))
	f.Add(false, []byte(`{"capsim":"1","fingerprint":"x","points":3}`+"\n"))
	f.Fuzz(func(t *testing.T, withHeader bool, body []byte) {
		const points = 8
		dir := t.TempDir()
		var text []byte
		if withHeader {
			s, err := Open(dir, "fp", points, testSchema)
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			if text, err = os.ReadFile(filepath.Join(dir, JournalFile)); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, JournalFile), append(text, body...), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Open(dir, "fp", points, testSchema)
		if err != nil {
			if !strings.Contains(err.Error(), JournalFile) {
				t.Fatalf("error does not name the journal: %v", err)
			}
			return
		}
		defer s.Close()
		rows := s.Rows()
		if len(rows) != s.Len() {
			t.Fatalf("%d rows, Len %d", len(rows), s.Len())
		}
		for _, r := range rows {
			if r.Index < 0 || r.Index >= points || !s.Done(r.Index) || len(r.Values) != len(testSchema) {
				t.Fatalf("loaded row %+v", r)
			}
		}
		// The journal must stay appendable: a torn tail was dropped.
		if !s.Done(0) {
			if err := s.Commit(row(0), 0); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func TestBadJournalEntries(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`{"v":["static",200,1,null]}`, `point index "i"`},
		{`{"i":1,"v":["static",200,1,null],"x":1}`, `unknown field "x"`},
		{`{"i":1,"v":["static",200,1,null]} {}`, "text after the entry"},
		{`{"i":1,"v":["static",200]}`, "point 1 has 2 values, want 4"},
		{`{"i":1,"v":["static","a",1,null]}`, "point 1 column cap_w"},
		{`{"i":9,"v":["static",200,1,null]}`, "point 9 outside 0..7"},
	} {
		dir := t.TempDir()
		s, err := Open(dir, "fp", 8, testSchema)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		path := filepath.Join(dir, JournalFile)
		j, _ := os.ReadFile(path)
		os.WriteFile(path, append(j, tc.line+"\n"...), 0o644)
		_, err = Open(dir, "fp", 8, testSchema)
		if err == nil || !strings.Contains(err.Error(), JournalFile+" line 2: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want line 2 and %q", tc.line, err, tc.want)
		}
	}
}

// A sweep that stopped before committing a point leaves only its header;
// another sweep may take the directory over (nothing is lost), and the
// journal then holds the new sweep's header and rows alone. A torn first
// entry counts as no entry.
func TestEmptyJournalTakenOver(t *testing.T) {
	for _, torn := range []string{"", `{"i":0,"v":["st`} {
		dir := t.TempDir()
		fill(t, dir, nil).Close()
		if torn != "" {
			f, err := os.OpenFile(filepath.Join(dir, JournalFile), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(torn)
			f.Close()
		}
		st, err := Open(dir, "fp2", 3, testSchema)
		if err != nil {
			t.Fatalf("torn %q: %v", torn, err)
		}
		if err := st.Commit(row(1), 0); err != nil {
			t.Fatal(err)
		}
		st.Close()
		st, err = Open(dir, "fp2", 3, testSchema)
		if err != nil {
			t.Fatalf("torn %q: reopening: %v", torn, err)
		}
		if !st.Done(1) || st.Done(0) {
			t.Errorf("torn %q: reopened journal lost point 1 or kept another sweep's", torn)
		}
		st.Close()
		if _, err := Open(dir, "fp1", 10, testSchema); !errors.Is(err, ErrMismatch) {
			t.Errorf("torn %q: a journal with a committed point was taken over: %v", torn, err)
		}
	}
}

// TestForeignFolderRefused: a results folder is new, empty or capsim's
// (it has a journal). A folder of other files (a typo'd -o, the current
// directory) is refused before anything is written, its files untouched;
// with restart too, and for a merge's output.
func TestForeignFolderRefused(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, CSVFile)
	if err := os.WriteFile(mine, []byte("my own table\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, restart := range []bool{false, true} {
		st, err := OpenSweep(dir, Sweep{Fingerprint: "fp1", Points: 10, Schema: testSchema}, restart)
		if err == nil {
			st.Close()
			t.Fatalf("restart %v: a folder holding %s opened as a results folder", restart, CSVFile)
		}
		if !strings.Contains(err.Error(), "not a results folder") || !strings.Contains(err.Error(), CSVFile) {
			t.Errorf("restart %v: %v", restart, err)
		}
	}
	shard := t.TempDir()
	fill(t, shard, all()).Close()
	if _, _, err := Merge(dir, []string{shard}, MergeOptions{}); err == nil || !strings.Contains(err.Error(), "not a results folder") {
		t.Errorf("merge into a folder of other files: %v", err)
	}
	if b, err := os.ReadFile(mine); err != nil || string(b) != "my own table\n" {
		t.Errorf("the folder's own file changed: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, JournalFile)); err == nil {
		t.Errorf("a journal was written into the foreign folder")
	}
	// An empty folder, or one holding only the lock, is a new results folder.
	empty := t.TempDir()
	os.WriteFile(filepath.Join(empty, LockFile), nil, 0o644)
	st, err := OpenSweep(empty, Sweep{Fingerprint: "fp1", Points: 10, Schema: testSchema}, false)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
}

// TestChangesNameWhatChanged: a mismatch names the inputs whose content
// changed; the unchanged ones read from another path (a trace given
// relative to another folder) are named only where nothing else changed.
// Listed beside a changed file, every rank file of a trace buried it.
func TestChangesNameWhatChanged(t *testing.T) {
	then := []Input{{Name: "scenario", Path: "s.toml", Hash: "a"}, {Name: "workload.trace", Path: "t/x.meta", Hash: "b"},
		{Name: "workload.trace:x-0.bin", Path: "t/x-0.bin", Hash: "c"}, {Name: "capsim", Hash: "v1"}}
	moved := []Input{{Name: "scenario", Path: "/w/s.toml", Hash: "a"}, {Name: "workload.trace", Path: "/w/t/x.meta", Hash: "b"},
		{Name: "workload.trace:x-0.bin", Path: "/w/t/x-0.bin", Hash: "c"}, {Name: "capsim", Hash: "v1"}}
	changed := append([]Input(nil), moved...)
	changed[2].Hash = "d"
	if got, want := changes(then, changed), "workload.trace:x-0.bin /w/t/x-0.bin changed (sha256 c… then, d… now)"; got != want {
		t.Errorf("changed: %q, want %q", got, want)
	}
	if got := changes(then, moved); !strings.Contains(got, "workload.trace:x-0.bin was t/x-0.bin (same content)") {
		t.Errorf("moved: %q", got)
	}
}

// TestOpenThroughDanglingLink: a results directory named by a symbolic
// link to nothing is refused naming the link and its target ("mkdir out:
// file exists" before); a link to a directory is written through.
func TestOpenThroughDanglingLink(t *testing.T) {
	base := t.TempDir()
	link := filepath.Join(base, "out")
	target := filepath.Join(base, "missing")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	_, err := Open(link, "fp", 1, testSchema)
	if err == nil || !strings.Contains(err.Error(), link) || !strings.Contains(err.Error(), target) || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("err = %v, want one naming the link and its target", err)
	}
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	st, err := Open(link, "fp", 1, testSchema)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if _, err := os.Stat(filepath.Join(target, JournalFile)); err != nil {
		t.Errorf("journal not in the link's target: %v", err)
	}
}
