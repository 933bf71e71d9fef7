package jsondup

import (
	"errors"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		text string
		line int
		path string
	}{
		{`{"a": 1, "b": 2}`, 0, ""},
		{`{"a": 1, "a": 2}`, 1, "a"},
		{"{\"a\": {\"x\": 1},\n \"b\": [{\"y\": 1}, {\"y\": 2,\n \"y\": 3}]}", 3, "b[1].y"},
		{`{"a": {"x": 1}, "b": {"x": 1}}`, 0, ""},
		{"{\"r\": [1, [2, 3], {\"k\": {\"k\": 1}}],\n\"params\": {\"beta\": 0.8,\n \"beta\": 0.3}}", 3, "params.beta"},
		{`[{"a": 1}, {"a": 1, "a": 2}]`, 1, "[1].a"},
		{`{"a": "a", "b": "a"}`, 0, ""},
		{`{"a": 1, `, 0, ""}, // not JSON: the decoder reports it
		{`{"a": 1}{"a": 1}`, 0, ""},
	} {
		err := Check([]byte(tc.text))
		var e *Error
		if tc.line == 0 {
			if err != nil {
				t.Errorf("%s: %v, want none", tc.text, err)
			}
			continue
		}
		if !errors.As(err, &e) || e.Line != tc.line || e.Path != tc.path {
			t.Errorf("%s: %v, want line %d key %s", tc.text, err, tc.line, tc.path)
		}
	}
}

// A byte-order mark is named as such; encoding/json called it "invalid
// character 'ï'".
func TestCheckBOM(t *testing.T) {
	if err := Check([]byte("\xef\xbb\xbf{\"a\": 1}")); !errors.As(err, new(BOMError)) {
		t.Errorf("BOM: %v, want a BOMError", err)
	}
}

// An empty file, or one of white space alone, is named as such;
// encoding/json said "EOF" (a model file read from an empty pipe).
func TestCheckEmpty(t *testing.T) {
	for _, text := range []string{"", " \n\t\r\n"} {
		if err := Check([]byte(text)); !errors.As(err, new(EmptyError)) {
			t.Errorf("%q: %v, want an EmptyError", text, err)
		}
	}
	if err := Check([]byte(" {}\n")); err != nil {
		t.Errorf("{}: %v", err)
	}
}

// A null is refused naming its line and path (encoding/json decoded it as
// 0: a parameter silently zero), and compressed bytes are named as such
// (encoding/json called gzip's "invalid character '\x1f'").
func TestCheckNullAndCompressed(t *testing.T) {
	for _, tc := range []struct {
		text string
		line int
		path string
	}{
		{`{"a": null}`, 1, "a"},
		{"{\"regions\": [{\"params\":\n {\"beta\": null}}]}", 2, "regions[0].params.beta"},
		{`{"a": [1, null]}`, 1, "a[1]"},
		{`null`, 1, ""},
	} {
		var e *NullError
		if err := Check([]byte(tc.text)); !errors.As(err, &e) || e.Line != tc.line || e.Path != tc.path {
			t.Errorf("%s: %v, want null at line %d path %q", tc.text, err, tc.line, tc.path)
		}
	}
	for _, head := range []string{"\x1f\x8b\x08", "BZh9", "\xfd7zXZ\x00", "\x28\xb5\x2f\xfd"} {
		if err := Check([]byte(head + "rest")); !errors.As(err, new(CompressedError)) {
			t.Errorf("%q: %v, want a CompressedError", head, err)
		}
	}
}
