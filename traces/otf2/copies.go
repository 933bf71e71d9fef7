package otf2

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
)

// evtFile returns the event file of location loc of the archive whose
// anchor file is anchor: <anchor without .otf2>/<loc>.evt (the POSIX
// substrate's layout).
func evtFile(anchor string, loc uint64) string {
	base := anchor[:len(anchor)-len(filepath.Ext(anchor))]
	return filepath.Join(base, strconv.FormatUint(loc, 10)+".evt")
}

// copyOf returns, for the event files of locs (in that order), the
// index of an earlier file with the same bytes, or -1, for each of them.
// An OTF2 event file records nothing that names its location (its chunk
// headers hold event numbers only), but every record has its own
// timestamp, so two locations of a recorded run never hold the same
// bytes: a file the same as another's is a copy. Files are compared by
// size, then by their first 4 KiB, and only then whole, so that telling
// recorded files apart reads little of them. A file that cannot be read
// (another substrate's archive) is nobody's copy.
func copyOf(anchor string, locs []uint64) ([]int, error) {
	of := make([]int, len(locs))
	bySize := map[int64][]int{}
	for i, l := range locs {
		of[i] = -1
		if st, err := os.Stat(evtFile(anchor, l)); err == nil && st.Mode().IsRegular() {
			bySize[st.Size()] = append(bySize[st.Size()], i)
		}
	}
	for _, same := range bySize {
		if len(same) < 2 {
			continue
		}
		heads := make([][]byte, len(same))
		for k, i := range same {
			h, err := readHead(evtFile(anchor, locs[i]), 4096)
			if err != nil {
				return nil, err
			}
			heads[k] = h
		}
		for k, i := range same {
			for j := 0; j < k && of[i] < 0; j++ {
				if of[same[j]] >= 0 || !bytes.Equal(heads[j], heads[k]) {
					continue
				}
				eq, err := sameBytes(evtFile(anchor, locs[same[j]]), evtFile(anchor, locs[i]))
				if err != nil {
					return nil, err
				}
				if eq {
					of[i] = same[j]
				}
			}
		}
	}
	return of, nil
}

// readHead returns the first n bytes of the file at path (fewer if it is
// shorter).
func readHead(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, n)
	m, err := io.ReadFull(f, buf)
	return buf[:m], readErr(err)
}

// sameBytes reports whether the files at a and b, of the same size,
// hold the same bytes.
func sameBytes(a, b string) (bool, error) {
	fa, err := os.Open(a)
	if err != nil {
		return false, err
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return false, err
	}
	defer fb.Close()
	ba, bb := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		na, ea := io.ReadFull(fa, ba)
		nb, eb := io.ReadFull(fb, bb)
		if err := readErr(ea); err != nil {
			return false, err
		}
		if err := readErr(eb); err != nil {
			return false, err
		}
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false, nil
		}
		if ea != nil || eb != nil {
			return ea != nil && eb != nil, nil // both ended
		}
	}
}

// readErr is err, or nil where it only says that the file ended.
func readErr(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return nil
	}
	return err
}

// copiedError is the error for locations a and b, whose event files hold
// the same bytes. Which of the two was copied over the other the bytes do
// not say.
func copiedError(anchor string, a, b uint64) error {
	return fmt.Errorf("otf2 %s: %s and %s (locations %d and %d) hold the same bytes: one location's event file copied over the other's? (every record has its own timestamp, so two locations of a run never record the same file)",
		anchor, evtFile(anchor, a), evtFile(anchor, b), a, b)
}
