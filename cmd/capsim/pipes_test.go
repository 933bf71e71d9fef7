package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
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
