// Package bom prepares the start of a text file for its reader: it strips
// the UTF-8 byte-order mark some editors and spreadsheet programs write
// (Excel's "CSV UTF-8"), so that a file's first header or token reads as
// typed, and names compressed bytes given where text is read, which a
// text reader would otherwise quote back as binary garbage.
package bom

import (
	"bufio"
	"bytes"
	"io"
)

// mark is the UTF-8 encoding of U+FEFF.
const mark = "\xef\xbb\xbf"

// CompressedError is a compressed file (gzip, bzip2, xz, zstd, zip) given
// where text is read.
type CompressedError struct{ Kind string }

func (e CompressedError) Error() string {
	return "a " + e.Kind + "-compressed file, not text: unpack it first"
}

// Compressed names the compression of a file that starts with head
// ("gzip", "bzip2", "xz", "zstd", "zip"), or "" for another file.
func Compressed(head []byte) string {
	for _, m := range []struct{ prefix, kind string }{
		{"\x1f\x8b", "gzip"}, {"BZh", "bzip2"}, {"\xfd7zXZ\x00", "xz"}, {"\x28\xb5\x2f\xfd", "zstd"}, {"PK\x03\x04", "zip"},
	} {
		if bytes.HasPrefix(head, []byte(m.prefix)) {
			return m.kind
		}
	}
	return ""
}

// Skip returns a reader of r's bytes without a leading byte-order mark.
// Compressed bytes read as a CompressedError.
func Skip(r io.Reader) io.Reader {
	br := bufio.NewReader(r)
	if b, _ := br.Peek(len(mark)); string(b) == mark {
		br.Discard(len(mark))
		return br
	}
	if b, _ := br.Peek(6); Compressed(b) != "" {
		return errReader{CompressedError{Compressed(b)}}
	}
	return br
}

// errReader reads as err.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// Cut returns b without a leading byte-order mark and whether it had one.
func Cut(b []byte) ([]byte, bool) { return bytes.CutPrefix(b, []byte(mark)) }
