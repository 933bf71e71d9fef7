package arrowtrace

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/capsim/capsim/internal/atomicfile"
	"github.com/capsim/capsim/traces/taskgraph"
)

// Task-profile files: one row per (kernel, threads, frequency)
// configuration with its time and incremental power, the frontier
// profiles of Anger's thesis (Georgia Tech 2016, §4.2.2); the Pareto
// frontier is not stored: readers compute it (taskgraph.Profiles.Pareto).
const (
	FormatProfiles = "task-profiles"
	// MetaMachine, MetaThreads and MetaIdleW describe the node the
	// profiles were taken on.
	MetaMachine = "capsim.machine"
	MetaThreads = "capsim.threads"
	MetaIdleW   = "capsim.idle_w"
)

const profileUnits = "time_s: s (average task time); power_w: W over idle (peak); freq_ghz: GHz, 0 = not varied"

var profileKernelType = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}

// WriteProfiles writes p to path as an Arrow task-profile file, atomically.
func WriteProfiles(path string, p *taskgraph.Profiles) error {
	return atomicfile.Write(path, func(w io.Writer) error { return EncodeProfiles(w, p) })
}

// EncodeProfiles writes p as an Arrow IPC file to w, kernels in sorted
// order, each kernel's rows by threads and frequency.
func EncodeProfiles(w io.Writer, p *taskgraph.Profiles) error {
	md := arrow.NewMetadata(
		[]string{MetaFormat, MetaVersion, MetaMachine, MetaThreads, MetaIdleW, MetaUnits},
		[]string{FormatProfiles, Version, p.Machine.Name, strconv.Itoa(p.Machine.Threads),
			strconv.FormatFloat(p.Machine.IdleW, 'g', -1, 64), profileUnits})
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "kernel", Type: profileKernelType},
		{Name: "threads", Type: arrow.PrimitiveTypes.Int32},
		{Name: "freq_ghz", Type: arrow.PrimitiveTypes.Float64},
		{Name: "time_s", Type: arrow.PrimitiveTypes.Float64},
		{Name: "power_w", Type: arrow.PrimitiveTypes.Float64},
	}, &md)
	fw, err := ipc.NewFileWriter(w, ipc.WithSchema(sc))
	if err != nil {
		return err
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	kb := b.Field(0).(*array.BinaryDictionaryBuilder)
	tb := b.Field(1).(*array.Int32Builder)
	fb := b.Field(2).(*array.Float64Builder)
	sb := b.Field(3).(*array.Float64Builder)
	pb := b.Field(4).(*array.Float64Builder)
	for _, k := range p.Kernels() {
		for _, c := range p.Kernel(k) {
			if err := kb.AppendString(k); err != nil {
				return err
			}
			tb.Append(c.Threads)
			fb.Append(c.FreqGHz)
			sb.Append(c.Time)
			pb.Append(c.Power)
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	if err := fw.Write(rec); err != nil {
		return err
	}
	return fw.Close()
}

// ReadProfiles reads an Arrow task-profile file.
func ReadProfiles(path string) (*taskgraph.Profiles, error) {
	return readPath(path, decodeProfiles)
}

// DecodeProfiles reads task profiles from the bytes of an Arrow IPC file;
// name is used in error messages.
func DecodeProfiles(data []byte, name string) (*taskgraph.Profiles, error) {
	return decodeProfiles(bytes.NewReader(data), name)
}

func decodeProfiles(r sizer, name string) (*taskgraph.Profiles, error) {
	d := &profileDecoder{name: name}
	if err := readFile(r, name, d); err != nil {
		return nil, err
	}
	if d.p.NumConfigs() == 0 {
		return nil, &FormatError{File: name, Row: -1, Msg: "no profile rows"}
	}
	return d.p, nil
}

type profileDecoder struct {
	name string
	col  map[string]int
	p    *taskgraph.Profiles
	row  int64
}

func (d *profileDecoder) rows() int64 { return d.row }

func (d *profileDecoder) errf(row int64, field, format string, a ...any) error {
	return &FormatError{File: d.name, Row: row, Field: field, Msg: fmt.Sprintf(format, a...)}
}

func (d *profileDecoder) format() string { return "" }

func (d *profileDecoder) schema(sc *arrow.Schema) error {
	md := sc.Metadata()
	if v, _ := md.GetValue(MetaFormat); v != FormatProfiles {
		return d.errf(-1, MetaFormat, "not a capsim task-profile file (metadata %s = %q)", MetaFormat, v)
	}
	if v, _ := md.GetValue(MetaVersion); v != Version {
		return d.errf(-1, MetaVersion, "unsupported format version %q (this capsim reads %s)", v, Version)
	}
	var m taskgraph.Machine
	m.Name, _ = md.GetValue(MetaMachine)
	v, _ := md.GetValue(MetaThreads)
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 1<<20 {
		return d.errf(-1, MetaThreads, "hardware thread count %q is not an integer in 1..%d", v, 1<<20)
	}
	m.Threads = n
	v, _ = md.GetValue(MetaIdleW)
	idle, err := strconv.ParseFloat(v, 64)
	if err != nil || !(idle >= 0) || math.IsInf(idle, 0) {
		return d.errf(-1, MetaIdleW, "idle power %q is not a finite number ≥ 0", v)
	}
	m.IdleW = idle
	d.p = taskgraph.NewProfiles(m)
	d.col, err = columns(sc, d.name, []column{
		{name: "kernel", typ: arrow.STRING}, {name: "threads", typ: arrow.INT32},
		{name: "freq_ghz", typ: arrow.FLOAT64}, {name: "time_s", typ: arrow.FLOAT64}, {name: "power_w", typ: arrow.FLOAT64},
	})
	return err
}

func (d *profileDecoder) batch(rec arrow.RecordBatch) error {
	threads, err := int32s(rec, d.col["threads"], "threads", d.name, d.row)
	if err != nil {
		return err
	}
	var f64 [3][]float64
	for k, name := range []string{"freq_ghz", "time_s", "power_w"} {
		a, ok := rec.Column(d.col[name]).(*array.Float64)
		if !ok || a.NullN() > 0 {
			return d.errf(d.row, name, "must be a non-null float64 column")
		}
		f64[k] = a.Float64Values()
	}
	kernel := newStringCol(rec.Column(d.col["kernel"]))
	for i := 0; i < int(rec.NumRows()); i++ {
		if kernel.isNull(i) {
			return d.errf(d.row, "kernel", "is null")
		}
		c := taskgraph.ProfileConfig{Threads: threads[i], FreqGHz: f64[0][i], Time: f64[1][i], Power: f64[2][i]}
		if err := d.p.Add(strings.Clone(kernel.value(i)), c); err != nil {
			field := "kernel"
			switch {
			case c.Threads < 1 || int(c.Threads) > d.p.Machine.Threads:
				field = "threads"
			case !(c.FreqGHz >= 0) || math.IsInf(c.FreqGHz, 0):
				field = "freq_ghz"
			case !(c.Time > 0) || math.IsInf(c.Time, 0):
				field = "time_s"
			case !(c.Power >= 0) || math.IsInf(c.Power, 0):
				field = "power_w"
			}
			return d.errf(d.row, field, "%v", err)
		}
		d.row++
	}
	return nil
}
