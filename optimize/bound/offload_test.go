package bound

import (
	"strings"
	"testing"

	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/traces/graph"
)

// TestFromGraphRefusesOffload: the LP writes the recurrences of
// LogGOPSim's NIC, so a network whose NIC works apart from the CPU
// (network.LogGOPS.Offload) is refused rather than bounded wrongly.
func TestFromGraphRefusesOffload(t *testing.T) {
	b := graph.NewBuilder(2)
	b.Add(0, graph.SendOp(100, 1, 1))
	b.Add(1, graph.RecvOp(100, 0, 1))
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	net, err := network.ParseSpec("loggp:offload=1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := FromGraph(g, net, GraphOptions{}); err == nil || !strings.Contains(err.Error(), "offload=1") {
		t.Errorf("FromGraph with offload=1: error %v", err)
	}
	net.Offload = false
	if _, err := FromGraph(g, net, GraphOptions{}); err != nil {
		t.Errorf("FromGraph without offload: %v", err)
	}
}
