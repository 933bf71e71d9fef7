package importer

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Default limits on what reading one archive unpacks (ArchiveLimits).
const (
	DefaultArchiveBytes   = 16 << 30
	DefaultArchiveMembers = 1 << 20
)

// ArchiveLimits bound what reading one archive unpacks, against archives
// that expand without end (a few KiB of gzip can expand to terabytes).
type ArchiveLimits struct {
	// MaxBytes is the most bytes its members may hold in all;
	// 0 means DefaultArchiveBytes.
	MaxBytes int64
	// MaxMembers is the most members it may have; 0 means
	// DefaultArchiveMembers.
	MaxMembers int
}

func (l ArchiveLimits) bytes() int64 {
	if l.MaxBytes > 0 {
		return l.MaxBytes
	}
	return DefaultArchiveBytes
}

func (l ArchiveLimits) members() int {
	if l.MaxMembers > 0 {
		return l.MaxMembers
	}
	return DefaultArchiveMembers
}

// ArchiveKind names the archive format of a file from its first bytes:
// "tar" (the ustar magic at offset 257, POSIX or GNU), "gzip" (a gzipped
// tar, or one gzipped file), "zip", or "" for none of them.
func ArchiveKind(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x1f\x8b")):
		return "gzip"
	case bytes.HasPrefix(head, []byte("PK\x03\x04")), bytes.HasPrefix(head, []byte("PK\x05\x06")):
		return "zip"
	case len(head) >= 262 && string(head[257:262]) == "ustar":
		return "tar"
	}
	return ""
}

// archiveOf returns the archive kind of the regular file at path, "" for
// any other file (or a folder, a pipe, or one that cannot be read: Read
// reports why).
func archiveOf(path string) string {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return ""
	}
	head, err := readHead(path)
	if err != nil {
		return ""
	}
	return ArchiveKind(head)
}

// unpacked is an archive unpacked into a temporary folder.
type unpacked struct {
	archive string // the archive's name in messages
	dir     string // where its members are
	trace   string // the trace in dir: a file, or a folder
}

// member returns the name in the archive of the file at p under u.dir,
// or "" for a file outside it.
func (u *unpacked) member(p string) string {
	rel, err := filepath.Rel(u.dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.ToSlash(rel)
}

// rename returns err told about the archive: a path under u.dir becomes
// ARCHIVE:MEMBER.
func (u *unpacked) rename(err error) error {
	if err == nil {
		return nil
	}
	var ie *Error
	if errors.As(err, &ie) && strings.HasPrefix(ie.Path, u.dir) {
		c := *ie
		c.Path = u.name(ie.Path)
		return &c
	}
	return &renamedError{err: err, replace: strings.NewReplacer(u.dir+string(filepath.Separator), u.archive+":", u.dir, u.archive)}
}

// name is the file at p under u.dir in messages: ARCHIVE:MEMBER.
func (u *unpacked) name(p string) string {
	if m := u.member(p); m != "" && m != "." {
		return u.archive + ":" + m
	}
	return u.archive
}

// unpack unpacks the archive of kind at path (named name in messages)
// into a new temporary folder, finds the trace in it and returns both;
// the caller removes u.dir.
func unpack(path, name, kind string, opt Options) (*unpacked, error) {
	dir, err := os.MkdirTemp("", "capsim-archive-")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	u := &unpacked{archive: name, dir: dir}
	x := &extractor{dir: dir, archive: name, lim: opt.Archive, seen: map[string]bool{}}
	if err := x.extract(path, kind); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if u.trace, err = u.find(opt); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return u, nil
}

// extractor writes an archive's members under dir, within lim.
type extractor struct {
	dir, archive string
	lim          ArchiveLimits
	seen         map[string]bool
	total        int64
}

func (x *extractor) extract(path, kind string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%s: %w", x.archive, err)
	}
	defer f.Close()
	switch kind {
	case "tar":
		return x.tar(f)
	case "gzip":
		return x.gzip(f)
	case "zip":
		st, err := f.Stat()
		if err != nil {
			return fmt.Errorf("%s: %w", x.archive, err)
		}
		return x.zip(f, st.Size())
	}
	return fmt.Errorf("%s: not an archive", x.archive)
}

func (x *extractor) tar(r io.Reader) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: read the tar archive: %w", x.archive, err)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := x.mkdir(h.Name); err != nil {
				return err
			}
		case tar.TypeReg, tar.TypeRegA:
			if err := x.file(h.Name, tr); err != nil {
				return err
			}
		default:
			return x.refuse(h.Name, tarType(h.Typeflag))
		}
	}
}

// tarType says what a tar member other than a file or folder is.
func tarType(t byte) string {
	switch t {
	case tar.TypeSymlink:
		return "a symbolic link"
	case tar.TypeLink:
		return "a hard link"
	case tar.TypeChar, tar.TypeBlock:
		return "a device"
	case tar.TypeFifo:
		return "a FIFO"
	}
	return fmt.Sprintf("of tar type %q", t)
}

func (x *extractor) gzip(r io.Reader) error {
	zr, err := gzip.NewReader(bufio.NewReader(r))
	if err != nil {
		return fmt.Errorf("%s: read the gzip archive: %w", x.archive, err)
	}
	defer zr.Close()
	br := bufio.NewReaderSize(zr, 1<<16)
	head, err := br.Peek(1024)
	if err != nil && err != io.EOF {
		return fmt.Errorf("%s: read the gzip archive: %w", x.archive, err)
	}
	if ArchiveKind(head) == "tar" || len(head) == 1024 && bytes.Count(head, []byte{0}) == 1024 {
		// A tar, or an empty one (its end: two blocks of zeros).
		return x.tar(br)
	}
	// One gzipped file: its name is the one gzip recorded, else the
	// archive's without .gz.
	name := path.Base(filepath.ToSlash(zr.Name))
	if zr.Name == "" || name == "." || name == ".." || name == "/" {
		name = strings.TrimSuffix(strings.TrimSuffix(filepath.Base(x.archive), ".gz"), ".gzip")
	}
	if name == "" || name == "." || name == ".." {
		name = "trace"
	}
	if err := x.file(name, br); err != nil {
		if errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%s: read the gzip archive: %w", x.archive, err)
		}
		return err
	}
	return nil
}

func (x *extractor) zip(r io.ReaderAt, size int64) error {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return fmt.Errorf("%s: read the zip archive: %w", x.archive, err)
	}
	if len(zr.File) > x.lim.members() {
		return fmt.Errorf("%s: more than %d members (%d), the most capsim unpacks from one archive", x.archive, x.lim.members(), len(zr.File))
	}
	for _, f := range zr.File {
		m := f.Mode()
		switch {
		case m.IsDir():
			if err := x.mkdir(f.Name); err != nil {
				return err
			}
		case m.IsRegular():
			rc, err := f.Open()
			if err != nil {
				return fmt.Errorf("%s: member %s: %w", x.archive, f.Name, err)
			}
			err = x.file(f.Name, rc)
			rc.Close()
			if err != nil {
				return err
			}
		case m&os.ModeSymlink != 0:
			return x.refuse(f.Name, "a symbolic link")
		default:
			return x.refuse(f.Name, "not a file or folder")
		}
	}
	return nil
}

func (x *extractor) refuse(name, what string) error {
	return fmt.Errorf("%s: member %s is %s: capsim unpacks files and folders only", x.archive, name, what)
}

// clean checks a member's name and returns it cleaned, slash-separated
// and relative: absolute names and names that climb out of the archive
// (..) are refused, as unpacking them would write outside its folder.
func (x *extractor) clean(name string) (string, error) {
	n := strings.ReplaceAll(name, "\\", "/")
	if strings.HasPrefix(n, "/") || filepath.IsAbs(name) || filepath.VolumeName(name) != "" || (len(n) > 1 && n[1] == ':') {
		return "", fmt.Errorf("%s: member %q has an absolute name: capsim unpacks relative names only", x.archive, name)
	}
	for _, e := range strings.Split(n, "/") {
		if e == ".." {
			return "", fmt.Errorf("%s: member %q climbs out of the archive (..): capsim unpacks names inside it only", x.archive, name)
		}
	}
	if strings.ContainsRune(n, 0) {
		return "", fmt.Errorf("%s: member %q has a NUL in its name", x.archive, name)
	}
	return path.Clean(n), nil
}

// count counts one more member against the limit.
func (x *extractor) count(name string) error {
	if x.seen[name] {
		return fmt.Errorf("%s: member %s appears twice", x.archive, name)
	}
	if len(x.seen) >= x.lim.members() {
		return fmt.Errorf("%s: more than %d members, the most capsim unpacks from one archive", x.archive, x.lim.members())
	}
	x.seen[name] = true
	return nil
}

func (x *extractor) mkdir(name string) error {
	n, err := x.clean(name)
	if err != nil {
		return err
	}
	if n == "." {
		return nil
	}
	if err := x.count(n + "/"); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(x.dir, filepath.FromSlash(n)), 0o755); err != nil {
		return fmt.Errorf("%s: member %s: %w", x.archive, name, err)
	}
	return nil
}

// file writes member name with the content r holds, counting its bytes
// against the limit as they come (a header's size may lie).
func (x *extractor) file(name string, r io.Reader) error {
	n, err := x.clean(name)
	if err != nil {
		return err
	}
	if n == "." {
		return fmt.Errorf("%s: a file member has an empty name", x.archive)
	}
	if err := x.count(n); err != nil {
		return err
	}
	dst := filepath.Join(x.dir, filepath.FromSlash(n))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("%s: member %s: %w", x.archive, name, err)
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("%s: member %s: %w", x.archive, name, err)
	}
	left := x.lim.bytes() - x.total
	w, err := io.Copy(out, io.LimitReader(r, left+1))
	x.total += w
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: member %s: %w", x.archive, name, err)
	}
	if w > left {
		return fmt.Errorf("%s: its members hold more than %d bytes, the most capsim unpacks from one archive (at member %s): unpack it yourself and pass the trace inside", x.archive, x.lim.bytes(), name)
	}
	return nil
}

// find returns the trace in u.dir: the folder or file that a lone
// top-level folder (as `tar c trace/` writes) or the archive itself holds.
// A folder that a format reads as a whole is the trace; otherwise the
// file at its top whose trace reads the most members (a SimGrid index
// before its rank files, a lone file), which must be one.
func (u *unpacked) find(opt Options) (string, error) {
	root := u.dir
	var ents []os.DirEntry
	for {
		var err error
		if ents, err = os.ReadDir(root); err != nil {
			return "", fmt.Errorf("%s: %w", u.archive, err)
		}
		if len(ents) != 1 || !ents[0].IsDir() {
			break
		}
		root = filepath.Join(root, ents[0].Name())
	}
	if len(ents) == 0 {
		return "", &Error{Path: u.archive, Looks: "an archive with no files", Hint: "pack the trace's files into it"}
	}
	if len(ents) == 1 {
		return filepath.Join(root, ents[0].Name()), nil
	}
	for _, f := range Formats() {
		if f.SniffDir != nil && (opt.Format == "" || opt.Format == f.Name) && (f.SniffDir(root) || opt.Format == f.Name) {
			return root, nil
		}
	}
	var best []string
	bestN := 0
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
		if !e.Type().IsRegular() {
			continue
		}
		p := filepath.Join(root, e.Name())
		files, err := Files(p, Options{Format: opt.Format})
		if err != nil {
			continue
		}
		switch {
		case len(files) > bestN:
			best, bestN = []string{p}, len(files)
		case len(files) == bestN:
			best = append(best, p)
		}
	}
	sort.Strings(names)
	if len(names) > 5 {
		names = append(names[:5], "…")
	}
	where := u.name(root)
	switch {
	case len(best) == 0:
		return "", &Error{Path: u.archive, Looks: fmt.Sprintf("an archive whose %s holds no trace capsim recognises (%s)", folderName(where, u.archive), strings.Join(names, ", ")),
			Hint: "capsim reads " + formatNames() + "; pass --format to force one"}
	case len(best) > 1:
		var b []string
		for _, p := range best {
			b = append(b, u.member(p))
		}
		return "", &Error{Path: u.archive, Looks: "an archive holding several traces (" + strings.Join(b, ", ") + ")", Hint: "pack one trace per archive"}
	}
	return best[0], nil
}

// folderName says which folder of an archive is meant.
func folderName(where, archive string) string {
	if where == archive {
		return "top folder"
	}
	return "folder " + where
}

// readArchive reads the trace in the archive of kind at path, named name.
func readArchive(path, name, kind string, opt Options) (*Trace, error) {
	u, err := unpack(path, name, kind, opt)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(u.dir)
	f, err := formatOf(u.trace, opt)
	if err != nil {
		return nil, u.rename(err)
	}
	t, err := f.Read(u.trace, opt)
	if err != nil {
		return nil, u.rename(err)
	}
	t.Path, t.Format = name, f.Name
	t.renameSources(u.name)
	t.setStarts(opt.AlignStarts)
	return t, nil
}
