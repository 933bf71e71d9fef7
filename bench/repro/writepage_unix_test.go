//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A named pipe (like /dev/null, not a regular file) is refused, not
// replaced by a regular file.
func TestWritePageRefusesFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	if err := writePage(p, []byte("x")); err == nil {
		t.Error("writing over a named pipe: no error")
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the named pipe was replaced: %v %v", fi, err)
	}
}
