//go:build !cgo || nootf2

package otf2

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadUnavailable checks that a build without the library answers an
// OTF2 trace with ErrUnavailable, which says how to install it, and still
// names a path that is not a trace as such.
func TestReadUnavailable(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "traces.otf2"), []byte("\x03BOTF2\x00\x03\x02"), 0o644)
	os.WriteFile(filepath.Join(dir, "traces.def"), []byte("x"), 0o644)
	os.Mkdir(filepath.Join(dir, "traces"), 0o755)
	_, err := Read(dir, Options{})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "apt-get install libopen-trace-format2-dev") {
		t.Errorf("Read = %v, want ErrUnavailable with the install command", err)
	}
	if _, err := Read(t.TempDir(), Options{}); err == nil || errors.Is(err, ErrUnavailable) {
		t.Errorf("Read of an empty folder = %v, want an error about the missing anchor", err)
	}
}
