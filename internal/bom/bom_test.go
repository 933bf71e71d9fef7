package bom

import (
	"io"
	"strings"
	"testing"
)

func TestSkip(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"\ufeffregion,seconds\n", "region,seconds\n"},
		{"region,seconds\n", "region,seconds\n"},
		{"\ufeff", ""},
		{"", ""},
		{"\xef\xbb", "\xef\xbb"},     // a mark's first bytes only
		{"a\ufeffb", "a\ufeffb"},     // only a leading mark
		{"\ufeff\ufeffx", "\ufeffx"}, // one mark
	} {
		b, err := io.ReadAll(Skip(strings.NewReader(tc.in)))
		if err != nil || string(b) != tc.want {
			t.Errorf("Skip(%q) = %q, %v; want %q", tc.in, b, err, tc.want)
		}
	}
}

// Compressed bytes where text is read are named; the CSV readers quoted
// a gzip file's bytes back as an "unknown column".
func TestSkipCompressed(t *testing.T) {
	for _, tc := range []struct{ in, kind string }{
		{"\x1f\x8b\x08\x00rest", "gzip"}, {"BZh91AY", "bzip2"}, {"\xfd7zXZ\x00\x00", "xz"}, {"\x28\xb5\x2f\xfd..", "zstd"}, {"PK\x03\x04..", "zip"},
	} {
		_, err := io.ReadAll(Skip(strings.NewReader(tc.in)))
		if want := "a " + tc.kind + "-compressed file, not text: unpack it first"; err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %q", tc.in, err, want)
		}
	}
	for _, in := range []string{"BZ", "region,seconds\n", "\x1f"} {
		if b, err := io.ReadAll(Skip(strings.NewReader(in))); err != nil || string(b) != in {
			t.Errorf("%q: %q, %v", in, b, err)
		}
	}
}
