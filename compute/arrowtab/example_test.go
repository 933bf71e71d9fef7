package arrowtab_test

import (
	"bytes"
	"fmt"

	"github.com/capsim/capsim/compute/arrowtab"
)

// Write a sample table of two DVFS runs and read it back.
func Example() {
	t := &arrowtab.Table{Rows: 2, Columns: []arrowtab.Column{
		{Name: "region", Strings: []string{"solve", "solve"}},
		{Name: "cpu_ghz", Numbers: []float64{2.6, 1.6}},
		{Name: "seconds", Numbers: []float64{10, 15}},
	}}
	var buf bytes.Buffer
	if err := arrowtab.Encode(&buf, t); err != nil {
		fmt.Println(err)
		return
	}
	back, err := arrowtab.Decode(buf.Bytes(), "runs.arrow")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range back.Columns {
		fmt.Println(c.Name, c.IsString(), c.Strings, c.Numbers)
	}
	// Output:
	// region true [solve solve] []
	// cpu_ghz false [] [2.6 1.6]
	// seconds false [] [10 15]
}
