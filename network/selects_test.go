package network

import (
	"strings"
	"testing"

	"github.com/capsim/capsim/traces/graph"
)

// An override that can never apply is refused: one that selects no
// message (a misspelt communicator or region glob), naming it and what
// the messages have, and one whose every message earlier overrides take
// first (the first override that selects a message applies), naming
// them. One that takes some message is kept, even where earlier
// overrides take others it selects.
func TestClassifyRefusesSelectingNothing(t *testing.T) {
	b := graph.NewBuilder(2)
	s := graph.SendOp(8, 1, 0)
	s.Region = b.Region("halo_x")
	b.Add(0, s)
	b.Add(1, graph.RecvOp(8, 0, 0))
	s = graph.SendOp(8, 0, 0)
	s.Region = b.Region("halo_y")
	b.Add(1, s)
	b.Add(0, graph.RecvOp(8, 1, 0))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	names := func(c int32) string {
		if c == 0 {
			return "world"
		}
		return ""
	}
	base := DefaultLogGOPS()
	for _, tc := range []struct {
		ovs  []Override
		want string
	}{
		{[]Override{{Comm: "nosuch", Params: base}}, `network override 1 (communicator "nosuch", region "") selects no message of the trace: its messages are on communicators 0 (world) and in regions "halo_x"`},
		{[]Override{{Region: "halo_x", Params: base}, {Region: "hallo_*", Params: base}}, `network override 2 (communicator "", region "hallo_*") selects no message`},
		{[]Override{{Comm: "world", Params: base}, {Region: "halo_*", Params: base}}, `network override 2 (communicator "", region "halo_*") never applies: every message it selects is taken first by override 1 (communicator "world", region "")`},
		{[]Override{{Region: "halo_x", Params: base}, {Region: "halo_y", Params: base}, {Comm: "world", Params: base}}, `network override 3 (communicator "world", region "") never applies: every message it selects is taken first by override 1 (communicator "", region "halo_x") and override 2 (communicator "", region "halo_y")`},
		{[]Override{{Region: "halo_y", Params: base}, {Comm: "world", Params: base}}, ""},
		{[]Override{{Comm: "world", Region: "halo_y", Params: base}, {Region: "halo_*", Params: base}}, ""},
		{[]Override{{Comm: "0", Region: "halo_?", Params: base}}, ""},
	} {
		_, err := Classify(g, base, tc.ovs, names)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: %v", tc.ovs, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%+v: error %v, want %q", tc.ovs, err, tc.want)
		}
	}
}
