package network

import (
	"strings"
	"testing"
)

func TestParseOverride(t *testing.T) {
	base := DefaultLogGOPS()
	for _, tc := range []struct {
		spec string
		want Override
		err  string
	}{
		{"comm=node;L=300,o=100", Override{Comm: "node", Params: NewLogGOPS(300, 100, 1000, 6, 0, 65535)}, ""},
		{"region=halo*;", Override{Region: "halo*", Params: base}, ""},
		{" comm = 2 , region = a ;G=1", Override{Comm: "2", Region: "a", Params: NewLogGOPS(2500, 1500, 1000, 1, 0, 65535)}, ""},
		{"comm=node", Override{}, "want SELECTORS;PARAMS"},
		{";L=3", Override{}, "no selector"},
		{"host=1;L=3", Override{}, "unknown selector"},
		{"region=[;L=3", Override{}, "region pattern"},
		{"comm=x;L=-3", Override{}, "is negative"},
		{"comm=x;Q=3", Override{}, "unknown parameter"},
		{"comm;L=3", Override{}, "not KEY=VALUE"},
		{"comm=x;offload=1", Override{}, "offload holds for the whole network"},
	} {
		got, err := ParseOverride(tc.spec, base)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.spec, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: %+v, %v; want %+v", tc.spec, got, err, tc.want)
		}
	}
}

// TestOverrideOffload: offload holds for the whole network, so an
// override can neither set nor clear it.
func TestOverrideOffload(t *testing.T) {
	for _, tc := range []struct{ base, spec string }{
		{"loggp", "comm=x;offload=1"},
		{"loggp:offload=1", "comm=x;offload=0"},
	} {
		base, err := ParseSpec(tc.base)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseOverride(tc.spec, base); err == nil || !strings.Contains(err.Error(), "offload holds for the whole network") {
			t.Errorf("%s over %s: error %v", tc.spec, tc.base, err)
		}
	}
	base, _ := ParseSpec("loggp:offload=1")
	if o, err := ParseOverride("comm=x;L=5", base); err != nil || !o.Params.Offload || o.Params.Latency != 5 {
		t.Errorf("override over an offloading network: %+v, %v", o, err)
	}
}

func FuzzParseOverride(f *testing.F) {
	for _, s := range []string{"comm=node;L=300,o=100", "region=halo*;", "comm=1,region=[;", ";", "comm=a;S=1,S=2", "comm=0;H=16"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		o, err := ParseOverride(spec, DefaultLogGOPS())
		if err != nil {
			return
		}
		if o.Comm == "" && o.Region == "" {
			t.Fatalf("%q: override without selector", spec)
		}
		if err := o.Params.Validate(); err != nil {
			t.Fatalf("%q: invalid parameters %v", spec, o.Params)
		}
	})
}
