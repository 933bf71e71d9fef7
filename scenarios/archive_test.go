package scenarios

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/capsim/capsim/scenarios/results"
)

// writeTgz writes files (name → content) as a gzipped tar at p, in name
// order.
func writeTgz(t *testing.T, p string, files map[string]string) {
	t.Helper()
	var names []string
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, n := range names {
		if err := tw.WriteHeader(&tar.Header{Name: filepath.ToSlash(n), Mode: 0o644, Size: int64(len(files[n])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(files[n]))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A multi-file trace given as a gzipped tar has the trace inputs of its
// folder (the members it reads, named as the folder's files, with their
// hashes), and a member re-recorded in a new archive is refused on rerun,
// named by the archive and the member, as a changed rank file is.
func TestArchiveMemberChangeRefused(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	writeFiles(t, dir, liballprofRanks("first recording"))
	writeTgz(t, filepath.Join(dir, "lap.tgz"), liballprofRanks("first recording"))
	folder, err := multiFileScenario(t, dir, "lap").Identity()
	if err != nil {
		t.Fatal(err)
	}
	sc := multiFileScenario(t, dir, "lap.tgz")
	archive, err := sc.Identity()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, in := range archive.Inputs {
		names = append(names, in.Name+"="+in.Path)
	}
	tgz := filepath.Join(dir, "lap.tgz")
	want := "workload.trace:t-0.dat=" + tgz + ":lap/t-0.dat"
	if !strings.Contains(strings.Join(names, " "), want) || len(archive.Inputs) != 6 {
		t.Errorf("inputs %v, want the 4 rank files as %s…", names, want)
	}
	traceInputs := func(sw results.Sweep) string {
		var s []string
		for _, in := range sw.Inputs {
			if strings.HasPrefix(in.Name, "workload.trace") {
				s = append(s, in.Name+" "+in.Hash)
			}
		}
		return strings.Join(s, "\n")
	}
	if a, f := traceInputs(archive), traceInputs(folder); a != f {
		t.Errorf("the archive's trace inputs\n%s\ndiffer from its folder's\n%s", a, f)
	}
	if _, err := Run(context.Background(), sc, fakeEval{}, RunOptions{OutDir: out, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	writeTgz(t, tgz, liballprofRanks("second recording"))
	_, err = Run(context.Background(), sc, fakeEval{}, RunOptions{OutDir: out, Workers: 2})
	if !errors.Is(err, results.ErrMismatch) || !strings.Contains(err.Error(), "workload.trace:t-2.dat "+tgz+":lap/t-2.dat changed") {
		t.Fatalf("rerun after member lap/t-2.dat changed: err = %v, want ErrMismatch naming it", err)
	}
	if strings.Contains(err.Error(), "t-1.dat") {
		t.Errorf("message names an unchanged member: %v", err)
	}
}
