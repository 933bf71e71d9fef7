//go:build cgo && !nootf2

package otf2

import (
	"bufio"
	"bytes"
	"math/bits"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// dialect is one archive of testdata/dialects (written by
// testdata/gen/make.sh) and what the import must give, worked out from
// gen.c: totals over the ranks and rank 0's recorded span.
type dialect struct {
	name                string
	ranks               int
	sends, recvs, colls int64
	sendBytes           int64
	span0               int64 // ns
	off                 int64 // ns with recording off, all ranks
}

var dialects = []dialect{
	// 4 ranks; per rank 2 ring isends, a self isend, a split send or
	// receive and an OpenMP thread's send or receive; 17 world
	// collectives, 2 on the split halves and the nonblocking allreduce.
	{name: "hybrid", ranks: 4, sends: 16, recvs: 16, colls: 4 * 20, sendBytes: 8*65536 + 4*8 + 2*1024 + 2*256,
		// Rank r's clock corrections run from −2100·r to +1050·r ticks over
		// the trace (10,640,336 ticks), stretching its 0.5 ms gap by
		// 148·r ns.
		span0: 1_820_801, off: 4*500_000 + 888},
	// One process, two pthreads, no MPI: compute only.
	{name: "epoch-us", ranks: 1, span0: 7_533_000},
	// 2 ranks: 3 sends of 1 MiB and 3 allreduces.
	{name: "unwind", ranks: 2, sends: 3, recvs: 3, colls: 6, sendBytes: 3 << 20, span0: 537_600},
}

// TestDialects imports archives laid out as Score-P (MPI+OpenMP+CUDA,
// unwinding) and a threaded converter write them, and checks the import
// against gen.c's numbers and, where installed, against otf2-print's
// records folded from locations to ranks.
func TestDialects(t *testing.T) {
	_, lookErr := exec.LookPath("otf2-print")
	for _, d := range dialects {
		t.Run(d.name, func(t *testing.T) {
			anchor := filepath.Join("testdata", "dialects", d.name, "traces.otf2")
			tr, err := Read(anchor, Options{KeepGaps: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Ranks) != d.ranks {
				t.Fatalf("%d ranks, want %d", len(tr.Ranks), d.ranks)
			}
			got := traceCounts(tr)
			var tot Counts
			for _, c := range got {
				tot.Sends += c.Sends
				tot.SendBytes += c.SendBytes
				tot.Recvs += c.Recvs
				tot.Colls += c.Colls
			}
			if tot.Sends != d.sends || tot.Recvs != d.recvs || tot.Colls != d.colls || tot.SendBytes != d.sendBytes {
				t.Errorf("totals %+v, want %d sends (%d B), %d receives, %d collectives", tot, d.sends, d.sendBytes, d.recvs, d.colls)
			}
			rec := tr.Recorded
			if rec.SpanNs[0] != d.span0 {
				t.Errorf("rank 0's recorded span %d ns, want %d", rec.SpanNs[0], d.span0)
			}
			var off int64
			for _, x := range rec.OffNs {
				off += x
			}
			if off != d.off {
				t.Errorf("recording off %d ns, want %d", off, d.off)
			}
			checkMatched(t, tr)
			if _, err := lower.Lower(tr, lower.Options{}); err != nil {
				t.Errorf("lowering: %v", err)
			}
			if lookErr != nil {
				t.Log("otf2-print not installed (Debian otf2-tools): checked against gen.c's numbers only")
				return
			}
			want, spans := printByRank(t, anchor)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("per-rank counts differ from otf2-print's\n got %+v\nwant %+v", got, want)
			}
			if !reflect.DeepEqual(rec.SpanNs, spans) {
				t.Errorf("recorded spans %v, otf2-print's %v", rec.SpanNs, spans)
			}
		})
	}
}

var (
	locationRE = regexp.MustCompile(`^LOCATION\s+(\d+)\s+Name: .*Group: .*<(\d+)>$`)
	lgroupRE   = regexp.MustCompile(`^LOCATION_GROUP\s+(\d+)\s+Name: .*Type: PROCESS`)
	memberRE   = regexp.MustCompile(`<(\d+)>`)
	contextRE  = regexp.MustCompile(`Calling Context: "([^"@]*)`)
	opRE       = regexp.MustCompile(`Operation: ([A-Z_]+)`)
)

// printByRank reads otf2-print's output for anchor and gives, per rank,
// the counts of traceCounts (compute on the rank's master location, with
// the gaps kept) and the recorded span: from MPI_Init's LEAVE (else the
// rank's first record) to MPI_Finalize's ENTER (else its last record) on
// its master location. Ranks are the MPI COMM_LOCATIONS group's members,
// else the process location groups in id order; a rank's master location
// is its member of that group, else its first location.
func printByRank(t *testing.T, anchor string) ([]Counts, []int64) {
	t.Helper()
	out, err := exec.Command("otf2-print", "-G", anchor).Output()
	if err != nil {
		t.Fatalf("otf2-print -G %s: %v", anchor, err)
	}
	m := clockRE.FindSubmatch(out)
	if m == nil {
		t.Fatalf("otf2-print -G %s: no clock properties", anchor)
	}
	res, _ := strconv.ParseUint(string(m[1]), 10, 64)
	off, _ := strconv.ParseUint(string(m[2]), 10, 64)
	ns := func(tick uint64) int64 { // ticks before the offset (clock corrections) are negative
		d, sign := tick-off, int64(1)
		if tick < off {
			d, sign = off-tick, -1
		}
		hi, lo := bits.Mul64(d, 1e9)
		q, _ := bits.Div64(hi, lo, res)
		return sign * int64(q)
	}
	rankOf := map[uint64]int{}  // location → rank
	master := map[uint64]bool{} // master locations
	groupRank := map[uint64]int{}
	var world []uint64
	var locs [][2]uint64
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if f := lgroupRE.FindStringSubmatch(line); f != nil {
			g, _ := strconv.ParseUint(f[1], 10, 64)
			groupRank[g] = len(groupRank)
		}
		if f := locationRE.FindStringSubmatch(line); f != nil {
			l, _ := strconv.ParseUint(f[1], 10, 64)
			g, _ := strconv.ParseUint(f[2], 10, 64)
			locs = append(locs, [2]uint64{l, g})
		}
		if strings.HasPrefix(line, "GROUP ") && strings.Contains(line, "Type: COMM_LOCATIONS") && strings.Contains(line, `Paradigm: "MPI"`) {
			_, members, _ := strings.Cut(line, "Members:")
			for _, x := range memberRE.FindAllStringSubmatch(members, -1) {
				l, _ := strconv.ParseUint(x[1], 10, 64)
				world = append(world, l)
			}
		}
	}
	n := len(groupRank)
	if world != nil {
		n = len(world)
		byGroup := map[uint64]uint64{}
		for _, lg := range locs {
			byGroup[lg[0]] = lg[1]
		}
		for r, l := range world {
			groupRank[byGroup[l]] = r
			master[l] = true
		}
	}
	hasMaster := make([]bool, n)
	for l := range master {
		hasMaster[rankOf[l]] = true
	}
	for _, lg := range locs { // in definition order, which is id order here
		r, ok := groupRank[lg[1]]
		if !ok {
			continue
		}
		rankOf[lg[0]] = r
		if world == nil && !hasMaster[r] {
			master[lg[0]], hasMaster[r] = true, true
		}
	}

	if out, err = exec.Command("otf2-print", anchor).Output(); err != nil {
		t.Fatalf("otf2-print %s: %v", anchor, err)
	}
	type span struct {
		first, last, inMPI, enter, from, to int64
		depth                               int
		seen, inited, finalized             bool
	}
	spans := make([]span, n)
	cs := make([]Counts, n)
	sc = bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		loc, err1 := strconv.ParseUint(f[1], 10, 64)
		tick, err2 := strconv.ParseUint(f[2], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		r, ok := rankOf[loc]
		if !ok {
			continue
		}
		kind, now := f[0], ns(tick)
		c := &cs[r]
		var length int64
		if x := lengthRE.FindStringSubmatch(line); x != nil {
			length, _ = strconv.ParseInt(x[1], 10, 64)
		}
		switch kind {
		case "MPI_SEND", "MPI_ISEND":
			c.Sends++
			c.SendBytes += length
		case "MPI_RECV", "MPI_IRECV":
			c.Recvs++
			c.RecvBytes += length
		case "MPI_COLLECTIVE_END", "NON_BLOCKING_COLLECTIVE_COMPLETE":
			if op := opRE.FindStringSubmatch(line); op != nil && !strings.Contains(op[1], "HANDLE") && !strings.Contains(op[1], "ALLOCATE") {
				c.Colls++
			}
		}
		if !master[loc] {
			continue
		}
		sp := &spans[r]
		if !sp.seen {
			sp.first, sp.seen = now, true
		}
		sp.last = now
		name := ""
		if x := regionRE.FindStringSubmatch(line); x != nil {
			name = x[1]
		} else if x := contextRE.FindStringSubmatch(line); x != nil {
			name = x[1]
		}
		if !strings.HasPrefix(name, "MPI_") {
			continue
		}
		switch kind {
		case "ENTER", "CALLING_CONTEXT_ENTER":
			if sp.depth == 0 {
				sp.enter = now
			}
			sp.depth++
			if name == "MPI_Finalize" && !sp.finalized {
				sp.finalized, sp.to = true, now
			}
		case "LEAVE", "CALLING_CONTEXT_LEAVE":
			if sp.depth--; sp.depth == 0 {
				sp.inMPI += now - sp.enter
			}
			if strings.HasPrefix(name, "MPI_Init") && !sp.inited {
				sp.inited, sp.from = true, now
			}
		}
	}
	got := make([]int64, n)
	for r, sp := range spans {
		cs[r].ComputeNs = sp.last - sp.first - sp.inMPI
		from, to := sp.first, sp.last
		if sp.inited {
			from = sp.from
		}
		if sp.finalized {
			to = sp.to
		}
		got[r] = to - from
	}
	return cs, got
}

// TestDialectNonblockingCollective checks where the nonblocking allreduce
// of the hybrid archive lands: an allreduce of 8 bytes where
// MPI_Iallreduce was called, with that call's time, and nothing in the
// MPI_Wait that completed it.
func TestDialectNonblockingCollective(t *testing.T) {
	tr, err := Read(filepath.Join("testdata", "dialects", "hybrid"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for r, rk := range tr.Ranks {
		var ar []mpi.Event
		for _, e := range rk.Events {
			if e.Kind == mpi.Allreduce {
				ar = append(ar, e)
			}
		}
		if len(ar) != 2 {
			t.Fatalf("rank %d: %d allreduces, want 2", r, len(ar))
		}
		// Ranks 1–3 have clock corrections that stretch their time a
		// little (gen.c): 1200 ns may read as 1201.
		if nb := ar[1]; nb.Bytes != 8 || nb.Duration < 1200 || nb.Duration > 1200+int64(min(r, 1)) || nb.Comm != mpi.World {
			t.Errorf("rank %d: the nonblocking allreduce is %+v, want 8 bytes on the world, 1200 ns", r, nb)
		}
	}
}
