package dumpi

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsim/capsim/traces/lower"
)

// TestCallsNamedByRecord: the calls of a DUMPI trace are named by their
// rank's .bin file and their record's index in it (counted from 0, as
// dumpi2ascii lists the records), with the record's recorded start when
// the trace keeps times, in a collective mismatch and in Describe.
func TestCallsNamedByRecord(t *testing.T) {
	ws := make([]*binWriter, 2)
	for r := range ws {
		w := newBinWriter([3]byte{1, 1, 0})
		w.call(idInit, 0, 10, strs{"./app"})
		w.call(idBarrier, 10, 10, h16(world))
		w.call(idAllreduce, 10, 10, i32(1+3*r), h16(tInt), u8(3), h16(world))
		w.call(idFinalize, 10, 10)
		ws[r] = w
	}
	meta := writeTrace(t, ws)
	bin := func(r int) string {
		return filepath.Join(filepath.Dir(meta), []string{"run-0000.bin", "run-0001.bin"}[r])
	}
	for _, tc := range []struct {
		name  string
		opt   Options
		event int    // rank 1's allreduce, after the compute before it
		at    string // what follows "record 2"
	}{
		{"no times", Options{}, 3, ""},
		{"times kept", Options{Stamps: true}, 3, ", time 5.000000040 s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := Read(meta, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			wantEv := "rank 1: MPI_Allreduce 16 bytes on comm world (" + bin(1) + " record 2" + tc.at + ")"
			if got := tr.Describe(1, tc.event); got != wantEv {
				t.Errorf("Describe = %q, want %q", got, wantEv)
			}
			_, err = lower.Lower(tr, lower.Options{})
			want := "(" + bin(1) + " record 2" + tc.at + "): collective call #2 on communicator 0 (allreduce) passes 16 bytes on rank 1 but 4 bytes on rank 0 (" + bin(0) + " record 2" + tc.at + ")"
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Lower: %v, want %q", err, want)
			}
		})
	}
}
