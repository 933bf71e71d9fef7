// Package bom strips the UTF-8 byte-order mark some editors and
// spreadsheet programs write at the start of a text file (Excel's "CSV
// UTF-8"), so that a file's first header or token reads as typed.
package bom

import (
	"bufio"
	"bytes"
	"io"
)

// mark is the UTF-8 encoding of U+FEFF.
const mark = "\xef\xbb\xbf"

// Skip returns a reader of r's bytes without a leading byte-order mark.
func Skip(r io.Reader) io.Reader {
	br := bufio.NewReader(r)
	if b, _ := br.Peek(len(mark)); string(b) == mark {
		br.Discard(len(mark))
	}
	return br
}

// Cut returns b without a leading byte-order mark and whether it had one.
func Cut(b []byte) ([]byte, bool) { return bytes.CutPrefix(b, []byte(mark)) }
