//go:build cgo && !nootf2

package otf2

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/bits"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

var update = flag.Bool("update", false, "rewrite testdata/otf2print.json from otf2-print's output")

// realTraces are the Score-P traces in ../shared/traces/otf2.
var realTraces = []string{"pipit-pingpong", "pipit-pingpong-papi", "sstmacro-otf2test", "tracer-stencil4d-32", "tracer-stencil4d-64"}

// Counts are one rank's point-to-point and collective records.
type Counts struct {
	Sends     int64 `json:"sends"`
	SendBytes int64 `json:"send_bytes"`
	Recvs     int64 `json:"recvs"`
	RecvBytes int64 `json:"recv_bytes"`
	Colls     int64 `json:"collectives"`
	// ComputeNs is the time outside MPI calls (regions named MPI_*) from
	// the rank's first record to its last.
	ComputeNs int64 `json:"compute_ns"`
}

var (
	lengthRE = regexp.MustCompile(`Length: (\d+)`)
	clockRE  = regexp.MustCompile(`Ticks per Seconds: (\d+), Global Offset: (\d+)`)
	regionRE = regexp.MustCompile(`Region: "([^"]*)"`)
)

// printCounts runs otf2-print on anchor and counts, per location, the
// MPI_SEND/MPI_ISEND and MPI_RECV/MPI_IRECV records with their lengths and
// the MPI_COLLECTIVE_END records. In these traces location i is rank i.
func printCounts(t *testing.T, anchor string) []Counts {
	out, err := exec.Command("otf2-print", "-G", anchor).Output()
	if err != nil {
		t.Fatalf("otf2-print %s: %v", anchor, err)
	}
	m := clockRE.FindSubmatch(out)
	if m == nil {
		t.Fatalf("otf2-print -G %s: no clock properties", anchor)
	}
	res, _ := strconv.ParseUint(string(m[1]), 10, 64)
	off, _ := strconv.ParseUint(string(m[2]), 10, 64)
	ns := func(tick uint64) int64 { // as the importer converts
		hi, lo := bits.Mul64(tick-off, 1e9)
		q, _ := bits.Div64(hi, lo, res)
		return int64(q)
	}
	if out, err = exec.Command("otf2-print", anchor).Output(); err != nil {
		t.Fatalf("otf2-print %s: %v", anchor, err)
	}
	type span struct {
		first, last, inMPI, enter int64
		depth                     int
		seen                      bool
	}
	var spans []span
	var cs []Counts
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 3 {
			continue
		}
		kind := f[0]
		if loc, err := strconv.Atoi(f[1]); err == nil && loc >= 0 {
			tick, err := strconv.ParseUint(f[2], 10, 64)
			if err != nil {
				t.Fatalf("otf2-print line %q: %v", sc.Text(), err)
			}
			for len(spans) <= loc {
				spans = append(spans, span{})
			}
			sp, now := &spans[loc], ns(tick)
			if !sp.seen {
				sp.first, sp.seen = now, true
			}
			sp.last = now
			if m := regionRE.FindStringSubmatch(sc.Text()); m != nil && strings.HasPrefix(m[1], "MPI_") {
				switch kind {
				case "ENTER":
					if sp.depth == 0 {
						sp.enter = now
					}
					sp.depth++
				case "LEAVE":
					if sp.depth--; sp.depth == 0 {
						sp.inMPI += now - sp.enter
					}
				}
			}
		}
		if kind != "MPI_SEND" && kind != "MPI_ISEND" && kind != "MPI_RECV" && kind != "MPI_IRECV" && kind != "MPI_COLLECTIVE_END" {
			continue
		}
		loc, err := strconv.Atoi(f[1])
		if err != nil {
			t.Fatalf("otf2-print line %q: %v", sc.Text(), err)
		}
		for len(cs) <= loc {
			cs = append(cs, Counts{})
		}
		c := &cs[loc]
		var n int64
		if m := lengthRE.FindStringSubmatch(sc.Text()); m != nil {
			n, _ = strconv.ParseInt(m[1], 10, 64)
		}
		switch kind {
		case "MPI_SEND", "MPI_ISEND":
			c.Sends++
			c.SendBytes += n
		case "MPI_RECV", "MPI_IRECV":
			c.Recvs++
			c.RecvBytes += n
		default:
			c.Colls++
		}
	}
	for len(cs) < len(spans) {
		cs = append(cs, Counts{})
	}
	for loc, sp := range spans {
		cs[loc].ComputeNs = sp.last - sp.first - sp.inMPI
	}
	return cs
}

// traceCounts counts the same in an imported trace.
func traceCounts(tr *mpi.Trace) []Counts {
	cs := make([]Counts, len(tr.Ranks))
	for r, rk := range tr.Ranks {
		for _, e := range rk.Events {
			switch {
			case e.Kind == mpi.Send || e.Kind == mpi.Isend:
				cs[r].Sends++
				cs[r].SendBytes += e.Bytes
			case e.Kind == mpi.Recv || e.Kind == mpi.Irecv:
				cs[r].Recvs++
				cs[r].RecvBytes += e.Bytes
			case e.Kind.IsCollective():
				cs[r].Colls++
			case e.Kind == mpi.Compute:
				cs[r].ComputeNs += e.Duration
			}
		}
	}
	return cs
}

// TestRealTracesAgainstOtf2Print imports every Score-P trace in
// ../shared/traces/otf2 and compares its per-rank counts with otf2-print's
// (run when installed) and with the numbers otf2-print gave when this test
// was written (testdata/otf2print.json); checks that every send has
// exactly one receive, and that the trace lowers.
func TestRealTracesAgainstOtf2Print(t *testing.T) {
	dir := testenv.Shared(t, "traces/otf2")
	refPath := filepath.Join("testdata", "otf2print.json")
	ref := map[string][]Counts{}
	if b, err := os.ReadFile(refPath); err == nil {
		if err := json.Unmarshal(b, &ref); err != nil {
			t.Fatal(err)
		}
	} else if !*update {
		t.Fatal(err)
	}
	_, lookErr := exec.LookPath("otf2-print")
	if lookErr != nil {
		t.Logf("otf2-print not installed (Debian otf2-tools): checking against %s only", refPath)
	}
	for _, name := range realTraces {
		t.Run(name, func(t *testing.T) {
			anchor := filepath.Join(dir, name, "traces.otf2")
			tr, err := Read(anchor, Options{KeepGaps: true})
			if err != nil {
				t.Fatal(err)
			}
			got := traceCounts(tr)
			if lookErr == nil {
				live := printCounts(t, anchor)
				if !reflect.DeepEqual(got, live) {
					t.Errorf("per-rank counts differ from otf2-print's\n got %+v\nwant %+v", got, live)
				}
				if *update {
					ref[name] = live
				}
			}
			if !reflect.DeepEqual(got, ref[name]) {
				t.Errorf("per-rank counts differ from %s\n got %+v\nwant %+v", refPath, got, ref[name])
			}
			var tot Counts
			for _, c := range got {
				tot.Sends += c.Sends
				tot.SendBytes += c.SendBytes
				tot.Recvs += c.Recvs
				tot.RecvBytes += c.RecvBytes
				tot.Colls += c.Colls
			}
			t.Logf("%d ranks: %d sends (%d B), %d receives (%d B), %d collective calls", len(got), tot.Sends, tot.SendBytes, tot.Recvs, tot.RecvBytes, tot.Colls)
			checkMatched(t, tr)
			if _, err := lower.Lower(tr, lower.Options{}); err != nil {
				t.Errorf("lowering: %v", err)
			}
		})
	}
	if *update {
		// One line per rank, traces in name order.
		var buf bytes.Buffer
		buf.WriteString("{\n")
		for i, name := range realTraces {
			fmt.Fprintf(&buf, "  %q: [\n", name)
			for r, c := range ref[name] {
				b, _ := json.Marshal(c)
				sep := ","
				if r == len(ref[name])-1 {
					sep = ""
				}
				fmt.Fprintf(&buf, "    %s%s\n", b, sep)
			}
			sep := ","
			if i == len(realTraces)-1 {
				sep = ""
			}
			fmt.Fprintf(&buf, "  ]%s\n", sep)
		}
		buf.WriteString("}\n")
		if err := os.WriteFile(refPath, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// printRecorded reads, from otf2-print's output for anchor, each
// location's recorded span (from MPI_Init's LEAVE, else its first record,
// to MPI_Finalize's ENTER, else its last record), its time with
// recording switched off, and when it started: MPI_Init's LEAVE (else
// its first record), and that less the time from its first record to
// MPI_Init's ENTER outside MPI calls (the compute the gaps kept put
// before MPI_Init's return), in ns as the importer converts ticks.
func printRecorded(t *testing.T, anchor string) (span, off, init, kept []int64) {
	out, err := exec.Command("otf2-print", "-G", anchor).Output()
	if err != nil {
		t.Fatalf("otf2-print %s: %v", anchor, err)
	}
	m := clockRE.FindSubmatch(out)
	if m == nil {
		t.Fatalf("otf2-print -G %s: no clock properties", anchor)
	}
	res, _ := strconv.ParseUint(string(m[1]), 10, 64)
	offset, _ := strconv.ParseUint(string(m[2]), 10, 64)
	ns := func(tick uint64) int64 {
		hi, lo := bits.Mul64(tick-offset, 1e9)
		q, _ := bits.Div64(hi, lo, res)
		return int64(q)
	}
	if out, err = exec.Command("otf2-print", anchor).Output(); err != nil {
		t.Fatalf("otf2-print %s: %v", anchor, err)
	}
	type loc struct {
		first, last, init, fin, offAt, off, enter, mpiAt, inMPI int64
		seen, inited, finalized, isOff                          bool
	}
	var locs []loc
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 3 {
			continue
		}
		n, err := strconv.Atoi(f[1])
		if err != nil || n < 0 {
			continue
		}
		tick, err := strconv.ParseUint(f[2], 10, 64)
		if err != nil {
			continue
		}
		for len(locs) <= n {
			locs = append(locs, loc{})
		}
		l, now := &locs[n], ns(tick)
		if !l.seen {
			l.first, l.seen = now, true
		}
		l.last = now
		line := sc.Text()
		switch {
		case f[0] == "ENTER" && strings.Contains(line, `Region: "MPI_Init"`) && !l.inited:
			l.enter = now
		case f[0] == "ENTER" && strings.Contains(line, `Region: "MPI_`) && !l.inited:
			l.mpiAt = now
		case f[0] == "LEAVE" && strings.Contains(line, `Region: "MPI_`) && !strings.Contains(line, `"MPI_Init"`) && !l.inited:
			l.inMPI += now - l.mpiAt
		case f[0] == "LEAVE" && strings.Contains(line, `Region: "MPI_Init"`) && !l.inited:
			l.init, l.inited = now, true
		case f[0] == "ENTER" && strings.Contains(line, `Region: "MPI_Finalize"`) && !l.finalized:
			l.fin, l.finalized = now, true
		case f[0] == "MEASUREMENT_ON_OFF" && strings.HasSuffix(line, "Mode: OFF") && !l.isOff:
			l.offAt, l.isOff = now, true
		case f[0] == "MEASUREMENT_ON_OFF" && strings.HasSuffix(line, "Mode: ON") && l.isOff:
			l.off += now - l.offAt
			l.isOff = false
		}
	}
	for _, l := range locs {
		from, to := l.first, l.last
		if l.inited {
			from = l.init
		}
		if l.finalized {
			to = l.fin
		}
		span = append(span, to-from)
		off = append(off, l.off)
		init = append(init, from)
		if l.inited {
			from -= l.enter - l.first - l.inMPI
		}
		kept = append(kept, from)
	}
	return span, off, init, kept
}

// relative returns at less its least entry, nil when all are equal
// (graph.Recorded.StartNs).
func relative(at []int64) []int64 {
	lo := slices.Min(at)
	out := make([]int64, len(at))
	for r, v := range at {
		out[r] = v - lo
	}
	if slices.Max(out) == 0 {
		return nil
	}
	return out
}

// TestRecordedAgainstOtf2Print checks the recorded run of every Score-P
// trace in ../shared/traces/otf2 against otf2-print: each rank's span from
// MPI_Init's return to MPI_Finalize's entry and its time with recording
// off; and that the gaps left out by default are exactly the compute that
// Options.KeepGaps keeps.
func TestRecordedAgainstOtf2Print(t *testing.T) {
	dir := testenv.Shared(t, "traces/otf2")
	if _, err := exec.LookPath("otf2-print"); err != nil {
		t.Skip("otf2-print not installed (Debian otf2-tools)")
	}
	for _, name := range realTraces {
		t.Run(name, func(t *testing.T) {
			anchor := filepath.Join(dir, name, "traces.otf2")
			tr, err := Read(anchor, Options{})
			if err != nil {
				t.Fatal(err)
			}
			kept, err := Read(anchor, Options{KeepGaps: true})
			if err != nil {
				t.Fatal(err)
			}
			span, off, init, keptAt := printRecorded(t, anchor)
			rec := tr.Recorded
			if want := relative(init); !reflect.DeepEqual(rec.StartNs, want) {
				t.Errorf("starts (MPI_Init's return)\n got %v\nwant %v", rec.StartNs, want)
			}
			if want := relative(keptAt); !reflect.DeepEqual(kept.Recorded.StartNs, want) {
				t.Errorf("starts with the gaps kept (MPI_Init's return less the gap kept before it)\n got %v\nwant %v", kept.Recorded.StartNs, want)
			}
			if rec == nil || rec.GapsKept || !kept.Recorded.GapsKept {
				t.Fatalf("recorded %+v, kept %+v", rec, kept.Recorded)
			}
			if !reflect.DeepEqual(rec.SpanNs, span) {
				t.Errorf("spans\n got %v\nwant %v", rec.SpanNs, span)
			}
			for r, want := range off {
				if got := entry(rec.OffNs, r); got != want {
					t.Errorf("rank %d: %d ns with recording off, otf2-print %d", r, got, want)
				}
			}
			dropped, keptC := traceCounts(tr), traceCounts(kept)
			for r := range dropped {
				if dropped[r].ComputeNs+rec.GapNs(r) != keptC[r].ComputeNs {
					t.Errorf("rank %d: compute %d + gaps %d ≠ %d kept", r, dropped[r].ComputeNs, rec.GapNs(r), keptC[r].ComputeNs)
				}
			}
			all, offAll := rec.TotalGapNs()
			t.Logf("recorded %d ns; gaps %d ns (recording off %d ns); ranks started up to %d ns apart", rec.JobNs(), all, offAll, rec.StartSpreadNs())
		})
	}
}

// entry returns v[r], or 0 for a nil v (no gaps of that kind).
func entry(v []int64, r int) int64 {
	if v == nil {
		return 0
	}
	return v[r]
}

// TestSSTMacroTraceTotals checks the totals the issue names: the 10-rank
// sst-macro trace has 1,440 sends and 1,440 receives.
func TestSSTMacroTraceTotals(t *testing.T) {
	dir := testenv.Shared(t, "traces/otf2/sstmacro-otf2test")
	tr, err := Read(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var s, r int64
	for _, c := range traceCounts(tr) {
		s += c.Sends
		r += c.Recvs
	}
	if len(tr.Ranks) != 10 || s != 1440 || r != 1440 {
		t.Errorf("%d ranks, %d sends, %d receives; want 10, 1440, 1440", len(tr.Ranks), s, r)
	}
}
