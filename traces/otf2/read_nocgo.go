//go:build !cgo || nootf2

package otf2

import (
	"fmt"

	"github.com/capsim/capsim/traces/mpi"
)

// Available reports whether this build can read OTF2 traces.
const Available = false

// Read would import the OTF2 trace at path; this build has no OTF2 library,
// so it returns ErrUnavailable (after checking that path is an OTF2 trace,
// so that a wrong path is still named as such).
func Read(path string, opt Options) (*mpi.Trace, error) {
	anchor, err := Anchor(path)
	if err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("%s: %w", anchor, ErrUnavailable)
}
