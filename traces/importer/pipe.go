package importer

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// streamed reports whether path is read once as a stream (a pipe, a FIFO,
// a character device such as /dev/stdin, or a bash process substitution
// <(zcat x.goal.gz)) rather than a file that can be opened again: a
// sniffer's read would consume what the reader then misses.
func streamed(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir() && !st.Mode().IsRegular()
}

// readStreamed reads a streamed path by its content: it is copied once
// into a temporary file, which is sniffed and read as the file it holds,
// or as the archive (a tar, gzip or zip of a multi-file trace's files,
// `capsim replay <(tar c trace/)`), and removed. Errors name path, not
// the copy.
func readStreamed(path string, opt Options) (*Trace, error) {
	dir, err := os.MkdirTemp("", "capsim-stream-")
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer os.RemoveAll(dir)
	tmp := filepath.Join(dir, "trace")
	if err := spool(path, tmp, opt.Archive.bytes(), opt.Format == ""); err != nil {
		return nil, err
	}
	if kind := archiveOf(tmp); kind != "" {
		return readArchive(tmp, path, kind, opt)
	}
	f, err := formatOf(tmp, opt)
	if err != nil {
		return nil, renamed(err, tmp, path)
	}
	t, err := f.Read(tmp, opt)
	if err != nil && f.Files != nil {
		// The file piped may be one of a trace's several files (a
		// rank-0 .dat, a .meta, an anchor), whose others a pipe has
		// nowhere beside it: say so rather than only what is missing.
		// The files it looked for beside the copy are named by their
		// own names, not the temporary folder's.
		err = &renamedError{err, strings.NewReplacer(tmp, path, dir+string(filepath.Separator), "")}
		return nil, fmt.Errorf("%w (a %s trace read through a pipe is only the file piped, with no folder beside it for its other files: pipe the whole trace as an archive, <(tar c FOLDER), or give its path)", err, f.Name)
	}
	if err != nil {
		return nil, renamed(err, tmp, path)
	}
	t.Path, t.Format = path, f.Name
	t.renameSources(func(p string) string {
		if p == tmp {
			return path
		}
		return p
	})
	t.setStarts(opt.AlignStarts)
	return t, nil
}

// renameSources renames the files an MPI trace's events were read from
// (mpi.Rank.File), so that messages name the files the user gave rather
// than temporary copies.
func (t *Trace) renameSources(name func(string) string) {
	if t.MPI == nil {
		return
	}
	for r := range t.MPI.Ranks {
		if f := t.MPI.Ranks[r].File; f != "" {
			t.MPI.Ranks[r].File = name(f)
		}
	}
}

// spool copies the stream at path into the file tmp, at most limit bytes
// (a stream without end, /dev/zero, is refused past it). With judge, the
// stream's first HeadSize bytes are sniffed before the rest is read: a
// stream that opens as no archive and no trace format (/dev/urandom, a
// file of another kind) is refused from them at once, as Detect refuses
// such a file, rather than copied to an end that may never come.
func spool(path, tmp string, limit int64, judge bool) error {
	in, err := os.Open(path)
	if err != nil {
		return err
	}
	defer in.Close()
	head := make([]byte, HeadSize)
	n, err := io.ReadFull(in, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return fmt.Errorf("read %s: %w", path, err)
	}
	head = head[:n]
	if judge && n > 0 && ArchiveKind(head) == "" {
		if _, ok := sniff(head); !ok {
			return describe(path, head)
		}
	}
	out, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	_, err = out.Write(head)
	var m int64
	if err == nil {
		m, err = io.Copy(out, io.LimitReader(in, limit-int64(n)+1))
	}
	if err == nil && int64(n)+m > limit {
		err = fmt.Errorf("more than %d bytes (a stream without end?)", limit)
	}
	if err != nil {
		out.Close()
		return fmt.Errorf("read %s: %w", path, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

// renamedError is an error about temporary files, told about the paths
// the user gave (a stream's copy by the stream's path, an archive's
// members as ARCHIVE:MEMBER); errors.As and errors.Is still see the
// original.
type renamedError struct {
	err     error
	replace *strings.Replacer
}

func (e *renamedError) Error() string { return e.replace.Replace(e.err.Error()) }
func (e *renamedError) Unwrap() error { return e.err }

func renamed(err error, tmp, path string) error {
	var ie *Error
	if errors.As(err, &ie) && ie.Path == tmp {
		c := *ie
		c.Path = path
		return &c
	}
	return &renamedError{err, strings.NewReplacer(tmp, path)}
}

// Reopenable returns a path with the content of path that can be read
// more than once: path itself for a file or folder; for a stream (a
// pipe, a FIFO, a device) a temporary copy, read from it once. done
// removes the copy, and rename tells an error about the copy by path.
// For callers that read one trace several times (a replay under a
// policy and under none).
func Reopenable(path string) (p string, rename func(error) error, done func(), err error) {
	same := func(err error) error { return err }
	if !streamed(path) {
		return path, same, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "capsim-stream-")
	if err != nil {
		return "", same, func() {}, fmt.Errorf("read %s: %w", path, err)
	}
	done = func() { os.RemoveAll(dir) }
	tmp := filepath.Join(dir, filepath.Base(path))
	if err := spool(path, tmp, DefaultArchiveBytes, false); err != nil {
		done()
		return "", same, func() {}, err
	}
	rename = func(err error) error {
		if err == nil {
			return nil
		}
		return renamed(err, tmp, path)
	}
	return tmp, rename, done, nil
}
