package main

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFitExamplesRun runs, from the repository root's files, every example
// of `capsim fit --help` (read from the command itself, so the test follows
// the help) and every `capsim fit` command line of the docs, with -o
// redirected into a temporary folder: each must fit its file as written.
func TestFitExamplesRun(t *testing.T) {
	root := filepath.Join("..", "..")
	help := fitExamples(t, strings.NewReader(newFitCmd().Example))
	if len(help) < 4 {
		t.Fatalf("capsim fit --help has %d examples, want one per documented kind", len(help))
	}
	lines := map[string]bool{}
	for _, l := range help {
		lines[l] = true
	}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		for _, l := range fitExamples(t, f) {
			lines[l] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for l := range lines {
		t.Run(l, func(t *testing.T) {
			args := strings.Fields(l)[1:]
			if strings.ContainsAny(l, `'"`) {
				t.Fatalf("quoted arguments: split this test's way, %q", args)
			}
			args[1] = filepath.Join(root, args[1])
			for i := range args[:len(args)-1] {
				if args[i] == "-o" {
					args[i+1] = filepath.Join(t.TempDir(), args[i+1])
				}
			}
			if code, _, stderr := capsim(t, args...); code != 0 {
				t.Errorf("exit %d: %s", code, stderr)
			}
		})
	}
}

// fitExamples returns the `capsim fit FILE ...` command lines of r, a help
// text or a Markdown page, where FILE names a sample file (a line may start
// with a shell prompt "$ " or with "bin/", and end with a "# comment").
func fitExamples(t *testing.T, r io.Reader) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		l, _, _ := strings.Cut(sc.Text(), " #")
		l = strings.TrimSpace(l)
		l = strings.TrimPrefix(l, "$ ")
		l = strings.TrimPrefix(l, "bin/")
		f := strings.Fields(l)
		if len(f) < 3 || f[0] != "capsim" || f[1] != "fit" {
			continue
		}
		if ext := filepath.Ext(f[2]); ext == ".csv" || ext == ".arrow" {
			out = append(out, strings.Join(f, " "))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
