package aggregate

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

func TestParseSpecs(t *testing.T) {
	top, err := ParseTopology("2x2x2")
	if err != nil || top != (Topology{Sockets: 2, DiesPerSocket: 2, CoresPerDie: 2}) {
		t.Errorf("topology %+v, %v", top, err)
	}
	ipc, err := ParseIPC("1=2.0,P4=1.95")
	if err != nil || !reflect.DeepEqual(ipc, map[int]float64{1: 2, 4: 1.95}) {
		t.Errorf("ipc %v, %v", ipc, err)
	}
	p, err := ParsePower("base=200,sleep=5")
	if err != nil || p != (Power{BaseW: 200, SleepW: 5}) {
		t.Errorf("power %+v, %v", p, err)
	}
	it, err := ParseInterference("cross-socket/2/0=2.82,inter-node/7/65536=1.5")
	if err != nil || !reflect.DeepEqual(it, Interference{{CrossSocket, 2, 0, 2.82}, {InterNode, 7, 65536, 1.5}}) {
		t.Errorf("interference %v, %v", it, err)
	}
	for _, bad := range []func() error{
		func() error { _, err := ParseTopology("2x0x2"); return err },
		func() error { _, err := ParseTopology("2x2x2x2"); return err },
		func() error { _, err := ParseIPC("0=1"); return err },
		func() error { _, err := ParseIPC("1=1,1=2"); return err },
		func() error { _, err := ParseIPC("1=NaN"); return err },
		func() error { _, err := ParsePower("base=-1"); return err },
		func() error { _, err := ParsePower("idle=1"); return err },
		func() error { _, err := ParseInterference("same-die/1=2"); return err },
		func() error { _, err := ParseInterference("same-die/1/0=0"); return err },
		// A key or row given twice: the later silently won.
		func() error { _, err := ParsePower("base=1,base=2"); return err },
		func() error { _, err := ParseInterference("cross-socket/2/0=2.82,cross-socket/2/0=3"); return err },
	} {
		if bad() == nil {
			t.Error("bad spec accepted")
		}
	}
}

// The parsers never panic, and what they accept is usable.
func FuzzParseSpecs(f *testing.F) {
	for _, s := range []string{"2x2x2", "1=2.0,P4=1.95", "base=200,core=20,sleep=5", "cross-socket/2/0=2.82", "", ",", "x", "1=1e309", "9999999x1x1",
		"base=1,base=2", "cross-socket/2/0=2.82,cross-socket/2/0=3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if top, err := ParseTopology(s); err == nil {
			if _, err := Patterns(top); err != nil {
				t.Errorf("%q: accepted topology has no patterns: %v", s, err)
			}
		}
		if m, err := ParseIPC(s); err == nil {
			for id, v := range m {
				if id < 1 || !(v > 0) {
					t.Errorf("%q: accepted IPC %d=%g", s, id, v)
				}
			}
		}
		if p, err := ParsePower(s); err == nil && (p.BaseW < 0 || p.CoreW < 0 || p.SleepW < 0) {
			t.Errorf("%q: accepted power %+v", s, p)
		}
		if it, err := ParseInterference(s); err == nil {
			for _, r := range it {
				if !(r.Factor > 0) || r.Noise < 0 || r.MaxBytes < 0 {
					t.Errorf("%q: accepted row %+v", s, r)
				}
			}
		}
	})
}

func TestWriteTable(t *testing.T) {
	w := Workload{ComputeNs: []int64{1000, 1000}, Messages: []Message{{0, 1, 1, 1}}}
	var net Classes
	net[InterNode].Latency = 100
	res, err := Evaluate(w, Config{Topology: Topology{Sockets: 1, DiesPerSocket: 1, CoresPerDie: 4, MemoryBytes: 130}, TaskMemBytes: 60, Net: net})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteTable(&b, res, nil, -1); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	// P1 100 ns inter-node, P2 0 ns on one die: Δt −100 of 1100 ns.
	for _, want := range []string{"-9.09", "P3 infeasible", "P4 infeasible", "Eq. 4.5 and the ranking (Li, PhD thesis 2011, §4.4): P2 "} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

func TestWriteCSV(t *testing.T) {
	w := Workload{ComputeNs: []int64{1000, 1000}, Messages: []Message{{0, 1, 1, 1}}}
	var net Classes
	net[InterNode].Latency = 100
	res, err := Evaluate(w, Config{Topology: Topology{Sockets: 1, DiesPerSocket: 1, CoresPerDie: 4, MemoryBytes: 130}, TaskMemBytes: 60, Net: net,
		Threshold: DefaultThreshold, Power: Power{BaseW: 1e9, SleepW: 1e8}})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteCSV(&b, res, nil, -1); err != nil {
		t.Fatal(err)
	}
	// P1: 2 nodes × 1 GW × 1.1 µs = 2200 J; P2: (1 GW + 0.1 GW asleep) × 1 µs = 1100 J.
	want := `pattern,tasks_per_node,sockets,dies,cores,feasible,nodes,comp_ns,comm_ns,delta_ns,candidate,energy_j,chosen,by_energy
1,1,1,1,1,1,2,1000,100,0,1,2200,0,0
2,2,1,1,2,1,1,1000,0,-100,1,1100,1,1
3,3,1,1,3,0,,,,,,,0,0
4,4,1,1,4,0,,,,,,,0,0
`
	if got := b.String(); got != want {
		t.Errorf("csv:\n%s\nwant:\n%s", got, want)
	}
}
