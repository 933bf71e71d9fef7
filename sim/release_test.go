package sim

import (
	"testing"

	"github.com/capsim/capsim/network"
)

// Release and ReleaseMsg hold calcs, sends and the processing of
// messages until a plan's times, worked out by hand with o=1500 L=2500
// g=1000 G=6 O=0: rank 0 computes 1000 ns then sends 8 bytes; rank 1
// receives.
func TestRelease(t *testing.T) {
	g := parse(t, `num_ranks 2
rank 0 {
l1: calc 1000
l2: send 8b to 1 tag 0
l2 requires l1
}
rank 1 { l1: recv 8b from 0 tag 0
}`)
	// calc op 0, send op 1, recv op 2.
	for _, tc := range []struct {
		name         string
		rel, msg     []int64
		want0, want1 int64
	}{
		// As soon as possible: send at 1000, CPU busy to 2500; arrival
		// 1000+1500+2500 = 5000, processed o+7·G: 6542.
		{"none", nil, nil, 2500, 6542},
		// The calc released at 3000: everything 3000 later.
		{"calc", []int64{3000, 0, 0}, nil, 5500, 9542},
		// The send released at 4000: CPU to 5500; arrival 8000; 9542.
		{"send", []int64{0, 4000, 0}, nil, 5500, 9542},
		// The message processed no earlier than 7000: 7000+1542.
		{"message", nil, []int64{0, 7000, 0}, 2500, 8542},
		// A release earlier than as soon as possible changes nothing.
		{"early", []int64{0, 500, 0}, []int64{0, 1000, 0}, 2500, 6542},
	} {
		res, err := Run(g, network.DefaultLogGOPS(), Options{Release: tc.rel, ReleaseMsg: tc.msg})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if f0, f1 := res.Ranks[0].Finish, res.Ranks[1].Finish; f0 != tc.want0 || f1 != tc.want1 {
			t.Errorf("%s: finish %d %d, want %d %d", tc.name, f0, f1, tc.want0, tc.want1)
		}
	}
	if _, err := Run(g, network.DefaultLogGOPS(), Options{Release: []int64{1}}); err == nil {
		t.Error("a release slice of the wrong length was accepted")
	}
}
