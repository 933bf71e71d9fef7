package gpu

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

func a100ish() *Model {
	return &Model{Clocks: []Clock{{1000, 250}, {1410, 400}, {1200, 300}}, IdleW: 50, MemoryBound: 0.25}
}

func TestNormalizeSortsFastestFirst(t *testing.T) {
	m := a100ish()
	if err := m.Normalize(); err != nil {
		t.Fatal(err)
	}
	want := []Clock{{1410, 400}, {1200, 300}, {1000, 250}}
	if !reflect.DeepEqual(m.Clocks, want) {
		t.Fatalf("clocks %v, want %v", m.Clocks, want)
	}
	if m.Recorded() != 1410 {
		t.Fatalf("recorded clock %g, want the fastest, 1410", m.Recorded())
	}
}

// The time model by hand: m = 0.25 at the recorded 1410 MHz.
func TestRatio(t *testing.T) {
	m := a100ish()
	if err := m.Normalize(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ mhz, want float64 }{
		{1410, 1},                     // as recorded
		{705, 0.25 + 0.75*2},          // half the clock: the compute part doubles
		{1000, 0.25 + 0.75*1410/1000}, // 1.3075
	} {
		if got := m.Ratio(c.mhz); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Ratio(%g) = %g, want %g", c.mhz, got, c.want)
		}
	}
	// Recorded at 1000 MHz: running at 1410 is faster, by the compute part alone.
	m.RecordedMHz = 1000
	if got, want := m.Ratio(1410), 0.25+0.75*1000/1410.0; math.Abs(got-want) > 1e-12 {
		t.Errorf("Ratio(1410) recorded at 1000 = %g, want %g", got, want)
	}
	// t(f) = t_mem + t_comp·f_max/f with t_mem = m·t_rec, t_comp = (1−m)·t_rec·f_rec/f_max.
	tRec, f := 2.0, 1200.0
	tMem, tComp := 0.25*tRec, 0.75*tRec*1000/1410
	if got, want := tRec*m.Ratio(f), tMem+tComp*1410/f; math.Abs(got-want) > 1e-12 {
		t.Errorf("t(%g) = %g, want t_mem + t_comp·f_max/f = %g", f, got, want)
	}
}

func TestPower(t *testing.T) {
	m := a100ish()
	if err := m.Normalize(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ mhz, want float64 }{
		{1410, 400}, {2000, 400}, {1305, 350}, {1100, 275}, {1000, 250}, {500, 250},
	} {
		if got := m.Power(c.mhz); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("Power(%g) = %g, want %g", c.mhz, got, c.want)
		}
	}
}

func TestLimit(t *testing.T) {
	m := a100ish()
	if err := m.Normalize(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		limit float64
		want  []Clock
		err   string
	}{
		{0, []Clock{{1410, 400}, {1200, 300}, {1000, 250}}, ""},
		{500, []Clock{{1410, 400}, {1200, 300}, {1000, 250}}, ""},
		{400, []Clock{{1410, 400}, {1200, 300}, {1000, 250}}, ""},
		// 350 W lies halfway between 300 W at 1200 MHz and 400 W at 1410 MHz.
		{350, []Clock{{1305, 350}, {1200, 300}, {1000, 250}}, ""},
		{300, []Clock{{1200, 300}, {1000, 250}}, ""},
		{260, []Clock{{1040, 260}, {1000, 250}}, ""},
		{250, []Clock{{1000, 250}}, ""},
		{200, nil, "below the slowest clock's power"},
		{-1, nil, "want a finite number > 0"},
	} {
		got, err := m.Limit(c.limit)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Limit(%g): error %v, want one saying %q", c.limit, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("Limit(%g): %v", c.limit, err)
		}
		if len(got) != len(c.want) {
			t.Fatalf("Limit(%g) = %v, want %v", c.limit, got, c.want)
		}
		for i := range got {
			if math.Abs(got[i].MHz-c.want[i].MHz) > 1e-9 || math.Abs(got[i].PowerW-c.want[i].PowerW) > 1e-9 {
				t.Errorf("Limit(%g) = %v, want %v", c.limit, got, c.want)
				break
			}
		}
	}
}

func TestNormalizeRefuses(t *testing.T) {
	for _, c := range []struct {
		m    Model
		want string
	}{
		{Model{}, "no clocks"},
		{Model{Clocks: []Clock{{1000, 40}}, IdleW: 50}, "≥ the idle power"},
		{Model{Clocks: []Clock{{1000, 300}, {1200, 250}}}, "more than the faster"},
		{Model{Clocks: []Clock{{1000, 300}, {1000, 250}}}, "given twice"},
		{Model{Clocks: []Clock{{0, 300}}}, "want a finite number > 0"},
		{Model{Clocks: []Clock{{1000, 300}}, MemoryBound: 1.5}, "[0, 1]"},
		{Model{Clocks: []Clock{{1000, math.Inf(1)}}}, "finite"},
		{Model{Clocks: []Clock{{1000, 300}}, IdleW: math.NaN()}, "idle power"},
	} {
		err := c.m.Normalize()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one saying %q", c.m, err, c.want)
		}
	}
}
