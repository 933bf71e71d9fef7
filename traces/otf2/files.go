package otf2

import (
	"io/fs"
	"path/filepath"
)

// Files returns the files the trace at path is read from: its anchor
// file, its global definitions file and every file in the folder of
// per-location files (event and local definition files), in lexical order
// within that folder. path is what Read takes (the anchor or its folder).
func Files(path string) ([]string, error) {
	anchor, err := Anchor(path)
	if err != nil {
		return nil, err
	}
	base := anchor[:len(anchor)-len(filepath.Ext(anchor))]
	files := []string{anchor, base + ".def"}
	err = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return files, nil
}
