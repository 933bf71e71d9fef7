package bound

import "testing"

// FuzzParseRounding checks that a name ParseRounding accepts prints back unchanged.
func FuzzParseRounding(f *testing.F) {
	for _, s := range []string{"split", "nearest", "power-safe", "", "X"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseRounding(s)
		if err != nil {
			return
		}
		if v.String() != s {
			t.Fatalf("ParseRounding(%q) = %v", s, v)
		}
	})
}

// FuzzParseForm checks that a name ParseForm accepts prints back unchanged.
func FuzzParseForm(f *testing.F) {
	for _, s := range []string{"default", "mix", "segment", "", "X"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseForm(s)
		if err != nil {
			return
		}
		if v.String() != s {
			t.Fatalf("ParseForm(%q) = %v", s, v)
		}
	})
}

// FuzzParseSlackPolicy checks that a policy ParseSlackPolicy accepts
// prints as a name it reads back to the same policy.
func FuzzParseSlackPolicy(f *testing.F) {
	for _, s := range []string{"local", "late", "stretch-into-local-slack", "as-late-as-possible", "", "X"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseSlackPolicy(s)
		if err != nil {
			return
		}
		if w, err := ParseSlackPolicy(v.String()); err != nil || w != v {
			t.Fatalf("ParseSlackPolicy(%q) = %v, which reads back as %v, %v", s, v, w, err)
		}
	})
}
