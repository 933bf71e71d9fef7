package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplayTopology checks replay --topology --json: the links section
// accounts for every byte the ranks sent (each inter-node message crosses
// its source's up-link exactly once), and bad topology or mapping flags
// are usage errors naming what is wrong.
func TestReplayTopology(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "a2a.arrow")
	if code, _, stderr := capsim(t, "gen", "coll", "--collective", "alltoall", "--ranks", "16", "--bytes", "4096", "--reps", "2", "-o", trace); code != 0 {
		t.Fatal(stderr)
	}
	code, out, stderr := capsim(t, "replay", trace, "--json", "--topology", "fattree:k=4,n=2,oversub=2")
	if code != 0 {
		t.Fatal(stderr)
	}
	var r struct {
		Topology   string `json:"topology"`
		FlowEvents int64  `json:"flow_events"`
		Ranks      []struct {
			CollBytesSent int64 `json:"coll_bytes_sent"`
		} `json:"ranks"`
		Links []struct {
			ID    int32 `json:"id"`
			Bytes int64 `json:"bytes"`
			Flows int64 `json:"flows"`
		} `json:"links"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	var sent, up, flows int64
	for _, rk := range r.Ranks {
		sent += rk.CollBytesSent
	}
	for _, l := range r.Links {
		if l.ID < 16 { // host up-links
			up += l.Bytes
			flows += l.Flows
		}
	}
	if r.Topology == "" || sent == 0 || up != sent || r.FlowEvents != 2*flows {
		t.Errorf("topology %q: %d bytes sent, %d on host up-links; %d flow events for %d flows", r.Topology, sent, up, r.FlowEvents, flows)
	}
	// The timeline has a counter track per link that carried a flow.
	tl := filepath.Join(dir, "a2a.trace.json")
	if code, _, stderr := capsim(t, "replay", trace, "--topology", "fattree:k=4,n=2,oversub=2", "--timeline", tl); code != 0 {
		t.Fatal(stderr)
	}
	b, err := os.ReadFile(tl)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []struct {
			Ph   string `json:"ph"`
			Name string `json:"name"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	tracks := map[string]bool{}
	for _, e := range doc.TraceEvents {
		if e.Ph == "C" && strings.HasPrefix(e.Name, "link ") {
			tracks[e.Name] = true
		}
	}
	if len(tracks) != len(r.Links) {
		t.Errorf("timeline has %d link counter tracks, the JSON %d links", len(tracks), len(r.Links))
	}
	mapFile := filepath.Join(dir, "map.txt")
	os.WriteFile(mapFile, []byte("0\n1\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--topology", "fattree:k=4"}, "n is required"},
		{[]string{"--topology", "fattree:k=4,n=2", "--mapping", mapFile}, "2 ranks mapped, want 16"},
		{[]string{"--topology", "torus:dims=2x2", "--mapping", filepath.Join(dir, "none.txt")}, "none.txt"},
	} {
		code, _, stderr := capsim(t, append([]string{"replay", trace}, c.args...)...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, stderr, c.want)
		}
	}
}

// TestReplayFlowTiming checks --flow-bytes-first (and that
// --flow-neighbours and the deprecated --flow-exact are accepted) on sim's
// TestFlowTimingEjection case (docs/design/network.md): 100 kB into
// host 5 of a 4-ary 2-tree (1 B/ns, 5 µs hops) from host 4 at 0 and from
// host 0 at 95 µs. Latency first (the default) the two never share host
// 5's link and the second arrives at 95 + 20 + 100 = 215 µs; bytes first
// they share it from 95 µs and it arrives at 220 µs.
func TestReplayFlowTiming(t *testing.T) {
	var b strings.Builder
	b.WriteString("num_ranks 16\n")
	for r := range 16 {
		body := ""
		switch r {
		case 0:
			body = "l1: calc 95000\nl2: send 100000b to 5 tag 1\nl2 requires l1\n"
		case 4:
			body = "l1: send 100000b to 5 tag 0\n"
		case 5:
			body = "l1: recv 100000b from 4 tag 0\nl2: recv 100000b from 0 tag 1\n"
		}
		fmt.Fprintf(&b, "rank %d {\n%s}\n", r, body)
	}
	trace := filepath.Join(t.TempDir(), "two.goal")
	if err := os.WriteFile(trace, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		flags []string
		want  int64
	}{
		{nil, 215_000}, {[]string{"--flow-bytes-first"}, 220_000},
		{[]string{"--flow-neighbours"}, 215_000}, {[]string{"--flow-exact"}, 215_000},
	} {
		args := append([]string{"replay", trace, "--json", "--net", "loggp:L=0,o=0,g=0,G=1,O=0,S=1099511627776", "--topology", "fattree:k=4,n=2,bw=1,hop_ns=5000"}, c.flags...)
		code, out, stderr := capsim(t, args...)
		if code != 0 {
			t.Fatal(stderr)
		}
		var r struct {
			MakespanNs int64 `json:"makespan_ns"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if r.MakespanNs != c.want {
			t.Errorf("%v: makespan %d ns, want %d", c.flags, r.MakespanNs, c.want)
		}
		if dep := strings.Contains(stderr, "--flow-exact has been deprecated"); dep != (len(c.flags) > 0 && c.flags[0] == "--flow-exact") {
			t.Errorf("%v: deprecation notice %v on stderr %q", c.flags, dep, stderr)
		}
	}
}
