package importer

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/traces/graph"
)

// member is one entry of a test archive.
type member struct {
	name string
	body string
	kind byte // tar.TypeReg (0 too), tar.TypeDir, tar.TypeSymlink
}

// folderMembers lists the files under dir as members named prefix/REL,
// in order, with their folders.
func folderMembers(t *testing.T, dir, prefix string) []member {
	t.Helper()
	var out []member
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		name := filepath.ToSlash(filepath.Join(prefix, rel))
		if d.IsDir() {
			if rel != "." || prefix != "" {
				out = append(out, member{name: name + "/", kind: tar.TypeDir})
			}
			return nil
		}
		b, err := os.ReadFile(p)
		out = append(out, member{name: name, body: string(b)})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// pack writes ms as an archive of kind ("tar", "tgz", "zip").
func pack(t testing.TB, kind string, ms []member) []byte {
	t.Helper()
	var buf bytes.Buffer
	switch kind {
	case "tar", "tgz":
		var zw *gzip.Writer
		var tw *tar.Writer
		if kind == "tgz" {
			zw = gzip.NewWriter(&buf)
			tw = tar.NewWriter(zw)
		} else {
			tw = tar.NewWriter(&buf)
		}
		for _, m := range ms {
			h := &tar.Header{Name: m.name, Mode: 0o644, Size: int64(len(m.body)), Typeflag: m.kind}
			switch m.kind {
			case 0:
				h.Typeflag = tar.TypeReg
			case tar.TypeDir:
				h.Mode, h.Size = 0o755, 0
			case tar.TypeSymlink, tar.TypeLink:
				h.Linkname, h.Size = m.body, 0
			}
			if err := tw.WriteHeader(h); err != nil {
				t.Fatal(err)
			}
			if h.Size > 0 {
				tw.Write([]byte(m.body))
			}
		}
		if err := tw.Close(); err != nil {
			t.Fatal(err)
		}
		if zw != nil {
			zw.Close()
		}
	case "zip":
		zw := zip.NewWriter(&buf)
		for _, m := range ms {
			h := &zip.FileHeader{Name: m.name, Method: zip.Deflate}
			switch m.kind {
			case tar.TypeDir:
				h.SetMode(fs.ModeDir | 0o755)
			case tar.TypeSymlink:
				h.SetMode(fs.ModeSymlink | 0o777)
			default:
				h.SetMode(0o644)
			}
			w, err := zw.CreateHeader(h)
			if err != nil {
				t.Fatal(err)
			}
			if m.kind != tar.TypeDir {
				w.Write([]byte(m.body))
			}
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// sameGraph fails unless a and b lower to the same execution graph.
func sameGraph(t *testing.T, what string, a, b *Trace) {
	t.Helper()
	ga, err := a.Lower(nil)
	if err != nil {
		t.Fatal(err)
	}
	gb, err := b.Lower(nil)
	if err != nil {
		t.Fatal(err)
	}
	if ga.NumRanks() != gb.NumRanks() || ga.NumOps() != gb.NumOps() || ga.NumDeps() != gb.NumDeps() || graphSum(ga) != graphSum(gb) {
		t.Errorf("%s: graph of %d ranks, %d ops, %d deps, want %d, %d, %d", what, gb.NumRanks(), gb.NumOps(), gb.NumDeps(), ga.NumRanks(), ga.NumOps(), ga.NumDeps())
	}
	// Each rank starts where the recorded run started it, as from the
	// folder: read from an archive every rank started at 0 (a DUMPI
	// trace replayed 0.113 ms for its folder's 2.003 ms).
	if !slices.Equal(ga.StartNs, gb.StartNs) {
		t.Errorf("%s: rank starts %v, want %v", what, gb.StartNs, ga.StartNs)
	}
}

// graphSum is a digest of a graph's operations.
func graphSum(g *graph.Graph) string {
	return fmt.Sprint(g.RankStart, g.Kind, g.Size, g.Peer, g.Tag, g.DepOp)
}

// multiFileTraces are multi-file traces of every format that has them,
// as folders: liballprof rank files, a SimGrid index and its action files,
// and from the shared traces an OTF2 folder (anchor, .def, .evt files)
// and a DUMPI trace (.meta and .bin files).
// Each maps its format to the folder; the SimGrid trace is read from its
// index, cg.txt.
func multiFileTraces(t *testing.T) map[string]string {
	root := testenv.ModuleRoot(t)
	m := map[string]string{
		"liballprof": filepath.Join(root, "traces", "liballprof", "testdata", "p2p"),
	}
	// The SimGrid index and its action folder, as one folder.
	sg := t.TempDir()
	ti := filepath.Join(root, "traces", "simgrid", "testdata", "ti")
	for _, mb := range folderMembers(t, filepath.Join(ti, "cg"), "cg") {
		if mb.kind != tar.TypeDir {
			writeFile(t, filepath.Join(sg, filepath.FromSlash(mb.name)), mb.body)
		}
	}
	idx, err := os.ReadFile(filepath.Join(ti, "cg.txt"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(sg, "cg.txt"), string(idx))
	m["simgrid"] = sg
	if p := sharedOptional("traces/otf2/pipit-pingpong"); p != "" {
		m["otf2"] = p
	}
	if p := sharedOptional("traces/dumpi/d2g-alltoall4"); p != "" {
		m["dumpi"] = p
	}
	return m
}

// sharedOptional is the shared input sub, or "" where it is missing.
func sharedOptional(sub string) string {
	root, err := testenv.FindModuleRoot()
	if err != nil {
		return ""
	}
	p := filepath.Join(root, "..", "shared", filepath.FromSlash(sub))
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

func writeFile(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The trace in a tar, gzipped tar or zip of its folder (its files at the
// archive's top, or in one folder as `tar c trace/` writes them) reads as
// the folder itself, from a file or through a pipe, and Inputs lists the
// members it reads with the names and hashes of the folder's files.
func TestReadArchive(t *testing.T) {
	traces := multiFileTraces(t)
	var formats []string
	for f := range traces {
		formats = append(formats, f)
	}
	sort.Strings(formats)
	if len(formats) < 4 {
		t.Logf("shared traces missing: archives of %v only", formats)
	}
	for _, format := range formats {
		dir := traces[format]
		entry := dir
		if format == "simgrid" {
			entry = filepath.Join(dir, "cg.txt")
		}
		want, err := Read(entry, Options{})
		if err != nil {
			t.Fatalf("%s folder: %v", format, err)
		}
		wantIn, err := Inputs(entry, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, prefix := range []string{"", "trace"} {
			ms := folderMembers(t, dir, prefix)
			for _, kind := range []string{"tar", "tgz", "zip"} {
				name := fmt.Sprintf("%s/%s top %q", format, kind, prefix)
				p := filepath.Join(t.TempDir(), "t."+kind)
				data := pack(t, kind, ms)
				if err := os.WriteFile(p, data, 0o644); err != nil {
					t.Fatal(err)
				}
				got, err := Read(p, Options{})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if got.Format != format || got.Path != p {
					t.Errorf("%s: format %s path %s", name, got.Format, got.Path)
				}
				sameGraph(t, name, want, got)
				in, err := Inputs(p, Options{})
				if err != nil {
					t.Fatalf("%s: inputs: %v", name, err)
				}
				if len(in) != len(wantIn) {
					t.Fatalf("%s: %d inputs, want %d", name, len(in), len(wantIn))
				}
				for i := range in {
					m, rel := strings.TrimPrefix(in[i].Member, prefix+"/"), wantIn[i].Rel
					if rel == "" {
						rel = filepath.Base(entry)
					}
					if in[i].Path != p || in[i].Rel != wantIn[i].Rel || in[i].Hash != wantIn[i].Hash || m != rel {
						t.Errorf("%s: input %+v, want member %s of %s, as %+v", name, in[i], wantIn[i].Rel, p, wantIn[i])
					}
				}
				if kind == "zip" {
					continue // a zip is read from its end: a pipe's copy is, too
				}
				got, err = Read(fifo(t, data), Options{})
				if err != nil {
					t.Fatalf("%s through a pipe: %v", name, err)
				}
				sameGraph(t, name+" through a pipe", want, got)
			}
		}
	}
}

// One gzipped file is read as the file, named by the name gzip recorded.
func TestReadGzippedFile(t *testing.T) {
	goalText := "num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 0\n}\nrank 1 {\nl1: recv 8b from 0 tag 0\n}\n"
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Name = "pingpong.goal"
	zw.Write([]byte(goalText))
	zw.Close()
	p := filepath.Join(t.TempDir(), "x.gz")
	writeFile(t, p, buf.String())
	tr, err := Read(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Format != "goal" || tr.Graph.NumOps() != 2 {
		t.Errorf("format %s, %d ops", tr.Format, tr.Graph.NumOps())
	}
	in, err := Inputs(p, Options{})
	if err != nil || len(in) != 1 || in[0].Member != "pingpong.goal" || in[0].Rel != "" {
		t.Errorf("inputs %+v, %v", in, err)
	}
	// A broken file inside is named ARCHIVE:MEMBER.
	buf.Reset()
	zw = gzip.NewWriter(&buf)
	zw.Name = "bad.goal"
	zw.Write([]byte("num_ranks 1\nrank 0 {\nl1: frobnicate 10\n}\n"))
	zw.Close()
	writeFile(t, p, buf.String())
	if _, err := Read(p, Options{}); err == nil || !strings.Contains(err.Error(), p+":bad.goal:3") || strings.Contains(err.Error(), os.TempDir()+"/capsim-archive") {
		t.Errorf("err = %v, want it to name %s:bad.goal:3", err, p)
	}
}

// Archives that would write outside their folder, hold what is not a
// file or folder, expand past the limits, or hold no trace or several are
// refused with a message naming the archive and the member.
func TestArchiveRefused(t *testing.T) {
	goal := "num_ranks 1\nrank 0 {\nl1: calc 5\n}\n"
	big := strings.Repeat("x", 4096)
	for _, tc := range []struct {
		name string
		ms   []member
		lim  ArchiveLimits
		want string
	}{
		{"dotdot", []member{{name: "t/../../evil.goal", body: goal}}, ArchiveLimits{}, `member "t/../../evil.goal" climbs out of the archive`},
		{"absolute", []member{{name: "/tmp/evil.goal", body: goal}}, ArchiveLimits{}, `member "/tmp/evil.goal" has an absolute name`},
		{"symlink", []member{{name: "t.goal", body: "/etc/passwd", kind: tar.TypeSymlink}}, ArchiveLimits{}, "member t.goal is a symbolic link"},
		{"twice", []member{{name: "a.goal", body: goal}, {name: "./a.goal", body: goal}}, ArchiveLimits{}, "member a.goal appears twice"},
		{"too large", []member{{name: "a.goal", body: goal}, {name: "b", body: big}}, ArchiveLimits{MaxBytes: 1024}, "more than 1024 bytes, the most capsim unpacks from one archive (at member b)"},
		{"too many", []member{{name: "a", body: "1"}, {name: "b", body: "2"}, {name: "c", body: "3"}}, ArchiveLimits{MaxMembers: 2}, "the most capsim unpacks from one archive"},
		{"empty", nil, ArchiveLimits{}, "an archive with no files"},
		{"no trace", []member{{name: "a.txt", body: "hello\n"}, {name: "b.txt", body: "world\n"}}, ArchiveLimits{}, "an archive whose top folder holds no trace capsim recognises (a.txt, b.txt)"},
		{"two traces", []member{{name: "a.goal", body: goal}, {name: "b.goal", body: goal}}, ArchiveLimits{}, "an archive holding several traces (a.goal, b.goal)"},
	} {
		for _, kind := range []string{"tar", "tgz", "zip"} {
			if tc.name == "empty" && kind == "tar" {
				continue // an empty tar is zeros, with no magic to tell it by
			}
			dir := t.TempDir()
			p := filepath.Join(dir, "t."+kind)
			writeFile(t, p, string(pack(t, kind, tc.ms)))
			_, err := Read(p, Options{Archive: tc.lim})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) {
				t.Errorf("%s %s: err = %v, want %q", tc.name, kind, err, tc.want)
			}
			if _, ierr := Inputs(p, Options{Archive: tc.lim}); ierr == nil {
				t.Errorf("%s %s: Inputs took it", tc.name, kind)
			}
			if _, err := os.Stat(filepath.Join(dir, "..", "evil.goal")); err == nil {
				t.Errorf("%s %s: wrote outside the archive's folder", tc.name, kind)
			}
		}
	}
	// A gzip bomb: 64 MiB in 64 KiB, against a 1 MiB limit.
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	block := bytes.Repeat([]byte("x"), 1<<20)
	for range 64 {
		zw.Write(block)
	}
	zw.Close()
	p := filepath.Join(t.TempDir(), "bomb.gz")
	writeFile(t, p, buf.String())
	if _, err := Read(p, Options{Archive: ArchiveLimits{MaxBytes: 1 << 20}}); err == nil || !strings.Contains(err.Error(), "more than 1048576 bytes") {
		t.Errorf("gzip bomb: err = %v", err)
	}
}

// FuzzArchive feeds arbitrary bytes to the archive reader as a tar, a
// gzip and a zip: Read and Inputs must never panic, never write outside
// their temporary folder, stay within the limits and name the archive in
// their errors.
func FuzzArchive(f *testing.F) {
	goal := "num_ranks 1\nrank 0 {\nl1: calc 5\n}\n"
	for _, kind := range []string{"tar", "tgz", "zip"} {
		f.Add(pack(f, kind, []member{{name: "t/", kind: tar.TypeDir}, {name: "t/a.goal", body: goal}}))
		f.Add(pack(f, kind, []member{{name: "../x.goal", body: goal}}))
		f.Add(pack(f, kind, []member{{name: "a.goal", body: goal}, {name: "b", body: "x", kind: tar.TypeSymlink}}))
	}
	f.Add([]byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xed\xc1\x01"))
	f.Add([]byte("PK\x05\x06" + strings.Repeat("\x00", 18)))
	f.Fuzz(func(t *testing.T, data []byte) {
		if ArchiveKind(data) == "" {
			return
		}
		dir := t.TempDir()
		p := filepath.Join(dir, "in", "fuzz.archive")
		writeFile(t, p, string(data))
		tmp := t.TempDir()
		t.Setenv("TMPDIR", tmp)
		opt := Options{Archive: ArchiveLimits{MaxBytes: 1 << 20, MaxMembers: 64}}
		check := func(err error) {
			if err != nil && !strings.Contains(err.Error(), "fuzz.archive") {
				t.Fatalf("error does not name the archive: %v", err)
			}
		}
		_, err := Read(p, opt)
		check(err)
		_, err = Inputs(p, opt)
		check(err)
		ents, _ := os.ReadDir(dir)
		if len(ents) != 1 {
			t.Errorf("%d entries beside the archive's folder", len(ents))
		}
		if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
			t.Errorf("left %d entries in the temporary folder", len(ents))
		}
	})
}

// TestReadThroughLink: a symbolic link to the file a multi-file trace is
// read from (an OTF2 anchor, a DUMPI .meta, a liballprof rank 0 file, a
// SimGrid index) reads the trace beside the file it points to, with the
// same inputs; the link's own folder was searched for the other files
// ("the global definitions file link.def is missing").
func TestReadThroughLink(t *testing.T) {
	entries := map[string]string{"otf2": "*.otf2", "dumpi": "*.meta", "liballprof": "*-0.dat", "simgrid": "cg.txt"}
	for format, dir := range multiFileTraces(t) {
		m, err := filepath.Glob(filepath.Join(dir, entries[format]))
		if err != nil || len(m) != 1 {
			t.Fatalf("%s: entry %v, %v", format, m, err)
		}
		want, err := Read(m[0], Options{})
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		link := filepath.Join(t.TempDir(), "link"+filepath.Ext(m[0]))
		if err := os.Symlink(m[0], link); err != nil {
			t.Fatal(err)
		}
		got, err := Read(link, Options{})
		if err != nil {
			t.Fatalf("%s through a link: %v", format, err)
		}
		sameGraph(t, format+" through a link", want, got)
		wantIn, err := Inputs(m[0], Options{})
		if err != nil {
			t.Fatal(err)
		}
		in, err := Inputs(link, Options{})
		if err != nil || len(in) != len(wantIn) {
			t.Fatalf("%s through a link: inputs %v, %v; want %d", format, in, err, len(wantIn))
		}
		for i := range in {
			if in[i].Hash != wantIn[i].Hash {
				t.Errorf("%s through a link: input %+v, want %+v", format, in[i], wantIn[i])
			}
		}
	}
}
