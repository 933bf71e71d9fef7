package importer

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/traces/arrowtrace"
	"github.com/capsim/capsim/traces/goal"
)

// fifo makes a named pipe in a temporary folder and writes data into it
// from a goroutine, as `capsim replay <(zcat x.gz)` gets its trace.
func fifo(t *testing.T, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	go func() {
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.Write(data)
		f.Close()
	}()
	return p
}

// A trace through a pipe or FIFO is read by its content, once: the same
// trace as from its file for every single-file format (where sniffing the
// pipe and then reopening it lost the first bytes: "no num_ranks line"),
// and errors name the pipe.
func TestReadPipe(t *testing.T) {
	goalText := "num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 0\n}\nrank 1 {\nl1: recv 8b from 0 tag 0\n}\n"
	g, err := goal.Parse(strings.NewReader(goalText), "t.goal")
	if err != nil {
		t.Fatal(err)
	}
	var arrow bytes.Buffer
	if err := arrowtrace.EncodeGraph(&arrow, g); err != nil {
		t.Fatal(err)
	}
	// A one-rank liballprof trace (a pipe carries one rank file).
	lap := []byte("# collprof 0.9 output file\n# Init clockdiff: 0.000000\n\nMPI_Init:-:140734714680652:140734714680640:1.0\n" +
		"MPI_Barrier:28.5:0,0,1:29.5\n# Finalize clockdiff: 0.000000\nMPI_Finalize:35.5:-\n")
	ti, err := os.ReadFile(filepath.Join("..", "..", "examples", "traces", "ti.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		format string
		data   []byte
	}{{"goal", []byte(goalText)}, {"arrow", arrow.Bytes()}, {"liballprof", lap}, {"simgrid", ti}} {
		file := filepath.Join(t.TempDir(), "trace")
		if err := os.WriteFile(file, tc.data, 0o644); err != nil {
			t.Fatal(err)
		}
		want, err := Read(file, Options{})
		if err != nil {
			t.Fatalf("%s from a file: %v", tc.format, err)
		}
		p := fifo(t, tc.data)
		got, err := Read(p, Options{})
		if err != nil {
			t.Fatalf("%s from a pipe: %v", tc.format, err)
		}
		if got.Format != tc.format || got.Path != p {
			t.Errorf("%s from a pipe: format %s, path %s", tc.format, got.Format, got.Path)
		}
		wg, err := want.Lower(nil)
		if err != nil {
			t.Fatal(err)
		}
		gg, err := got.Lower(nil)
		if err != nil {
			t.Fatal(err)
		}
		if wg.NumOps() != gg.NumOps() || wg.NumRanks() != gg.NumRanks() {
			t.Errorf("%s from a pipe: %d ops on %d ranks, from a file %d on %d", tc.format, gg.NumOps(), gg.NumRanks(), wg.NumOps(), wg.NumRanks())
		}
		if tc.format == "liballprof" && (got.MPI == nil || len(got.MPI.Ranks) != len(want.MPI.Ranks) || len(got.MPI.Ranks[0].Events) != len(want.MPI.Ranks[0].Events)) {
			t.Errorf("liballprof from a pipe differs from the file")
		}
	}
	p := fifo(t, []byte("garbage\n"))
	_, err = Read(p, Options{})
	var ie *Error
	if err == nil || !strings.HasPrefix(err.Error(), p+": a file of no format") || !errors.As(err, &ie) {
		t.Errorf("garbage from a pipe: %v, want an *Error naming %s", err, p)
	}
}

// TestPipeOfOneFileOfMany: a DUMPI .meta or the rank-0 file of a
// liballprof trace piped alone cannot be read; the error says that a pipe
// has no folder for the trace's other files (it named a communicator's
// size, or a temporary folder's rank files), and names no temporary path.
func TestPipeOfOneFileOfMany(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{testenv.Shared(t, "traces/dumpi/sstmacro-testtrace/testtrace.meta"), "no per-rank files testtrace-0000.bin"},
		{testenv.Shared(t, "traces/liballprof/barr4/trace_barr-0.dat"), "MPI_Barrier on a communicator of 4 ranks"},
	} {
		data, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		p := fifo(t, data)
		_, err = Read(p, Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "read through a pipe is only the file piped") ||
			strings.Contains(err.Error(), "capsim-stream") {
			t.Errorf("%s through a pipe: %v", filepath.Base(tc.file), err)
		}
	}
}

// A stream that opens as no trace (an endless device such as /dev/zero
// or /dev/urandom given as the trace) is refused from its first bytes,
// naming the pipe, rather than copied until an end that never comes.
func TestReadPipeEndless(t *testing.T) {
	for _, tc := range []struct {
		name  string
		block []byte
	}{{"zeros", make([]byte, 1<<16)}, {"noise", bytes.Repeat([]byte{0x8f, 0x11, 0xc3, 0x5a}, 1<<14)}} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "pipe")
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Skipf("no FIFOs here: %v", err)
			}
			stop := make(chan struct{})
			defer close(stop)
			go func() {
				f, err := os.OpenFile(p, os.O_WRONLY, 0)
				if err != nil {
					return
				}
				defer f.Close()
				for {
					select {
					case <-stop:
						return
					default:
					}
					if _, err := f.Write(tc.block); err != nil {
						return
					}
				}
			}()
			done := make(chan error, 1)
			go func() {
				_, err := Read(p, Options{})
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "no format capsim recognises") {
					t.Errorf("err = %v, want a refusal naming %s", err, p)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("reading an endless stream did not return within 20 s")
			}
		})
	}
}
