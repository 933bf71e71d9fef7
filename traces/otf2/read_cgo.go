//go:build cgo && !nootf2

package otf2

/*
#cgo pkg-config: otf2
#include <otf2/otf2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// One event record, filled by the callbacks below and read by Go in
// batches (no Go callback per event).
typedef struct {
	uint8_t  kind, op;
	uint32_t a, b, c;
	uint64_t loc, time, d, e, req;
} cs_rec;

typedef struct {
	cs_rec*  recs;
	uint64_t n, cap;
} cs_buf;

enum { R_ENTER = 1, R_LEAVE, R_SEND, R_ISEND, R_ISEND_COMPLETE, R_IRECV_REQUEST, R_RECV, R_IRECV,
       R_REQUEST_TEST, R_REQUEST_CANCELLED, R_COLL_BEGIN, R_COLL_END, R_ONOFF, R_MARK, R_NBC_REQUEST, R_NBC_COMPLETE };

#define PUT(K) \
	cs_buf* B = (cs_buf*)ud; \
	if (B->n >= B->cap) return OTF2_CALLBACK_INTERRUPT; \
	cs_rec* r = &B->recs[B->n++]; \
	memset(r, 0, sizeof *r); \
	r->kind = (K); r->loc = loc; r->time = t;

static OTF2_CallbackCode cs_enter(OTF2_LocationRef loc, OTF2_TimeStamp t, void* ud, OTF2_AttributeList* al, OTF2_RegionRef reg) {
	PUT(R_ENTER) r->a = reg; return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode cs_leave(OTF2_LocationRef loc, OTF2_TimeStamp t, void* ud, OTF2_AttributeList* al, OTF2_RegionRef reg) {
	PUT(R_LEAVE) r->a = reg; return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode cs_send(OTF2_LocationRef loc, OTF2_TimeStamp t, void* ud, OTF2_AttributeList* al,
		uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t len) {
	PUT(R_SEND) r->a = peer; r->b = comm; r->c = tag; r->d = len; return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode cs_recv(OTF2_LocationRef loc, OTF2_TimeStamp t, void* ud, OTF2_AttributeList* al,
		uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t len) {
	PUT(R_RECV) r->a = peer; r->b = comm; r->c = tag; r->d = len; return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode cs_isend(OTF2_LocationRef loc, OTF2_TimeStamp t, void* ud, OTF2_AttributeList* al,
		uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t len, uint64_t req) {
	PUT(R_ISEND) r->a = peer; r->b = comm; r->c = tag; r->d = len; r->e = req; return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode cs_irecv(OTF2_LocationRef loc, OTF2_TimeStamp t, void* ud, OTF2_AttributeList* al,
		uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t len, uint64_t req) {
	PUT(R_IRECV) r->a = peer; r->b = comm; r->c = tag; r->d = len; r->e = req; return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode cs_isend_complete(OTF2_LocationRef loc, OTF2_TimeStamp t, void* ud, OTF2_AttributeList* al, uint64_t req) {
	PUT(R_ISEND_COMPLETE) r->e = req; return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode cs_irecv_request(OTF2_LocationRef loc, OTF2_TimeStamp t, void* ud, OTF2_AttributeList* al, uint64_t req) {
	PUT(R_IRECV_REQUEST) r->e = req; return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode cs_request_test(OTF2_LocationRef loc, OTF2_TimeStamp t, void* ud, OTF2_AttributeList* al, uint64_t req) {
	PUT(R_REQUEST_TEST) r->e = req; return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode cs_request_cancelled(OTF2_LocationRef loc, OTF2_TimeStamp t, void* ud, OTF2_AttributeList* al, uint64_t req) {
	PUT(R_REQUEST_CANCELLED) r->e = req; return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode cs_coll_begin(OTF2_LocationRef loc, OTF2_TimeStamp t, void* ud, OTF2_AttributeList* al) {
	PUT(R_COLL_BEGIN) return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode cs_coll_end(OTF2_LocationRef loc, OTF2_TimeStamp t, void* ud, OTF2_AttributeList* al,
		OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent, uint64_t recvd) {
	PUT(R_COLL_END) r->op = op; r->b = comm; r->c = root; r->d = sent; r->e = recvd; return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode cs_nbc_request(OTF2_LocationRef loc, OTF2_TimeStamp t, void* ud, OTF2_AttributeList* al, uint64_t req) {
	PUT(R_NBC_REQUEST) r->e = req; return OTF2_CALLBACK_SUCCESS;
}
// A nonblocking collective's completion: the fields of cs_coll_end and
// its request.
static OTF2_CallbackCode cs_nbc_complete(OTF2_LocationRef loc, OTF2_TimeStamp t, void* ud, OTF2_AttributeList* al,
		OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent, uint64_t recvd, uint64_t req) {
	PUT(R_NBC_COMPLETE) r->op = op; r->b = comm; r->c = root; r->d = sent; r->e = recvd; r->req = req; return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode cs_onoff(OTF2_LocationRef loc, OTF2_TimeStamp t, void* ud, OTF2_AttributeList* al, OTF2_MeasurementMode mode) {
	PUT(R_ONOFF) r->op = mode; return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode cs_program_begin(OTF2_LocationRef loc, OTF2_TimeStamp t, void* ud, OTF2_AttributeList* al,
		OTF2_StringRef name, uint32_t nargs, const OTF2_StringRef* args) {
	PUT(R_MARK) return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode cs_program_end(OTF2_LocationRef loc, OTF2_TimeStamp t, void* ud, OTF2_AttributeList* al, int64_t status) {
	PUT(R_MARK) return OTF2_CALLBACK_SUCCESS;
}

// Definitions, collected into a growable array (their number does not
// grow with the trace's length).
typedef struct {
	uint8_t   kind, typ, paradigm;
	uint32_t  id, a, b, flags, n;
	uint64_t  x, y;
	char*     s;
	uint64_t* members;
} cs_def;

typedef struct {
	cs_def* defs;
	size_t  n, cap;
	int     nomem;
} cs_defs;

enum { D_CLOCK = 1, D_STRING, D_REGION, D_LOCGROUP, D_LOCATION, D_GROUP, D_COMM };

static cs_def* cs_newdef(void* ud, uint8_t kind) {
	cs_defs* D = (cs_defs*)ud;
	if (D->n == D->cap) {
		size_t cap = D->cap ? 2 * D->cap : 256;
		cs_def* p = realloc(D->defs, cap * sizeof *p);
		if (!p) { D->nomem = 1; return NULL; }
		D->defs = p; D->cap = cap;
	}
	cs_def* d = &D->defs[D->n++];
	memset(d, 0, sizeof *d);
	d->kind = kind;
	return d;
}

#define NEWDEF(K) cs_def* d = cs_newdef(ud, K); if (!d) return OTF2_CALLBACK_ERROR;

static OTF2_CallbackCode cs_d_clock(void* ud, uint64_t res, uint64_t off, uint64_t len, uint64_t real) {
	NEWDEF(D_CLOCK) d->x = res; d->y = off; return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode cs_d_string(void* ud, OTF2_StringRef self, const char* s) {
	NEWDEF(D_STRING) d->id = self; d->s = strdup(s ? s : ""); return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode cs_d_region(void* ud, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canon,
		OTF2_StringRef descr, OTF2_RegionRole role, OTF2_Paradigm paradigm, OTF2_RegionFlag flags,
		OTF2_StringRef file, uint32_t begin, uint32_t end) {
	NEWDEF(D_REGION) d->id = self; d->a = name; d->paradigm = paradigm; return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode cs_d_locgroup(void* ud, OTF2_LocationGroupRef self, OTF2_StringRef name,
		OTF2_LocationGroupType typ, OTF2_SystemTreeNodeRef parent, OTF2_LocationGroupRef creator) {
	NEWDEF(D_LOCGROUP) d->id = self; d->typ = typ; return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode cs_d_location(void* ud, OTF2_LocationRef self, OTF2_StringRef name,
		OTF2_LocationType typ, uint64_t nevents, OTF2_LocationGroupRef group) {
	NEWDEF(D_LOCATION) d->x = self; d->y = nevents; d->a = group; d->typ = typ; return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode cs_d_group(void* ud, OTF2_GroupRef self, OTF2_StringRef name, OTF2_GroupType typ,
		OTF2_Paradigm paradigm, OTF2_GroupFlag flags, uint32_t n, const uint64_t* members) {
	NEWDEF(D_GROUP) d->id = self; d->a = name; d->typ = typ; d->paradigm = paradigm; d->flags = flags; d->n = n;
	if (n > 0) {
		d->members = malloc(n * sizeof(uint64_t));
		if (!d->members) { ((cs_defs*)ud)->nomem = 1; return OTF2_CALLBACK_ERROR; }
		memcpy(d->members, members, n * sizeof(uint64_t));
	}
	return OTF2_CALLBACK_SUCCESS;
}
static OTF2_CallbackCode cs_d_comm(void* ud, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group,
		OTF2_CommRef parent, OTF2_CommFlag flags) {
	NEWDEF(D_COMM) d->id = self; d->a = name; d->b = group; return OTF2_CALLBACK_SUCCESS;
}

static void cs_free_defs(cs_defs* D) {
	for (size_t i = 0; i < D->n; i++) {
		free(D->defs[i].s);
		free(D->defs[i].members);
	}
	free(D->defs);
	D->defs = NULL; D->n = D->cap = 0;
}

// The library reports errors through a process-wide callback; it keeps
// the last message of the calling thread (Go locks the thread while it
// reads) instead of printing it.
static __thread char cs_errmsg[512];

static OTF2_ErrorCode cs_error(void* ud, const char* file, uint64_t line, const char* fn,
		OTF2_ErrorCode code, const char* fmt, va_list va) {
	char m[400] = "";
	if (fmt) vsnprintf(m, sizeof m, fmt, va);
	snprintf(cs_errmsg, sizeof cs_errmsg, "%s%s%s", OTF2_Error_GetDescription(code), m[0] ? ": " : "", m);
	return code;
}

static void cs_init(void) { OTF2_Error_RegisterCallback(cs_error, NULL); }
static void cs_clear_error(void) { cs_errmsg[0] = 0; }
static const char* cs_last_error(void) { return cs_errmsg; }

static OTF2_ErrorCode cs_read_defs(OTF2_Reader* rd, cs_defs* D) {
	OTF2_GlobalDefReader* gd = OTF2_Reader_GetGlobalDefReader(rd);
	if (!gd) return OTF2_ERROR_INVALID;
	OTF2_GlobalDefReaderCallbacks* cb = OTF2_GlobalDefReaderCallbacks_New();
	OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, cs_d_clock);
	OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, cs_d_string);
	OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, cs_d_region);
	OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, cs_d_locgroup);
	OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, cs_d_location);
	OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, cs_d_group);
	OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, cs_d_comm);
	OTF2_Reader_RegisterGlobalDefCallbacks(rd, gd, cb, D);
	OTF2_GlobalDefReaderCallbacks_Delete(cb);
	uint64_t n = 0;
	OTF2_ErrorCode err = OTF2_Reader_ReadAllGlobalDefinitions(rd, gd, &n);
	OTF2_Reader_CloseGlobalDefReader(rd, gd);
	return err;
}

// cs_prepare selects the locations to read and opens their files; it
// returns whether local definition files exist.
static OTF2_ErrorCode cs_prepare(OTF2_Reader* rd, const uint64_t* locs, size_t n, int* defs) {
	OTF2_ErrorCode err;
	for (size_t i = 0; i < n; i++) {
		if ((err = OTF2_Reader_SelectLocation(rd, locs[i])) != OTF2_SUCCESS) return err;
	}
	*defs = OTF2_Reader_OpenDefFiles(rd) == OTF2_SUCCESS;
	return OTF2_Reader_OpenEvtFiles(rd);
}

static void cs_unprepare(OTF2_Reader* rd, int defs) {
	if (defs) OTF2_Reader_CloseDefFiles(rd);
	OTF2_Reader_CloseEvtFiles(rd);
}

// cs_open_events opens the event readers of one rank's locations, reads
// their local definitions (mapping tables and clock offsets, which the
// library then applies to their events) and returns a global event reader
// merging them in time order. Closing it closes their event readers and
// frees their chunk buffers, so one rank's buffers are held at a time.
static OTF2_GlobalEvtReader* cs_open_events(OTF2_Reader* rd, const uint64_t* locs, size_t n, int defs, cs_buf* buf, OTF2_ErrorCode* err) {
	for (size_t i = 0; i < n; i++) {
		if (!OTF2_Reader_GetEvtReader(rd, locs[i])) { *err = OTF2_ERROR_INVALID; return NULL; }
		if (defs) {
			OTF2_DefReader* dr = OTF2_Reader_GetDefReader(rd, locs[i]);
			if (dr) {
				uint64_t k = 0;
				*err = OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &k);
				OTF2_Reader_CloseDefReader(rd, dr);
				if (*err != OTF2_SUCCESS) return NULL;
			}
		}
	}
	OTF2_GlobalEvtReader* ge = OTF2_Reader_GetGlobalEvtReader(rd);
	if (!ge) { *err = OTF2_ERROR_INVALID; return NULL; }
	OTF2_GlobalEvtReaderCallbacks* cb = OTF2_GlobalEvtReaderCallbacks_New();
	OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, cs_enter);
	OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, cs_leave);
	OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(cb, cs_send);
	OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(cb, cs_recv);
	OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback(cb, cs_isend);
	OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback(cb, cs_irecv);
	OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, cs_isend_complete);
	OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, cs_irecv_request);
	OTF2_GlobalEvtReaderCallbacks_SetMpiRequestTestCallback(cb, cs_request_test);
	OTF2_GlobalEvtReaderCallbacks_SetMpiRequestCancelledCallback(cb, cs_request_cancelled);
	OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, cs_coll_begin);
	OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, cs_coll_end);
	OTF2_GlobalEvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(cb, cs_nbc_request);
	OTF2_GlobalEvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(cb, cs_nbc_complete);
	OTF2_GlobalEvtReaderCallbacks_SetMeasurementOnOffCallback(cb, cs_onoff);
	OTF2_GlobalEvtReaderCallbacks_SetProgramBeginCallback(cb, cs_program_begin);
	OTF2_GlobalEvtReaderCallbacks_SetProgramEndCallback(cb, cs_program_end);
	OTF2_Reader_RegisterGlobalEvtCallbacks(rd, ge, cb, buf);
	OTF2_GlobalEvtReaderCallbacks_Delete(cb);
	*err = OTF2_SUCCESS;
	return ge;
}

static OTF2_ErrorCode cs_read_events(OTF2_Reader* rd, OTF2_GlobalEvtReader* ge, cs_buf* buf, uint64_t* got) {
	*got = 0;
	buf->n = 0;
	return OTF2_Reader_ReadGlobalEvents(rd, ge, buf->cap, got);
}

// cs_layout returns the event and definition chunk sizes, and whether
// the per-location files are plain files (the POSIX substrate,
// uncompressed).
static int cs_layout(OTF2_Reader* rd, uint64_t* chunk, uint64_t* defs) {
	OTF2_FileSubstrate sub = OTF2_SUBSTRATE_UNDEFINED;
	OTF2_Compression comp = OTF2_COMPRESSION_UNDEFINED;
	if (OTF2_Reader_GetChunkSize(rd, chunk, defs) != OTF2_SUCCESS) return 0;
	if (OTF2_Reader_GetFileSubstrate(rd, &sub) != OTF2_SUCCESS) return 0;
	if (OTF2_Reader_GetCompression(rd, &comp) != OTF2_SUCCESS) return 0;
	return sub == OTF2_SUBSTRATE_POSIX && comp == OTF2_COMPRESSION_NONE;
}

static OTF2_Reader* cs_open(const char* path) {
	OTF2_Reader* rd = OTF2_Reader_Open(path);
	if (rd && OTF2_Reader_SetSerialCollectiveCallbacks(rd) != OTF2_SUCCESS) {
		OTF2_Reader_Close(rd);
		return NULL;
	}
	return rd;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"unsafe"

	"github.com/capsim/capsim/traces/mpi"
)

// batch is the number of event records read per call into the library.
const batch = 4096

var initOnce sync.Once

// Available reports whether this build can read OTF2 traces.
const Available = true

// Read imports the OTF2 trace whose anchor file (traces.otf2) is path, or
// whose folder is path. It reads the events of all locations merged in
// time order, batch by batch: memory beyond the returned trace stays
// bounded by the library's chunk buffers (one per location) and one batch
// of records, whatever the trace's length.
//
// The library checks what it reads and its errors are returned, but some
// corruptions of the binary files make it abort the process (its internal
// assertions) or read memory the file did not fill. Anchor's checks catch
// the missing files it can, and a walk of the global definitions file
// and of each location's event and local definitions files
// (checkGlobalDefs, checkEventFiles) the truncated and broken ones,
// before the library opens them.
//
// A collective in which a member sends another more than it receives
// (mpi.CheckSizes) is refused naming both calls by rank and event; the
// archive is then read again with Options.Where to name their locations
// and times too.
func Read(path string, opt Options) (*mpi.Trace, error) {
	t, err := read(path, opt)
	var se *mpi.SizeError
	if err != nil && !opt.Where && errors.As(err, &se) {
		o := opt
		o.Where, o.Stamps = true, false
		if _, again := read(path, o); again != nil && errors.As(again, &se) {
			return nil, again
		}
	}
	return t, err
}

// read is Read without naming a refused collective's locations.
func read(path string, opt Options) (*mpi.Trace, error) {
	anchor, err := Anchor(path)
	if err != nil {
		return nil, err
	}
	initOnce.Do(func() { C.cs_init() })
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	C.cs_clear_error()

	cpath := C.CString(anchor)
	defer C.free(unsafe.Pointer(cpath))
	rd := C.cs_open(cpath)
	if rd == nil {
		return nil, libError(anchor, "cannot open the archive", C.OTF2_ERROR_INVALID)
	}
	defer C.OTF2_Reader_Close(rd)

	if err := checkGlobalDefs(anchor, rd); err != nil {
		return nil, err
	}
	d, nevents, err := readDefs(anchor, rd)
	if err != nil {
		return nil, err
	}
	b, err := newBuilder(anchor, d, opt)
	if err != nil {
		return nil, err
	}
	p := planLocations(b, nevents)
	if len(p.all) == 0 {
		return b.finish(), nil
	}
	if err := checkEventFiles(anchor, rd, &p); err != nil {
		return nil, err
	}
	// Size each rank's event list from its record count: a Score-P MPI
	// call is three records (enter, the MPI record, leave) and becomes one
	// or two events, so half the records rarely needs a second growth.
	for rank, locs := range p.byRank {
		var n uint64
		for _, l := range locs {
			n += nevents[uint64(l)]
		}
		b.reserve(rank, min(n/2+16, 1<<26))
	}
	// The record buffer lives in C memory: the library keeps a pointer
	// to it (the callbacks' user data) between calls.
	buf := (*C.cs_buf)(C.calloc(1, C.size_t(unsafe.Sizeof(C.cs_buf{}))))
	cl := (*C.uint64_t)(C.malloc(C.size_t(len(p.all)) * 8))
	if buf != nil {
		buf.cap = batch
		buf.recs = (*C.cs_rec)(C.malloc(C.size_t(batch) * C.size_t(unsafe.Sizeof(C.cs_rec{}))))
	}
	defer func() {
		if buf != nil {
			C.free(unsafe.Pointer(buf.recs))
		}
		C.free(unsafe.Pointer(buf))
		C.free(unsafe.Pointer(cl))
	}()
	if buf == nil || buf.recs == nil || cl == nil {
		return nil, fmt.Errorf("otf2 %s: out of memory", anchor)
	}
	copy(unsafe.Slice(cl, len(p.all)), p.all)
	er := &eventReader{anchor: anchor, rd: rd, buf: buf, cl: cl, b: b, counted: p.counted, wantFrom: p.wantFrom, all: p.all}
	if code := C.cs_prepare(rd, cl, C.size_t(len(p.all)), &er.defsOpen); code != C.OTF2_SUCCESS {
		return nil, libError(anchor, "opening the event files", code)
	}
	defer C.cs_unprepare(rd, er.defsOpen)
	// One rank at a time: its threads merged in time order by a global
	// event reader over its locations only.
	for rank, locs := range p.byRank {
		if len(locs) == 0 {
			continue
		}
		if err := er.readRank(rank, locs, p.want[rank]); err != nil {
			return nil, err
		}
	}
	if err := er.copies(true); err != nil {
		return nil, err
	}
	t := b.finish()
	if err := b.checkSizes(t); err != nil {
		return nil, err
	}
	return t, nil
}

// libError is an error of the library while reading anchor: its last
// message, or the description of code.
func libError(anchor, what string, code C.OTF2_ErrorCode) error {
	msg := C.GoString(C.cs_last_error())
	if msg == "" {
		msg = C.GoString(C.OTF2_Error_GetDescription(code))
	}
	return fmt.Errorf("otf2 %s: %s: %s", anchor, what, msg)
}

// readDefs reads the global definitions, and the number of records each
// location's definition announces.
func readDefs(anchor string, rd *C.OTF2_Reader) (*defs, map[uint64]uint64, error) {
	var cd C.cs_defs
	defer C.cs_free_defs(&cd)
	if code := C.cs_read_defs(rd, &cd); code != C.OTF2_SUCCESS {
		return nil, nil, libError(anchor, "reading the global definitions "+strings.TrimSuffix(anchor, filepath.Ext(anchor))+".def", code)
	}
	if cd.nomem != 0 {
		return nil, nil, fmt.Errorf("otf2 %s: out of memory reading the definitions", anchor)
	}
	d := newDefs()
	var nevents = map[uint64]uint64{}
	for _, x := range unsafe.Slice(cd.defs, int(cd.n)) {
		switch x.kind {
		case C.D_CLOCK:
			d.resolution, d.offset = uint64(x.x), uint64(x.y)
		case C.D_STRING:
			d.strings[uint32(x.id)] = C.GoString(x.s)
		case C.D_REGION:
			d.regions[uint32(x.id)] = regionDef{name: uint32(x.a), paradigm: uint8(x.paradigm)}
		case C.D_LOCGROUP:
			d.locGroups[uint32(x.id)] = uint8(x.typ)
		case C.D_LOCATION:
			d.locations[uint64(x.x)] = uint32(x.a)
			nevents[uint64(x.x)] = uint64(x.y)
		case C.D_GROUP:
			g := groupDef{typ: uint8(x.typ), paradigm: uint8(x.paradigm), flags: uint32(x.flags)}
			if x.n > 0 {
				for _, m := range unsafe.Slice(x.members, int(x.n)) {
					g.members = append(g.members, uint64(m))
				}
			}
			d.groups[uint32(x.id)] = g
		case C.D_COMM:
			d.comms[uint32(x.id)] = commDef{name: uint32(x.a), group: uint32(x.b)}
		}
	}
	return d, nevents, nil
}

// locationPlan is the locations to read, grouped by rank, and the number
// of records the definitions announce for each rank. (A writer that
// leaves every count at 0 gets every location read without a limit.)
type locationPlan struct {
	byRank  [][]C.uint64_t
	want    []uint64
	all     []C.uint64_t
	counted bool // want is exact: announced by the definitions, or walked
	// wantFrom says where want comes from, for errors.
	wantFrom string
}

func planLocations(b *builder, nevents map[uint64]uint64) locationPlan {
	p := locationPlan{byRank: make([][]C.uint64_t, len(b.ranks)), want: make([]uint64, len(b.ranks)),
		wantFrom: "the definitions announce"}
	for _, n := range nevents {
		p.counted = p.counted || n > 0
	}
	for _, l := range sortedKeys64(b.locs) {
		if nevents[l] > 0 || !p.counted {
			r := b.locs[l].rank
			p.byRank[r] = append(p.byRank[r], C.uint64_t(l))
			p.want[r] += nevents[l]
			p.all = append(p.all, C.uint64_t(l))
		}
	}
	if !p.counted {
		for r := range p.want {
			p.want[r] = ^uint64(0)
		}
	}
	return p
}

// checkGlobalDefs walks the structure of the global definitions file
// before the library reads it, as checkEventFiles does the per-location
// files.
func checkGlobalDefs(anchor string, rd *C.OTF2_Reader) error {
	var chunk, defChunk C.uint64_t
	if C.cs_layout(rd, &chunk, &defChunk) == 0 {
		return nil
	}
	var buf []byte
	f := strings.TrimSuffix(anchor, filepath.Ext(anchor)) + ".def"
	if _, err := checkFile(f, globalDefFile, uint64(defChunk), &buf); err != nil {
		return fmt.Errorf("otf2 %s: its global definitions file %s %w", anchor, f, err)
	}
	return nil
}

// checkEventFiles walks the structure of the event files of p's
// locations, and of their local definitions files where they have one,
// before the library reads them (checkFile), and checks their number
// of events against the definitions' counts; where the
// definitions announce none, the walked counts become p's (so that the
// library, which reads a file's chunk buffers again past a truncated
// end, never delivers more records than the files hold). SION
// containers and compressed files are left to the library: their bytes
// on disk are not the chunks the walk reads.
func checkEventFiles(anchor string, rd *C.OTF2_Reader, p *locationPlan) error {
	var chunk, defChunk C.uint64_t
	if C.cs_layout(rd, &chunk, &defChunk) == 0 {
		return nil
	}
	var buf []byte
	walked := make([]uint64, len(p.byRank))
	for rank, locs := range p.byRank {
		var n uint64
		for _, l := range locs {
			f := evtFile(anchor, uint64(l))
			k, err := checkFile(f, eventFile, uint64(chunk), &buf)
			if errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("otf2 %s: rank %d: its event file %s is missing", anchor, rank, f)
			}
			if err != nil {
				return fmt.Errorf("otf2 %s: rank %d: its event file %s %w", anchor, rank, f, err)
			}
			f = strings.TrimSuffix(f, ".evt") + ".def"
			if _, err := checkFile(f, localDefFile, uint64(defChunk), &buf); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("otf2 %s: rank %d: its local definitions file %s %w", anchor, rank, f, err)
			}
			n += k
		}
		if p.counted && n != p.want[rank] {
			if err := anyCopy(anchor, p.all); err != nil {
				return err
			}
			return fmt.Errorf("otf2 %s: rank %d: its event files (%s) hold %d records where the definitions announce %d: a truncated or corrupted .evt file", anchor, rank, eventFiles(anchor, locs), n, p.want[rank])
		}
		walked[rank] = n
	}
	if !p.counted {
		p.want, p.counted, p.wantFrom = walked, true, "the walk of its files counted"
	}
	return nil
}

// missingEventFile returns the first event file of locs that is missing
// beside anchor (ANCHOR_WITHOUT_EXT/LOCATION.evt), "" when each is there.
// The library says only that it could not get a reader.
func missingEventFile(anchor string, locs []C.uint64_t) string {
	base := anchor[:len(anchor)-len(filepath.Ext(anchor))]
	for _, l := range locs {
		f := filepath.Join(base, fmt.Sprintf("%d.evt", uint64(l)))
		if _, err := os.Stat(f); errors.Is(err, fs.ErrNotExist) {
			return f
		}
	}
	return ""
}

// eventFiles names the event files of locs, for the library's errors,
// which name none (an emptied or truncated file: "Could not get local
// event reader").
func eventFiles(anchor string, locs []C.uint64_t) string {
	var b strings.Builder
	for i, l := range locs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(evtFile(anchor, uint64(l)))
	}
	return b.String()
}

// eventReader reads the events of one rank at a time through the record
// buffer buf into the builder.
type eventReader struct {
	anchor   string
	rd       *C.OTF2_Reader
	buf      *C.cs_buf
	cl       *C.uint64_t // room for every location
	defsOpen C.int
	b        *builder
	counted  bool
	wantFrom string
	all      []C.uint64_t // every location read
	r        record
}

// copies refuses two locations whose event files hold the same bytes
// (copyOf). With p2p set, only where either has point-to-point records:
// synthetic traces give locations of collectives or computation alone
// the same timeline, and so the same file (worker threads, ranks of
// collectives only, as in liballprof's examples), which no check can
// tell from a copy; a copy between locations that exchange messages
// would replay as a deadlock instead.
func (er *eventReader) copies(p2p bool) error {
	if !p2p {
		return anyCopy(er.anchor, er.all)
	}
	locs := make([]uint64, len(er.all))
	for i, l := range er.all {
		locs[i] = uint64(l)
	}
	of, err := copyOf(er.anchor, locs)
	if err != nil {
		return fmt.Errorf("otf2 %s: %w", er.anchor, err)
	}
	for i, j := range of {
		if j < 0 {
			continue
		}
		a, b := locs[j], locs[i]
		if !er.b.locs[a].p2p && !er.b.locs[b].p2p {
			continue
		}
		return copiedError(er.anchor, a, b)
	}
	return nil
}

// anyCopy refuses two of the event files of all that hold the same
// bytes (copyOf).
func anyCopy(anchor string, all []C.uint64_t) error {
	locs := make([]uint64, len(all))
	for i, l := range all {
		locs[i] = uint64(l)
	}
	of, err := copyOf(anchor, locs)
	if err != nil {
		return fmt.Errorf("otf2 %s: %w", anchor, err)
	}
	for i, j := range of {
		if j >= 0 {
			return copiedError(anchor, locs[j], locs[i])
		}
	}
	return nil
}

// readRank reads the events of rank's locations merged in time order,
// and checks their number against want, the definitions' count.
func (er *eventReader) readRank(rank int, locs []C.uint64_t, want uint64) error {
	rd, buf, anchor := er.rd, er.buf, er.anchor
	copy(unsafe.Slice(er.cl, len(locs)), locs)
	var code C.OTF2_ErrorCode
	var read uint64
	ge := C.cs_open_events(rd, er.cl, C.size_t(len(locs)), er.defsOpen, buf, &code)
	if ge == nil {
		if f := missingEventFile(anchor, locs); f != "" {
			return fmt.Errorf("otf2 %s: rank %d: its event file %s is missing", anchor, rank, f)
		}
		return libError(anchor, fmt.Sprintf("opening the events of rank %d (%s)", rank, eventFiles(anchor, locs)), code)
	}
	defer C.OTF2_Reader_CloseGlobalEvtReader(rd, ge)
	for {
		var got C.uint64_t
		code := C.cs_read_events(rd, ge, buf, &got)
		if code != C.OTF2_SUCCESS {
			return libError(anchor, fmt.Sprintf("reading the events of rank %d (%s)", rank, eventFiles(anchor, locs)), code)
		}
		if got == 0 {
			break
		}
		read += uint64(got)
		if read > want {
			// The library reads past the end of a truncated file
			// without noticing (what lies beyond is stale buffer
			// memory); the definitions' record counts catch it.
			if err := er.copies(false); err != nil {
				return err
			}
			return fmt.Errorf("otf2 %s: rank %d: its event files (%s) hold more records than %s (%d): a truncated or corrupted .evt file", anchor, rank, eventFiles(anchor, locs), er.wantFrom, want)
		}
		for _, x := range unsafe.Slice(buf.recs, int(buf.n)) {
			er.r = record{kind: recKind(x.kind), op: uint8(x.op), a: uint32(x.a), b: uint32(x.b), c: uint32(x.c),
				loc: uint64(x.loc), time: uint64(x.time), d: uint64(x.d), e: uint64(x.e), req: uint64(x.req)}
			if err := er.b.handle(&er.r); err != nil {
				return err
			}
		}
	}
	if er.counted && read != want {
		if err := er.copies(false); err != nil {
			return err
		}
		return fmt.Errorf("otf2 %s: rank %d: its event files (%s) hold %d records where %s %d: a truncated or corrupted .evt file", anchor, rank, eventFiles(anchor, locs), read, er.wantFrom, want)
	}
	return nil
}
