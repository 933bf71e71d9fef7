package table_test

import (
	"fmt"
	"strings"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/table"
)

func ExampleReadCSV() {
	csv := "key,cpu_ghz,threads,seconds,watts\nsolve,2.6,8,10,50\nsolve,1.2,8,20,30\n"
	tb, err := table.ReadCSV(strings.NewReader(csv), "solve.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	m, _ := tb.Model("solve")
	p, _ := m.Predict(compute.Work{Seconds: 1, At: compute.Config{CPUFreqGHz: 2.6, Threads: 8}},
		compute.Config{CPUFreqGHz: 1.2, Threads: 8})
	fmt.Printf("%g s at %g W\n", p.Seconds, p.Watts)
	// Output: 2 s at 30 W
}
