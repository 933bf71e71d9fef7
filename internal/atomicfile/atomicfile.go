// Package atomicfile writes files so that readers see either the old
// content or the complete new content, never a partial file.
//
// The data goes to a temporary file in the destination's directory, is
// flushed to stable storage, and is renamed over the destination; the
// directory is synced so the rename survives a crash. On any error the
// temporary file is removed and the destination is left untouched.
//
// A process killed while writing (SIGKILL, a power cut) cannot remove its
// temporary file. Temporary files are therefore named
// .NAME.tmp-HOST-PID-RANDOM, and the next Write of the same file (or
// CleanDir) removes those of this host whose process is gone.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// tmpMark separates a destination's name from the rest of its temporary
// file's name.
const tmpMark = ".tmp-"

// host returns this machine's name as used in temporary file names (no
// dashes or path separators, so that names parse back).
func host() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "localhost"
	}
	return strings.NewReplacer("-", "_", "/", "_", ".", "_").Replace(h)
}

// tempPrefix is the name prefix of this process's temporary files for base.
func tempPrefix(base string) string {
	return "." + base + tmpMark + host() + "-" + strconv.Itoa(os.Getpid()) + "-"
}

// staleOf reports whether name is a temporary file of this package (for
// destination base when base is not empty) left by a process of this host
// that no longer runs.
func staleOf(name, base string) bool {
	if !strings.HasPrefix(name, ".") {
		return false
	}
	i := strings.LastIndex(name, tmpMark)
	if i < 0 || (base != "" && name[1:i] != base) {
		return false
	}
	parts := strings.Split(name[i+len(tmpMark):], "-")
	if len(parts) != 3 || parts[0] != host() {
		return false
	}
	pid, err := strconv.Atoi(parts[1])
	if err != nil || pid <= 0 {
		return false
	}
	return !alive(pid)
}

// alive reports whether process pid exists on this host.
func alive(pid int) bool {
	if pid == os.Getpid() {
		return true
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// cleanStale removes dir's stale temporary files for base ("": for any
// destination) and returns how many it removed.
func cleanStale(dir, base string) (int, error) {
	es, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range es {
		if e.Type().IsRegular() && staleOf(e.Name(), base) {
			if err := os.Remove(filepath.Join(dir, e.Name())); err == nil {
				n++
			} else if !errors.Is(err, os.ErrNotExist) {
				return n, err
			}
		}
	}
	return n, nil
}

// CleanDir removes the temporary files that writers killed before they
// finished left in dir (those of this host whose process is gone) and
// returns how many it removed.
func CleanDir(dir string) (int, error) {
	n, err := cleanStale(dir, "")
	if err != nil {
		return n, fmt.Errorf("clean %s: %w", dir, err)
	}
	return n, nil
}

// special reports whether path exists and is neither a regular file nor
// a folder: a device (/dev/null, /dev/stdout) or a named pipe, which a
// rename would replace by a regular file. Writes to it go straight in.
// A folder is an error.
func special(path string) (bool, error) {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return false, nil // a missing file, or one the write reports on
	case fi.IsDir():
		return false, fmt.Errorf("write %s: is a folder", path)
	}
	return !fi.Mode().IsRegular(), nil
}

// destination returns the file a write of path replaces: for a symbolic
// link, the file it points to (replacing the link would leave the file
// linked to as it was). fd reports that path names a file descriptor of
// the process (/dev/stdout, /dev/fd/N, /proc/self/fd/N): it is written
// through as it is, never renamed over, which would replace /dev/stdout
// itself.
func destination(path string) (target string, fd bool) {
	clean := filepath.Clean(path)
	if strings.HasPrefix(clean, "/proc/") || strings.HasPrefix(clean, "/dev/fd/") {
		return path, true
	}
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return path, false
	}
	if to, err := os.Readlink(path); err == nil && (strings.HasPrefix(to, "/proc/") || strings.HasPrefix(to, "/dev/fd/")) {
		return path, true
	}
	if t, err := filepath.EvalSymlinks(path); err == nil {
		return t, false
	}
	return path, false // a link to nothing yet: replaced by the file
}

// descriptor returns the number of this process's file descriptor that
// path names (/dev/stdout, /dev/fd/N, /proc/self/fd/N, or a link to one),
// or -1.
func descriptor(path string) int {
	for range 4 {
		clean := filepath.Clean(path)
		for _, dir := range []string{"/dev/fd/", "/proc/self/fd/", "/proc/" + strconv.Itoa(os.Getpid()) + "/fd/"} {
			if rest, ok := strings.CutPrefix(clean, dir); ok {
				if n, err := strconv.Atoi(rest); err == nil && n >= 0 {
					return n
				}
				return -1
			}
		}
		to, err := os.Readlink(clean)
		if err != nil {
			return -1
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(clean), to)
		}
		path = to
	}
	return -1
}

// writeSpecial writes straight into a device, a named pipe or a file
// descriptor of the process. A descriptor is written through a duplicate
// of it, which shares its offset: opened again by name, a standard output
// on a file wrote from its start, and the shell's next line wrote over
// the output.
func writeSpecial(path string, fill func(w io.Writer) error) error {
	var f *os.File
	if n := descriptor(path); n >= 0 {
		d, err := syscall.Dup(n)
		if err != nil {
			return failed(path, err)
		}
		f = os.NewFile(uintptr(d), path)
	} else {
		var err error
		if f, err = os.OpenFile(path, os.O_WRONLY, 0); err != nil {
			return failed(path, err)
		}
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err := fill(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return failed(path, err)
	}
	return nil
}

// failed is the error of a write of path that failed with err, in the
// terms of the file asked for: a temporary file's name is left out, and
// a missing folder is named as such ("open .x.arrow.tmp-…: no such file
// or directory" read as if x.arrow were missing).
func failed(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && strings.Contains(filepath.Base(pe.Path), tmpMark) {
		err = pe.Err
	}
	if errors.Is(err, fs.ErrNotExist) {
		dir := filepath.Dir(path)
		if _, serr := os.Stat(dir); errors.Is(serr, fs.ErrNotExist) {
			return fmt.Errorf("write %s: folder %s does not exist: %w", path, dir, err)
		}
	}
	return fmt.Errorf("write %s: %w", path, err)
}

// Write creates or replaces path with whatever fill writes to the given
// writer. The file's mode is 0644. A device or a named pipe (/dev/null)
// is written into, not replaced; a folder is an error.
func Write(path string, fill func(w io.Writer) error) (err error) {
	target, fd := destination(path)
	if sp, err := special(target); err != nil {
		return err
	} else if sp || fd {
		return writeSpecial(path, fill)
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	cleanStale(dir, base) // best effort; a failure shows up below
	f, err := os.CreateTemp(dir, tempPrefix(base)+"*")
	if err != nil {
		return failed(path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	if err = fill(bw); err != nil {
		// fill's own errors (what it read was bad) are the caller's to
		// name; only a failed write of the file is this one's.
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) && pe.Path == tmp {
			return failed(path, err)
		}
		return err
	}
	if err = bw.Flush(); err != nil {
		return failed(path, err)
	}
	if err = f.Chmod(0o644); err != nil {
		return failed(path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("write %s: sync: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return failed(path, err)
	}
	if err = os.Rename(tmp, target); err != nil {
		return failed(path, err)
	}
	if d, derr := os.Open(dir); derr == nil {
		d.Sync() // best effort: not every file system supports syncing a directory
		d.Close()
	}
	return nil
}

// WriteFile is Write for data already in memory.
func WriteFile(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteVia is Write for writers that need a file name rather than an
// io.Writer (a C library writing the file itself): write must create the
// file named tmp, in path's folder; it is then synced and renamed over
// path. On error the temporary file is removed and path is untouched.
func WriteVia(path string, write func(tmp string) error) (err error) {
	target, fd := destination(path)
	if sp, err := special(target); err != nil {
		return err
	} else if sp || fd {
		// Let write make a temporary file, then copy it in.
		tmpDir, err := os.MkdirTemp("", "capsim-write-")
		if err != nil {
			return failed(path, err)
		}
		defer os.RemoveAll(tmpDir)
		tmp := filepath.Join(tmpDir, filepath.Base(path))
		if err := write(tmp); err != nil {
			return failed(path, err)
		}
		return writeSpecial(path, func(w io.Writer) error {
			f, err := os.Open(tmp)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = io.Copy(w, f)
			return err
		})
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	cleanStale(dir, base)
	f, err := os.CreateTemp(dir, tempPrefix(base)+"*")
	if err != nil {
		return failed(path, err)
	}
	tmp := f.Name()
	f.Close()
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	if err = write(tmp); err != nil {
		return failed(path, err)
	}
	if f, err = os.OpenFile(tmp, os.O_RDWR, 0); err != nil {
		return failed(path, err)
	}
	if err = f.Chmod(0o644); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return failed(path, err)
	}
	if err = os.Rename(tmp, target); err != nil {
		return failed(path, err)
	}
	if d, derr := os.Open(dir); derr == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
