package importer_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/arrowtrace"
	"github.com/capsim/capsim/traces/gen"
	"github.com/capsim/capsim/traces/goal"
	"github.com/capsim/capsim/traces/importer"
	"github.com/capsim/capsim/traces/mpi"
)

func write(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestDetectEveryFormat sniffs each format by content, whatever the file
// is called, and reads it into a graph that replays.
func TestDetectEveryFormat(t *testing.T) {
	dir := t.TempDir()
	g, err := gen.GeneratePattern(gen.Dissemination, gen.PatternOptions{Ranks: 4, Bytes: 8})
	if err != nil {
		t.Fatal(err)
	}
	var gb, ab, mb bytes.Buffer
	if err := goal.Write(&gb, g); err != nil {
		t.Fatal(err)
	}
	if err := arrowtrace.EncodeGraph(&ab, g); err != nil {
		t.Fatal(err)
	}
	tr, err := (&gen.Collective{Kind: mpi.Allreduce, Ranks: 4, Bytes: 64, Reps: 2}).Generate()
	if err != nil {
		t.Fatal(err)
	}
	if err := arrowtrace.EncodeMPI(&mb, tr); err != nil {
		t.Fatal(err)
	}
	lap, err := filepath.Abs(filepath.Join("..", "liballprof", "testdata", "p2p"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path, format string
		mpi          bool
	}{
		{write(t, dir, "sched.txt", gb.Bytes()), "goal", false},
		{write(t, dir, "graph.bin", ab.Bytes()), "arrow", false},
		{write(t, dir, "trace.data", mb.Bytes()), "arrow", true},
		{filepath.Join(lap, "trace_p2p-0.dat"), "liballprof", true},
		{lap, "liballprof", true},
		{filepath.Join(testenv.ModuleRoot(t), "examples", "traces", "ti.txt"), "simgrid", true},
	} {
		f, err := importer.Detect(tc.path)
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if f.Name != tc.format {
			t.Errorf("%s: detected %s, want %s", tc.path, f.Name, tc.format)
		}
		it, err := importer.Read(tc.path, importer.Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if (it.MPI != nil) != tc.mpi || it.Format != tc.format {
			t.Errorf("%s: MPI %v format %s", tc.path, it.MPI != nil, it.Format)
		}
		gg, err := it.Lower(nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sim.Run(gg, network.DefaultLogGOPS(), sim.Options{}); err != nil {
			t.Errorf("%s: %v", tc.path, err)
		}
	}
}

// TestLiballprofDefaultsToSchedgen checks that a liballprof trace read
// through the registry is lowered with schedgen's collectives, so that a
// plain replay agrees with LogGOPSim after schedgen (bcast3: 11000, 13566,
// 15066 ns; ../liballprof/testdata/loggopsim.times).
func TestLiballprofDefaultsToSchedgen(t *testing.T) {
	dir := testenv.Shared(t, "traces/liballprof/bcast3")
	it, err := importer.Read(dir, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := it.Lower(nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(g, network.DefaultLogGOPS(), sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for r, want := range []int64{11000, 13566, 15066} {
		if res.Ranks[r].Finish != want {
			t.Errorf("host %d: %d ns, LogGOPSim %d ns", r, res.Ranks[r].Finish, want)
		}
	}
}

// TestUnrecognizedFilesSayWhatTheyAre checks the messages for files no
// format claims: what the file looks like and what to do, with no raw
// bytes.
func TestUnrecognizedFilesSayWhatTheyAre(t *testing.T) {
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("hello world\n"))
	zw.Close()
	tarHead := make([]byte, 512)
	copy(tarHead, "trace.goal")
	copy(tarHead[257:], "ustar\x0000")
	otf2 := filepath.Join(dir, "otf2dir")
	write(t, otf2, "traces.otf2", []byte("\x03BOTF2\x00\x03"))
	empty := filepath.Join(dir, "emptydir")
	os.Mkdir(empty, 0o755)
	unwritten := filepath.Join(dir, "unwritten") // a Chakra trace created but never written
	write(t, unwritten, "chakra.0.et", nil)
	twoDUMPI := filepath.Join(dir, "twodumpi") // said to hold no trace
	write(t, twoDUMPI, "a.meta", []byte("hostname=x\nnumprocs=1\nfileprefix=a\n"))
	write(t, twoDUMPI, "b.meta", []byte("hostname=x\nnumprocs=1\nfileprefix=b\n"))
	for _, tc := range []struct{ path, want string }{
		{write(t, dir, "t.txt.gz", gz.Bytes()), "t.txt.gz:t.txt: a file of no format capsim recognises"},
		{write(t, dir, "t.tar", tarHead), "t.tar: read the tar archive: archive/tar: invalid tar header"},
		{write(t, dir, "t.zst", []byte("\x28\xb5\x2f\xfd\x00\x01")), "a zstd archive: unpack it first"},
		{write(t, dir, "t.zip", []byte("PK\x03\x04\x14\x00")), "t.zip: read the zip archive"},
		{write(t, dir, "t.parquet", []byte("PAR1\x15\x04")), "a Parquet file"},
		{write(t, dir, "empty", nil), "an empty file"},
		{filepath.Join(otf2, "traces.otf2"), "the global definitions file traces.def is missing"},
		{write(t, dir, "0.evt", []byte("\x03\x42\x01\x00\x00")), "an OTF2 definition or event file"},
		{otf2, "a folder with the OTF2 anchor file traces.otf2 but not a readable OTF2 trace"},
		{empty, "emptydir: an empty directory: a copy or an unpacking that has not happened?"},
		{twoDUMPI, "twodumpi: a folder of 2 DUMPI traces (a.meta, b.meta): pass the .meta file of the one meant"},
		{unwritten, "a directory (chakra.0.et) holding no trace capsim recognises: " + filepath.Join(unwritten, "chakra.0.et") + " is empty: was it written completely?"},
		{write(t, dir, "x.txt", []byte("hello world\n")), `it starts with "hello world\n"`},
		{write(t, dir, "x.bin", []byte{0, 1, 2, 0xfe, 0x80, 'a', 'b', 'c', 'd', 'e'}), "it starts with bytes 00 01 02 fe 80 61 62 63"},
		{write(t, dir, "t-1.dat", []byte("MPI_Bcast:3.0:5648928:12:13,1,1:0:5641280,0,4:4.0\n")), "a liballprof trace without its MPI_Init record"},
		// A text trace saved with a byte-order mark was "a file of no
		// format capsim recognises".
		{write(t, dir, "bom.goal", []byte("\xef\xbb\xbfnum_ranks 1\nrank 0 {\n}\n")), "bom.goal: a goal trace with a UTF-8 byte-order mark before its first line: save it without one"},
		{write(t, dir, "bom.txt", []byte("\xef\xbb\xbf0 init\n0 finalize\n")), "bom.txt: a simgrid trace with a UTF-8 byte-order mark"},
	} {
		_, err := importer.Read(tc.path, importer.Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", filepath.Base(tc.path), err, tc.want)
			continue
		}
		for _, c := range err.Error() {
			if c < 0x20 && c != '\n' || c == 0xfffd {
				t.Errorf("%s: raw byte %q in %q", filepath.Base(tc.path), c, err)
			}
		}
	}
}

func TestForcedFormat(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "s.goal", []byte("// not sniffed: the first statement is a comment block\nnum_ranks 1\nrank 0 {\nl1: calc 5\n}\n"))
	if _, err := importer.Read(p, importer.Options{Format: "liballprof"}); err == nil {
		t.Error("GOAL read as liballprof: no error")
	}
	// A forced format that is not the trace's says what the content is.
	g := write(t, dir, "t.goal", []byte("num_ranks 1\nrank 0 {\nl1: calc 5\n}\n"))
	if _, err := importer.Read(g, importer.Options{Format: "simgrid"}); err == nil || !strings.Contains(err.Error(), "(format simgrid was forced, but the content reads as goal)") {
		t.Errorf("GOAL read as simgrid: %v", err)
	}
	it, err := importer.Read(p, importer.Options{Format: "goal"})
	if err != nil || it.Graph.NumOps() != 1 {
		t.Fatalf("forced goal: %v", err)
	}
	if _, err := importer.Read(p, importer.Options{Format: "otf3"}); err == nil || !strings.Contains(err.Error(), `unknown trace format "otf3" (capsim reads arrow, goal, liballprof`) {
		t.Errorf("unknown format: %v", err)
	}
}

func ExampleRead() {
	it, err := importer.Read(filepath.Join("..", "liballprof", "testdata", "p2p", "trace_p2p-0.dat"), importer.Options{})
	if err != nil {
		panic(err)
	}
	g, err := it.Lower(nil) // schedgen's collective algorithms, the format's default
	if err != nil {
		panic(err)
	}
	res, err := sim.Run(g, network.DefaultLogGOPS(), sim.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(it.Format, len(it.MPI.Ranks), "ranks, makespan", res.Makespan, "ns")
	// Output: liballprof 4 ranks, makespan 181710 ns
}

// TestDetectOTF2 sniffs a shared Score-P trace as its anchor and its folder.
func TestDetectOTF2(t *testing.T) {
	dir := testenv.Shared(t, "traces/otf2/pipit-pingpong")
	for _, p := range []string{dir, filepath.Join(dir, "traces.otf2")} {
		f, err := importer.Detect(p)
		if err != nil || f.Name != "otf2" {
			t.Errorf("%s: %v, %v", p, f.Name, err)
		}
	}
}

// TestDetectDUMPI sniffs the shared DUMPI traces as their .meta file, their
// folder and a .bin file.
func TestDetectDUMPI(t *testing.T) {
	dir := testenv.Shared(t, "traces/dumpi/sstmacro-testtrace")
	for _, p := range []string{dir, filepath.Join(dir, "testtrace.meta"), filepath.Join(dir, "testtrace-0001.bin")} {
		it, err := importer.Read(p, importer.Options{})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if it.Format != "dumpi" || it.MPI == nil || len(it.MPI.Ranks) != 4 {
			t.Errorf("%s: format %s", p, it.Format)
		}
	}
}
