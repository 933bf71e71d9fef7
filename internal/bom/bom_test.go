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
