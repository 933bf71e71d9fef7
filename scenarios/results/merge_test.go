package results

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// shards writes three shards of the 10-point test sweep (points k, k+3,
// k+6, … in shard k) under base and returns their directories.
func shards(t *testing.T, base string) []string {
	t.Helper()
	var ds []string
	for k := 0; k < 3; k++ {
		d := filepath.Join(base, "shard"+string(rune('0'+k)))
		var mine []int
		for i := k; i < 10; i += 3 {
			mine = append(mine, i)
		}
		fill(t, d, mine).Close()
		ds = append(ds, d)
	}
	return ds
}

// snapshot returns every file under dir with its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			m[p] = string(b)
		}
		return nil
	})
	return m
}

func TestMergeCoverage(t *testing.T) {
	base := t.TempDir()
	ds := shards(t, base)
	for _, tc := range []struct {
		name       string
		in         []string
		partial    bool
		wantErr    error
		missing    []int
		duplicates []int
		parts      []string
	}{
		{"complete", ds, false, nil, nil, nil, nil},
		{"missing shard", ds[:2], false, ErrIncomplete, []int{2, 5, 8}, nil, []string{"3 of 10 points missing (2, 5, 8)", "--partial"}},
		{"shard twice", []string{ds[0], ds[1], ds[2], ds[1]}, false, ErrIncomplete, nil, []int{1, 4, 7}, []string{"3 points in more than one shard (1, 4, 7); " + ds[1] + " is given twice (--partial"}},
		{"missing shard, partial", ds[:2], true, nil, []int{2, 5, 8}, nil, nil},
		{"shard twice, partial", []string{ds[0], ds[0], ds[1], ds[2]}, true, nil, nil, []int{0, 3, 6, 9}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "merged")
			st, cov, err := Merge(out, tc.in, MergeOptions{Partial: tc.partial})
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			for _, p := range tc.parts {
				if !strings.Contains(err.Error(), p) {
					t.Errorf("message %q lacks %q", err, p)
				}
			}
			if !slices.Equal(cov.Missing, tc.missing) || !slices.Equal(cov.Duplicate, tc.duplicates) {
				t.Errorf("coverage missing %v duplicate %v, want %v and %v", cov.Missing, cov.Duplicate, tc.missing, tc.duplicates)
			}
			if err != nil {
				if _, serr := os.Stat(out); serr == nil {
					t.Errorf("a refused merge created %s", out)
				}
				return
			}
			defer st.Close()
			if want := 10 - len(tc.missing); st.Len() != want {
				t.Errorf("merged %d points, want %d", st.Len(), want)
			}
		})
	}
}

// TestMergeOnlyReadsInputs: merge leaves its inputs byte for byte as they
// were, even a journal with a torn last line (which opening it read-write
// truncated before), and writes no lock or temporary file into them.
func TestMergeOnlyReadsInputs(t *testing.T) {
	base := t.TempDir()
	ds := shards(t, base)
	j := filepath.Join(ds[1], JournalFile)
	f, err := os.OpenFile(j, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"i":4,"v":["st`) // a writer killed mid-line
	f.Close()
	for _, d := range ds {
		os.Remove(filepath.Join(d, LockFile))
	}
	before := snapshot(t, base)
	st, _, err := Merge(filepath.Join(t.TempDir(), "m"), ds, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	after := snapshot(t, base)
	if !maps.Equal(before, after) {
		t.Errorf("merge changed its inputs:\nbefore %v\nafter  %v", slices.Sorted(maps.Keys(before)), slices.Sorted(maps.Keys(after)))
	}
}

// TestMergeRefusesOutputOntoInput: -o naming an input, directly or through
// a symbolic link, is refused before anything is written.
func TestMergeRefusesOutputOntoInput(t *testing.T) {
	base := t.TempDir()
	ds := shards(t, base)
	link := filepath.Join(base, "link")
	if err := os.Symlink(ds[2], link); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, base)
	for _, out := range []string{ds[0], ds[2] + "/", link, filepath.Join(ds[1], "..", "shard1")} {
		_, _, err := Merge(out, ds, MergeOptions{})
		if err == nil || !strings.Contains(err.Error(), "is the input") {
			t.Errorf("Merge -o %s: err = %v, want a refusal", out, err)
		}
	}
	if after := snapshot(t, base); !maps.Equal(before, after) {
		t.Error("a refused merge changed its inputs")
	}
}

// TestMergeIntoOtherSweepRefused: a merge into a folder that holds
// another sweep's results is refused naming the folder and both sweeps,
// and offers the remedy a merge has (another directory), not the sweep's
// --restart, which merge does not take; the folder is left as it was.
func TestMergeIntoOtherSweepRefused(t *testing.T) {
	base := t.TempDir()
	ds := shards(t, base)
	out := filepath.Join(base, "other")
	st, err := Open(out, "fp2", 10, testSchema)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	before := snapshot(t, out)
	_, _, err = Merge(out, ds, MergeOptions{})
	if !errors.Is(err, ErrMismatch) {
		t.Fatalf("err = %v, want ErrMismatch", err)
	}
	for _, part := range []string{out, "fp2", "fp1", "merge into a new directory"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("message %q lacks %q", err, part)
		}
	}
	if strings.Contains(err.Error(), "--restart") {
		t.Errorf("message %q offers --restart, which merge does not take", err)
	}
	if after := snapshot(t, out); !maps.Equal(before, after) {
		t.Errorf("the folder changed")
	}
}
