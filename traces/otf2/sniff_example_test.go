package otf2_test

import (
	"fmt"

	"github.com/capsim/capsim/traces/otf2"
)

// ExampleSniff tells an OTF2 anchor file from other files by its first
// bytes, as an importer registry does before choosing a reader.
func ExampleSniff() {
	anchor := []byte("\x03BOTF2\x00\x03\x02") // how Score-P's traces.otf2 starts
	arrow := []byte("ARROW1\x00\x00")
	fmt.Println(otf2.Sniff(anchor, "run/traces.otf2"), otf2.Sniff(arrow, "trace.arrow"))
	// Output: true false
}
