package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// tgzFolder packs the files of folder dir as a gzipped tar of dir/ (as
// `tar czf x.tgz dir/` does).
func tgzFolder(t *testing.T, dir string) []byte {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	base := filepath.Base(dir)
	tw.WriteHeader(&tar.Header{Name: base + "/", Mode: 0o755, Typeflag: tar.TypeDir})
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		tw.WriteHeader(&tar.Header{Name: base + "/" + e.Name(), Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg})
		tw.Write(b)
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// `capsim replay` of a multi-file trace (liballprof rank files) packed as
// a .tgz, and of the same bytes through a pipe (`capsim replay <(tar cz
// trace/)`), prints what the folder prints; a broken member is named
// ARCHIVE:MEMBER.
func TestReplayArchive(t *testing.T) {
	lap := filepath.Join("..", "..", "traces", "liballprof", "testdata", "p2p")
	code, want, stderr := capsim(t, "replay", lap)
	if code != 0 {
		t.Fatalf("replay of the folder: exit %d: %s", code, stderr)
	}
	data := tgzFolder(t, lap)
	dir := t.TempDir()
	tgz := filepath.Join(dir, "p2p.tgz")
	if err := os.WriteFile(tgz, data, 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "pipe")
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
	for _, p := range []string{tgz, fifo} {
		code, got, stderr := capsim(t, "replay", p)
		if code != 0 {
			t.Fatalf("replay %s: exit %d: %s", p, code, stderr)
		}
		if strip(got, p) != strip(want, lap) {
			t.Errorf("replay %s:\n%s\nwant, as the folder:\n%s", p, got, want)
		}
	}
	broken := filepath.Join(dir, "broken")
	os.Mkdir(broken, 0o755)
	os.WriteFile(filepath.Join(broken, "t-0.dat"), []byte("MPI_Init:-:1:2:1.0\nMPI_Send:x:y\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "broken.tgz"), tgzFolder(t, broken), 0o644)
	code, _, stderr = capsim(t, "replay", filepath.Join(dir, "broken.tgz"))
	if code != 1 || !strings.Contains(stderr, filepath.Join(dir, "broken.tgz")+":broken/t-0.dat") || strings.Contains(stderr, "capsim-archive-") {
		t.Errorf("broken member: exit %d, stderr %q; want it named ARCHIVE:MEMBER", code, stderr)
	}
}

// strip removes the trace's path and the timing line from replay output.
func strip(out, path string) string {
	var keep []string
	for _, l := range strings.Split(strings.ReplaceAll(out, path, "TRACE"), "\n") {
		if !strings.HasPrefix(l, "events ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
