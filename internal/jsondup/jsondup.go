// Package jsondup finds what encoding/json accepts silently in
// hand-written JSON: a key given twice in one object (encoding/json keeps
// the last without a word, so a parameter pasted twice into a model file
// would silently take the second value), a null (decoded as the zero
// value: a parameter of 0), a byte-order mark and compressed bytes (both
// reported as an invalid character the file does not show). Readers of
// hand-written JSON refuse such a file instead.
package jsondup

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/capsim/capsim/internal/bom"
)

// Error is a key given twice in one object.
type Error struct {
	Line int    // 1-based line of the second occurrence
	Path string // the key's path from the top, e.g. regions[0].params.beta
}

func (e *Error) Error() string {
	return fmt.Sprintf("%d: key %s given twice", e.Line, e.Path)
}

// BOMError is text that starts with a UTF-8 byte-order mark, which JSON
// does not allow (RFC 8259 §8.1) and encoding/json reports as "invalid
// character 'ï'", a character the file does not show.
type BOMError struct{}

func (BOMError) Error() string {
	return "1: the file starts with a UTF-8 byte-order mark, which JSON does not allow: save it without one"
}

// NullError is a null value, which encoding/json decodes as the zero
// value of the field: a parameter silently 0.
type NullError struct {
	Line int    // 1-based line of the null
	Path string // the value's path from the top, e.g. regions[0].params.beta
}

func (e *NullError) Error() string {
	return fmt.Sprintf("%d: key %s is null: give a value, or leave the key out for its default", e.Line, e.Path)
}

// CompressedError is a compressed file (gzip, bzip2, xz, zstd, zip)
// given where JSON text is read.
type CompressedError struct{ Kind string }

func (e CompressedError) Error() string {
	return "1: a " + e.Kind + "-compressed file, not JSON text: unpack it first"
}

// EmptyError is text that holds no JSON value at all (an empty file, or
// only white space), which encoding/json reports as a bare "EOF".
type EmptyError struct{}

func (EmptyError) Error() string {
	return "1: an empty file, not JSON text: was it written completely?"
}

// Compressed names the compression of a file that starts with head
// (bom.Compressed).
func Compressed(head []byte) string { return bom.Compressed(head) }

// frame is one open object or array.
type frame struct {
	object  bool
	keys    map[string]bool
	key     string // the object's current key
	index   int    // the array's next element
	wantKey bool   // the object's next token is a key
}

// Check returns an *Error for the first key that text gives twice in one
// object, a *NullError for the first null, a BOMError for text that
// starts with a byte-order mark, a CompressedError for compressed bytes,
// an EmptyError for text without a value, and nil otherwise, also for
// text that is not valid JSON (its decoder reports that).
func Check(text []byte) error {
	if _, ok := bom.Cut(text); ok {
		return BOMError{}
	}
	if len(bytes.TrimSpace(text)) == 0 {
		return EmptyError{}
	}
	if k := Compressed(text); k != "" {
		return CompressedError{k}
	}
	d := json.NewDecoder(bytes.NewReader(text))
	d.UseNumber()
	var stack []*frame
	// value marks the end of one value in the frame on top.
	value := func() {
		if n := len(stack); n > 0 {
			if f := stack[n-1]; f.object {
				f.wantKey = true
			} else {
				f.index++
			}
		}
	}
	for {
		tok, err := d.Token()
		if err != nil {
			return nil
		}
		var top *frame
		if n := len(stack); n > 0 {
			top = stack[n-1]
		}
		if top != nil && top.object && top.wantKey {
			if k, ok := tok.(string); ok {
				if top.keys[k] {
					off := d.InputOffset()
					return &Error{Line: bytes.Count(text[:off], []byte("\n")) + 1, Path: strings.TrimPrefix(path(stack)+"."+k, ".")}
				}
				top.keys[k], top.key, top.wantKey = true, k, false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, keys: map[string]bool{}, wantKey: true})
		case json.Delim('['):
			stack = append(stack, &frame{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			value()
		default:
			if tok == nil {
				p := strings.TrimPrefix(path(append(stack, nil)), ".") // the open containers and the null's key or index
				return &NullError{Line: bytes.Count(text[:d.InputOffset()], []byte("\n")) + 1, Path: p}
			}
			value()
		}
	}
}

// path names the position of the innermost open container: the keys and
// indexes that lead to it, each with a leading "." or in brackets.
func path(stack []*frame) string {
	var b strings.Builder
	for _, p := range stack[:max(len(stack)-1, 0)] {
		if p.object {
			b.WriteString("." + p.key)
		} else {
			b.WriteString("[" + strconv.Itoa(p.index) + "]")
		}
	}
	return b.String()
}
