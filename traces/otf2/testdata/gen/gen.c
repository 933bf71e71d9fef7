/*
 * gen writes small OTF2 archives laid out as real tracers write them, with
 * the OTF2 writer library, as test data for capsim's OTF2 reader.
 *
 *   gen hybrid DIR     Score-P MPI+OpenMP+CUDA: 4 ranks, each with a master
 *                      thread, an OpenMP thread, a metric location and a
 *                      CUDA stream in an accelerator location group; a
 *                      2.1 GHz TSC clock with a global offset of three days
 *                      of ticks; split and self communicators, every OTF2
 *                      collective operation, nonblocking point-to-point with
 *                      a cancelled request, a nonblocking allreduce, RMA,
 *                      metrics, attributes, thread fork/join, a measurement
 *                      gap and per-location mapping tables and drifting clock
 *                      offsets.
 *   gen epoch-us DIR   A threaded program without MPI: one process with two
 *                      pthreads, a 1 MHz clock counting microseconds since
 *                      the Unix epoch and no global offset.
 *   gen unwind DIR     Score-P with unwinding: regions entered through
 *                      calling contexts (CallingContextEnter/Leave), a 1 GHz
 *                      clock_gettime clock with an epoch global offset, and
 *                      a sampling interrupt generator.
 *
 * Build and run through make.sh beside this file.
 */
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(x) do { OTF2_ErrorCode e_ = (x); if (e_ != OTF2_SUCCESS) { \
	fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, OTF2_Error_GetName(e_)); exit(1); } } while (0)

static OTF2_FlushType pre_flush(void* ud, OTF2_FileType ft, OTF2_LocationRef loc, void* cd, bool final) { return OTF2_FLUSH; }
static OTF2_TimeStamp post_flush(void* ud, OTF2_FileType ft, OTF2_LocationRef loc) { return 0; }
static OTF2_FlushCallbacks flush_cb = { pre_flush, post_flush };

static OTF2_Archive* open_archive(const char* dir) {
	OTF2_Archive* ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
		OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	if (!ar) { fprintf(stderr, "cannot create an archive in %s\n", dir); exit(1); }
	CHECK(OTF2_Archive_SetFlushCallbacks(ar, &flush_cb, NULL));
	CHECK(OTF2_Archive_SetSerialCollectiveCallbacks(ar));
	CHECK(OTF2_Archive_SetCreator(ar, "capsim traces/otf2/testdata/gen"));
	CHECK(OTF2_Archive_OpenEvtFiles(ar));
	return ar;
}

/* Global definitions: strings are numbered on first use, and defined then
 * once the global definition writer is open (open_defs defines those used
 * by events before). */
static OTF2_GlobalDefWriter* G;
static const char* strs[512];
static int nstrs;

static OTF2_StringRef S(const char* s) {
	for (int i = 0; i < nstrs; i++)
		if (strcmp(strs[i], s) == 0) return i;
	strs[nstrs] = strdup(s);
	if (G) CHECK(OTF2_GlobalDefWriter_WriteString(G, nstrs, s));
	return nstrs++;
}

static void open_defs(OTF2_Archive* ar) {
	G = OTF2_Archive_GetGlobalDefWriter(ar);
	if (!G) { fprintf(stderr, "no global definition writer\n"); exit(1); }
	for (int i = 0; i < nstrs; i++) CHECK(OTF2_GlobalDefWriter_WriteString(G, i, strs[i]));
}

/* A location being written: its writer and its clock in ticks. */
typedef struct {
	OTF2_EvtWriter* w;
	OTF2_LocationRef id;
	uint64_t t;
} loc_t;

static uint64_t tick_res; /* ticks per second */

/* adv moves the location's clock on by ns nanoseconds. */
static uint64_t adv(loc_t* l, uint64_t ns) {
	l->t += (uint64_t)((double)ns * (double)tick_res / 1e9 + 0.5);
	return l->t;
}

static uint64_t nevents(loc_t* l) {
	uint64_t n = 0;
	CHECK(OTF2_EvtWriter_GetNumberOfEvents(l->w, &n));
	return n;
}

/* ------------------------------------------------------------------ hybrid */

enum {
	R_MAIN, R_INIT, R_FINALIZE, R_SPLIT, R_COMM_RANK, R_SEND, R_RECV, R_ISEND, R_IRECV, R_WAIT, R_WAITALL,
	R_TEST, R_CANCEL, R_IALLREDUCE, R_WIN_CREATE, R_PUT, R_FENCE, R_WIN_FREE, R_SOLVE, R_OMP_PAR, R_OMP_LOOP,
	R_KERNEL, R_FLUSH, R_COMM_FREE, R_COLL /* R_COLL + op for ops 0..16 */
};
static const char* coll_names[17] = {
	"MPI_Barrier", "MPI_Bcast", "MPI_Gather", "MPI_Gatherv", "MPI_Scatter", "MPI_Scatterv", "MPI_Allgather",
	"MPI_Allgatherv", "MPI_Alltoall", "MPI_Alltoallv", "MPI_Alltoallw", "MPI_Allreduce", "MPI_Reduce",
	"MPI_Reduce_scatter", "MPI_Scan", "MPI_Exscan", "MPI_Reduce_scatter_block",
};
static const OTF2_RegionRole coll_roles[17] = {
	OTF2_REGION_ROLE_BARRIER, OTF2_REGION_ROLE_COLL_ONE2ALL, OTF2_REGION_ROLE_COLL_ALL2ONE,
	OTF2_REGION_ROLE_COLL_ALL2ONE, OTF2_REGION_ROLE_COLL_ONE2ALL, OTF2_REGION_ROLE_COLL_ONE2ALL,
	OTF2_REGION_ROLE_COLL_ALL2ALL, OTF2_REGION_ROLE_COLL_ALL2ALL, OTF2_REGION_ROLE_COLL_ALL2ALL,
	OTF2_REGION_ROLE_COLL_ALL2ALL, OTF2_REGION_ROLE_COLL_ALL2ALL, OTF2_REGION_ROLE_COLL_ALL2ALL,
	OTF2_REGION_ROLE_COLL_ALL2ONE, OTF2_REGION_ROLE_COLL_ALL2ALL, OTF2_REGION_ROLE_COLL_OTHER,
	OTF2_REGION_ROLE_COLL_OTHER, OTF2_REGION_ROLE_COLL_ALL2ALL,
};
#define NREG (R_COLL + 17)

/* Communicators: world, self, the even and odd halves of a split, and an
 * OpenMP thread team (not MPI). */
enum { C_WORLD, C_SELF, C_EVEN, C_ODD, C_TEAM };
enum { G_LOCS, G_WORLD, G_SELF, G_EVEN, G_ODD, G_OMP_LOCS, G_TEAM };

#define P 4
#define UNDEF_ROOT OTF2_UNDEFINED_UINT32

static OTF2_AttributeRef A_SRC_LINE = 0;

/* call writes an MPI call: enter, the records of fill, leave. */
#define CALL(l, reg, dur, body) do { \
	OTF2_EvtWriter_Enter((l)->w, NULL, adv((l), 0), (reg)); \
	adv((l), (dur) / 2); body; adv((l), (dur) - (dur) / 2); \
	CHECK(OTF2_EvtWriter_Leave((l)->w, NULL, (l)->t, (reg))); } while (0)

static void compute(loc_t* l, OTF2_RegionRef reg, uint64_t ns) {
	CHECK(OTF2_EvtWriter_Enter(l->w, NULL, l->t, reg));
	adv(l, ns);
	CHECK(OTF2_EvtWriter_Leave(l->w, NULL, l->t, reg));
}

/* Bytes sent and received by rank me of p in one collective call, as
 * Score-P counts them (own block included), block b. */
static void coll_bytes(int op, int me, int p, int root, uint64_t b, uint64_t* s, uint64_t* r) {
	*s = *r = 0;
	switch (op) {
	case OTF2_COLLECTIVE_OP_BARRIER: break;
	case OTF2_COLLECTIVE_OP_BCAST: *s = me == root ? b * p : 0; *r = b; break;
	case OTF2_COLLECTIVE_OP_GATHER: case OTF2_COLLECTIVE_OP_GATHERV: *s = b; *r = me == root ? b * p : 0; break;
	case OTF2_COLLECTIVE_OP_SCATTER: case OTF2_COLLECTIVE_OP_SCATTERV: *s = me == root ? b * p : 0; *r = b; break;
	case OTF2_COLLECTIVE_OP_REDUCE: *s = b; *r = me == root ? b * p : 0; break;
	case OTF2_COLLECTIVE_OP_REDUCE_SCATTER: case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK: *s = b * p; *r = b * p; break;
	case OTF2_COLLECTIVE_OP_SCAN: *s = b * (p - me); *r = b * (me + 1); break;
	case OTF2_COLLECTIVE_OP_EXSCAN: *s = b * (p - me - 1); *r = b * me; break;
	default: *s = b * p; *r = b * p; break; /* allgather(v), alltoall(v,w), allreduce */
	}
}

static void coll(loc_t* l, int op, OTF2_CommRef comm, int me, int p, int root, uint64_t b, uint64_t dur) {
	uint64_t s, r;
	coll_bytes(op, me, p, root, b, &s, &r);
	CALL(l, R_COLL + op, dur, {
		CHECK(OTF2_EvtWriter_MpiCollectiveBegin(l->w, NULL, l->t));
		adv(l, dur / 4);
		CHECK(OTF2_EvtWriter_MpiCollectiveEnd(l->w, NULL, l->t, op, comm, root, s, r));
	});
}

static void hybrid_master(loc_t* l, int rank, loc_t* metric, OTF2_AttributeList* al) {
	int right = (rank + 1) % P, left = (rank + P - 1) % P;
	int half = rank % 2 == 0 ? C_EVEN : C_ODD, hrank = rank / 2;
	CHECK(OTF2_EvtWriter_ProgramBegin(l->w, NULL, l->t, S("./app"), 0, NULL));
	CHECK(OTF2_EvtWriter_Enter(l->w, NULL, l->t, R_MAIN));
	adv(l, 40000 + 1000 * rank);
	CALL(l, R_INIT, 3000000, {});
	CALL(l, R_COMM_RANK, 200, {});
	/* MPI_Comm_split: a handle creation, no data; the new communicator
	 * is created by an event (OTF2 3, as Score-P 8 writes it). */
	CALL(l, R_SPLIT, 20000, {
		CHECK(OTF2_EvtWriter_MpiCollectiveBegin(l->w, NULL, l->t));
		CHECK(OTF2_EvtWriter_CommCreate(l->w, NULL, l->t, half));
		CHECK(OTF2_EvtWriter_MpiCollectiveEnd(l->w, NULL, adv(l, 100), OTF2_COLLECTIVE_OP_CREATE_HANDLE, C_WORLD, UNDEF_ROOT, 0, 0));
	});
	for (int it = 0; it < 2; it++) {
		/* Compute with a metric sample and an attribute on its enter. */
		OTF2_AttributeValue v;
		v.uint32 = 120 + it;
		CHECK(OTF2_AttributeList_AddAttribute(al, A_SRC_LINE, OTF2_TYPE_UINT32, v));
		CHECK(OTF2_EvtWriter_Enter(l->w, al, l->t, R_SOLVE));
		OTF2_Type ty = OTF2_TYPE_UINT64;
		OTF2_MetricValue mv;
		mv.unsigned_int = 1000000 * (it + 1);
		metric->t = l->t;
		CHECK(OTF2_EvtWriter_Metric(metric->w, NULL, metric->t, 0, 1, &ty, &mv));
		adv(l, 250000);
		CHECK(OTF2_EvtWriter_Leave(l->w, NULL, l->t, R_SOLVE));
		/* Halo exchange: irecv from the left, isend to the right, waitall. */
		uint64_t rreq = 2 * it + 1, sreq = 2 * it + 2;
		CALL(l, R_IRECV, 800, CHECK(OTF2_EvtWriter_MpiIrecvRequest(l->w, NULL, l->t, rreq)));
		CALL(l, R_ISEND, 1500, CHECK(OTF2_EvtWriter_MpiIsend(l->w, NULL, l->t, right, C_WORLD, 7, 65536, sreq)));
		CALL(l, R_TEST, 300, CHECK(OTF2_EvtWriter_MpiRequestTest(l->w, NULL, l->t, rreq)));
		CALL(l, R_WAITALL, 30000, {
			CHECK(OTF2_EvtWriter_MpiIsendComplete(l->w, NULL, l->t, sreq));
			CHECK(OTF2_EvtWriter_MpiIrecv(l->w, NULL, adv(l, 5000), left, C_WORLD, 7, 65536, rreq));
		});
	}
	/* A receive posted and cancelled. */
	CALL(l, R_IRECV, 700, CHECK(OTF2_EvtWriter_MpiIrecvRequest(l->w, NULL, l->t, 99)));
	CALL(l, R_CANCEL, 900, CHECK(OTF2_EvtWriter_MpiRequestCancelled(l->w, NULL, l->t, 99)));
	CALL(l, R_WAIT, 400, {});
	/* Blocking exchange on the split communicator (ranks of that comm). */
	if (hrank == 0)
		CALL(l, R_SEND, 4000, CHECK(OTF2_EvtWriter_MpiSend(l->w, NULL, l->t, 1, half, 3, 1024)));
	else
		CALL(l, R_RECV, 6000, CHECK(OTF2_EvtWriter_MpiRecv(l->w, NULL, l->t, 0, half, 3, 1024)));
	/* A message to itself over MPI_COMM_SELF. */
	CALL(l, R_ISEND, 500, CHECK(OTF2_EvtWriter_MpiIsend(l->w, NULL, l->t, 0, C_SELF, 1, 8, 50)));
	CALL(l, R_RECV, 500, CHECK(OTF2_EvtWriter_MpiRecv(l->w, NULL, l->t, 0, C_SELF, 1, 8)));
	CALL(l, R_WAIT, 300, CHECK(OTF2_EvtWriter_MpiIsendComplete(l->w, NULL, l->t, 50)));
	/* Every collective operation on the world, roots 2 (rooted) or none. */
	for (int op = 0; op <= OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK; op++) {
		int rooted = (op >= 1 && op <= 5) || op == OTF2_COLLECTIVE_OP_REDUCE;
		coll(l, op, C_WORLD, rank, P, rooted ? 2 : UNDEF_ROOT, 4096, 20000 + 500 * op);
	}
	/* A reduce and a bcast on the split halves. */
	coll(l, OTF2_COLLECTIVE_OP_REDUCE, half, hrank, 2, 1, 2048, 15000);
	coll(l, OTF2_COLLECTIVE_OP_BCAST, half, hrank, 2, 0, 2048, 15000);
	/* A nonblocking allreduce overlapped with compute. */
	CALL(l, R_IALLREDUCE, 1200, CHECK(OTF2_EvtWriter_NonBlockingCollectiveRequest(l->w, NULL, l->t, 77)));
	compute(l, R_SOLVE, 100000);
	CALL(l, R_WAIT, 9000, CHECK(OTF2_EvtWriter_NonBlockingCollectiveComplete(l->w, NULL, l->t,
		OTF2_COLLECTIVE_OP_ALLREDUCE, C_WORLD, UNDEF_ROOT, 8 * P, 8 * P, 77)));
	/* One-sided: a window, a put between fences, the window freed. */
	CALL(l, R_WIN_CREATE, 8000, {
		CHECK(OTF2_EvtWriter_RmaWinCreate(l->w, NULL, l->t, 0));
		CHECK(OTF2_EvtWriter_RmaCollectiveBegin(l->w, NULL, l->t));
		CHECK(OTF2_EvtWriter_RmaCollectiveEnd(l->w, NULL, adv(l, 100), OTF2_COLLECTIVE_OP_CREATE_HANDLE,
			OTF2_RMA_SYNC_LEVEL_NONE, 0, UNDEF_ROOT, 0, 0));
	});
	CALL(l, R_FENCE, 5000, {});
	CALL(l, R_PUT, 2000, {
		CHECK(OTF2_EvtWriter_RmaPut(l->w, NULL, l->t, 0, right, 4096, 1));
		CHECK(OTF2_EvtWriter_RmaOpCompleteBlocking(l->w, NULL, adv(l, 100), 0, 1));
	});
	CALL(l, R_FENCE, 5000, {});
	CALL(l, R_WIN_FREE, 3000, CHECK(OTF2_EvtWriter_RmaWinDestroy(l->w, NULL, l->t, 0)));
	CALL(l, R_COMM_FREE, 2000, {
		CHECK(OTF2_EvtWriter_MpiCollectiveBegin(l->w, NULL, l->t));
		CHECK(OTF2_EvtWriter_CommDestroy(l->w, NULL, l->t, half));
		CHECK(OTF2_EvtWriter_MpiCollectiveEnd(l->w, NULL, adv(l, 100), OTF2_COLLECTIVE_OP_DESTROY_HANDLE, half, UNDEF_ROOT, 0, 0));
	});
	/* Recording switched off for a while (SCOREP_RECORDING_OFF/ON). */
	CHECK(OTF2_EvtWriter_MeasurementOnOff(l->w, NULL, adv(l, 10000), OTF2_MEASUREMENT_OFF));
	CHECK(OTF2_EvtWriter_MeasurementOnOff(l->w, NULL, adv(l, 500000), OTF2_MEASUREMENT_ON));
	compute(l, R_FLUSH, 20000);
	adv(l, 5000);
	CALL(l, R_FINALIZE, 200000, {});
	adv(l, 1000);
	CHECK(OTF2_EvtWriter_Leave(l->w, NULL, l->t, R_MAIN));
	CHECK(OTF2_EvtWriter_ProgramEnd(l->w, NULL, l->t, 0));
}

/* hybrid_thread writes an OpenMP worker: a parallel region between the
 * master's fork and join, a loop in it, and an MPI call of its own
 * (MPI_THREAD_MULTIPLE). */
static void hybrid_thread(loc_t* l, int rank, uint64_t from) {
	l->t = from;
	CHECK(OTF2_EvtWriter_ThreadTeamBegin(l->w, NULL, l->t, C_TEAM));
	CHECK(OTF2_EvtWriter_Enter(l->w, NULL, l->t, R_OMP_PAR));
	compute(l, R_OMP_LOOP, 120000);
	int peer = rank ^ 1;
	if (rank % 2 == 0)
		CALL(l, R_SEND, 3000, CHECK(OTF2_EvtWriter_MpiSend(l->w, NULL, l->t, peer, C_WORLD, 11, 256)));
	else
		CALL(l, R_RECV, 3000, CHECK(OTF2_EvtWriter_MpiRecv(l->w, NULL, l->t, peer, C_WORLD, 11, 256)));
	CHECK(OTF2_EvtWriter_Leave(l->w, NULL, adv(l, 1000), R_OMP_PAR));
	CHECK(OTF2_EvtWriter_ThreadTeamEnd(l->w, NULL, l->t, C_TEAM));
}

static void hybrid_gpu(loc_t* l, uint64_t from) {
	l->t = from;
	for (int k = 0; k < 3; k++) {
		compute(l, R_KERNEL, 50000);
		adv(l, 20000);
	}
}

static void gen_hybrid(const char* dir) {
	OTF2_Archive* ar = open_archive(dir);
	const uint64_t res = 2100000000ULL;            /* 2.1 GHz TSC */
	const uint64_t offset = 3ULL * 86400 * res;    /* three days since boot */
	tick_res = res;
	/* Score-P's location ids: thread << 32 | rank. Metric and CUDA
	 * locations come after. */
	loc_t master[P], thread[P], metric[P], gpu[P];
	OTF2_AttributeList* al = OTF2_AttributeList_New();
	for (int r = 0; r < P; r++) {
		master[r] = (loc_t){ OTF2_Archive_GetEvtWriter(ar, r), r, offset + 17 * r };
		thread[r] = (loc_t){ OTF2_Archive_GetEvtWriter(ar, (1ULL << 32) | r), (1ULL << 32) | r, 0 };
		metric[r] = (loc_t){ OTF2_Archive_GetEvtWriter(ar, (2ULL << 32) | r), (2ULL << 32) | r, 0 };
		gpu[r] = (loc_t){ OTF2_Archive_GetEvtWriter(ar, (3ULL << 32) | r), (3ULL << 32) | r, 0 };
	}
	for (int r = 0; r < P; r++) {
		hybrid_master(&master[r], r, &metric[r], al);
	}
	/* The OpenMP thread and the CUDA stream run during the master's first
	 * solve: from its start, past main's prologue, MPI_Init, MPI_Comm_rank
	 * and MPI_Comm_split. */
	for (int r = 0; r < P; r++) {
		uint64_t start = offset + 17 * r + (uint64_t)((40000 + 1000 * r + 3000000 + 200 + 20000) * 2.1);
		hybrid_thread(&thread[r], r, start);
		hybrid_gpu(&gpu[r], start + 1000);
	}
	OTF2_AttributeList_Delete(al);
	uint64_t counts[4][P], last = 0;
	for (int r = 0; r < P; r++) {
		loc_t* ls[4] = { &master[r], &thread[r], &metric[r], &gpu[r] };
		for (int k = 0; k < 4; k++) {
			counts[k][r] = nevents(ls[k]);
			if (ls[k]->t > last) last = ls[k]->t;
			CHECK(OTF2_Archive_CloseEvtWriter(ar, ls[k]->w));
		}
	}
	CHECK(OTF2_Archive_CloseEvtFiles(ar));
	/* Local definitions as Score-P writes them on each master thread:
	 * clock offsets taken at the start and the end (rank r's clock is
	 * 2100·r ticks ahead at the start and 1050·r behind at the end: the
	 * library corrects its times by the line between them, so some fall
	 * before the global offset) and a region mapping table (the
	 * identity). */
	CHECK(OTF2_Archive_OpenDefFiles(ar));
	for (int r = 0; r < P; r++) {
		loc_t* ls[4] = { &master[r], &thread[r], &metric[r], &gpu[r] };
		for (int k = 0; k < 4; k++) {
			OTF2_DefWriter* dw = OTF2_Archive_GetDefWriter(ar, ls[k]->id);
			if (k == 0) {
				CHECK(OTF2_DefWriter_WriteClockOffset(dw, offset, -2100 * (int64_t)r, 0.0));
				CHECK(OTF2_DefWriter_WriteClockOffset(dw, last, 1050 * (int64_t)r, 0.0));
				uint64_t ids[NREG];
				for (int i = 0; i < NREG; i++) ids[i] = i;
				OTF2_IdMap* m = OTF2_IdMap_CreateFromUint64Array(NREG, ids, false);
				CHECK(OTF2_DefWriter_WriteMappingTable(dw, OTF2_MAPPING_REGION, m));
				OTF2_IdMap_Free(m);
			}
			CHECK(OTF2_Archive_CloseDefWriter(ar, dw));
		}
	}
	CHECK(OTF2_Archive_CloseDefFiles(ar));

	open_defs(ar);
	CHECK(OTF2_GlobalDefWriter_WriteClockProperties(G, res, offset, last - offset + 1, 1600000000000000000ULL));
	S("");
	CHECK(OTF2_GlobalDefWriter_WriteParadigm(G, OTF2_PARADIGM_MPI, S("MPI"), OTF2_PARADIGM_CLASS_PROCESS));
	CHECK(OTF2_GlobalDefWriter_WriteParadigm(G, OTF2_PARADIGM_OPENMP, S("OpenMP"), OTF2_PARADIGM_CLASS_THREAD_FORK_JOIN));
	CHECK(OTF2_GlobalDefWriter_WriteParadigm(G, OTF2_PARADIGM_CUDA, S("CUDA"), OTF2_PARADIGM_CLASS_ACCELERATOR));
	CHECK(OTF2_GlobalDefWriter_WriteAttribute(G, A_SRC_LINE, S("SOURCE_LINE"), S("line of the call"), OTF2_TYPE_UINT32));
	CHECK(OTF2_GlobalDefWriter_WriteSystemTreeNode(G, 0, S("machine"), S("cluster"), OTF2_UNDEFINED_SYSTEM_TREE_NODE));
	CHECK(OTF2_GlobalDefWriter_WriteSystemTreeNode(G, 1, S("node0"), S("node"), 0));
	CHECK(OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty(G, 1, S("hostname"), OTF2_TYPE_STRING,
		(OTF2_AttributeValue){ .stringRef = S("nid0001") }));
	for (int r = 0; r < P; r++) {
		char name[64];
		snprintf(name, sizeof name, "MPI Rank %d", r);
		CHECK(OTF2_GlobalDefWriter_WriteLocationGroup(G, r, S(name), OTF2_LOCATION_GROUP_TYPE_PROCESS, 1, OTF2_UNDEFINED_LOCATION_GROUP));
	}
	for (int r = 0; r < P; r++) {
		char name[64];
		snprintf(name, sizeof name, "CUDA Context %d", r);
		CHECK(OTF2_GlobalDefWriter_WriteLocationGroup(G, P + r, S(name), OTF2_LOCATION_GROUP_TYPE_ACCELERATOR, 1, r));
	}
	for (int r = 0; r < P; r++) {
		CHECK(OTF2_GlobalDefWriter_WriteLocation(G, master[r].id, S("Master thread"), OTF2_LOCATION_TYPE_CPU_THREAD, counts[0][r], r));
		CHECK(OTF2_GlobalDefWriter_WriteLocation(G, thread[r].id, S("OMP thread 1"), OTF2_LOCATION_TYPE_CPU_THREAD, counts[1][r], r));
		CHECK(OTF2_GlobalDefWriter_WriteLocation(G, metric[r].id, S("Per process metrics"), OTF2_LOCATION_TYPE_METRIC, counts[2][r], r));
		CHECK(OTF2_GlobalDefWriter_WriteLocation(G, gpu[r].id, S("CUDA[0:7]"), OTF2_LOCATION_TYPE_ACCELERATOR_STREAM, counts[3][r], P + r));
		CHECK(OTF2_GlobalDefWriter_WriteLocationProperty(G, gpu[r].id, S("CUDA_STREAM_ID"), OTF2_TYPE_UINT32,
			(OTF2_AttributeValue){ .uint32 = 7 }));
	}
	for (int i = 0; i < NREG; i++) {
		static const char* names[R_COLL] = {
			[R_MAIN] = "main", [R_INIT] = "MPI_Init_thread", [R_FINALIZE] = "MPI_Finalize", [R_SPLIT] = "MPI_Comm_split",
			[R_COMM_RANK] = "MPI_Comm_rank", [R_SEND] = "MPI_Send", [R_RECV] = "MPI_Recv", [R_ISEND] = "MPI_Isend",
			[R_IRECV] = "MPI_Irecv", [R_WAIT] = "MPI_Wait", [R_WAITALL] = "MPI_Waitall", [R_TEST] = "MPI_Test",
			[R_CANCEL] = "MPI_Cancel", [R_IALLREDUCE] = "MPI_Iallreduce", [R_WIN_CREATE] = "MPI_Win_create",
			[R_PUT] = "MPI_Put", [R_FENCE] = "MPI_Win_fence", [R_WIN_FREE] = "MPI_Win_free", [R_SOLVE] = "solve",
			[R_OMP_PAR] = "!$omp parallel @solver.c:42", [R_OMP_LOOP] = "!$omp for @solver.c:44",
			[R_KERNEL] = "stencil_kernel(double*, int)", [R_FLUSH] = "TRACE BUFFER FLUSH", [R_COMM_FREE] = "MPI_Comm_free",
		};
		const char* name = i < R_COLL ? names[i] : coll_names[i - R_COLL];
		OTF2_Paradigm par = OTF2_PARADIGM_MPI;
		OTF2_RegionRole role = OTF2_REGION_ROLE_FUNCTION;
		if (i >= R_COLL) role = coll_roles[i - R_COLL];
		else if (i == R_MAIN || i == R_SOLVE) par = OTF2_PARADIGM_COMPILER;
		else if (i == R_OMP_PAR) { par = OTF2_PARADIGM_OPENMP; role = OTF2_REGION_ROLE_PARALLEL; }
		else if (i == R_OMP_LOOP) { par = OTF2_PARADIGM_OPENMP; role = OTF2_REGION_ROLE_LOOP; }
		else if (i == R_KERNEL) par = OTF2_PARADIGM_CUDA;
		else if (i == R_FLUSH) { par = OTF2_PARADIGM_MEASUREMENT_SYSTEM; role = OTF2_REGION_ROLE_ARTIFICIAL; }
		else if (i == R_WAIT || i == R_WAITALL || i == R_TEST) role = OTF2_REGION_ROLE_POINT2POINT;
		CHECK(OTF2_GlobalDefWriter_WriteRegion(G, i, S(name), S(name), S(""), role, par, OTF2_REGION_FLAG_NONE,
			S(par == OTF2_PARADIGM_MPI ? "MPI" : "solver.c"), 0, 0));
	}
	uint64_t locs[P], world[P] = { 0, 1, 2, 3 }, even[2] = { 0, 2 }, odd[2] = { 1, 3 };
	for (int r = 0; r < P; r++) locs[r] = master[r].id;
	CHECK(OTF2_GlobalDefWriter_WriteGroup(G, G_LOCS, S(""), OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, P, locs));
	CHECK(OTF2_GlobalDefWriter_WriteGroup(G, G_WORLD, S(""), OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, P, world));
	CHECK(OTF2_GlobalDefWriter_WriteGroup(G, G_SELF, S(""), OTF2_GROUP_TYPE_COMM_SELF, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 0, NULL));
	CHECK(OTF2_GlobalDefWriter_WriteGroup(G, G_EVEN, S(""), OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 2, even));
	CHECK(OTF2_GlobalDefWriter_WriteGroup(G, G_ODD, S(""), OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 2, odd));
	/* OpenMP's locations: every CPU thread; rank 0's team is its first two. */
	uint64_t omp[2 * P], team[2] = { 0, 1 };
	for (int r = 0; r < P; r++) omp[2 * r] = master[r].id, omp[2 * r + 1] = thread[r].id;
	CHECK(OTF2_GlobalDefWriter_WriteGroup(G, G_OMP_LOCS, S(""), OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_OPENMP, OTF2_GROUP_FLAG_NONE, 2 * P, omp));
	CHECK(OTF2_GlobalDefWriter_WriteGroup(G, G_TEAM, S(""), OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_OPENMP, OTF2_GROUP_FLAG_NONE, 2, team));
	CHECK(OTF2_GlobalDefWriter_WriteComm(G, C_WORLD, S("MPI_COMM_WORLD"), G_WORLD, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
	CHECK(OTF2_GlobalDefWriter_WriteComm(G, C_SELF, S("MPI_COMM_SELF"), G_SELF, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
	CHECK(OTF2_GlobalDefWriter_WriteComm(G, C_EVEN, S("MPI_Comm 1"), G_EVEN, C_WORLD, OTF2_COMM_FLAG_CREATE_DESTROY_EVENTS));
	CHECK(OTF2_GlobalDefWriter_WriteComm(G, C_ODD, S("MPI_Comm 1"), G_ODD, C_WORLD, OTF2_COMM_FLAG_CREATE_DESTROY_EVENTS));
	CHECK(OTF2_GlobalDefWriter_WriteComm(G, C_TEAM, S("Thread team"), G_TEAM, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
	CHECK(OTF2_GlobalDefWriter_WriteRmaWin(G, 0, S("MPI_Win 0"), C_WORLD, OTF2_RMA_WIN_FLAG_NONE));
	CHECK(OTF2_GlobalDefWriter_WriteMetricMember(G, 0, S("PAPI_TOT_INS"), S("instructions"), OTF2_METRIC_TYPE_PAPI,
		OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL, 0, S("#")));
	OTF2_MetricMemberRef mm = 0;
	CHECK(OTF2_GlobalDefWriter_WriteMetricClass(G, 0, 1, &mm, OTF2_METRIC_ASYNCHRONOUS, OTF2_RECORDER_KIND_ABSTRACT));
	CHECK(OTF2_Archive_CloseGlobalDefWriter(ar, G));
	G = NULL;
	CHECK(OTF2_Archive_Close(ar));
}

/* ---------------------------------------------------------------- epoch-us */

static void gen_epoch_us(const char* dir) {
	OTF2_Archive* ar = open_archive(dir);
	tick_res = 1000000; /* µs */
	const uint64_t t0 = 1700000000000000ULL; /* µs since the epoch */
	enum { E_MAIN, E_WORK, E_LOCK };
	loc_t l[2] = { { OTF2_Archive_GetEvtWriter(ar, 0), 0, t0 }, { OTF2_Archive_GetEvtWriter(ar, 1), 1, 0 } };
	CHECK(OTF2_EvtWriter_ProgramBegin(l[0].w, NULL, l[0].t, S("./threads"), 0, NULL));
	CHECK(OTF2_EvtWriter_Enter(l[0].w, NULL, l[0].t, E_MAIN));
	adv(&l[0], 1000000);
	compute(&l[0], E_WORK, 2500000);
	CHECK(OTF2_EvtWriter_ThreadCreate(l[0].w, NULL, adv(&l[0], 3000), 0, 1));
	l[1].t = l[0].t + 10;
	CHECK(OTF2_EvtWriter_ThreadBegin(l[1].w, NULL, l[1].t, 0, 1));
	compute(&l[1], E_WORK, 4000000);
	compute(&l[1], E_LOCK, 7);
	CHECK(OTF2_EvtWriter_ThreadEnd(l[1].w, NULL, l[1].t, 0, 1));
	compute(&l[0], E_WORK, 1000000);
	l[0].t = l[1].t + 20;
	CHECK(OTF2_EvtWriter_ThreadWait(l[0].w, NULL, l[0].t, 0, 1));
	adv(&l[0], 2);
	CHECK(OTF2_EvtWriter_Leave(l[0].w, NULL, l[0].t, E_MAIN));
	CHECK(OTF2_EvtWriter_ProgramEnd(l[0].w, NULL, l[0].t, 0));
	uint64_t n[2] = { nevents(&l[0]), nevents(&l[1]) };
	for (int i = 0; i < 2; i++) CHECK(OTF2_Archive_CloseEvtWriter(ar, l[i].w));
	CHECK(OTF2_Archive_CloseEvtFiles(ar));
	open_defs(ar);
	CHECK(OTF2_GlobalDefWriter_WriteClockProperties(G, tick_res, 0, l[0].t + 1, OTF2_UNDEFINED_TIMESTAMP));
	S("");
	CHECK(OTF2_GlobalDefWriter_WriteSystemTreeNode(G, 0, S("laptop"), S("node"), OTF2_UNDEFINED_SYSTEM_TREE_NODE));
	CHECK(OTF2_GlobalDefWriter_WriteLocationGroup(G, 0, S("Process"), OTF2_LOCATION_GROUP_TYPE_PROCESS, 0, OTF2_UNDEFINED_LOCATION_GROUP));
	CHECK(OTF2_GlobalDefWriter_WriteLocation(G, 0, S("Master thread"), OTF2_LOCATION_TYPE_CPU_THREAD, n[0], 0));
	CHECK(OTF2_GlobalDefWriter_WriteLocation(G, 1, S("Pthread thread 1"), OTF2_LOCATION_TYPE_CPU_THREAD, n[1], 0));
	const char* names[] = { "main", "work", "pthread_mutex_lock" };
	OTF2_Paradigm pars[] = { OTF2_PARADIGM_COMPILER, OTF2_PARADIGM_COMPILER, OTF2_PARADIGM_PTHREAD };
	for (int i = 0; i < 3; i++)
		CHECK(OTF2_GlobalDefWriter_WriteRegion(G, i, S(names[i]), S(names[i]), S(""), OTF2_REGION_ROLE_FUNCTION, pars[i],
			OTF2_REGION_FLAG_NONE, S("app.c"), 0, 0));
	uint64_t locs[2] = { 0, 1 };
	CHECK(OTF2_GlobalDefWriter_WriteGroup(G, 0, S(""), OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_PTHREAD, OTF2_GROUP_FLAG_NONE, 2, locs));
	CHECK(OTF2_GlobalDefWriter_WriteGroup(G, 1, S(""), OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_PTHREAD, OTF2_GROUP_FLAG_NONE, 2, locs));
	CHECK(OTF2_GlobalDefWriter_WriteComm(G, 0, S("Process threads"), 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
	CHECK(OTF2_Archive_CloseGlobalDefWriter(ar, G));
	G = NULL;
	CHECK(OTF2_Archive_Close(ar));
}

/* ----------------------------------------------------------------- unwind */

static void gen_unwind(const char* dir) {
	OTF2_Archive* ar = open_archive(dir);
	tick_res = 1000000000ULL;
	const uint64_t offset = 1600000000123456789ULL; /* clock_gettime(CLOCK_REALTIME) */
	/* Regions and calling contexts: main > solve, main > MPI_Send|MPI_Recv|MPI_Allreduce. */
	enum { U_MAIN, U_SOLVE, U_SEND, U_RECV, U_ALLRED, U_INIT, U_FIN };
	const char* names[] = { "main", "solve", "MPI_Send", "MPI_Recv", "MPI_Allreduce", "MPI_Init", "MPI_Finalize" };
	loc_t l[2];
	for (int r = 0; r < 2; r++) {
		l[r] = (loc_t){ OTF2_Archive_GetEvtWriter(ar, r), r, offset + 1000 * r };
		loc_t* x = &l[r];
		/* calling context c = region c + 1 (0 is main's own), parent 0 */
#define CCE(c, d) CHECK(OTF2_EvtWriter_CallingContextEnter(x->w, NULL, x->t, (c), (d)))
#define CCL(c) CHECK(OTF2_EvtWriter_CallingContextLeave(x->w, NULL, x->t, (c)))
		CCE(U_MAIN, 2);
		adv(x, 5000);
		CCE(U_INIT, 1); adv(x, 900000); CCL(U_INIT);
		for (int it = 0; it < 3; it++) {
			CCE(U_SOLVE, 1);
			CHECK(OTF2_EvtWriter_CallingContextSample(x->w, NULL, adv(x, 40000), U_SOLVE, 1, 0));
			adv(x, 40000);
			CCL(U_SOLVE);
			if (r == 0) {
				CCE(U_SEND, 1); adv(x, 1000);
				CHECK(OTF2_EvtWriter_MpiSend(x->w, NULL, x->t, 1, 0, it, 1 << 20));
				adv(x, 90000); CCL(U_SEND);
			} else {
				CCE(U_RECV, 1); adv(x, 70000);
				CHECK(OTF2_EvtWriter_MpiRecv(x->w, NULL, x->t, 0, 0, it, 1 << 20));
				adv(x, 1000); CCL(U_RECV);
			}
			CCE(U_ALLRED, 1);
			CHECK(OTF2_EvtWriter_MpiCollectiveBegin(x->w, NULL, adv(x, 100)));
			CHECK(OTF2_EvtWriter_MpiCollectiveEnd(x->w, NULL, adv(x, 8000), OTF2_COLLECTIVE_OP_ALLREDUCE, 0, UNDEF_ROOT, 16, 16));
			adv(x, 100);
			CCL(U_ALLRED);
		}
		CCE(U_FIN, 1); adv(x, 30000); CCL(U_FIN);
		adv(x, 300);
		CCL(U_MAIN);
	}
	uint64_t n[2] = { nevents(&l[0]), nevents(&l[1]) };
	uint64_t last = l[0].t > l[1].t ? l[0].t : l[1].t;
	for (int i = 0; i < 2; i++) CHECK(OTF2_Archive_CloseEvtWriter(ar, l[i].w));
	CHECK(OTF2_Archive_CloseEvtFiles(ar));
	CHECK(OTF2_Archive_OpenDefFiles(ar));
	for (int i = 0; i < 2; i++) {
		OTF2_DefWriter* dw = OTF2_Archive_GetDefWriter(ar, i);
		CHECK(OTF2_DefWriter_WriteClockOffset(dw, offset, 0, 0.0));
		CHECK(OTF2_Archive_CloseDefWriter(ar, dw));
	}
	CHECK(OTF2_Archive_CloseDefFiles(ar));
	open_defs(ar);
	CHECK(OTF2_GlobalDefWriter_WriteClockProperties(G, tick_res, offset, last - offset + 1, offset));
	S("");
	CHECK(OTF2_GlobalDefWriter_WriteSystemTreeNode(G, 0, S("machine"), S("cluster"), OTF2_UNDEFINED_SYSTEM_TREE_NODE));
	for (int r = 0; r < 2; r++) {
		CHECK(OTF2_GlobalDefWriter_WriteLocationGroup(G, r, S(r ? "MPI Rank 1" : "MPI Rank 0"), OTF2_LOCATION_GROUP_TYPE_PROCESS, 0, OTF2_UNDEFINED_LOCATION_GROUP));
		CHECK(OTF2_GlobalDefWriter_WriteLocation(G, r, S("Master thread"), OTF2_LOCATION_TYPE_CPU_THREAD, n[r], r));
	}
	for (int i = 0; i < 7; i++) {
		OTF2_Paradigm par = i <= U_SOLVE ? OTF2_PARADIGM_SAMPLING : OTF2_PARADIGM_MPI;
		CHECK(OTF2_GlobalDefWriter_WriteRegion(G, i, S(names[i]), S(names[i]), S(""), OTF2_REGION_ROLE_FUNCTION, par,
			OTF2_REGION_FLAG_NONE, S(""), 0, 0));
	}
	CHECK(OTF2_GlobalDefWriter_WriteSourceCodeLocation(G, 0, S("app.c"), 10));
	for (int c = 0; c < 7; c++)
		CHECK(OTF2_GlobalDefWriter_WriteCallingContext(G, c, c, 0, c == U_MAIN ? OTF2_UNDEFINED_CALLING_CONTEXT : U_MAIN));
	CHECK(OTF2_GlobalDefWriter_WriteInterruptGenerator(G, 0, S("perf cycles"), OTF2_INTERRUPT_GENERATOR_MODE_COUNT,
		OTF2_BASE_DECIMAL, 0, 1000000));
	uint64_t locs[2] = { 0, 1 };
	CHECK(OTF2_GlobalDefWriter_WriteGroup(G, 0, S(""), OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 2, locs));
	CHECK(OTF2_GlobalDefWriter_WriteGroup(G, 1, S(""), OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 2, locs));
	CHECK(OTF2_GlobalDefWriter_WriteComm(G, 0, S("MPI_COMM_WORLD"), 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
	CHECK(OTF2_Archive_CloseGlobalDefWriter(ar, G));
	G = NULL;
	CHECK(OTF2_Archive_Close(ar));
}

int main(int argc, char** argv) {
	if (argc != 3) {
		fprintf(stderr, "usage: gen hybrid|epoch-us|unwind DIR\n");
		return 2;
	}
	if (strcmp(argv[1], "hybrid") == 0) gen_hybrid(argv[2]);
	else if (strcmp(argv[1], "epoch-us") == 0) gen_epoch_us(argv[2]);
	else if (strcmp(argv[1], "unwind") == 0) gen_unwind(argv[2]);
	else { fprintf(stderr, "gen: unknown trace %s\n", argv[1]); return 2; }
	return 0;
}
