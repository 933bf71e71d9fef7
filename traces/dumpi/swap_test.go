package dumpi

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
)

// copyDir copies the files of folder src into a new temporary folder,
// which it returns.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// rankFile returns the .bin file of rank r in dir.
func rankFile(t *testing.T, dir string, r int) string {
	t.Helper()
	m, err := findMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := readMeta(m)
	if err != nil {
		t.Fatal(err)
	}
	return meta.files[r]
}

// TestSwappedRankFile: a rank's .bin file copied over another's is
// refused, naming both files, by the rank its MPI_Comm_rank on
// MPI_COMM_WORLD returned (it replayed as a deadlock before); the real
// traces untouched read.
func TestSwappedRankFile(t *testing.T) {
	shared := testenv.Shared(t, "traces/dumpi")
	for _, tc := range []struct {
		trace    string
		from, to int // from's file copied over to's (from < 0: none)
	}{
		{"d2g-alltoall4", -1, 0},
		{"d2g-alltoall4", 1, 2},
		{"d2g-alltoall4", 3, 0},
		{"sstmacro-testbgp", -1, 0},
		{"sstmacro-testbgp", 6, 5},
		{"sstmacro-testtrace", -1, 0},
		{"sstmacro-testtrace", 0, 1},
	} {
		t.Run(fmt.Sprintf("%s/%d-over-%d", tc.trace, tc.from, tc.to), func(t *testing.T) {
			dir := copyDir(t, filepath.Join(shared, tc.trace))
			if tc.from >= 0 {
				data, err := os.ReadFile(rankFile(t, dir, tc.from))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(rankFile(t, dir, tc.to), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Read(dir, Options{})
			if tc.from < 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatal("read a trace with a rank file copied over another")
			}
			for _, w := range []string{rankFile(t, dir, tc.to) + ": ", "MPI_Comm_rank", rankFile(t, dir, tc.from), "copied over"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// claims writes a rank's program whose MPI_Comm_size and MPI_Comm_rank
// on comm return size and rank.
func claims(comm, size, rank int) *binWriter {
	w := newBinWriter(versions[1])
	w.call(idInit, 0, 10, strs{"./app"})
	w.call(idCommSize, 5, 1, h16(uint16(comm)), i32(int32(size)))
	w.call(idCommRank, 5, 1, h16(uint16(comm)), i32(int32(rank)))
	w.call(idBarrier, 5, 10, h16(world))
	w.call(idFinalize, 10, 10)
	return w
}

// TestRankFileOfAnotherRun: rank files whose MPI_COMM_WORLD is not the
// trace's (another size, a rank past the trace's last) are refused,
// naming the file; ranks queried on other communicators are not checked.
func TestRankFileOfAnotherRun(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ranks []*binWriter
		want  []string // none: reads
	}{
		{"ranks that say who they are", []*binWriter{claims(world, 2, 0), claims(world, 2, 1)}, nil},
		{"MPI_COMM_SELF", []*binWriter{claims(self, 1, 0), claims(self, 1, 0)}, nil},
		{"another size", []*binWriter{claims(world, 2, 0), claims(world, 8, 1)}, []string{"run-0001.bin: ", "MPI_Comm_size", "MPI_COMM_WORLD has 8 ranks, the trace 2", "another run"}},
		{"a rank past the last", []*binWriter{claims(world, 2, 0), claims(world, 2, 5)}, []string{"run-0001.bin: ", "MPI_Comm_rank", "rank 5 of MPI_COMM_WORLD, not rank 1 of 2", "another run"}},
		{"another rank's", []*binWriter{claims(world, 2, 0), claims(world, 2, 0)}, []string{"run-0001.bin: ", "records itself as rank 0", "run-0000.bin", "copied over"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(writeTrace(t, tc.ranks), Options{})
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatal("read")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
