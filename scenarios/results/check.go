package results

import (
	"fmt"
	"path/filepath"
)

// CheckSweep reports whether the results directory dir holds the sweep
// sw: nil when its journal's fingerprint, point count and schema match,
// an error wrapping ErrMismatch that names the inputs that changed when
// they do not, and the journal's own error (fs.ErrNotExist when there is
// none) when it cannot be read. Commands that read a directory's results
// beside what they compute from the current inputs (a report's replayed
// detail) call it first.
func CheckSweep(dir string, sw Sweep) error {
	path := filepath.Join(dir, JournalFile)
	h, err := readHeader(path)
	if err != nil {
		return err
	}
	if h.Fingerprint != sw.Fingerprint || h.Points != sw.Points || !sameSchema(h.Schema, sw.Schema) {
		return fmt.Errorf("%w: %s was written for sweep %s (%d points); the inputs now are sweep %s (%d points): %s",
			ErrMismatch, path, h.Fingerprint, h.Points, sw.Fingerprint, sw.Points, changes(h.Inputs, sw.Inputs))
	}
	return nil
}

// ReadInputs returns the inputs the sweep of the results directory dir
// was computed from, as its journal records them (nil for a journal that
// predates them), and the journal's error (fs.ErrNotExist when there is
// none) when it cannot be read.
func ReadInputs(dir string) ([]Input, error) {
	h, err := readHeader(filepath.Join(dir, JournalFile))
	if err != nil {
		return nil, err
	}
	return h.Inputs, nil
}

// ReadCoverage says which of its sweep's points the results directory dir
// holds (a shard, a sweep stopped early or a partial merge miss some),
// reading its journal without writing to it.
func ReadCoverage(dir string) (Coverage, error) {
	h, rows, _, err := readJournal(filepath.Join(dir, JournalFile))
	if err != nil {
		return Coverage{}, err
	}
	cov := Coverage{Points: h.Points}
	for i := 0; i < h.Points; i++ {
		if _, ok := rows[i]; !ok {
			cov.Missing = append(cov.Missing, i)
		}
	}
	return cov, nil
}

// Changes says how the inputs now differ from then, naming each input
// that changed, is new or is no longer read, e.g.
// "workload.trace t.arrow changed (sha256 1a2b… then, 3c4d… now)".
func Changes(then, now []Input) string { return changes(then, now) }
