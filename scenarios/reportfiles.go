package scenarios

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/capsim/capsim/internal/atomicfile"
)

// ReportManifest is the file in a results directory that lists, one
// relative path a line, the files its reports wrote (the pages and their
// figures), so that a restarted sweep removes exactly those and nothing
// a user put beside them.
const ReportManifest = "report.files"

// recordReportFiles adds the files (paths under dir) to dir's manifest.
func recordReportFiles(dir string, files []string) error {
	have, err := reportFiles(dir)
	if err != nil {
		return err
	}
	for _, f := range files {
		rel, err := filepath.Rel(dir, f)
		if err != nil || strings.HasPrefix(rel, "..") {
			return fmt.Errorf("report: %s is not under %s", f, dir)
		}
		have = append(have, filepath.ToSlash(rel))
	}
	slices.Sort(have)
	have = slices.Compact(have)
	var b bytes.Buffer
	for _, f := range have {
		b.WriteString(f + "\n")
	}
	return atomicfile.WriteFile(filepath.Join(dir, ReportManifest), b.Bytes())
}

// reportFiles reads dir's manifest: nothing when there is none.
func reportFiles(dir string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(dir, ReportManifest))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := sc.Text()
		if f == "" || !filepath.IsLocal(filepath.FromSlash(f)) {
			continue // never a path outside dir, whatever the file says
		}
		out = append(out, f)
	}
	return out, nil
}

// removeReportFiles removes what dir's reports wrote (its manifest's
// files, the figures folder when that leaves it empty, and the manifest).
func removeReportFiles(dir string) error {
	files, err := reportFiles(dir)
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(f))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("restart: %w", err)
		}
	}
	if ents, err := os.ReadDir(filepath.Join(dir, "figures")); err == nil && len(ents) == 0 {
		os.Remove(filepath.Join(dir, "figures"))
	}
	if err := os.Remove(filepath.Join(dir, ReportManifest)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("restart: %w", err)
	}
	return nil
}
