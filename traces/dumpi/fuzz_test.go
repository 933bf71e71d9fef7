package dumpi

import (
	"os"
	"path/filepath"
	"testing"
)

// oneRank writes a 1-rank program with a record of most kinds, the seed
// of FuzzRead.
func oneRank(v [3]byte) *binWriter {
	w := newBinWriter(v)
	if old(v) {
		w.sizes = nil
		w.call(idInit, 0, 10, i32(1), i32(1), str("./a"))
	} else {
		w.call(idInit, 0, 10, strs{"./a"})
	}
	w.call(idIsend, 100, 10, i32(2), h16(tInt), i32(0), i32(1), h16(world), i32(5))
	w.call(idRecv, 10, 10, i32(2), h16(tInt), i32(0), i32(1), h16(world), sts(1))
	w.call(idWaitall, 10, 10, i32(1), ints{5}, sts(1))
	w.call(idAlltoallv, 10, 10, i32(1), ints{3}, ints{0}, h16(tDouble), ints{3}, ints{0}, h16(tDouble), h16(world))
	if old(v) {
		w.call(idGatherv, 10, 10, i32(0), i32(1), i32(1), h16(tInt), i32(0), h16(world), ints{1}, ints{0}, h16(tInt))
	} else {
		w.call(idScatterv, 10, 10, i32(0), i32(1), h16(tInt), i32(1), h16(tInt), i32(0), h16(world), ints{1}, ints{0})
	}
	w.call(idCommSplit, 10, 10, h16(world), i32(0), i32(0), h16(4))
	w.call(idCommGroup, 10, 10, h16(4), h16(3))
	w.call(idGroupRangeIncl, 10, 10, h16(3), i32(1), rngs{{0, 0, 1}}, h16(4))
	w.call(idCommCreate, 10, 10, h16(4), h16(4), h16(5))
	w.call(idTypeContiguous, 10, 10, i32(3), h16(tInt), h16(30))
	w.call(idBcast, 10, 10, i32(1), h16(30), i32(0), h16(5))
	w.labels = map[uint64]string{7: "f"}
	w.call(idFunctionEnter, 10, 0, u64(7))
	w.call(idFunctionExit, 10, 0, u64(7))
	w.call(idFinalize, 10, 10)
	return w
}

// FuzzRead reads arbitrary bytes as the only .bin file of a 1-rank trace:
// no panic, and no allocation beyond what the file's size allows.
func FuzzRead(f *testing.F) {
	for _, v := range versions {
		f.Add(oneRank(v).bytes())
	}
	f.Add(claims(world, 2, 1).bytes()) // a rank file of another run
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "run.meta"), []byte("numprocs=1\nfileprefix=run\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "run-0000.bin"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		tr, err := Read(dir, Options{})
		if err == nil && len(tr.Ranks) != 1 {
			t.Fatalf("%d ranks", len(tr.Ranks))
		}
		if err == nil {
			if err := tr.Recorded.Validate(1); err != nil {
				t.Fatalf("recorded run: %v", err)
			}
		}
	})
}

// TestOneRank checks that the fuzz seed reads and replays.
func TestOneRank(t *testing.T) {
	for _, v := range versions {
		meta := writeTrace(t, []*binWriter{oneRank(v)})
		tr, err := Read(meta, Options{})
		if err != nil {
			t.Fatalf("%v: %v", v, err)
		}
		if got := replay(t, tr)[0]; got.Sent != 1 || got.SentBytes != 8 || got.Recv != 1 {
			t.Errorf("%v: %+v", v, got)
		}
	}
}
