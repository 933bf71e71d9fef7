// Package otf2 imports OTF2 traces (the Open Trace Format 2 that Score-P
// writes and Vampir reads) into the MPI trace of package traces/mpi.
//
// Reading goes through Debian's libopen-trace-format2 (OTF2 3.0.x) by cgo:
// the package builds without it (no cgo, or the build tag nootf2), and Read
// then returns ErrUnavailable, which says how to install it.
//
// What becomes of each OTF2 record:
//
//   - Definitions. The MPI group of type COMM_LOCATIONS gives the world
//     ranks (rank i is its member i); every location of a location group
//     belongs to that group's rank, so the threads of a process fold into
//     its rank. Communicators over COMM_GROUP groups of the MPI paradigm
//     become mpi.Communicator values with their members as world ranks (the
//     one over every rank in order is mpi.World); communicators over the
//     COMM_SELF group become one single-member communicator per rank that
//     uses them. Groups flagged GLOBAL_MEMBERS carry world ranks in their
//     events and are translated to communicator ranks. The clock's
//     resolution and global offset turn ticks into nanoseconds.
//   - Enter/Leave. A region of the MPI paradigm (or named MPI_*) is an MPI
//     call; time outside MPI calls on a rank's first location (its master
//     thread) becomes compute events labelled with the innermost non-MPI
//     region open at the time, split where that region changes. Time inside
//     MPI calls is never compute: the call's enter-to-leave time is the
//     Duration of the first MPI event recorded in it.
//   - MpiSend/MpiRecv: Send/Recv. MpiIsend: Isend, MpiIsendComplete: Wait.
//     MpiIrecvRequest: an Irecv at the position where it was posted, whose
//     source, tag and size come from its MpiIrecv completion (which also
//     adds a Wait). MpiRequestCancelled removes the request's Isend or Irecv
//     (it becomes an empty compute event). MpiRequestTest records nothing.
//     An Irecv that never completes is removed the same way.
//   - MpiCollectiveEnd: the collective of its type on its communicator, with
//     its root mapped to a communicator rank and its per-rank payload
//     derived from the sent and received byte counts as Score-P computes
//     them (see payload); the v-variants become their regular kinds with the
//     average block. Communicator creation and RMA window operations
//     (CREATE_HANDLE …) record nothing.
//   - NonBlockingCollectiveRequest/Complete (OTF2 3): the collective,
//     blocking, at the position of its request, with the kind, root and
//     payload of its completion; a request never completed is removed, a
//     completion without its request is placed where it completed.
//   - CallingContextEnter/Leave (Score-P's unwinding mode) arrive as
//     Enter/Leave of the context's region: the library converts them when
//     no callback of their own is registered.
//   - MeasurementOnOff: the time between OFF and ON is unknown to the trace,
//     a measurement gap (graph.Recorded): left out, and counted in the
//     trace's Recorded.OffNs. With Options.KeepGaps it becomes a compute
//     event of region "MEASUREMENT OFF" on that rank, so the replayed
//     timeline keeps the recorded length.
//   - ProgramBegin and ProgramEnd bound a rank's timeline. The time before
//     MPI_Init returns and after MPI_Finalize is entered is a measurement
//     gap too (Recorded.OutsideNs): left out unless Options.KeepGaps.
//   - The trace's Recorded also holds each rank's recorded span, from the
//     return of MPI_Init (else the rank's first event) to the entry of
//     MPI_Finalize (else its last event) on its master thread.
//   - Metric records, thread, I/O and RMA records are ignored, and so are
//     locations outside the MPI processes' location groups (CUDA streams
//     in accelerator groups).
package otf2

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Options controls how a trace is imported.
type Options struct {
	// KeepGaps keeps the measurement gaps as compute: the time during
	// which recording was switched off (MEASUREMENT_ON_OFF records), as
	// region MeasurementOffRegion, and the time before MPI_Init returned
	// and after MPI_Finalize was entered. By default they are left out
	// (and counted in the trace's Recorded).
	KeepGaps bool
	// Stamps keeps each event's recorded time in the trace
	// (mpi.Rank.Stamps): the entry into and the return from its MPI call,
	// or its compute stretch. Off by default: they take 16 bytes per
	// event, which only calibration needs.
	Stamps bool
	// Where keeps where each event was recorded, for error messages:
	// the trace's Where (mpi.Trace.Where) then names the archive, the
	// location and its event file, and the timestamp of the record the
	// event was made at, in ticks as otf2-print prints it and in seconds
	// from the trace's start. Off by default: 16 bytes per event, which
	// only an error path needs, reading the archive again.
	Where bool
}

// MeasurementOffRegion names the compute events that stand for time with
// recording switched off.
const MeasurementOffRegion = "MEASUREMENT OFF"

// ErrUnavailable is returned by Read when capsim was built without the OTF2
// library.
var ErrUnavailable = errors.New("otf2: this capsim was built without the OTF2 library: install it " +
	"(Debian/Ubuntu: apt-get install libopen-trace-format2-dev) and rebuild with cgo enabled " +
	"(CGO_ENABLED=1, without the nootf2 build tag)")

// anchorMagic starts every OTF2 anchor file: a one-byte version of the
// file format, the endianness mark ('B' big or '#' little), then "OTF2".
func anchorMagic(head []byte) bool {
	return len(head) >= 7 && head[0] == 0x03 && (head[1] == 0x42 || head[1] == 0x23) &&
		bytes.Equal(head[2:7], []byte("OTF2\x00"))
}

// Sniff reports whether head, the first bytes of the file at path, is an
// OTF2 anchor file. With an empty head and a directory path it reports
// whether the directory holds exactly one anchor file.
func Sniff(head []byte, path string) bool {
	if len(head) > 0 {
		return anchorMagic(head)
	}
	if path == "" {
		return false
	}
	st, err := os.Stat(path)
	if err != nil || !st.IsDir() {
		return false
	}
	_, err = Anchor(path)
	return err == nil
}

// Anchor returns the anchor file of the trace at path: path itself when it
// is a file, or the single *.otf2 anchor file inside the directory path.
// It checks that the anchor starts as OTF2 anchors do and that the global
// definitions file and the per-location folder beside it exist, so that a
// missing part is named here rather than deep inside the library.
func Anchor(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("otf2: %w", err)
	}
	anchor := path
	if st.IsDir() {
		ms, _ := filepath.Glob(filepath.Join(path, "*.otf2"))
		var found []string
		for _, m := range ms {
			if fi, err := os.Stat(m); err == nil && !fi.IsDir() {
				found = append(found, m)
			}
		}
		switch len(found) {
		case 0:
			return "", fmt.Errorf("otf2: %s: no anchor file (*.otf2) in this folder", path)
		case 1:
			anchor = found[0]
		default:
			return "", fmt.Errorf("otf2: %s: %d anchor files (%s, …): name the one to read", path, len(found), filepath.Base(found[0]))
		}
	}
	f, err := os.Open(anchor)
	if err != nil {
		return "", fmt.Errorf("otf2: %w", err)
	}
	head := make([]byte, 8)
	n, _ := f.Read(head)
	f.Close()
	if !anchorMagic(head[:n]) {
		return "", fmt.Errorf("otf2: %s is not an OTF2 anchor file (it does not start with the OTF2 magic bytes)", anchor)
	}
	base := anchor[:len(anchor)-len(filepath.Ext(anchor))]
	if fi, err := os.Stat(base + ".def"); err != nil || fi.Size() == 0 {
		return "", fmt.Errorf("otf2: %s: the global definitions file %s is missing or empty", anchor, filepath.Base(base)+".def")
	}
	if fi, err := os.Stat(base); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("otf2: %s: the folder of per-location files %s/ is missing", anchor, filepath.Base(base))
	}
	return anchor, nil
}
