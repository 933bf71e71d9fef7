package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func TestWriteReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	if err := WriteFile(p, []byte("old")); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("new content")); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil || string(b) != "new content" {
		t.Fatalf("got %q, %v", b, err)
	}
	assertOnlyFile(t, dir, "out.txt")
}

func TestWriteFailureKeepsOld(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	if err := WriteFile(p, []byte("old")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(p, func(w io.Writer) error {
		w.Write([]byte("partial"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	// fill's error is what was wrong with its input (a parse error
	// naming the file it read): not a failed write of p.
	if err.Error() != "boom" {
		t.Errorf("err = %q: fill's own error, not a write error of %s", err, p)
	}
	b, _ := os.ReadFile(p)
	if string(b) != "old" {
		t.Fatalf("destination changed to %q", b)
	}
	assertOnlyFile(t, dir, "out.txt")
}

// TestWriteMissingDir: a write into a folder that does not exist names
// the folder, not the temporary file ("open no/such/.f.tmp-…: no such
// file or directory", which read as if f were the missing file).
func TestWriteMissingDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "no", "such")
	p := filepath.Join(dir, "f")
	for _, err := range []error{
		WriteFile(p, nil),
		WriteVia(p, func(tmp string) error { return os.WriteFile(tmp, nil, 0o644) }),
	} {
		if err == nil || !strings.Contains(err.Error(), "folder "+dir+" does not exist") || strings.Contains(err.Error(), tmpMark) {
			t.Errorf("err = %v, want one naming the missing folder and no temporary file", err)
		}
	}
}

func assertOnlyFile(t *testing.T, dir, name string) {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 || es[0].Name() != name {
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		t.Fatalf("directory holds %v, want only %s", names, name)
	}
}

// deadPID returns the pid of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	p, err := os.StartProcess("/bin/true", []string{"true"}, &os.ProcAttr{})
	if err != nil {
		t.Skip("cannot start /bin/true:", err)
	}
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	return p.Pid
}

// TestStaleTempRemoved: a writer killed mid-write leaves its temporary
// file; the next write of the same file (or CleanDir) removes it, but not
// the temporary files of live processes or of other hosts.
func TestStaleTempRemoved(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	dead := deadPID(t)
	stale := "." + "out.txt" + tmpMark + host() + "-" + strconv.Itoa(dead) + "-123"
	live := "." + "out.txt" + tmpMark + host() + "-" + strconv.Itoa(os.Getppid()) + "-456"
	other := "." + "out.txt" + tmpMark + "otherhost-" + strconv.Itoa(dead) + "-789"
	staleB := "." + "b.csv" + tmpMark + host() + "-" + strconv.Itoa(dead) + "-1"
	for _, n := range []string{stale, live, other, staleB} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteFile(p, []byte("new")); err != nil {
		t.Fatal(err)
	}
	for n, want := range map[string]bool{stale: false, live: true, other: true, staleB: true} {
		if _, err := os.Stat(filepath.Join(dir, n)); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", n, err == nil, want)
		}
	}
	if n, err := CleanDir(dir); err != nil || n != 1 {
		t.Errorf("CleanDir removed %d (%v), want 1 (%s)", n, err, staleB)
	}
	if _, err := os.Stat(filepath.Join(dir, staleB)); err == nil {
		t.Errorf("%s left behind", staleB)
	}
}

func TestWriteVia(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "lp.mps")
	if err := WriteVia(p, func(tmp string) error { return os.WriteFile(tmp, []byte("ROWS\n"), 0o600) }); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(p); err != nil || string(b) != "ROWS\n" {
		t.Fatalf("got %q, %v", b, err)
	}
	boom := errors.New("boom")
	if err := WriteVia(p, func(tmp string) error { os.WriteFile(tmp, []byte("half"), 0o600); return boom }); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	assertOnlyFile(t, dir, "lp.mps")
}

// Writing to a device or a named pipe (as `-o /dev/null` does) writes
// into it: a rename would replace it by a regular file (it replaced
// /dev/null once). A folder is an error. The test uses a named pipe, so
// that a failure cannot break the machine's /dev/null.
func TestWriteSpecial(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes:", err)
	}
	for _, write := range []func() error{
		func() error { return WriteFile(fifo, []byte("through the pipe")) },
		func() error {
			return WriteVia(fifo, func(tmp string) error { return os.WriteFile(tmp, []byte("through the pipe"), 0o644) })
		},
	} {
		got := make(chan string)
		go func() {
			b, _ := os.ReadFile(fifo)
			got <- string(b)
		}()
		if err := write(); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			t.Fatalf("the pipe was replaced (%v)", err)
		}
		if s := <-got; s != "through the pipe" {
			t.Errorf("the reader got %q", s)
		}
	}
	if err := WriteFile(t.TempDir(), []byte("x")); err == nil || !strings.Contains(err.Error(), "is a folder") {
		t.Errorf("writing a folder: %v", err)
	}
}

// TestWriteThroughLinks: a symbolic link is written through, the file it
// points to replaced and the link kept; a link to a file descriptor of
// the process (as /dev/stdout is) is written into, not renamed over:
// `-o /dev/stdout` with standard output on a file replaced /dev/stdout
// itself by a regular file. A descriptor is written at its own offset: the
// shell's next line wrote over the output opened again by name.
func TestWriteThroughLinks(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc here")
	}
	dir := t.TempDir()
	real := filepath.Join(dir, "data", "model.json")
	if err := os.Mkdir(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	fdFile, err := os.Create(filepath.Join(dir, "stdout.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer fdFile.Close()
	links := []struct{ link, to, read string }{
		{"model.json", filepath.Join("data", "model.json"), real},
		{"stdout", "/proc/self/fd/" + strconv.Itoa(int(fdFile.Fd())), fdFile.Name()},
	}
	fdFile.WriteString("x") // a shell's line before the command's output
	for _, l := range links {
		p := filepath.Join(dir, l.link)
		if err := os.Symlink(l.to, p); err != nil {
			t.Fatal(err)
		}
		for _, write := range []func() error{
			func() error { return WriteFile(p, []byte("new ")) },
			func() error {
				return WriteVia(p, func(tmp string) error { return os.WriteFile(tmp, []byte("via "), 0o644) })
			},
		} {
			if err := write(); err != nil {
				t.Fatal(err)
			}
			if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("%s: the link was replaced (%v, %v)", l.link, fi.Mode(), err)
			}
		}
		if l.link == "stdout" {
			fdFile.WriteString("y") // and after it, at the offset the output left
		}
		b, err := os.ReadFile(l.read)
		if want := map[string]string{"model.json": "via ", "stdout": "xnew via y"}[l.link]; err != nil || string(b) != want {
			t.Errorf("%s: %s holds %q (%v), want %q", l.link, l.read, b, err, want)
		}
	}
}
