package network

import "testing"

// LogGOPSim's per-byte charges, empty messages wrapping around to minus
// one byte's charge.
func TestCharges(t *testing.T) {
	O, G, zero := NsPerByte(2), NsPerByte(3), PerByte{}
	for _, c := range []struct {
		name string
		got  int64
		want int64
	}{
		{"(s−1)·G", G.Charge(5), 12},
		{"one byte", G.Charge(1), 0},
		{"empty", G.Charge(0), -3},
		{"no header", WireBytes(5, 0), 5},
		{"empty, no header", WireBytes(0, 0), 0},
		{"header", WireBytes(5, 8), 13},
		{"empty with header", WireBytes(0, 8), 8},
		{"receive", RecvCharge(5, 5, O, G), 12},
		{"receive with header", RecvCharge(5, 13, O, G), 36},
		{"empty receive", RecvCharge(0, 0, O, G), -2},
		{"empty receive, O = 0", RecvCharge(0, 0, zero, G), -3},
		{"empty receive, G = 0", RecvCharge(0, 0, O, zero), -2},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d, want %d", c.name, c.got, c.want)
		}
	}
}
