package bench

import (
	"bufio"
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/capsim/capsim/traces/arrowtrace"
	"github.com/capsim/capsim/traces/gen"
	"github.com/capsim/capsim/traces/goal"
	"github.com/capsim/capsim/traces/importer"
	"github.com/capsim/capsim/traces/liballprof"
	"github.com/capsim/capsim/traces/mpi"
)

var importRanks = flag.Int("import-ranks", 1024, "ranks of the ring allreduce (1 MiB) the import benchmarks convert; 1024 is the issue's 175 MB GOAL file")

// ringGOAL writes LogGOPSim's ring allreduce of n ranks × 1 MiB as GOAL
// text (n = 1024: 175 MB, 4.2 million operations).
func ringGOAL(b *testing.B, n int) []byte {
	g, err := gen.GeneratePattern(gen.RingAllreduce, gen.PatternOptions{Ranks: n, Bytes: 1 << 20})
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	if err := goal.Write(&buf, g); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkImportGOAL streams the ring allreduce's GOAL text from a file
// into an Arrow execution graph (what `capsim import goal` does) and
// reports the bytes of GOAL read per second and the allocations (memory
// in use stays bounded by one rank block and one record batch, whatever the
// file's length). Target: ≤ 2 s and ≤ 100 MB peak RSS for 1,024
// ranks; `/usr/bin/time -v capsim import goal` measures the RSS of the
// whole command.
func BenchmarkImportGOAL(b *testing.B) {
	path := filepath.Join(b.TempDir(), "ring.goal")
	text := ringGOAL(b, *importRanks)
	if err := os.WriteFile(path, text, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		_, err = importer.GOALToArrow(bufio.NewReaderSize(f, 1<<20), "ring.goal", io.Discard)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkImportGOALWhole is the in-memory path (Parse, then write the
// graph), for comparison.
func BenchmarkImportGOALWhole(b *testing.B) {
	text := ringGOAL(b, *importRanks)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		g, err := goal.Parse(bytes.NewReader(text), "ring.goal")
		if err != nil {
			b.Fatal(err)
		}
		if err := arrowtrace.EncodeGraph(io.Discard, g); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkImportArrowMPI reads an Arrow MPI trace (a stencil), as a file
// and as a stream.
func BenchmarkImportArrowMPI(b *testing.B) {
	t, err := (&gen.Stencil{Dims: []int{16, 16}, Iterations: 50, HaloBytes: 32768, ComputeNs: 1000000,
		Imbalance: gen.ImbalanceNone, Balance: 1, Intensity: 1, AllreduceBytes: 8}).Generate()
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	if err := arrowtrace.EncodeMPI(&buf, t); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := arrowtrace.DecodeMPI(buf.Bytes(), "stencil.arrow"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkImportLiballprof reads the p2p test trace of traces/liballprof.
func BenchmarkImportLiballprof(b *testing.B) {
	path := filepath.Join("..", "traces", "liballprof", "testdata", "p2p", "trace_p2p-0.dat")
	var tr *mpi.Trace
	for i := 0; i < b.N; i++ {
		var err error
		if tr, err = liballprof.ReadFile(path); err != nil {
			b.Fatal(err)
		}
	}
	_ = tr
}
