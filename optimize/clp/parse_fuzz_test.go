package clp

import "testing"

// FuzzParseMethod checks that a name ParseMethod accepts prints back unchanged.
func FuzzParseMethod(f *testing.F) {
	for _, s := range []string{"auto", "dual", "barrier-nocross", "Dual", "", "X"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseMethod(s)
		if err != nil {
			return
		}
		if v.String() != s {
			t.Fatalf("ParseMethod(%q) = %v", s, v)
		}
	})
}
