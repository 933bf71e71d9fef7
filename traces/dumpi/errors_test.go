package dumpi

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/capsim/capsim/traces/mpi"
)

// pair writes a 2-rank trace: a message 0→1 on MPI_COMM_WORLD, then, on
// rank 0 (and rank 1 when both), the records extra writes.
func pair(t *testing.T, both bool, extra func(w *binWriter, r int)) string {
	t.Helper()
	ws := make([]*binWriter, 2)
	for r := range ws {
		w := newBinWriter([3]byte{1, 1, 0})
		w.call(idInit, 0, 10, strs{"./app"})
		if r == 0 {
			w.call(idSend, 10, 10, i32(1), h16(tInt), i32(1), i32(0), h16(world))
		} else {
			w.call(idRecv, 10, 10, i32(1), h16(tInt), i32(0), i32(0), h16(world), sts(1))
		}
		if r == 0 || both {
			extra(w, r)
		}
		w.call(idFinalize, 10, 10)
		ws[r] = w
	}
	return writeTrace(t, ws)
}

func TestErrors(t *testing.T) {
	cases := []struct {
		name  string
		both  bool
		extra func(w *binWriter, r int)
		want  []string // in the error, besides the file name
	}{
		{"unknown function id", false, func(w *binWriter, r int) { w.call(128, 10, 10) },
			[]string{"offset 103", "unknown function id 128"}},
		{"one-sided", false, func(w *binWriter, r int) {
			w.call(idPut, 10, 10, i32(1), h16(tInt), i32(1), i32(0), i32(1), h16(tInt), h16(5))
		}, []string{"offset 103", "MPI_Put", "one-sided"}},
		{"intercommunicator", false, func(w *binWriter, r int) {
			w.call(idIntercommCreate, 10, 10, h16(world), i32(0), h16(world), i32(1), i32(0), h16(4))
		}, []string{"MPI_Intercomm_create", "not supported"}},
		{"unknown communicator", false, func(w *binWriter, r int) {
			w.call(idSend, 10, 10, i32(1), h16(tInt), i32(1), i32(0), h16(9))
		}, []string{"MPI_Send", "unknown communicator handle 9"}},
		{"unknown datatype", false, func(w *binWriter, r int) {
			w.call(idBcast, 10, 10, i32(1), h16(40), i32(0), h16(world))
		}, []string{"MPI_Bcast", "datatype 40 has no known size"}},
		{"negative count", false, func(w *binWriter, r int) {
			w.call(idAllreduce, 10, 10, i32(-4), h16(tInt), u8(3), h16(world))
		}, []string{"MPI_Allreduce", "negative count -4"}},
		{"corrupt array length", false, func(w *binWriter, r int) {
			w.call(idWaitall, 10, 10, i32(2), i32(0x7fffffff))
		}, []string{"count 2147483647", "exceeds"}},
		{"split by one member", false, func(w *binWriter, r int) {
			w.call(idCommSplit, 10, 10, h16(world), i32(0), i32(0), h16(4))
		}, []string{"MPI_Comm_split", `"world"`, "not every member"}},
		{"group not in the communicator", true, func(w *binWriter, r int) {
			w.call(idCommGroup, 10, 10, h16(world), h16(3))
			w.call(idGroupIncl, 10, 10, h16(3), i32(1), ints{1}, h16(4))
			w.call(idCommCreate, 10, 10, h16(world), h16(4), h16(4)) // rank 0 gets one too
		}, []string{"MPI_Comm_create", "not in"}},
		{"group rank out of range", true, func(w *binWriter, r int) {
			w.call(idCommGroup, 10, 10, h16(world), h16(3))
			w.call(idGroupIncl, 10, 10, h16(3), i32(1), ints{5}, h16(4))
			w.call(idCommCreate, 10, 10, h16(world), h16(4), h16(4))
		}, []string{"group rank 5 outside a group of 2"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(pair(t, tc.both, tc.extra), Options{})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range append(tc.want, "run-0000.bin") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

func TestBadFiles(t *testing.T) {
	good := func(t *testing.T) string {
		return pair(t, false, func(w *binWriter, r int) { w.call(idBarrier, 10, 10, h16(world)) })
	}
	edit := func(t *testing.T, f func(b []byte) []byte) string {
		meta := good(t)
		bin := filepath.Join(filepath.Dir(meta), "run-0000.bin")
		b, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin, f(b), 0o644); err != nil {
			t.Fatal(err)
		}
		return meta
	}
	cases := []struct {
		name string
		path func(t *testing.T) string
		want string
	}{
		{"truncated", func(t *testing.T) string { return edit(t, func(b []byte) []byte { return b[:len(b)/2] }) }, "no index at the end"},
		{"not dumpi", func(t *testing.T) string {
			return edit(t, func(b []byte) []byte { b[0] = 'x'; return b })
		}, "not a DUMPI trace"},
		{"index outside the file", func(t *testing.T) string {
			return edit(t, func(b []byte) []byte {
				binary.BigEndian.PutUint64(b[len(b)-8:], 1<<40)
				return b
			})
		}, "outside the file"},
		{"missing rank file", func(t *testing.T) string {
			meta := good(t)
			os.Remove(filepath.Join(filepath.Dir(meta), "run-0001.bin"))
			return meta
		}, "run-0001.bin is missing"},
		{"rank file beyond numprocs", func(t *testing.T) string {
			meta := good(t)
			dir := filepath.Dir(meta)
			b, _ := os.ReadFile(filepath.Join(dir, "run-0001.bin"))
			os.WriteFile(filepath.Join(dir, "run-0002.bin"), b, 0o644)
			return meta
		}, "run-0002.bin is there too: the trace would silently lose that rank"},
		{"numprocs twice", func(t *testing.T) string {
			meta := good(t)
			os.WriteFile(meta, []byte("numprocs=2\nfileprefix=run\nnumprocs=2\n"), 0o644)
			return meta
		}, "run.meta:3: numprocs given twice (first on line 1)"},
		{"meta without numprocs", func(t *testing.T) string {
			meta := good(t)
			os.WriteFile(meta, []byte("fileprefix=run\n"), 0o644)
			return meta
		}, "numprocs= and fileprefix= lines are required"},
		{"huge numprocs", func(t *testing.T) string {
			meta := good(t)
			os.WriteFile(meta, []byte("numprocs=99999999999\nfileprefix=run\n"), 0o644)
			return meta
		}, "not a rank count"},
		{"folder without meta", func(t *testing.T) string { return t.TempDir() }, "no DUMPI .meta file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(tc.path(t), Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

func TestSniffDir(t *testing.T) {
	meta := pair(t, false, func(w *binWriter, r int) {})
	if !SniffDir(filepath.Dir(meta)) || SniffDir(t.TempDir()) {
		t.Error("SniffDir")
	}
}

// TestPaths reads the same trace through its .meta file, its folder and a
// .bin file.
func TestPaths(t *testing.T) {
	meta := pair(t, false, func(w *binWriter, r int) {})
	for _, p := range []string{meta, filepath.Dir(meta), filepath.Join(filepath.Dir(meta), "run-0001.bin")} {
		tr, err := Read(p, Options{})
		if err != nil || len(tr.Ranks) != 2 {
			t.Errorf("%s: %v", p, err)
		}
	}
}

func TestSniff(t *testing.T) {
	meta := pair(t, false, func(w *binWriter, r int) {})
	bin, _ := os.ReadFile(filepath.Join(filepath.Dir(meta), "run-0000.bin"))
	m, _ := os.ReadFile(meta)
	cases := []struct {
		head []byte
		path string
		want bool
	}{
		{bin[:64], "run-0000.bin", true},
		{m, "run.meta", true},
		{m, "", true},
		{[]byte("numprocs=4\n"), "x.meta", false},
		{[]byte("# numprocs=4 fileprefix=x\n"), "x.txt", false},
		{[]byte("# liballprof\n"), "trace-0.dat", false},
		{[]byte{0xff, 0xaa, 0xdd, 0x44}, "short.bin", false},
	}
	for _, tc := range cases {
		if got := Sniff(tc.head, tc.path); got != tc.want {
			t.Errorf("Sniff(%q…, %s) = %v", tc.head[:min(8, len(tc.head))], tc.path, got)
		}
	}
}

// TestCPUClock takes compute from the CPU clock, which the test writer
// runs at half the wall clock's speed.
func TestCPUClock(t *testing.T) {
	meta := pair(t, false, func(w *binWriter, r int) { w.call(idBarrier, 4000, 10, h16(world)) })
	for _, tc := range []struct {
		opt  Options
		want int64
		name string
	}{{Options{}, 4000, "after MPI_Send"}, {Options{CPUClock: true}, 2000, "after MPI_Send"}, {Options{Regions: RegionsSingle}, 4000, "compute"}} {
		tr, err := Read(meta, tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		// compute, send, compute, barrier, compute
		evs := tr.Ranks[0].Events
		if len(evs) != 5 || evs[3].Kind.String() != "barrier" {
			t.Fatalf("events %+v", evs)
		}
		got, name := evs[2].Duration, tr.Regions[evs[2].Region]
		if got != tc.want || name != tc.name {
			t.Errorf("%+v: compute %d ns in %q, want %d in %q", tc.opt, got, name, tc.want, tc.name)
		}
	}
}

// TestClockWrap runs a rank past the 65536 s the 2-byte seconds of a
// timestamp hold: compute across the wrap is still the gap.
func TestClockWrap(t *testing.T) {
	w := newBinWriter([3]byte{8, 1, 0})
	w.clock = 65530e9
	w.call(idInit, 0, 10, strs{"./a"})
	w.call(idBarrier, 8e9, 10, h16(world)) // starts at 65538 s: wraps to 2 s
	w.call(idBarrier, 70e9, 10, h16(world))
	w.call(idFinalize, 10, 10)
	tr, err := Read(writeTrace(t, []*binWriter{w}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, e := range tr.Ranks[0].Events {
		if e.Kind == 0 {
			got = append(got, e.Duration)
		}
	}
	if len(got) < 2 || got[0] != 8e9 || got[1] != 70e9 {
		t.Errorf("compute %v, want 8 s then 70 s", got)
	}
}

// TestLargeTags uses tags up to 2^31−1: they are renumbered in order, so
// the trace lowers and its messages match as recorded.
func TestLargeTags(t *testing.T) {
	meta := pair(t, true, func(w *binWriter, r int) {
		for _, tag := range []int32{2147483647, 1 << 20, 5} {
			if r == 0 {
				w.call(idSend, 10, 10, i32(1), h16(tInt), i32(1), i32(tag), h16(world))
			} else {
				w.call(idRecv, 10, 10, i32(1), h16(tInt), i32(0), i32(tag), h16(world), sts(1))
			}
		}
	})
	tr, err := Read(meta, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var tags []int32
	for _, e := range tr.Ranks[1].Events {
		if e.Kind == mpi.Recv {
			tags = append(tags, e.Tag)
		}
	}
	if want := []int32{0, 3, 2, 1}; !slices.Equal(tags, want) {
		t.Errorf("tags %v, want %v", tags, want)
	}
	if s := replay(t, tr); s[0].Sent != 4 || s[1].Recv != 4 {
		t.Errorf("replay %+v", s)
	}
}

func TestFunctionName(t *testing.T) {
	for id, want := range map[int]string{0: "MPI_Send", 8: "MPI_Isend", 124: "MPI_Init", 155: "MPI_Alltoallw", 289: "MPIO_Testsome", 291: "Function_enter", 128: "function id 128", -1: "function id -1", 999: "function id 999"} {
		if got := FunctionName(id); got != want {
			t.Errorf("FunctionName(%d) = %q, want %q", id, got, want)
		}
	}
}
