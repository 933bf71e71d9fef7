package otf2

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
)

// fuzzTrace decodes fuzz input into definitions and event records: a
// header picks the ranks, threads, clock and communicator groups, and
// every following 10 bytes make one record with fields reduced to small
// ranges, so that most records refer to defined things and the mapping's
// paths (requests, communicators, regions, measurement gaps) are reached.
func fuzzTrace(data []byte) (*defs, []record, Options) {
	at := func(i int) byte {
		if i < len(data) {
			return data[i]
		}
		return 0
	}
	d := newDefs()
	n := 1 + int(at(1)%4)
	threads := 1 + int(at(2)%2)
	if at(3) != 255 {
		d.resolution = 1 + uint64(at(3))*1_000_000
	}
	d.offset = uint64(at(4)) * 100
	names := []string{"", "main", "solve", "MPI_Send", "MPI_Recv", "MPI_Wait", "MPI_Allreduce", "MPI_Irecv"}
	for i, s := range names {
		d.strings[uint32(i)] = s
	}
	for i := 1; i < len(names); i++ {
		par := uint8(1)
		if i >= 3 && at(5)&(1<<(i-3)) == 0 {
			par = paradigmMPI
		}
		d.regions[uint32(i-1)] = regionDef{name: uint32(i), paradigm: par}
	}
	for r := 0; r < n; r++ {
		d.locGroups[uint32(r)] = locationGroupProcess
		for th := 0; th < threads; th++ {
			d.locations[uint64(r+n*th)] = uint32(r)
		}
	}
	world := make([]uint64, n)
	for i := range world {
		world[i] = uint64(i)
	}
	if at(0)&2 == 0 {
		d.groups[0] = groupDef{typ: groupCommLocations, paradigm: paradigmMPI, members: world}
	}
	d.groups[1] = groupDef{typ: groupCommGroup, paradigm: paradigmMPI, members: world}
	var sub []uint64
	for i := 0; i < 1+int(at(6)%uint8(n)); i++ {
		sub = append(sub, uint64(at(7+i)%uint8(n+1)))
	}
	d.groups[2] = groupDef{typ: groupCommGroup, paradigm: paradigmMPI, members: sub, flags: uint32(at(0)>>2) & groupFlagGlobal}
	d.groups[3] = groupDef{typ: groupCommSelf, paradigm: paradigmMPI}
	d.groups[4] = groupDef{typ: groupCommGroup, paradigm: 2, members: world}
	for i := uint32(0); i < 4; i++ {
		d.comms[i] = commDef{name: i % 3, group: i + 1}
	}
	var recs []record
	clock := uint64(d.offset)
	for i := 12; i+10 <= len(data); i += 10 {
		x := data[i : i+10]
		clock += uint64(x[6]) * 10
		r := record{kind: recKind(x[0] % uint8(numRecKinds+1)), op: x[1] % 20, a: uint32(x[2] % 8), b: uint32(x[3] % 6),
			c: uint32(x[4] % 8), loc: uint64(x[5]) % uint64(n*threads+1), time: clock, d: uint64(x[7]) * uint64(x[8]), e: uint64(x[9] % 6)}
		if x[4] == 255 {
			r.c = undefined32
		}
		if r.kind == rOnOff {
			r.op = x[1] % 2
		}
		if r.kind == rNbcComplete {
			r.req = uint64(x[9]>>4) % 6
		}
		recs = append(recs, r)
	}
	return d, recs, Options{KeepGaps: at(0)&1 == 1}
}

// FuzzBuild feeds decoded definitions and records to the mapping from OTF2
// records to the MPI trace: it must return an error or a trace whose
// events refer to defined communicators and regions, never panic, and the
// trace must lower or fail with an error.
func FuzzBuild(f *testing.F) {
	f.Add([]byte{0, 3, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0,
		byte(rEnter), 0, 0, 0, 0, 0, 1, 0, 0, 0,
		byte(rEnter), 0, 2, 0, 0, 0, 1, 0, 0, 0,
		byte(rSend), 0, 1, 0, 3, 0, 1, 4, 4, 0,
		byte(rLeave), 0, 2, 0, 0, 0, 1, 0, 0, 0,
		byte(rEnter), 0, 2, 0, 0, 1, 1, 0, 0, 0,
		byte(rRecv), 0, 0, 0, 3, 1, 1, 4, 4, 0,
		byte(rLeave), 0, 2, 0, 0, 1, 1, 0, 0, 0})
	f.Add([]byte{1, 1, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0,
		byte(rIrecvRequest), 0, 0, 0, 0, 0, 1, 0, 0, 2,
		byte(rIsend), 0, 1, 0, 1, 0, 1, 2, 2, 1,
		byte(rRequestTest), 0, 0, 0, 0, 0, 1, 0, 0, 2,
		byte(rIsendComplete), 0, 0, 0, 0, 0, 1, 0, 0, 1,
		byte(rOnOff), 0, 0, 0, 0, 0, 3, 0, 0, 0,
		byte(rOnOff), 1, 0, 0, 0, 0, 3, 0, 0, 0,
		byte(rIrecv), 0, 0, 0, 1, 1, 1, 2, 2, 2,
		byte(rCollBegin), 0, 0, 0, 0, 0, 1, 0, 0, 0,
		byte(rCollEnd), opAllreduce, 0, 0, 255, 0, 1, 8, 2, 0,
		byte(rCollEnd), opBcast, 0, 2, 0, 2, 1, 8, 2, 0,
		byte(rRequestCancelled), 0, 0, 0, 0, 0, 1, 0, 0, 3})
	f.Add([]byte{0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0,
		byte(rNbcRequest), 0, 0, 0, 0, 0, 1, 0, 0, 2,
		byte(rNbcRequest), 0, 0, 0, 0, 1, 1, 0, 0, 2,
		byte(rNbcComplete), opAllreduce, 0, 0, 255, 0, 1, 8, 2, 0x22,
		byte(rNbcComplete), 17, 0, 0, 255, 1, 1, 0, 0, 0x22,
		byte(rNbcRequest), 0, 0, 0, 0, 0, 1, 0, 0, 3})
	f.Add([]byte{6, 2, 0, 255, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		d, recs, opt := fuzzTrace(data)
		b, err := newBuilder("fuzz.otf2", d, opt)
		if err != nil {
			return
		}
		for i := range recs {
			if err := b.handle(&recs[i]); err != nil {
				return
			}
		}
		tr := b.finish()
		for r, rk := range tr.Ranks {
			for i, e := range rk.Events {
				if e.Kind != mpi.Compute && tr.Comm(e.Comm) == nil {
					t.Fatalf("rank %d event %d: %s on undefined communicator %d", r, i, e.Kind, e.Comm)
				}
				if e.Region < 0 || int(e.Region) >= len(tr.Regions) {
					t.Fatalf("rank %d event %d: region %d of %d", r, i, e.Region, len(tr.Regions))
				}
				if e.Kind == mpi.Compute && e.Duration < 0 {
					t.Fatalf("rank %d event %d: compute of %d ns", r, i, e.Duration)
				}
				if e.Kind.IsCollective() && e.Peer == -2 {
					t.Fatalf("rank %d event %d: a nonblocking collective left unresolved", r, i)
				}
				if e.Kind == mpi.Irecv && e.Peer < 0 {
					t.Fatalf("rank %d event %d: irecv left without a source", r, i)
				}
			}
		}
		if err := tr.Recorded.Validate(len(tr.Ranks)); err != nil || tr.Recorded.GapsKept != opt.KeepGaps {
			t.Fatalf("recorded run %+v (keep gaps %v): %v", tr.Recorded, opt.KeepGaps, err)
		}
		_, _ = lower.Lower(tr, lower.Options{})
	})
}

// FuzzSniff checks that Sniff recognises exactly the anchor magic and
// that Anchor, given the bytes as an anchor file, fails with an error
// unless they start like an anchor (it then wants the rest of the trace).
func FuzzSniff(f *testing.F) {
	f.Add([]byte("\x03BOTF2\x00\x03\x02"))
	f.Add([]byte("\x03#OTF2\x00"))
	f.Add([]byte("\x03BOTF"))
	f.Add([]byte("ARROW1"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, head []byte) {
		if got, want := Sniff(head, "x.otf2"), anchorMagic(head); got != want {
			t.Fatalf("Sniff(%q) = %v, want %v", head, got, want)
		}
		dir := t.TempDir()
		p := filepath.Join(dir, "traces.otf2")
		if err := os.WriteFile(p, head, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Anchor(p); err == nil {
			t.Fatalf("Anchor accepted %q without traces.def", head)
		}
		if _, err := Anchor(dir); err == nil {
			t.Fatalf("Anchor accepted folder with %q and no traces.def", head)
		}
	})
}

func TestSniff(t *testing.T) {
	for _, tc := range []struct {
		head string
		want bool
	}{
		{"\x03BOTF2\x00\x03\x02", true},
		{"\x03#OTF2\x00", true},
		{"\x03BOTF2", false},
		{"\x04BOTF2\x00", false},
		{"ARROW1\x00\x00", false},
		{"", false},
	} {
		if got := Sniff([]byte(tc.head), "traces.otf2"); got != tc.want {
			t.Errorf("Sniff(%q) = %v, want %v", tc.head, got, tc.want)
		}
	}
	// A folder holding one anchor with its parts sniffs as OTF2.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "traces.otf2"), []byte("\x03BOTF2\x00\x03\x02"), 0o644)
	os.WriteFile(filepath.Join(dir, "traces.def"), []byte("x"), 0o644)
	os.Mkdir(filepath.Join(dir, "traces"), 0o755)
	if !Sniff(nil, dir) {
		t.Error("folder with an anchor not recognised")
	}
	if Sniff(nil, t.TempDir()) {
		t.Error("empty folder recognised")
	}
}

// TestLargeTagsRenumbered checks that tags beyond the lowering's 20 bits
// are renumbered one to one, keeping every send matched.
func TestLargeTagsRenumbered(t *testing.T) {
	d := newDefs()
	d.resolution = 1e9
	d.locGroups[0], d.locGroups[1] = locationGroupProcess, locationGroupProcess
	d.locations[0], d.locations[1] = 0, 1
	d.groups[0] = groupDef{typ: groupCommGroup, paradigm: paradigmMPI, members: []uint64{0, 1}}
	d.comms[0] = commDef{group: 0}
	b, err := newBuilder("tags.otf2", d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tags := []uint32{1 << 30, 5, 1<<31 - 1}
	for i, tag := range tags {
		for _, r := range []record{{kind: rSend, loc: 0, a: 1, c: tag, d: 8, time: uint64(i)}, {kind: rRecv, loc: 1, a: 0, c: tag, d: 8, time: uint64(i)}} {
			if err := b.handle(&r); err != nil {
				t.Fatal(err)
			}
		}
	}
	tr := b.finish()
	want := []int32{1, 0, 2} // 5 < 2^30 < 2^31−1
	for r := range 2 {
		for i, e := range tr.Ranks[r].Events {
			if e.Tag != want[i] {
				t.Errorf("rank %d message %d: tag %d, want %d", r, i, e.Tag, want[i])
			}
		}
	}
	if _, err := lower.Lower(tr, lower.Options{}); err != nil {
		t.Fatal(err)
	}
}
