package flow

import (
	"math"
	"math/rand/v2"
	"testing"
)

// A flow alone on its links ends AloneNs after it starts, to the ns.
func TestAloneNsIsAloneFlow(t *testing.T) {
	for _, tc := range []struct {
		name   string
		caps   []float64
		links  []int32
		bytes  int64
		weight float64
		want   int64
	}{
		{"one link", []float64{12.5}, []int32{0}, 1000, 1, 80},
		{"narrowest of three", []float64{12.5, 0.3, 5}, []int32{0, 1, 2}, 1000, 1, 3334},
		{"weighted (CM02)", []float64{0.7, 2}, []int32{1, 0}, 262144, 1.0 / 300, 374492},
		{"empty", []float64{1}, []int32{0}, 0, 1, 0},
		{"one byte", []float64{1e9}, []int32{0}, 1, 1, 1},
	} {
		c := math.Inf(1)
		for _, l := range tc.links {
			c = math.Min(c, tc.caps[l])
		}
		got := AloneNs(tc.bytes, c, tc.weight)
		if got != tc.want {
			t.Errorf("%s: AloneNs %d, want %d", tc.name, got, tc.want)
		}
		n := New(tc.caps)
		id := n.Start(1000, tc.links, tc.bytes, tc.weight, 0, 0, 0)
		if end, _ := n.End(id); end-1000 != got {
			t.Errorf("%s: the flow alone took %d ns, AloneNs %d", tc.name, end-1000, got)
		}
	}
}

// No flow, however many share its links, ends sooner than AloneNs after
// its start: the flow model's uncontended time is a lower bound of its
// contended ones.
func TestAloneNsBoundsContention(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	tighter := 0
	for trial := 0; trial < 300; trial++ {
		nl := 1 + rng.IntN(6)
		caps := make([]float64, nl)
		for l := range caps {
			caps[l] = 0.05 + 20*rng.Float64()
		}
		type fl struct {
			start, bytes int64
			links        []int32
			w            float64
		}
		fs := make([]fl, 1+rng.IntN(12))
		for i := range fs {
			ls := rng.Perm(nl)[:1+rng.IntN(nl)]
			f := fl{start: rng.Int64N(2000), bytes: rng.Int64N(50000), w: 1}
			for _, l := range ls {
				f.links = append(f.links, int32(l))
			}
			if trial%2 == 1 {
				f.w = 1 / float64(1+rng.IntN(900))
			}
			fs[i] = f
		}
		ends := runFlows(caps, len(fs), func(i int) (int64, []int32, int64, float64) {
			return fs[i].start, fs[i].links, fs[i].bytes, fs[i].w
		})
		for i, f := range fs {
			c := math.Inf(1)
			for _, l := range f.links {
				c = math.Min(c, caps[l])
			}
			alone := AloneNs(f.bytes, c, f.w)
			if took := ends[i] - f.start; took < alone {
				t.Fatalf("trial %d flow %d: took %d ns, alone %d", trial, i, took, alone)
			} else if took > alone {
				tighter++
			}
		}
	}
	if tighter == 0 {
		t.Fatal("no flow was slowed by another: the test checks nothing")
	}
}

// runFlows starts flow i (of n) at its time over its links and returns
// when each one ends.
func runFlows(caps []float64, n int, flow func(i int) (start int64, links []int32, bytes int64, w float64)) []int64 {
	net := New(caps)
	ends := make([]int64, n)
	live := map[int32]int{} // flow id → index
	started := make([]bool, n)
	for left := n; left > 0; {
		next, first := int64(math.MaxInt64), -1
		for i := range n {
			if s, _, _, _ := flow(i); !started[i] && s < next {
				next, first = s, i
			}
		}
		done, doneAt := int32(-1), int64(math.MaxInt64)
		for id := range live {
			if e, _ := net.End(id); e < doneAt || e == doneAt && id < done {
				done, doneAt = id, e
			}
		}
		if first >= 0 && next <= doneAt {
			s, ls, b, w := flow(first)
			started[first] = true
			live[net.Start(s, ls, b, w, 0, 0, 0)] = first
			continue
		}
		net.Finish(doneAt, done)
		ends[live[done]] = doneAt
		delete(live, done)
		left--
	}
	return ends
}
