package graph

import (
	"errors"
	"reflect"
	"testing"
)

func TestRecorded(t *testing.T) {
	var none *Recorded
	if none.JobNs() != 0 || none.RankNs(0) != 0 || none.GapNs(0) != 0 || none.Known() || none.Note() != "" || none.Validate(3) != nil {
		t.Error("a nil Recorded must say nothing")
	}
	r := &Recorded{SpanNs: []int64{5_000_000, 0, 8_900_000}, OffNs: []int64{1_000_000, 0, 2_500_000}, OutsideNs: []int64{0, 100_000, 0}}
	if r.JobNs() != 8_900_000 || r.RankNs(1) != 0 || r.RankNs(3) != 0 || r.GapNs(0) != 1_000_000 || r.GapNs(1) != 100_000 {
		t.Errorf("job %d, rank spans %d %d, gaps %d %d", r.JobNs(), r.RankNs(1), r.RankNs(3), r.GapNs(0), r.GapNs(1))
	}
	if all, off := r.TotalGapNs(); all != 3_600_000 || off != 3_500_000 || !r.Known() {
		t.Errorf("gaps %d, off %d", all, off)
	}
	want := "dropped 3.6 ms of measurement gaps (recording off 3.5 ms; before MPI_Init or after MPI_Finalize 0.1 ms) over 3 ranks"
	if got := r.Note(); got != want {
		t.Errorf("note %q\nwant %q", got, want)
	}
	for _, c := range []struct {
		r *Recorded
		n int
	}{
		{&Recorded{SpanNs: []int64{1, 2}}, 3},
		{&Recorded{OffNs: []int64{-1}}, 1},
		{&Recorded{OutsideNs: []int64{MaxTimeNs + 1}}, 1},
	} {
		if err := c.r.Validate(c.n); !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v for %d ranks: %v", c.r, c.n, err)
		}
	}
	if err := r.Validate(3); err != nil {
		t.Error(err)
	}
}

func TestFormatMs(t *testing.T) {
	for ns, want := range map[int64]string{0: "0 ms", 5_885_851: "5.89 ms", 12_300: "0.0123 ms", 52_670_000: "52.7 ms", 1_234_500_000: "1234.5 ms"} {
		if got := FormatMs(ns); got != want {
			t.Errorf("FormatMs(%d) = %q, want %q", ns, got, want)
		}
	}
}

func TestRecordedStarts(t *testing.T) {
	if got := RelativeStarts([]int64{5, 5, 5}); got != nil {
		t.Errorf("equal starts: %v, want nil", got)
	}
	got := RelativeStarts([]int64{1_000_700, 1_000_000, 59_000_000})
	if want := []int64{700, 0, 58_000_000}; !reflect.DeepEqual(got, want) {
		t.Errorf("RelativeStarts = %v, want %v", got, want)
	}
	r := &Recorded{SpanNs: []int64{9, 9, 9}, StartNs: got}
	if r.StartSpreadNs() != 58_000_000 || !reflect.DeepEqual(r.Starts(), got) || !r.Known() {
		t.Errorf("spread %d, starts %v", r.StartSpreadNs(), r.Starts())
	}
	var none *Recorded
	if none.StartSpreadNs() != 0 || none.Starts() != nil || (&Recorded{StartNs: []int64{0, 0}}).Starts() != nil {
		t.Error("no starts, or all at 0, must give none")
	}
	if (&Recorded{StartNs: []int64{0, 3}}).Known() != true {
		t.Error("a trace with starts only says something")
	}
	for _, c := range []struct {
		s []int64
		n int
	}{{[]int64{0}, 2}, {[]int64{0, -1}, 2}, {[]int64{MaxTimeNs + 1, 0}, 2}} {
		if err := ValidateStarts(c.s, c.n); !errors.Is(err, ErrInvalid) {
			t.Errorf("starts %v for %d ranks: %v", c.s, c.n, err)
		}
		if err := (&Recorded{StartNs: c.s}).Validate(c.n); !errors.Is(err, ErrInvalid) {
			t.Errorf("recorded starts %v for %d ranks: %v", c.s, c.n, err)
		}
	}
	if ValidateStarts(nil, 3) != nil || ValidateStarts([]int64{0, MaxTimeNs}, 2) != nil {
		t.Error("valid starts refused")
	}
}
