package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/capsim/capsim/scenarios"
)

// TestModelFilesFromPipe: every command that reads a model file reads it
// from a pipe as from a file (predict read it twice, to tell an IPC
// model from a compute-model file, and a pipe's second read was empty:
// "EOF").
func TestModelFilesFromPipe(t *testing.T) {
	models := filepath.Join("..", "..", "examples", "models")
	for _, tc := range []struct {
		name, file string
		args       []string
	}{
		{"predict", "stencil.json", []string{"predict", "MODEL", "--region", "stencil.compute", "--work", "0.001", "--device", "gpu0"}},
		{"predict ipc", "ipc-model.json", []string{"predict", "MODEL", "--samples", filepath.Join(models, "ipc-app.csv")}},
		{"replay --models", "stencil.json", []string{"replay", filepath.Join("..", "..", "examples", "traces", "ti.txt"), "--models", "MODEL"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(models, tc.file)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			fifo := filepath.Join(t.TempDir(), "pipe")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("no FIFOs here: %v", err)
			}
			go func() {
				f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
				if err != nil {
					return
				}
				f.Write(data)
				f.Close()
			}()
			with := func(p string) []string {
				a := append([]string(nil), tc.args...)
				for i := range a {
					if a[i] == "MODEL" {
						a[i] = p
					}
				}
				return a
			}
			code, want, stderr := capsim(t, with(path)...)
			if code != 0 {
				t.Fatalf("from the file: exit %d: %s", code, stderr)
			}
			code, got, stderr := capsim(t, with(fifo)...)
			if code != 0 {
				t.Fatalf("from a pipe: exit %d: %s", code, stderr)
			}
			if strip(strings.ReplaceAll(got, fifo, "MODEL"), "\x00") != strip(strings.ReplaceAll(want, path, "MODEL"), "\x00") {
				t.Errorf("from a pipe:\n%s\nwant, as from the file:\n%s", got, want)
			}
		})
	}
}

// TestPolicyLPFromPipe: policy lp and min-energy replay the trace twice
// (under the policy and under none); from a pipe the second read was
// empty ("an empty file"). The pipe is copied once and both replays give
// what the file gives.
func TestPolicyLPFromPipe(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "pp.ti")
	data := []byte("0 init\n1 init\n0 compute 2000\n1 compute 1000\n0 send 1 0 8\n1 recv 0 0 8\n0 finalize\n1 finalize\n")
	scen := filepath.Join(dir, "two.toml")
	text := strings.NewReplacer("ranks_per_node = 8", "ranks_per_node = 1", "ranks = 16", "ranks = 2", "px = 4", "px = 2", "py = 4", "py = 1").
		Replace(string(scenarios.Default()))
	if err := os.WriteFile(trace, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(scen, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, pol := range []string{"lp", "min-energy"} {
		t.Run(pol, func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "pipe")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("no FIFOs here: %v", err)
			}
			go func() {
				f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
				if err != nil {
					return
				}
				f.Write(data)
				f.Close()
			}()
			args := func(p string) []string { return []string{"policy", pol, "--scenario", scen, "--cap", "300", p} }
			code, want, stderr := capsim(t, args(trace)...)
			if code != 0 {
				t.Fatalf("from the file: exit %d: %s", code, stderr)
			}
			code, got, stderr := capsim(t, args(fifo)...)
			if code != 0 {
				t.Fatalf("from a pipe: exit %d: %s", code, stderr)
			}
			if strings.ReplaceAll(got, fifo, "TRACE") != strings.ReplaceAll(want, trace, "TRACE") {
				t.Errorf("from a pipe:\n%s\nwant, as from the file:\n%s", got, want)
			}
		})
	}
}
