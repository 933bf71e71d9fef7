// Package importer is capsim's one registry of trace formats: it tells a
// trace's format from its content (magic bytes, then structure), reads it
// with the format's own package, and hands back either an MPI trace
// (package traces/mpi, lowered into an execution graph with the collective
// algorithms the caller chooses) or an execution graph (package
// traces/graph). Every command that takes a TRACE goes through Read.
//
// A file no format claims gets an *Error that says what the file looks like
// (a gzip archive, an OTF2 event file, a directory, ...) and what to do.
//
// Adding a format is one entry in the table that Formats returns: a name,
// a sniffing function over the first bytes of a file (and, for formats
// stored as folders, one over a directory), and a reader.
package importer

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/capsim/capsim/internal/bom"
	"github.com/capsim/capsim/traces/arrowtrace"
	"github.com/capsim/capsim/traces/chakra"
	"github.com/capsim/capsim/traces/dumpi"
	"github.com/capsim/capsim/traces/goal"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/liballprof"
	"github.com/capsim/capsim/traces/lower"
	"github.com/capsim/capsim/traces/mpi"
	"github.com/capsim/capsim/traces/otf2"
	"github.com/capsim/capsim/traces/simgrid"
)

// HeadSize is how many leading bytes of a file the sniffers see.
const HeadSize = 4096

// Format is one trace format the registry reads.
type Format struct {
	// Name is the format's name for --format ("goal", "liballprof", ...).
	Name string
	// Summary says in a few words what the format is.
	Summary string
	// Sniff reports whether head, the first HeadSize bytes of a file (or
	// all of a shorter one), are this format. Nil for folder-only formats.
	Sniff func(head []byte) bool
	// SniffDir reports whether the directory at path holds a trace of this
	// format. Nil when the format is never a directory.
	SniffDir func(path string) bool
	// Read imports the trace at path.
	Read func(path string, opt Options) (*Trace, error)
	// Files lists the files Read reads for the trace at path (rank files,
	// definitions, an index and what it lists). Nil when Read reads path
	// alone.
	Files func(path string) ([]string, error)
}

// Options controls Read.
type Options struct {
	// Format forces a format by name; "" sniffs the content.
	Format string
	// SimGrid are the options of SimGrid time-independent traces (the
	// machine speed that turns flops into time).
	SimGrid simgrid.Options
	// DUMPI are the options of DUMPI traces (which clock, region names).
	DUMPI dumpi.Options
	// OTF2 are the options of OTF2 traces.
	OTF2 otf2.Options
	// Liballprof are the options of liballprof traces.
	Liballprof liballprof.Options
	// Chakra are the options of Chakra execution traces (collective
	// algorithms, NCCL channels, replication).
	Chakra chakra.Options
	// AlignStarts starts every rank at 0. By default a trace that
	// recorded its ranks starting apart (graph.Recorded.StartNs) starts
	// each at its recorded start (mpi.Trace.StartNs, graph.Graph.StartNs),
	// as the recorded job did.
	AlignStarts bool
	// Archive bounds what reading a trace from an archive unpacks.
	Archive ArchiveLimits
}

// Trace is an imported trace: an MPI trace or an execution graph.
type Trace struct {
	Path   string
	Format string
	// MPI is the trace of MPI-level formats (liballprof, capsim's Arrow MPI
	// traces, ...); nil for graph-level ones.
	MPI *mpi.Trace
	// Graph is the execution graph of graph-level formats (GOAL, capsim's
	// Arrow execution graphs); nil for MPI-level ones.
	Graph *graph.Graph
	// Collectives are the format's own collective algorithms, used for
	// kinds the caller does not choose (liballprof: schedgen's).
	Collectives map[mpi.Kind]string
	// Chakra is the trace as read, for Chakra execution traces (whose
	// collectives Lower lowers again when the caller chooses algorithms).
	Chakra    *chakra.Trace
	chakraOpt chakra.Options
	// otf2Opt are the options an OTF2 trace was read with, to read it
	// again for where its events were recorded (Located).
	otf2Opt otf2.Options
}

// Lower returns the trace's execution graph: Graph as it is, or MPI
// lowered with the algorithms in algs (kinds left out take the format's
// choice, then lower's default).
func (t *Trace) Lower(algs map[mpi.Kind]string) (*graph.Graph, error) {
	if t.Chakra != nil && len(algs) > 0 {
		opt := t.chakraOpt
		opt.Algorithm = map[mpi.Kind]string{}
		for k, a := range t.chakraOpt.Algorithm {
			opt.Algorithm[k] = a
		}
		for k, a := range algs {
			opt.Algorithm[k] = a
		}
		c, err := chakra.Build(t.Chakra.Files, opt)
		if err != nil {
			return nil, err
		}
		return c.Graph, nil
	}
	if t.Graph != nil {
		if len(algs) > 0 {
			return nil, fmt.Errorf("%s: collective algorithms (--coll) apply to MPI traces, not to this execution graph (format %s), whose collectives are already its messages", t.Path, t.Format)
		}
		return t.Graph, nil
	}
	g, _, err := t.LowerMapped(algs)
	return g, err
}

// LowerMapped is Lower for MPI traces that also returns which operations
// each trace event became (see lower.LowerMapped).
func (t *Trace) LowerMapped(algs map[mpi.Kind]string) (*graph.Graph, *lower.EventMap, error) {
	if t.MPI == nil {
		return nil, nil, fmt.Errorf("%s: a %s trace is an execution graph, not an MPI trace", t.Path, t.Format)
	}
	all := map[mpi.Kind]string{}
	for k, a := range t.Collectives {
		all[k] = a
	}
	for k, a := range algs {
		all[k] = a
	}
	g, em, err := lower.LowerMapped(t.MPI, lower.Options{Algorithm: all})
	if err != nil {
		if t.Format == "otf2" {
			err = Relowered(err, t.MPI, t.Path, Options{Format: t.Format, OTF2: t.otf2Opt}, lower.Options{Algorithm: all})
		}
		return nil, nil, fmt.Errorf("%s: %w", t.Path, err)
	}
	return g, em, nil
}

// CommName returns the name of communicator id of an MPI trace ("" when
// unknown or for graphs), for network overrides that select messages by
// communicator.
func (t *Trace) CommName(id int32) string {
	if t.MPI == nil {
		return ""
	}
	if c := t.MPI.Comm(id); c != nil {
		return c.Name
	}
	return ""
}

// Formats returns the formats the registry reads, in sniffing order.
func Formats() []Format {
	return []Format{
		{Name: "arrow", Summary: "capsim's Apache Arrow traces (execution graph or MPI trace; IPC file or stream)",
			Sniff: arrowtrace.Sniff, Read: readArrow},
		{Name: "goal", Summary: "GOAL text schedules (LogGOPSim, schedgen, ATLAHS)",
			Sniff: sniffGOAL, Read: readGOAL},
		{Name: "liballprof", Summary: "liballprof MPI traces (LogGOPSim's tracer): the rank-0 .dat file or the folder",
			Sniff: liballprof.Sniff, SniffDir: liballprofDir, Read: readLiballprof, Files: liballprof.Files},
		{Name: "otf2", Summary: "OTF2 traces (Score-P, Vampir): the anchor file traces.otf2 or its folder",
			Sniff: func(head []byte) bool { return len(head) > 0 && otf2.Sniff(head, "") }, SniffDir: func(path string) bool { return otf2.Sniff(nil, path) }, Read: readOTF2, Files: otf2.Files},
		{Name: "dumpi", Summary: "DUMPI traces (SST DUMPI, CODES): the .meta file or the folder",
			Sniff: func(head []byte) bool { return dumpi.Sniff(head, "") }, SniffDir: dumpi.SniffDir, Read: readDUMPI, Files: dumpi.Files},
		{Name: "simgrid", Summary: "SimGrid time-independent traces (smpirun -trace-ti): the index file or a single-file trace",
			Sniff: simgrid.Sniff, Read: readSimGrid, Files: simgrid.Files},
		{Name: "chakra", Summary: "Chakra execution traces (MLCommons; ASTRA-sim, PyTorch): a <prefix>.<npu>.et file or the folder",
			Sniff: chakra.Sniff, SniffDir: chakraDir, Read: readChakra, Files: chakra.Paths},
	}
}

// formatNames lists the format names for messages.
func formatNames() string {
	var s []string
	for _, f := range Formats() {
		s = append(s, f.Name)
	}
	return strings.Join(s, ", ")
}

// Error is a file the registry cannot import: what it looks like and what
// to do about it.
type Error struct {
	Path  string
	Looks string // "a gzip archive"
	Hint  string // "unpack it first (gunzip FILE, or tar xzf FILE for a .tar.gz)"
}

func (e *Error) Error() string {
	s := e.Path + ": " + e.Looks
	if e.Hint != "" {
		s += ": " + e.Hint
	}
	return s
}

// Detect returns the format of the trace at path, sniffed by content, or an
// *Error saying what the file looks like. A pipe or device (read once) is
// not sniffed here, as that would consume its first bytes: Read sniffs a
// copy of its content.
func Detect(path string) (Format, error) {
	st, err := os.Stat(path)
	if err != nil {
		return Format{}, err
	}
	if st.IsDir() {
		for _, f := range Formats() {
			if f.SniffDir != nil && f.SniffDir(path) {
				return f, nil
			}
		}
		return Format{}, describeDir(path)
	}
	if !st.Mode().IsRegular() {
		// Sniffing would consume a pipe's first bytes; Read sniffs a
		// copy of its content instead.
		return Format{}, &Error{Path: path, Looks: "a pipe or device, read once", Hint: "Read sniffs it by its content"}
	}
	head, err := readHead(path)
	if err != nil {
		return Format{}, err
	}
	if len(head) == 0 {
		return Format{}, &Error{Path: path, Looks: "an empty file", Hint: "a trace has at least a header; was it written completely?"}
	}
	if f, ok := sniff(head); ok {
		return f, nil
	}
	return Format{}, describe(path, head)
}

// entry returns the file a trace of format f is read from when path
// names it: for a format of several files, a symbolic link to one of
// them (an OTF2 anchor, a DUMPI .meta, a liballprof rank file) is the
// file it points to, whose folder holds the others; the link's own folder
// does not ("the global definitions file link.def is missing").
func (f Format) entry(path string) string {
	if f.Files == nil {
		return path
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return path
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		if st, err := os.Stat(real); err == nil && st.Mode().IsRegular() {
			return real
		}
	}
	return path
}

// sniff returns the first format that claims a file opening with head.
func sniff(head []byte) (Format, bool) {
	for _, f := range Formats() {
		if f.Sniff != nil && f.Sniff(head) {
			return f, true
		}
	}
	return Format{}, false
}

// Read imports the trace at path: in the format opt.Format names, or else
// the one Detect finds. A tar, gzip (of a tar or of one file) or zip
// archive, told by its content, is unpacked into a temporary folder within
// opt.Archive's limits and the trace in it is read (see Inputs); errors
// name its files ARCHIVE:MEMBER.
func Read(path string, opt Options) (*Trace, error) {
	if streamed(path) {
		return readStreamed(path, opt)
	}
	if kind := archiveOf(path); kind != "" {
		return readArchive(path, path, kind, opt)
	}
	f, err := formatOf(path, opt)
	if err != nil {
		return nil, err
	}
	t, err := f.Read(f.entry(path), opt)
	if err != nil {
		return nil, forcedOther(err, path, opt)
	}
	t.Path, t.Format = path, f.Name
	t.setStarts(opt.AlignStarts)
	return t, nil
}

// forcedOther adds to err, an error reading path in the format opt
// forces, the format path's content has where that is another one: a
// forced format (--format, a scenario's workload.format) wrong for the
// trace otherwise reads as a fault of the trace.
func forcedOther(err error, path string, opt Options) error {
	if opt.Format == "" {
		return err
	}
	if g, derr := Detect(path); derr == nil && g.Name != opt.Format {
		return fmt.Errorf("%w (format %s was forced, but the content reads as %s)", err, opt.Format, g.Name)
	}
	return err
}

// setStarts starts each rank of t where the recorded run started it
// (graph.Recorded.Starts), or every rank at 0 with align.
func (t *Trace) setStarts(align bool) {
	switch {
	case t.MPI != nil:
		t.MPI.StartNs = nil
		if !align {
			t.MPI.StartNs = t.MPI.Recorded.Starts()
		}
	case t.Graph != nil:
		t.Graph.StartNs = nil
		if !align {
			t.Graph.StartNs = t.Graph.Recorded.Starts()
		}
	}
}

// formatOf is the format opt.Format names, or else the one Detect finds.
// Options of another format than the trace's are refused: they would
// have no effect.
func formatOf(path string, opt Options) (Format, error) {
	f, err := namedFormat(path, opt)
	if err != nil {
		return f, err
	}
	for _, o := range []struct {
		set          bool
		what, format string
	}{{opt.SimGrid.Speed != 0, "a host speed (--speed)", "simgrid"},
		{opt.Chakra.Replicate != 0, "replication (--replicate)", "chakra"},
		{opt.Chakra.Roofline != nil, "a roofline (--roofline)", "chakra"}} {
		if o.set && f.Name != o.format {
			return Format{}, fmt.Errorf("%s: %s applies to %s traces, not to this trace (format %s)", path, o.what, o.format, f.Name)
		}
	}
	return f, nil
}

func namedFormat(path string, opt Options) (Format, error) {
	if opt.Format == "" {
		return Detect(path)
	}
	for _, g := range Formats() {
		if g.Name == opt.Format {
			return g, nil
		}
	}
	return Format{}, fmt.Errorf("unknown trace format %q (capsim reads %s)", opt.Format, formatNames())
}

// Files returns the files that Read reads for the trace at path, the
// first the one path names when path is a file: every rank file of a
// liballprof, DUMPI (.meta and .bin) or SimGrid (index and action files)
// trace, an OTF2 trace's anchor, definitions and event files. A result
// computed from a trace depends on all of them (a sweep's identity hashes
// them). An archive is one file here; Inputs lists the members it reads.
func Files(path string, opt Options) ([]string, error) {
	if archiveOf(path) != "" {
		return []string{path}, nil
	}
	f, err := formatOf(path, opt)
	if err != nil {
		return nil, err
	}
	if f.Files == nil {
		return []string{path}, nil
	}
	files, err := f.Files(f.entry(path))
	if err != nil && !strings.Contains(err.Error(), path) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return files, err
}

func readHead(path string) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	head := make([]byte, HeadSize)
	n, err := io.ReadFull(fh, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return head[:n], nil
}

func readArrow(path string, _ Options) (*Trace, error) {
	kind, err := arrowtrace.Detect(path)
	if err != nil {
		return nil, err
	}
	switch kind {
	case arrowtrace.KindGraph:
		g, err := arrowtrace.ReadGraph(path)
		return &Trace{Graph: g}, err
	case arrowtrace.KindMPI:
		t, err := arrowtrace.ReadMPI(path)
		if err != nil || len(t.Algorithms) == 0 {
			return &Trace{MPI: t}, err
		}
		// The algorithms of the format it was converted from: it
		// replays as that trace does.
		for _, k := range mpi.Kinds() {
			if a, ok := t.Algorithms[k]; ok {
				if _, err := lower.ParseAlgorithms(k.String() + "=" + a); err != nil {
					return nil, &arrowtrace.FormatError{File: path, Row: -1, Field: arrowtrace.MetaCollectives, Msg: err.Error()}
				}
			}
		}
		return &Trace{MPI: t, Collectives: t.Algorithms}, nil
	}
	return nil, &Error{Path: path, Looks: "not an Arrow IPC file or stream", Hint: "pass --format for the format it is"}
}

func readGOAL(path string, _ Options) (*Trace, error) {
	g, err := goal.ReadFile(path)
	return &Trace{Graph: g}, err
}

func readLiballprof(path string, opt Options) (*Trace, error) {
	t, err := liballprof.ReadFileWith(path, opt.Liballprof)
	if t != nil {
		t.Algorithms = lower.SchedgenAlgorithms()
	}
	return &Trace{MPI: t, Collectives: lower.SchedgenAlgorithms()}, err
}

func readSimGrid(path string, opt Options) (*Trace, error) {
	t, err := simgrid.Read(path, opt.SimGrid)
	return &Trace{MPI: t}, err
}

func readOTF2(path string, opt Options) (*Trace, error) {
	t, err := otf2.Read(path, opt.OTF2)
	return &Trace{MPI: t, otf2Opt: opt.OTF2}, err
}

func readDUMPI(path string, opt Options) (*Trace, error) {
	t, err := dumpi.Read(path, opt.DUMPI)
	return &Trace{MPI: t}, err
}

func liballprofDir(path string) bool {
	files, err := liballprof.Files(path)
	var gap *liballprof.GapError
	switch {
	case errors.As(err, &gap): // a liballprof trace's gap: reading it names the missing rank file
		files = []string{gap.File}
	case err != nil || len(files) == 0:
		return false
	}
	head, err := readHead(files[0])
	return err == nil && liballprof.Sniff(head)
}

// sniffGOAL reports whether the first statement (after comments and blank
// lines) is "num_ranks N".
func sniffGOAL(head []byte) bool {
	inBlock := false
	for len(head) > 0 {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			head = nil
		}
		line = bytes.TrimSpace(line)
		for len(line) > 0 {
			if inBlock {
				i := bytes.Index(line, []byte("*/"))
				if i < 0 {
					line = nil
					break
				}
				line, inBlock = bytes.TrimSpace(line[i+2:]), false
				continue
			}
			if bytes.HasPrefix(line, []byte("//")) {
				line = nil
			} else if bytes.HasPrefix(line, []byte("/*")) {
				line, inBlock = line[2:], true
			} else {
				break
			}
		}
		if len(line) == 0 {
			continue
		}
		f := bytes.Fields(line)
		return len(f) >= 2 && string(f[0]) == "num_ranks"
	}
	return false
}

// archiveHint is what to do with an archive that Detect is given, or
// that is inside the archive Read unpacks.
const archiveHint = "pass the archive itself as the trace: capsim unpacks one tar, gzip or zip archive (not one inside another)"

// magic names the files that start with known bytes, and what to do.
var magics = []struct {
	prefix      string
	looks, hint string
}{
	{"\x1f\x8b", "a gzip archive", archiveHint},
	{"\x28\xb5\x2f\xfd", "a zstd archive", "unpack it first (zstd -d FILE, or tar --zstd -xf FILE) and pass the trace inside"},
	{"BZh", "a bzip2 archive", "unpack it first (bunzip2 FILE, or tar xjf FILE) and pass the trace inside"},
	{"\xfd7zXZ\x00", "an xz archive", "unpack it first (unxz FILE, or tar xJf FILE) and pass the trace inside"},
	{"PK\x03\x04", "a zip archive", archiveHint},
	{"PAR1", "a Parquet file", "capsim reads Arrow IPC: write the table with pyarrow.feather.write_feather, polars' write_ipc or DuckDB's COPY ... (FORMAT arrow)"},
	{"\x03\x42", "an OTF2 definition or event file", "pass the trace's anchor file (traces.otf2) or its folder"},
	{"\x03\x23", "an OTF2 definition or event file", "pass the trace's anchor file (traces.otf2) or its folder"},
}

// describe says what a file no format claims looks like.
func describe(path string, head []byte) error {
	for _, m := range magics {
		if bytes.HasPrefix(head, []byte(m.prefix)) {
			return &Error{Path: path, Looks: m.looks, Hint: m.hint}
		}
	}
	if len(head) > 262 && string(head[257:262]) == "ustar" {
		return &Error{Path: path, Looks: "a tar archive", Hint: archiveHint}
	}
	if rest, ok := bom.Cut(head); ok {
		if f, ok := sniff(rest); ok {
			return &Error{Path: path, Looks: "a " + f.Name + " trace with a UTF-8 byte-order mark before its first line",
				Hint: "save it without one (sed -i '1s/^\\xEF\\xBB\\xBF//' FILE)"}
		}
	}
	if liballprofOther(head) {
		return &Error{Path: path, Looks: "a liballprof trace without its MPI_Init record",
			Hint: "pass the rank-0 file (NAME-0.dat) or the folder"}
	}
	return &Error{Path: path, Looks: "a file of no format capsim recognises (it starts with " + excerpt(head) + ")",
		Hint: "capsim reads " + formatNames() + "; pass --format to force one"}
}

// liballprofOther reports MPI call records without a leading MPI_Init.
func liballprofOther(head []byte) bool {
	return bytes.HasPrefix(bytes.TrimSpace(head), []byte("MPI_")) && bytes.Contains(head, []byte(":"))
}

// describeDir says what a directory no format claims holds.
func describeDir(path string) error {
	ents, err := os.ReadDir(path)
	if err != nil {
		return err
	}
	var metas []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".meta") && e.Type().IsRegular() {
			metas = append(metas, e.Name())
		}
	}
	if len(metas) > 1 {
		return &Error{Path: path, Looks: fmt.Sprintf("a folder of %d DUMPI traces (%s)", len(metas), strings.Join(metas, ", ")),
			Hint: "pass the .meta file of the one meant"}
	}
	var names, empty []string
	for _, e := range ents {
		n := e.Name()
		switch {
		case strings.HasSuffix(n, ".otf2"):
			return &Error{Path: path, Looks: "a folder with the OTF2 anchor file " + n + " but not a readable OTF2 trace (several anchors, or its .def file or folder missing)", Hint: "pass the anchor file itself"}
		}
		names = append(names, n)
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() && info.Size() == 0 {
			empty = append(empty, n)
		}
	}
	sort.Strings(names)
	if len(names) > 5 {
		names = append(names[:5], "…")
	}
	hint := "pass a trace file, or a liballprof folder with a NAME-0.dat file"
	if len(empty) > 0 {
		// A trace whose files were created but never written (a copy
		// or a run that stopped) is not told by its content.
		sort.Strings(empty)
		hint = fmt.Sprintf("%s is empty: was it written completely?", filepath.Join(path, empty[0]))
	}
	if len(names) == 0 {
		return &Error{Path: path, Looks: "an empty directory", Hint: "a copy or an unpacking that has not happened? " + hint}
	}
	return &Error{Path: path, Looks: fmt.Sprintf("a directory (%s) holding no trace capsim recognises", strings.Join(names, ", ")), Hint: hint}
}

// excerpt quotes at most 24 leading bytes of head when they are printable
// text, and otherwise gives them in hex.
func excerpt(head []byte) string {
	b := head[:min(len(head), 24)]
	printable := utf8.Valid(b)
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\t' && c != '\r' || c == 0x7f {
			printable = false
		}
	}
	if printable {
		s := strconv.Quote(string(b))
		if len(head) > len(b) {
			s += "…"
		}
		return s
	}
	return fmt.Sprintf("bytes % x", b[:min(len(b), 8)])
}

// OpDescriber returns a function that names an operation of the graph
// Lower(algs) returns by the MPI call it was lowered from (rank, call,
// peer or root, communicator, where it was read as mpi.Trace.Describe
// names it; for a collective, which call of its communicator it is), then as the lowered operation: for messages
// such as a replay deadlock's, where the lowered point-to-point messages
// of a collective alone ("recv 0b from 0 tag 1073741824") do not say
// which call of the program is stuck. It is nil when lowering fails.
//
// For an execution graph read from a GOAL, Arrow or Chakra file it names
// each operation in the file's terms, as GraphDescriber does ("rank 1
// l1: recv 4096b from 0 tag 7 (x.goal:6)"); the file is read again on the
// first call, so that a replay keeps none. It is nil for a graph from a
// pipe or an archive.
func (t *Trace) OpDescriber(algs map[mpi.Kind]string) func(op int32) string {
	if t.MPI == nil {
		if t.Graph == nil || streamed(t.Path) {
			return nil
		}
		switch t.Format {
		case "goal":
			return goalDescriber(t.Path, t.Graph)
		case "chakra":
			return chakra.Describer(t.Path, t.Graph)
		case "arrow":
			return arrowDescriber(t.Path, t.Graph)
		}
		return nil
	}
	g, em, err := t.LowerMapped(algs)
	if err != nil {
		return nil
	}
	mt := t.MPI
	if t.Format == "otf2" {
		mt = Located(mt, t.Path, Options{Format: t.Format, OTF2: t.otf2Opt})
	}
	return em.Describer(mt, g)
}

// Located returns the MPI trace t, read from path with opt, with where
// each of its events was recorded, for a format that keeps that only when
// asked: an OTF2 archive is read again with otf2.Options.Where, which
// names an event by its location, event file and timestamp
// (mpi.Trace.Where). It returns t itself for other formats, a trace read
// from an archive or a pipe, and when the file no longer gives t's
// events. Error messages call it: a replay that succeeds reads nothing
// again.
func Located(t *mpi.Trace, path string, opt Options) *mpi.Trace {
	if t == nil || t.Where != nil || streamed(path) || archiveOf(path) != "" {
		return t
	}
	if f, err := formatOf(path, opt); err != nil || f.Name != "otf2" {
		return t
	}
	o := opt.OTF2
	o.Where, o.Stamps = true, false
	again, err := otf2.Read(path, o)
	if err != nil || again.Where == nil || !sameEvents(t, again) {
		return t
	}
	c := *t
	c.Where = again.Where
	return &c
}

// Relowered returns err, an error lowering t (read from path with opt)
// with lo, made again from t with where each event was recorded
// (Located) when err is a lowering error (*lower.Error, such as a
// collective call whose members disagree) of a format that keeps that
// only when asked; err itself otherwise.
func Relowered(err error, t *mpi.Trace, path string, opt Options, lo lower.Options) error {
	if _, ok := err.(*lower.Error); !ok {
		return err
	}
	lt := Located(t, path, opt)
	if lt == t {
		return err
	}
	if _, lerr := lower.Lower(lt, lo); lerr != nil {
		if _, ok := lerr.(*lower.Error); ok {
			return lerr
		}
	}
	return err
}

// sameEvents reports whether a and b have the same ranks with the same
// kinds of events in the same order.
func sameEvents(a, b *mpi.Trace) bool {
	if len(a.Ranks) != len(b.Ranks) {
		return false
	}
	for r := range a.Ranks {
		ea, eb := a.Ranks[r].Events, b.Ranks[r].Events
		if len(ea) != len(eb) {
			return false
		}
		for i := range ea {
			if ea[i].Kind != eb[i].Kind {
				return false
			}
		}
	}
	return true
}

// GraphDescriber returns a function that names operation op of g, the
// execution graph read from the file at path, in that file's terms: a
// GOAL operation by its label as written and its line ("rank 1 l1: recv
// 4096b from 0 tag 7 (x.goal:6)"; "rank 1: …" for a line without a
// label), an Arrow execution graph's by its label and row ("rank 1: recv
// 4096b from 0 tag 7 (x.arrow row 12)"), a Chakra one's by its node
// (chakra.Describer). The file is read again on the first call. It is
// nil when path is none of these (a pipe, a tar or zip archive, another
// format); a gzipped file is read as the GOAL file it may hold.
func GraphDescriber(path string, g *graph.Graph) func(op int32) string {
	if g == nil || streamed(path) {
		return nil
	}
	switch archiveOf(path) {
	case "":
	case "gzip": // one gzipped GOAL file or Arrow graph
		if head, err := gunzipped(path, HeadSize); err == nil && arrowtrace.Sniff(head) {
			return arrowDescriber(path, g)
		}
		return goalDescriber(path, g)
	default:
		return nil
	}
	f, err := Detect(path)
	if err != nil {
		return nil
	}
	switch f.Name {
	case "chakra":
		return chakra.Describer(path, g)
	case "goal":
		return goalDescriber(path, g)
	case "arrow":
		return arrowDescriber(path, g)
	}
	return nil
}

// gunzipped returns the first n bytes (all for n < 0) of the gzipped
// file at path, unpacked: for describers, which run after the file was
// read once within the archive limits.
func gunzipped(path string, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	var r io.Reader = zr
	if n >= 0 {
		r = io.LimitReader(zr, n)
	}
	b, err := io.ReadAll(r)
	if err == io.ErrUnexpectedEOF && n >= 0 {
		err = nil
	}
	return b, err
}

// inFile names operation op of g as its file does: the rank, the label
// the file gives it ("" for none, where g.Describe would make up l<n>),
// the operation and where the file holds it.
func inFile(g *graph.Graph, op int32, label, where string) string {
	r := g.RankOf(op)
	what := strings.TrimPrefix(g.Describe(op), fmt.Sprintf("rank %d %s: ", r, g.Label(op)))
	if label != "" {
		return fmt.Sprintf("rank %d %s: %s (%s)", r, label, what, where)
	}
	return fmt.Sprintf("rank %d: %s (%s)", r, what, where)
}

// goalDescriber names operation op of g, read from the GOAL file at
// path, by its label as written and its line in path, which it reads
// again on its first call; as g.Describe does when the file no longer
// gives g's operations.
func goalDescriber(path string, g *graph.Graph) func(op int32) string {
	var src [][]goal.OpSource
	read := false
	return func(op int32) string {
		if !read {
			read = true
			src, _ = goal.OpSources(path)
			if len(src) != g.NumRanks() {
				src = nil
			}
			for r := range src {
				if len(src[r]) != int(g.RankStart[r+1]-g.RankStart[r]) {
					src = nil
					break
				}
			}
		}
		if op < 0 || int(op) >= g.NumOps() || src == nil {
			return g.Describe(op)
		}
		r := g.RankOf(op)
		s := src[r][op-g.RankStart[r]]
		return inFile(g, op, s.Label, fmt.Sprintf("%s:%d", path, s.Line))
	}
}

// arrowDescriber names operation op of g, read from the Arrow execution
// graph at path, by its label (none where the file's is null) and its
// row, counted from 0 as the file's errors count them: row op, since the
// file holds one row per operation in order. It reads the file (or the
// one it gzips) again on its first call to check that it still holds g's ranks and labels; as
// g.Describe does when not.
func arrowDescriber(path string, g *graph.Graph) func(op int32) string {
	var again *graph.Graph
	read := false
	return func(op int32) string {
		if !read {
			read = true
			var a *graph.Graph
			var err error
			if archiveOf(path) == "gzip" {
				var data []byte
				if data, err = gunzipped(path, -1); err == nil {
					a, err = arrowtrace.DecodeGraph(data, path)
				}
			} else {
				a, err = arrowtrace.ReadGraph(path)
			}
			if err == nil && slices.Equal(a.RankStart, g.RankStart) &&
				(a.Labels == nil || len(a.Labels) == g.NumOps()) {
				again = a
			}
		}
		if op < 0 || int(op) >= g.NumOps() || again == nil {
			return g.Describe(op)
		}
		label := ""
		if again.Labels != nil {
			label = again.Labels[op]
		}
		return inFile(g, op, label, fmt.Sprintf("%s row %d", path, op))
	}
}

// chakraDir reports whether the folder at path holds Chakra files: NPU 0's
// opens like one.
func chakraDir(path string) bool {
	paths, err := chakra.Paths(path)
	if err != nil {
		// A folder of NPU files that Paths refuses (a gap in the NPU
		// numbers, two prefixes, no NPU 0) is Chakra's to diagnose when
		// its NPU 0 file, or without one another NPU's, opens as one.
		if paths, _ = filepath.Glob(filepath.Join(path, "*.0.et")); len(paths) == 0 {
			if paths, _ = filepath.Glob(filepath.Join(path, "*.[0-9]*.et")); len(paths) == 0 {
				return false
			}
		}
	}
	head, err := readHead(paths[0])
	return err == nil && chakra.Sniff(head)
}

func readChakra(path string, opt Options) (*Trace, error) {
	c, err := chakra.Read(path, opt.Chakra)
	if err != nil {
		return nil, err
	}
	return &Trace{Graph: c.Graph, Chakra: c, chakraOpt: opt.Chakra}, nil
}
