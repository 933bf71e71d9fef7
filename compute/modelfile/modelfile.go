// Package modelfile reads and writes capsim compute-model files: a
// human-readable, versioned JSON document mapping region-name glob
// patterns to models, with a default, and turns it into a compute.Set for
// a compute.Pricer.
//
//	{
//	  "format": "capsim-compute-model",
//	  "version": 1,
//	  "recorded": {"cpu_ghz": 2.6, "threads": 8},
//	  "default": {"kind": "measured", "params": {"scale": 1}},
//	  "regions": [
//	    {"pattern": "solve_*", "kind": "dvfs", "params": {"beta": 0.6, "ref_ghz": 2.6}}
//	  ]
//	}
//
// Built-in kinds are measured, table, dvfs, cos and cos-bgq; other model
// packages plug in through Decoders.
package modelfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/cos"
	"github.com/capsim/capsim/compute/dvfs"
	"github.com/capsim/capsim/compute/power"
	"github.com/capsim/capsim/compute/table"
	"github.com/capsim/capsim/internal/jsondup"
)

// Format is the value of the "format" field.
const Format = "capsim-compute-model"

// Version is the file version this package writes and reads.
const Version = 1

// Entry is one model in a file: a kind and its JSON parameters. In
// "regions" it also carries the region-name glob Pattern.
type Entry struct {
	Pattern string          `json:"pattern,omitempty"`
	Kind    compute.Kind    `json:"kind"`
	Note    string          `json:"note,omitempty"` // free text, e.g. fit statistics
	Params  json.RawMessage `json:"params"`
}

// File is a decoded model file.
type File struct {
	Format   string         `json:"format"`
	Version  int            `json:"version"`
	Recorded compute.Config `json:"recorded"`
	Machine  *Machine       `json:"machine,omitempty"`
	Default  *Entry         `json:"default,omitempty"`
	Regions  []Entry        `json:"regions"`
}

// Machine is the power of the machine a trace is replayed on, for energy
// accounting (Anger, PhD thesis, Georgia Tech 2016, §4.1.1–4.1.2, Eq. 5):
// BaseW, the whole job's (not a socket's), is drawn for the whole run
// (sockets, uncore); each rank's core draws IdleW before its first task,
// ActiveW while busy unless the region's model predicts a power, and
// between tasks what Wait says.
//
// With Sockets set, node power follows the per-socket two-segment model
// instead (Anger's thesis §4.1.2): RanksPerNode consecutive ranks share a node
// (0 means one per core of Sockets), a busy rank keeps one core active, and
// a node with k active cores draws Sockets.Power(k); BaseW, IdleW, ActiveW
// and the models' per-region power are then not used.
type Machine struct {
	BaseW        float64        `json:"base_w"`
	IdleW        float64        `json:"idle_w"`
	ActiveW      float64        `json:"active_w"`
	Sockets      *power.Sockets `json:"sockets,omitempty"`
	RanksPerNode int            `json:"ranks_per_node,omitempty"`
	// Wait is what a rank draws between its tasks and after its last one
	// (power.WaitPower: "task", the default, "idle" or watts; not used by
	// the socket model).
	Wait power.WaitPower `json:"wait_power"`
}

// PerNode returns the ranks per node of the socket model.
func (m *Machine) PerNode() int {
	if m.RanksPerNode > 0 || m.Sockets == nil {
		return m.RanksPerNode
	}
	n := 0
	for _, c := range m.Sockets.Cores {
		n += c
	}
	return n
}

// Validate reports a negative or non-finite power, or an active power
// below the idle power.
func (m *Machine) Validate() error {
	for _, v := range []float64{m.BaseW, m.IdleW, m.ActiveW} {
		if err := power.CheckWatts(v, false); err != nil {
			return fmt.Errorf("machine power: %w", err)
		}
	}
	if m.ActiveW < m.IdleW {
		return fmt.Errorf("machine active_w %g is below idle_w %g", m.ActiveW, m.IdleW)
	}
	if m.RanksPerNode < 0 {
		return fmt.Errorf("machine ranks_per_node %d is negative", m.RanksPerNode)
	}
	if s := m.Sockets; s != nil {
		if len(s.Cores) == 0 || len(s.Intercept) != len(s.Cores) || len(s.Slope) != len(s.Cores) {
			return fmt.Errorf("machine sockets: cores, intercept and slope need one value per socket")
		}
		for i, c := range s.Cores {
			if c < 1 {
				return fmt.Errorf("machine sockets: socket %d has %d cores", i, c)
			}
		}
		for _, v := range append(append([]float64{s.Idle}, s.Intercept...), s.Slope...) {
			if !(v >= 0) || v > 1e12 {
				return fmt.Errorf("machine sockets: power %g W is not a finite non-negative number", v)
			}
		}
	}
	return nil
}

// Decoder builds a model of one kind from its JSON parameters.
type Decoder func(params json.RawMessage) (compute.Model, error)

// Decoders adds model kinds beyond the built-in ones (e.g. "eiger",
// "accel"); they take precedence over built-ins of the same kind.
type Decoders map[compute.Kind]Decoder

// DecodeParams decodes a model's JSON parameters into v strictly: unknown
// fields and trailing data are errors. Decoders of other model kinds use it
// so that every kind reads its parameters alike.
func DecodeParams(params json.RawMessage, v any) error {
	d := json.NewDecoder(bytes.NewReader(params))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if !atEOF(d) {
		return errors.New("trailing data after parameters")
	}
	return nil
}

// atEOF reports whether d has nothing left but white space: a second
// value, or a stray bracket after the first, is trailing data.
func atEOF(d *json.Decoder) bool {
	_, err := d.Token()
	return err == io.EOF
}

// clock refuses a model parameter key in GHz whose value is past
// compute.MaxGHz: a clock in MHz (compute.CheckGHz).
func clock(key string, ghz float64) error {
	if err := compute.CheckGHz(ghz); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	return nil
}

func builtin(kind compute.Kind, params json.RawMessage) (compute.Model, error) {
	if len(params) == 0 {
		params = json.RawMessage("{}")
	}
	fin := compute.CheckFinite
	switch kind {
	case compute.KindMeasured:
		var m compute.Measured
		if err := DecodeParams(params, &m); err != nil {
			return nil, err
		}
		return m, errors.Join(fin("scale", m.Scale, 0, false), fin("watts", m.Watts, 0, false))
	case compute.KindTable:
		m := &table.Model{}
		if err := DecodeParams(params, m); err != nil {
			return nil, err
		}
		if err := (&table.Table{Rows: m.Rows}).Validate(); err != nil {
			return nil, err
		}
		return m, nil
	case compute.KindDVFS:
		m := &dvfs.Model{}
		if err := DecodeParams(params, m); err != nil {
			return nil, err
		}
		if !(m.RefGHz > 0) {
			return nil, errors.New("ref_ghz must be positive")
		}
		if !(m.Beta >= 0 && m.Beta <= 1) {
			return nil, fmt.Errorf("beta = %g: want a number in [0, 1]", m.Beta)
		}
		if err := errors.Join(fin("ref_ghz", m.RefGHz, 0, true), fin("min_ghz", m.MinGHz, 0, false), fin("max_ghz", m.MaxGHz, 0, false)); err != nil {
			return nil, err
		}
		if err := errors.Join(clock("ref_ghz", m.RefGHz), clock("min_ghz", m.MinGHz), clock("max_ghz", m.MaxGHz)); err != nil {
			return nil, err
		}
		if m.MaxGHz > 0 && m.MinGHz > m.MaxGHz {
			return nil, fmt.Errorf("min_ghz %g is above max_ghz %g: the fitted range is min_ghz..max_ghz", m.MinGHz, m.MaxGHz)
		}
		if len(m.Power) > 0 {
			if _, err := power.NewPStates(m.Power); err != nil {
				return nil, err
			}
		}
		return m, nil
	case compute.KindCOSIntel:
		m := &cos.Intel{}
		if err := DecodeParams(params, m); err != nil {
			return nil, err
		}
		if !(m.Base.T > 0) || !(m.Base.At.CPUFreqGHz > 0) {
			return nil, errors.New("base.t and base.at.cpu_ghz must be positive")
		}
		errs := []error{fin("base.t", m.Base.T, 0, true), m.Base.At.Validate(), fin("intercept", m.Intercept, math.Inf(-1), false), fin("watts", m.Watts, 0, false)}
		for i, a := range m.Alpha {
			errs = append(errs, fin(fmt.Sprintf("alpha[%d]", i), a, math.Inf(-1), false))
		}
		if err := errors.Join(errs...); err != nil {
			return nil, err
		}
		return m, nil
	case compute.KindCOSBGQ:
		m := &cos.BGQ{}
		if err := DecodeParams(params, m); err != nil {
			return nil, err
		}
		if m.Mode != "" && m.Mode != cos.Hinge && m.Mode != cos.Literal {
			return nil, fmt.Errorf("mode %q: want %q or %q", m.Mode, cos.Hinge, cos.Literal)
		}
		if !(m.Inst > 0) || !(m.ClockGHz > 0) {
			return nil, errors.New("inst and clock_ghz must be positive")
		}
		if err := errors.Join(fin("alpha_knee", m.AlphaKnee, math.Inf(-1), false), fin("c1", m.C1, math.Inf(-1), false),
			fin("beta", m.Beta, math.Inf(-1), false), fin("c2", m.C2, math.Inf(-1), false), fin("l2m", m.L2M, 0, false),
			fin("inst", m.Inst, 0, true), fin("clock_ghz", m.ClockGHz, 0, true), fin("max_idle", m.MaxIdle, 0, false), fin("watts", m.Watts, 0, false)); err != nil {
			return nil, err
		}
		if err := clock("clock_ghz", m.ClockGHz); err != nil {
			return nil, err
		}
		if err := errors.Join(fin("knee (alpha_knee·l2m/inst + c1)", m.Knee(), math.Inf(-1), false), fin("slope (beta·l2m + c2)", m.Slope(), math.Inf(-1), false)); err != nil {
			return nil, err
		}
		return m, nil
	}
	return nil, fmt.Errorf("unknown model kind %q", kind)
}

// Decode parses and validates a model file; name is used in errors.
func Decode(r io.Reader, name string, extra Decoders) (*File, *compute.Set, error) {
	text, err := io.ReadAll(r)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := jsondup.Check(text); err != nil {
		return nil, nil, fmt.Errorf("%s:%w", name, err)
	}
	d := json.NewDecoder(bytes.NewReader(text))
	d.DisallowUnknownFields()
	var f File
	if err := d.Decode(&f); err != nil {
		return nil, nil, fmt.Errorf("%s:%s %w", name, jsonLine(text, err), err)
	}
	if off := d.InputOffset(); !atEOF(d) {
		off += int64(len(text[off:]) - len(bytes.TrimLeft(text[off:], " \t\r\n")))
		line := bytes.Count(text[:off], []byte("\n")) + 1
		return nil, nil, fmt.Errorf("%s:%d: trailing data after the model file's closing brace (a region pasted outside \"regions\"?)", name, line)
	}
	if f.Format != Format {
		return nil, nil, fmt.Errorf("%s: format %q, want %q", name, f.Format, Format)
	}
	if f.Version != Version {
		return nil, nil, fmt.Errorf("%s: version %d not supported (want %d)", name, f.Version, Version)
	}
	set, err := f.Set(extra)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	return &f, set, nil
}

// jsonLine returns "LINE:" for JSON errors that carry a byte offset
// (syntax and type errors) or end early (the last line), else "".
func jsonLine(text []byte, err error) string {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	case errors.Is(err, io.ErrUnexpectedEOF): // truncated: name the last line
		off = int64(len(bytes.TrimRight(text, "\n")))
	case strings.HasPrefix(err.Error(), `json: unknown field "`):
		// DisallowUnknownFields says no offset: the key's first
		// occurrence as a key (a misspelt key is rarely a value too).
		name := strings.TrimPrefix(err.Error(), `json: unknown field `)
		if loc := regexp.MustCompile(regexp.QuoteMeta(name) + `\s*:`).FindIndex(text); loc != nil {
			off = int64(loc[0])
		}
	}
	if off < 0 || off > int64(len(text)) {
		return ""
	}
	return fmt.Sprintf("%d:", bytes.Count(text[:off], []byte("\n"))+1)
}

// Model decodes the model of e: a kind of extra, else a built-in kind.
func (e Entry) Model(extra Decoders) (compute.Model, error) {
	if d, ok := extra[e.Kind]; ok {
		if len(e.Params) == 0 {
			return d(json.RawMessage("{}"))
		}
		return d(e.Params)
	}
	return builtin(e.Kind, e.Params)
}

// Set builds the models of f.
func (f *File) Set(extra Decoders) (*compute.Set, error) {
	dec := func(e Entry) (compute.Model, error) { return e.Model(extra) }
	if f.Machine != nil {
		if err := f.Machine.Validate(); err != nil {
			return nil, err
		}
	}
	if err := f.Recorded.Validate(); err != nil {
		return nil, fmt.Errorf("recorded: %w", err)
	}
	s := &compute.Set{Recorded: f.Recorded}
	if f.Default != nil {
		m, err := dec(*f.Default)
		if err == nil {
			err = probe(m, f.Recorded)
		}
		if err != nil {
			return nil, fmt.Errorf("default model (%s): %w", f.Default.Kind, err)
		}
		s.Default = m
	}
	first := map[string]int{}
	for i, e := range f.Regions {
		if _, err := path.Match(e.Pattern, ""); err != nil || e.Pattern == "" {
			return nil, fmt.Errorf("regions[%d]: invalid pattern %q", i, e.Pattern)
		}
		if j, ok := first[e.Pattern]; ok {
			// The first entry whose pattern matches a region prices it:
			// a second with the same pattern would never apply.
			return nil, fmt.Errorf("regions[%d]: pattern %q is regions[%d]'s too, which prices every region it matches first: this entry would never apply", i, e.Pattern, j)
		}
		first[e.Pattern] = i
		m, err := dec(e)
		if err == nil {
			err = probe(m, f.Recorded)
		}
		if err != nil {
			return nil, fmt.Errorf("regions[%d] %q (%s): %w", i, e.Pattern, e.Kind, err)
		}
		s.Rules = append(s.Rules, compute.Rule{Pattern: e.Pattern, Model: m})
	}
	return s, nil
}

// probe prices one recorded second with m at the recorded configuration
// and at half and twice its frequencies: a model whose parameters pass
// their checks but still yield a time or power that is NaN, infinite or
// negative is refused here rather than feeding garbage to a replay. A
// model that cannot price a configuration (an error) is not refused: the
// pricer reports that for the configurations actually asked.
func probe(m compute.Model, rec compute.Config) error {
	for _, x := range []float64{1, 0.5, 2} {
		t := rec
		t.CPUFreqGHz *= x
		t.MemFreqGHz *= x
		p, err := m.Predict(compute.Work{Seconds: 1, At: rec}, t)
		if err != nil {
			continue
		}
		if !(p.Seconds >= 0) || math.IsInf(p.Seconds, 0) || power.CheckWatts(p.Watts, false) != nil {
			return fmt.Errorf("prices 1 recorded second at %s as %g s and %g W: parameters out of range", t, p.Seconds, p.Watts)
		}
	}
	return nil
}

// Load reads and decodes the model file at path.
func Load(path string, extra Decoders) (*File, *compute.Set, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("model file: %w", err)
	}
	defer fh.Close()
	return Decode(fh, path, extra)
}

// NewEntry encodes model m (any JSON-serializable compute.Model) for
// regions matching pattern ("" for the default entry).
func NewEntry(pattern string, m compute.Model) (Entry, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return Entry{}, fmt.Errorf("encode %s model: %w", m.Kind(), err)
	}
	return Entry{Pattern: pattern, Kind: m.Kind(), Params: b}, nil
}

// New returns an empty file recorded at cfg.
func New(recorded compute.Config) *File {
	return &File{Format: Format, Version: Version, Recorded: recorded, Regions: []Entry{}}
}

// Encode writes f as indented JSON.
func (f *File) Encode(w io.Writer) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("encode model file: %w", err)
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

// ParseMachine parses machine power written as comma-separated key=value
// pairs with keys base, idle and active (W), e.g. "base=60,idle=4,active=18",
// and wait (task, idle or W: the wait power, power.WaitPower). Keys left
// out are 0 (wait: task).
func ParseMachine(s string) (Machine, error) {
	var m Machine
	seen := map[string]bool{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || v == "" {
			return Machine{}, fmt.Errorf("machine power %q: %q is not key=value", s, kv)
		}
		if seen[k] {
			return Machine{}, fmt.Errorf("machine power %q: key %q repeated", s, k)
		}
		seen[k] = true
		if k == "wait" {
			w, err := power.ParseWaitPower(v)
			if err != nil {
				return Machine{}, fmt.Errorf("machine power %q: %w", s, err)
			}
			m.Wait = w
			continue
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return Machine{}, fmt.Errorf("machine power %q: %s=%q is not a number", s, k, v)
		}
		switch k {
		case "base":
			m.BaseW = f
		case "idle":
			m.IdleW = f
		case "active":
			m.ActiveW = f
		default:
			return Machine{}, fmt.Errorf("machine power %q: unknown key %q (want base, idle, active, wait)", s, k)
		}
	}
	if err := m.Validate(); err != nil {
		return Machine{}, fmt.Errorf("machine power %q: %w", s, err)
	}
	return m, nil
}
