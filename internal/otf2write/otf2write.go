//go:build cgo && !nootf2

package otf2write

/*
#cgo pkg-config: otf2
#include <otf2/otf2.h>
#include <stdlib.h>

static OTF2_FlushType cw_pre_flush(void* ud, OTF2_FileType ft, OTF2_LocationRef loc, void* cd, bool final) {
	return OTF2_FLUSH;
}
static OTF2_TimeStamp cw_post_flush(void* ud, OTF2_FileType ft, OTF2_LocationRef loc) { return 0; }
static OTF2_FlushCallbacks cw_flush = { cw_pre_flush, cw_post_flush };

static OTF2_Archive* cw_open(const char* dir, const char* name) {
	OTF2_Archive* ar = OTF2_Archive_Open(dir, name, OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
		OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	if (!ar) return NULL;
	OTF2_Archive_SetFlushCallbacks(ar, &cw_flush, NULL);
	OTF2_Archive_SetSerialCollectiveCallbacks(ar);
	OTF2_Archive_OpenEvtFiles(ar);
	return ar;
}

static OTF2_ErrorCode cw_metric(OTF2_EvtWriter* w, OTF2_TimeStamp t, uint64_t v) {
	OTF2_Type ty = OTF2_TYPE_UINT64;
	OTF2_MetricValue mv;
	mv.unsigned_int = v;
	return OTF2_EvtWriter_Metric(w, NULL, t, 0, 1, &ty, &mv);
}

static OTF2_ErrorCode cw_group(OTF2_GlobalDefWriter* g, uint32_t id, uint32_t name, uint8_t typ, uint8_t paradigm,
		uint32_t flags, uint32_t n, const uint64_t* members) {
	return OTF2_GlobalDefWriter_WriteGroup(g, id, name, typ, paradigm, flags, n, members);
}

static OTF2_ErrorCode cw_metric_defs(OTF2_GlobalDefWriter* g, uint32_t name) {
	OTF2_ErrorCode e = OTF2_GlobalDefWriter_WriteMetricMember(g, 0, name, name, OTF2_METRIC_TYPE_PAPI,
		OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL, 0, name);
	if (e != OTF2_SUCCESS) return e;
	OTF2_MetricMemberRef m = 0;
	return OTF2_GlobalDefWriter_WriteMetricClass(g, 0, 1, &m, OTF2_METRIC_SYNCHRONOUS_STRICT, OTF2_RECORDER_KIND_CPU);
}
*/
import "C"

import (
	"fmt"
	"os"
	"path/filepath"
	"unsafe"
)

// Region is a region definition.
type Region struct {
	Name string
	MPI  bool // of the MPI paradigm (an MPI call); else a user region
}

// Comm is an MPI communicator definition. Comms are numbered by their
// index in Defs.Comms.
type Comm struct {
	Name string
	// Members are world ranks, in communicator rank order (ignored for
	// Self).
	Members []uint64
	// Self makes it a communicator over the COMM_SELF group.
	Self bool
	// Global flags its group GLOBAL_MEMBERS: its events name world ranks.
	Global bool
}

// Defs are the definitions of an archive.
type Defs struct {
	Resolution uint64 // timer ticks per second
	Offset     uint64 // global offset, in ticks
	Ranks      int
	Threads    int // locations per rank (0 means 1)
	Regions    []Region
	Comms      []Comm
	// NoCommLocations leaves out the MPI COMM_LOCATIONS group, so that
	// readers number ranks by location group.
	NoCommLocations bool
	// NoCounts announces 0 events for every location, as writers that
	// do not count their events do.
	NoCounts bool
}

// Kind is an event record kind.
type Kind uint8

// Event record kinds.
const (
	Enter Kind = iota + 1
	Leave
	Send
	Isend
	IsendComplete
	IrecvRequest
	Recv
	Irecv
	RequestTest
	RequestCancelled
	CollBegin
	CollEnd
	MeasurementOnOff
	Metric
)

// Event is one event record; the fields a kind does not use are ignored.
type Event struct {
	Kind   Kind
	Time   uint64 // ticks
	Region uint32 // Enter, Leave
	Peer   uint32 // receiver or sender (communicator rank)
	Comm   uint32
	Tag    uint32
	Bytes  uint64
	Req    uint64
	Op     uint8  // collective operation (OTF2_CollectiveOp)
	Root   uint32 // collective root, ^uint32(0) for none
	Sent   uint64
	Recv   uint64
	On     bool   // MeasurementOnOff: true for ON
	Value  uint64 // Metric
}

// Writer writes one archive.
type Writer struct {
	dir    string
	ar     *C.OTF2_Archive
	ews    []*C.OTF2_EvtWriter
	counts []uint64
	defs   Defs
}

// Create starts the archive dir/traces.otf2 (with dir/traces.def and
// dir/traces/); dir must not hold one already.
func Create(dir string, d Defs) (*Writer, error) {
	if d.Threads <= 0 {
		d.Threads = 1
	}
	if d.Ranks <= 0 {
		return nil, fmt.Errorf("otf2write: %d ranks", d.Ranks)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, "traces")); err == nil {
		return nil, fmt.Errorf("otf2write: %s already holds an archive", dir)
	}
	cdir, cname := C.CString(dir), C.CString("traces")
	defer C.free(unsafe.Pointer(cdir))
	defer C.free(unsafe.Pointer(cname))
	ar := C.cw_open(cdir, cname)
	if ar == nil {
		return nil, fmt.Errorf("otf2write: cannot create an archive in %s", dir)
	}
	n := d.Ranks * d.Threads
	w := &Writer{dir: dir, ar: ar, ews: make([]*C.OTF2_EvtWriter, n), counts: make([]uint64, n), defs: d}
	for i := range w.ews {
		w.ews[i] = C.OTF2_Archive_GetEvtWriter(ar, C.OTF2_LocationRef(i))
		if w.ews[i] == nil {
			C.OTF2_Archive_Close(ar)
			return nil, fmt.Errorf("otf2write: no event writer for location %d", i)
		}
	}
	return w, nil
}

// Location returns the location index of a rank's thread (thread 0 is its
// master).
func (w *Writer) Location(rank, thread int) int { return rank + w.defs.Ranks*thread }

// Write appends e to location loc's events (times must not decrease).
func (w *Writer) Write(loc int, e Event) error {
	if loc < 0 || loc >= len(w.ews) {
		return fmt.Errorf("otf2write: location %d out of range", loc)
	}
	ew := w.ews[loc]
	t := C.OTF2_TimeStamp(e.Time)
	var code C.OTF2_ErrorCode
	switch e.Kind {
	case Enter:
		code = C.OTF2_EvtWriter_Enter(ew, nil, t, C.OTF2_RegionRef(e.Region))
	case Leave:
		code = C.OTF2_EvtWriter_Leave(ew, nil, t, C.OTF2_RegionRef(e.Region))
	case Send:
		code = C.OTF2_EvtWriter_MpiSend(ew, nil, t, C.uint32_t(e.Peer), C.OTF2_CommRef(e.Comm), C.uint32_t(e.Tag), C.uint64_t(e.Bytes))
	case Recv:
		code = C.OTF2_EvtWriter_MpiRecv(ew, nil, t, C.uint32_t(e.Peer), C.OTF2_CommRef(e.Comm), C.uint32_t(e.Tag), C.uint64_t(e.Bytes))
	case Isend:
		code = C.OTF2_EvtWriter_MpiIsend(ew, nil, t, C.uint32_t(e.Peer), C.OTF2_CommRef(e.Comm), C.uint32_t(e.Tag), C.uint64_t(e.Bytes), C.uint64_t(e.Req))
	case Irecv:
		code = C.OTF2_EvtWriter_MpiIrecv(ew, nil, t, C.uint32_t(e.Peer), C.OTF2_CommRef(e.Comm), C.uint32_t(e.Tag), C.uint64_t(e.Bytes), C.uint64_t(e.Req))
	case IsendComplete:
		code = C.OTF2_EvtWriter_MpiIsendComplete(ew, nil, t, C.uint64_t(e.Req))
	case IrecvRequest:
		code = C.OTF2_EvtWriter_MpiIrecvRequest(ew, nil, t, C.uint64_t(e.Req))
	case RequestTest:
		code = C.OTF2_EvtWriter_MpiRequestTest(ew, nil, t, C.uint64_t(e.Req))
	case RequestCancelled:
		code = C.OTF2_EvtWriter_MpiRequestCancelled(ew, nil, t, C.uint64_t(e.Req))
	case CollBegin:
		code = C.OTF2_EvtWriter_MpiCollectiveBegin(ew, nil, t)
	case CollEnd:
		code = C.OTF2_EvtWriter_MpiCollectiveEnd(ew, nil, t, C.OTF2_CollectiveOp(e.Op), C.OTF2_CommRef(e.Comm), C.uint32_t(e.Root), C.uint64_t(e.Sent), C.uint64_t(e.Recv))
	case MeasurementOnOff:
		mode := C.OTF2_MeasurementMode(C.OTF2_MEASUREMENT_OFF)
		if e.On {
			mode = C.OTF2_MEASUREMENT_ON
		}
		code = C.OTF2_EvtWriter_MeasurementOnOff(ew, nil, t, mode)
	case Metric:
		code = C.cw_metric(ew, t, C.uint64_t(e.Value))
	default:
		return fmt.Errorf("otf2write: unknown event kind %d", e.Kind)
	}
	if code != C.OTF2_SUCCESS {
		return fmt.Errorf("otf2write: location %d: %s", loc, C.GoString(C.OTF2_Error_GetDescription(code)))
	}
	w.counts[loc]++
	return nil
}

// Close writes the definitions and closes the archive.
func (w *Writer) Close() error {
	ar := w.ar
	defer C.OTF2_Archive_Close(ar)
	for _, ew := range w.ews {
		C.OTF2_Archive_CloseEvtWriter(ar, ew)
	}
	C.OTF2_Archive_CloseEvtFiles(ar)
	C.OTF2_Archive_OpenDefFiles(ar)
	for i := range w.ews {
		dw := C.OTF2_Archive_GetDefWriter(ar, C.OTF2_LocationRef(i))
		C.OTF2_Archive_CloseDefWriter(ar, dw)
	}
	C.OTF2_Archive_CloseDefFiles(ar)
	g := C.OTF2_Archive_GetGlobalDefWriter(ar)
	if g == nil {
		return fmt.Errorf("otf2write: no global definition writer")
	}
	dw := &defWriter{g: g, strs: map[string]uint32{}}
	d := w.defs
	dw.str("")
	dw.check(C.OTF2_GlobalDefWriter_WriteClockProperties(g, C.uint64_t(d.Resolution), C.uint64_t(d.Offset), 0, C.OTF2_UNDEFINED_TIMESTAMP))
	dw.regions(d.Regions)
	counts := w.counts
	if d.NoCounts {
		counts = make([]uint64, len(w.counts))
	}
	dw.locations(d.Ranks, counts)
	dw.comms(d)
	dw.check(C.cw_metric_defs(g, C.uint32_t(dw.str("PAPI_TOT_CYC"))))
	C.OTF2_Archive_CloseGlobalDefWriter(ar, g)
	return dw.first
}

// defWriter writes the global definitions, each string once, and keeps
// the first error.
type defWriter struct {
	g     *C.OTF2_GlobalDefWriter
	strs  map[string]uint32
	first error
}

func (dw *defWriter) check(code C.OTF2_ErrorCode) {
	if code != C.OTF2_SUCCESS && dw.first == nil {
		dw.first = fmt.Errorf("otf2write: writing definitions: %s", C.GoString(C.OTF2_Error_GetDescription(code)))
	}
}

// str returns the reference of string s, defining it on first use.
func (dw *defWriter) str(s string) C.OTF2_StringRef {
	if id, ok := dw.strs[s]; ok {
		return C.OTF2_StringRef(id)
	}
	id := uint32(len(dw.strs))
	dw.strs[s] = id
	cs := C.CString(s)
	dw.check(C.OTF2_GlobalDefWriter_WriteString(dw.g, C.OTF2_StringRef(id), cs))
	C.free(unsafe.Pointer(cs))
	return C.OTF2_StringRef(id)
}

// regions defines the regions, MPI or user functions.
func (dw *defWriter) regions(regions []Region) {
	for i, r := range regions {
		par := C.OTF2_Paradigm(C.OTF2_PARADIGM_USER)
		if r.MPI {
			par = C.OTF2_PARADIGM_MPI
		}
		dw.check(C.OTF2_GlobalDefWriter_WriteRegion(dw.g, C.OTF2_RegionRef(i), dw.str(r.Name), dw.str(r.Name), dw.str(""),
			C.OTF2_REGION_ROLE_FUNCTION, par, C.OTF2_REGION_FLAG_NONE, dw.str(""), 0, 0))
	}
}

// locations defines the system tree, a process per rank and a location
// per event writer (the master thread of each rank, then further
// threads), with its event count.
func (dw *defWriter) locations(ranks int, counts []uint64) {
	g := dw.g
	dw.check(C.OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, dw.str("machine"), dw.str("machine"), C.OTF2_UNDEFINED_SYSTEM_TREE_NODE))
	for r := 0; r < ranks; r++ {
		dw.check(C.OTF2_GlobalDefWriter_WriteLocationGroup(g, C.OTF2_LocationGroupRef(r), dw.str(fmt.Sprintf("MPI Rank %d", r)),
			C.OTF2_LOCATION_GROUP_TYPE_PROCESS, 0, C.OTF2_UNDEFINED_LOCATION_GROUP))
	}
	for i := range counts {
		name := "Master thread"
		if i >= ranks {
			name = fmt.Sprintf("thread %d", i/ranks)
		}
		dw.check(C.OTF2_GlobalDefWriter_WriteLocation(g, C.OTF2_LocationRef(i), dw.str(name), C.OTF2_LOCATION_TYPE_CPU_THREAD,
			C.uint64_t(counts[i]), C.OTF2_LocationGroupRef(i%ranks)))
	}
}

// group defines MPI group id of type typ with its members.
func (dw *defWriter) group(id uint32, typ, flags uint32, members []uint64) {
	var p *C.uint64_t
	if len(members) > 0 {
		p = (*C.uint64_t)(C.malloc(C.size_t(len(members)) * 8))
		defer C.free(unsafe.Pointer(p))
		for i, m := range members {
			unsafe.Slice(p, len(members))[i] = C.uint64_t(m)
		}
	}
	dw.check(C.cw_group(dw.g, C.uint32_t(id), C.uint32_t(dw.str("")), C.uint8_t(typ), C.OTF2_PARADIGM_MPI, C.uint32_t(flags), C.uint32_t(len(members)), p))
}

// comms defines the groups (the locations group 0 unless
// d.NoCommLocations, one self group 1 shared by every self communicator,
// group 2+i for communicator i) and the communicators.
func (dw *defWriter) comms(d Defs) {
	if !d.NoCommLocations {
		locs := make([]uint64, d.Ranks)
		for i := range locs {
			locs[i] = uint64(i)
		}
		dw.group(0, C.OTF2_GROUP_TYPE_COMM_LOCATIONS, 0, locs)
	}
	const selfGroup = uint32(1)
	for i, c := range d.Comms {
		if !c.Self {
			var flags uint32
			if c.Global {
				flags = C.OTF2_GROUP_FLAG_GLOBAL_MEMBERS
			}
			dw.group(uint32(2+i), C.OTF2_GROUP_TYPE_COMM_GROUP, flags, c.Members)
		}
	}
	for _, c := range d.Comms {
		if c.Self {
			dw.group(selfGroup, C.OTF2_GROUP_TYPE_COMM_SELF, 0, nil)
			break
		}
	}
	for i, c := range d.Comms {
		gid := uint32(2 + i)
		if c.Self {
			gid = selfGroup
		}
		dw.check(C.OTF2_GlobalDefWriter_WriteComm(dw.g, C.OTF2_CommRef(i), dw.str(c.Name), C.OTF2_GroupRef(gid), C.OTF2_UNDEFINED_COMM, C.OTF2_COMM_FLAG_NONE))
	}
}
