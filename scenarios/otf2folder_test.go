//go:build cgo && !nootf2

package scenarios

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/internal/otf2write"
)

// A workload.trace that is an OTF2 trace's folder (or its anchor file),
// as the importer registry reads it, passes scenario check and sweeps:
// the sweep no longer fails hashing a directory for its identity.
func TestSweepOTF2Folder(t *testing.T) {
	sc, out := degenerateScenario(t, "", `"uncapped", "static"`)
	dir := filepath.Join(filepath.Dir(sc.File), "otf2")
	w, err := otf2write.Create(dir, otf2write.Defs{Resolution: 1e9, Ranks: 2,
		Regions: []otf2write.Region{{Name: "solve"}, {Name: "MPI_Send", MPI: true}, {Name: "MPI_Recv", MPI: true}},
		Comms:   []otf2write.Comm{{Name: "MPI_COMM_WORLD", Members: []uint64{0, 1}}}})
	if err != nil {
		t.Fatal(err)
	}
	for r, rec := range []otf2write.Event{
		{Kind: otf2write.Send, Peer: 1, Tag: 3, Bytes: 4096, Time: 2100},
		{Kind: otf2write.Recv, Peer: 0, Tag: 3, Bytes: 4096, Time: 2100},
	} {
		call := uint32(1 + r)
		for _, e := range []otf2write.Event{
			{Kind: otf2write.Enter, Region: 0, Time: 0},
			{Kind: otf2write.Enter, Region: call, Time: 2000},
			rec,
			{Kind: otf2write.Leave, Region: call, Time: 2500},
			{Kind: otf2write.Leave, Region: 0, Time: 2600},
		} {
			if err := w.Write(r, e); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, trace := range []string{"otf2", "otf2/traces.otf2"} {
		text := strings.Replace(string(sc.Text), `trace = "t.txt"`, `trace = "`+trace+`"`, 1)
		s, err := Parse(sc.File, []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Check(); err != nil {
			t.Fatalf("%s: check: %v", trace, err)
		}
		if _, err := Run(t.Context(), s, Replayer{}, RunOptions{OutDir: filepath.Join(out, filepath.Base(trace)), Workers: 1}); err != nil {
			t.Errorf("%s: sweep: %v", trace, err)
		}
	}
}
