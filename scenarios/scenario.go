// Package scenarios reads scenario files (TOML descriptions of machines,
// networks, workloads, models, policies and power caps), expands them into
// sweep points, and runs those points in parallel into a crash-safe,
// resumable results table (package scenarios/results).
package scenarios

import (
	"bytes"
	_ "embed"
	"fmt"
	"math"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/gpu"
	"github.com/capsim/capsim/compute/models"
	"github.com/capsim/capsim/compute/power"
	"github.com/capsim/capsim/internal/jsondup"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/network/topo"
	"github.com/capsim/capsim/optimize/bound"
	"github.com/capsim/capsim/optimize/policy"
	"github.com/capsim/capsim/traces/graph"
)

//go:embed default.toml
var defaultScenario []byte

// Default returns the text of the embedded default scenario.
func Default() []byte { return append([]byte(nil), defaultScenario...) }

// DefaultName is the file name reported for the embedded default scenario.
const DefaultName = "<embedded default.toml>"

// Scenario is a parsed scenario file. Every quantity carries its unit in
// its key; docs/reference/scenarios.md documents each key and its default.
type Scenario struct {
	Name     string    `toml:"name"`
	Seed     uint64    `toml:"seed"`
	Machines []Machine `toml:"machine"`
	Network  Network   `toml:"network"`
	Workload Workload  `toml:"workload"`
	Models   Models    `toml:"models"`
	Bound    Bound     `toml:"bound"`
	Sweep    Sweep     `toml:"sweep"`
	// Aggregate, when set, sweeps the task-aggregation patterns of each
	// machine's node (docs/design/aggregation.md).
	Aggregate *Aggregate `toml:"aggregate"`

	// File is the path the scenario was read from (DefaultName for the
	// embedded one); relative paths inside it resolve against its folder.
	File string `toml:"-"`
	// Text is the scenario's source text, used to fingerprint a sweep.
	Text []byte `toml:"-"`
	// Warnings name the keys that are accepted but have no effect, one
	// line each ("FILE:LINE: KEY: deprecated: has no effect"), for the
	// command that loaded the scenario to print.
	Warnings []string `toml:"-"`

	set      *compute.Set    // models.file's models, nil without one
	top      topo.Topology   // network.topology's, nil without one
	recorded *recordedSource // the trace's recorded run, as a sweep saved it
	// savedConfig is RecordedConfig as a sweep saved it (LoadSource): a
	// report describes the results, not a model file edited since.
	savedConfig *RecordedConfig
}

// path resolves a path written in the scenario: relative to its folder.
func (s *Scenario) path(p string) string {
	if filepath.IsAbs(p) || s.File == DefaultName {
		return p
	}
	return filepath.Join(filepath.Dir(s.File), p)
}

// Machine describes one (possibly hypothetical) machine.
type Machine struct {
	Name           string        `toml:"name"`
	Nodes          int           `toml:"nodes"`
	SocketsPerNode int           `toml:"sockets_per_node"`
	CoresPerSocket int           `toml:"cores_per_socket"`
	RanksPerNode   int           `toml:"ranks_per_node"`
	ThreadsPerRank int           `toml:"threads_per_rank"`
	IdlePowerW     float64       `toml:"idle_power_w"`      // per socket, all cores idle
	CoreIdlePowerW float64       `toml:"core_idle_power_w"` // per idle core above the socket's idle floor
	PStates        []PState      `toml:"pstate"`            // fastest first after parsing
	Accelerators   []Accelerator `toml:"accelerator"`       // optional devices
	// GPU, when set, gives every rank a GPU that runs the operations of
	// the rank's CPUs other than CPU 0 (a Chakra trace's GPU compute and
	// communication streams).
	GPU         *GPU    `toml:"gpu"`
	SpeedFactor float64 `toml:"compute_speed_factor"` // multiplies every recorded compute time; default 1
	// WaitPower is what a rank draws between its tasks (its MPI calls and
	// waits) and after its last one: "task" (the power of its most recent
	// task, as Bailey et al., SC'15, §3.3; the default), "idle" (core_idle_power_w) or a
	// number of watts (a polling power). Every policy's replay and the LP
	// bound use it (power.WaitPower).
	WaitPower power.WaitPower `toml:"wait_power"`
}

// PState is one DVFS operating point and the active power of one core in it.
type PState struct {
	FreqGHz      float64 `toml:"freq_ghz"`
	ActivePowerW float64 `toml:"active_power_w"`
}

// Accelerator is a device of a machine: the regions matching Regions are
// priced for it by the model file's "accel" models (which hold the device
// profile, the data migration and the offload policy); elsewhere, and on
// machines without the device, they run on the CPU.
type Accelerator struct {
	Name    string  `toml:"name"`    // the device's name in the model file's profiles
	Regions string  `toml:"regions"` // glob of region names that target it
	PowerW  float64 `toml:"power_w"` // power while it runs a region, when the model gives none
	// PerNode is how many such devices each node has (default 1). A node's
	// ranks share them in blocks (local rank l uses device l·per_node /
	// ranks_per_node), and a device runs one region at a time.
	PerNode int `toml:"per_node"`
	// IdleW is what each device draws whenever it runs no region, for the
	// whole run (default 0); a region on it draws its running power in
	// all, idle power included.
	IdleW float64 `toml:"idle_w"`
}

// GPU is [machine.gpu]: one GPU per rank, priced by its SM clock
// (package compute/gpu). The operations of a rank's CPUs other than CPU 0
// run on it: their time scales with the clock as the model says and they
// draw the clock's power; the GPU draws IdleW whenever it runs nothing.
type GPU struct {
	Name string `toml:"name"` // a label for outputs; default "gpu"
	// IdleW is each GPU's power while it runs no kernel, drawn whenever
	// it exists (the whole run).
	IdleW float64 `toml:"idle_w"`
	// PowerLimitW is each GPU's power limit (nvidia-smi -pl): its clock is
	// clamped to those whose power fits (gpu.Model.Limit); 0: none.
	PowerLimitW float64 `toml:"power_limit_w"`
	// MemoryBoundness is the share of a kernel's recorded time that does
	// not scale with the SM clock, in [0, 1].
	MemoryBoundness float64 `toml:"memory_boundness"`
	// RecordedMHz is the SM clock kernel times were recorded at; 0: the
	// fastest clock.
	RecordedMHz float64 `toml:"recorded_mhz"`
	// Clocks are the SM clocks and the board power at each while a kernel
	// runs, fastest first after parsing.
	Clocks []gpu.Clock `toml:"clock"`

	model   *gpu.Model  // the normalized model
	allowed []gpu.Clock // the clocks PowerLimitW leaves, fastest first
}

// Model returns the GPU's clock model (after the scenario is parsed).
func (g *GPU) Model() *gpu.Model { return g.model }

// Allowed returns the clocks its power limit leaves, fastest first.
func (g *GPU) Allowed() []gpu.Clock { return g.allowed }

// Network holds the network model and its parameters.
type Network struct {
	Model      string          `toml:"model"` // "loggops"
	LNs        Ns              `toml:"L_ns"`
	ONs        Ns              `toml:"o_ns"`
	GapNs      Ns              `toml:"g_ns"`
	GNsPerByte network.PerByte `toml:"G_ns_per_byte"` // or a bandwidth, "100Gb/s"
	ONsPerByte network.PerByte `toml:"O_ns_per_byte"`
	SBytes     int64           `toml:"S_bytes"`
	HBytes     int64           `toml:"H_bytes"`     // header bytes per message on the wire (0)
	Collective string          `toml:"collectives"` // e.g. "allreduce=ring,bcast=binomial", "openmpi" or "mpich,alltoall=bruck"
	// NCCLIntra, when set, is the intra-node link kind ("nvlink", "pci",
	// "net") of NCCL's tuning model: the nccl selector then runs each
	// allreduce with the algorithm the model picks for ranks_per_node and
	// 1/G, and each call it models with the protocol it picks, priced
	// with the protocol's LogGP parameters (Scenario.lowerOptions,
	// Scenario.Classes); empty, it takes the ring and the network's
	// parameters.
	NCCLIntra string `toml:"nccl_intra"`
	// Overrides give the messages of a communicator or a code region their
	// own parameters; the first matching override wins.
	Overrides []NetOverride `toml:"override"`
	// Topology, when set, replays messages as flows sharing the links of
	// an interconnect (docs/reference/network-spec.md).
	Topology *NetTopology `toml:"topology"`
}

// NetTopology is [network.topology]: the interconnect of the flow-level
// network model (package network/topo). Parameters a kind does not use
// must be left out.
type NetTopology struct {
	Kind    string  `toml:"kind"` // crossbar | fattree | torus | dragonfly
	K       int     `toml:"k"`    // fattree: switch radix/2
	N       int     `toml:"n"`    // fattree: levels
	Oversub float64 `toml:"oversub"`
	Dims    []int   `toml:"dims"` // torus
	// Down, Up and Links give a generalised fat-tree (XGFT, SimGrid's
	// FAT_TREE layout) instead of K and N: children, parents and parallel
	// links per level, from the leaves up.
	Down    []int   `toml:"down"`
	Up      []int   `toml:"up"`
	Links   []int   `toml:"links"`
	Groups  int     `toml:"groups"`
	Routers int     `toml:"routers"`
	Hosts   int     `toml:"hosts"`
	Global  int     `toml:"global"`
	BW      float64 `toml:"bw_GBps"`
	LocalBW float64 `toml:"local_bw_GBps"`
	// GlobalBW is the dragonfly's global link bandwidth.
	GlobalBW float64 `toml:"global_bw_GBps"`
	HopNs    *int64  `toml:"hop_ns"`
	Routing  string  `toml:"routing"` // dragonfly: minimal | valiant
	// Chassis, ChassisBW and Wiring are the dragonfly's chassis per group,
	// chassis link bandwidth and global wiring (consecutive | simgrid).
	Chassis   int     `toml:"chassis"`
	ChassisBW float64 `toml:"chassis_bw_GBps"`
	Wiring    string  `toml:"wiring"`
	NIC       *int    `toml:"nic"` // torus: 0 leaves out the injection and ejection links
	Tie       string  `toml:"tie"` // torus: plus | simgrid
	// Mapping places ranks on nodes: "block" (ranks_per_node consecutive
	// ranks per node, the default), "round-robin", or a file (one node
	// per line), relative to the scenario.
	Mapping string `toml:"mapping"`
	// Neighbours re-rates only the flows sharing a link with a starting
	// or ending one: faster on large components, but not max-min fair
	// (see sim.FlowNetwork.Neighbours).
	Neighbours bool `toml:"neighbours"`
	// Exact is deprecated and has no effect: exact max-min fairness is
	// the flow model's only sharing rule. Setting it adds a warning to
	// the scenario's Warnings.
	Exact bool `toml:"exact"`
	// CM02 times and shares flows as SimGrid's CM02 model does.
	CM02 bool `toml:"cm02"`
	// BytesFirst is the flow timing before the latency-first default (see
	// sim.FlowNetwork.BytesFirst).
	BytesFirst bool `toml:"bytes_first"`

	// given holds the keys the scenario's text sets, so that one written
	// as 0 reaches the topology's checks rather than meaning its default.
	given map[string]bool
}

// Spec returns the topology as a topo.Parse spec.
func (t *NetTopology) Spec() string {
	var kv []string
	add := func(k string, v any, set bool) {
		key := k
		if strings.HasSuffix(k, "bw") {
			key += "_GBps"
		}
		if set || t.given[key] {
			kv = append(kv, fmt.Sprintf("%s=%v", k, v))
		}
	}
	add("k", t.K, t.K != 0)
	add("n", t.N, t.N != 0)
	add("oversub", t.Oversub, t.Oversub != 0)
	list := func(k string, v []int) {
		if len(v) > 0 || t.given[k] {
			ds := make([]string, len(v))
			for i, d := range v {
				ds[i] = strconv.Itoa(d)
			}
			kv = append(kv, k+"="+strings.Join(ds, "x"))
		}
	}
	list("down", t.Down)
	list("up", t.Up)
	list("links", t.Links)
	list("dims", t.Dims)
	add("groups", t.Groups, t.Groups != 0)
	add("routers", t.Routers, t.Routers != 0)
	add("hosts", t.Hosts, t.Hosts != 0)
	add("global", t.Global, t.Global != 0)
	add("bw", t.BW, t.BW != 0)
	add("local_bw", t.LocalBW, t.LocalBW != 0)
	add("global_bw", t.GlobalBW, t.GlobalBW != 0)
	add("chassis", t.Chassis, t.Chassis != 0)
	add("chassis_bw", t.ChassisBW, t.ChassisBW != 0)
	add("wiring", t.Wiring, t.Wiring != "")
	if t.HopNs != nil {
		add("hop_ns", *t.HopNs, true)
	}
	add("routing", t.Routing, t.Routing != "")
	if t.NIC != nil {
		add("nic", *t.NIC, true)
	}
	add("tie", t.Tie, t.Tie != "")
	return t.Kind + ":" + strings.Join(kv, ",")
}

// NetOverride selects messages by communicator and/or calling region and
// sets the LogGOPS parameters it gives (the others keep the network's).
type NetOverride struct {
	Communicator Communicator     `toml:"communicator"` // name or number; "" any
	Region       string           `toml:"region"`       // glob over the MPI call's region; "" any
	LNs          *Ns              `toml:"L_ns"`
	ONs          *Ns              `toml:"o_ns"`
	GapNs        *Ns              `toml:"g_ns"`
	GNsPerByte   *network.PerByte `toml:"G_ns_per_byte"`
	ONsPerByte   *network.PerByte `toml:"O_ns_per_byte"`
	SBytes       *int64           `toml:"S_bytes"`
	HBytes       *int64           `toml:"H_bytes"`
}

// Communicator selects an MPI communicator by name ("world") or by
// number, written as a string ("0") or as a TOML integer (0).
type Communicator string

// UnmarshalTOML takes a string, or an integer ≥ 0 as its decimal form.
func (c *Communicator) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case string:
		*c = Communicator(x)
	case int64:
		if x < 0 {
			return fmt.Errorf("communicator %d: want a name or a number ≥ 0", x)
		}
		*c = Communicator(strconv.FormatInt(x, 10))
	default:
		return fmt.Errorf("communicator %v: want a name or a number", v)
	}
	return nil
}

// Workload is either a trace file or a generator with its parameters.
type Workload struct {
	Trace  string `toml:"trace"`
	Format string `toml:"format"` // the trace's format (see traces/importer); empty: told by content
	// KeepGaps keeps the trace's measurement gaps as compute
	// (graph.Recorded; docs/reference/recorded-run.md).
	KeepGaps bool `toml:"keep_gaps"`
	// AlignStarts starts every rank of the trace at 0 instead of at its
	// recorded start (graph.Recorded.StartNs;
	// docs/reference/recorded-run.md).
	AlignStarts bool           `toml:"align_starts"`
	Generator   string         `toml:"generator"`
	Params      map[string]any `toml:"params"`
	// RecordedGHz is the core frequency the workload's compute times
	// were measured at (a trace) or stand for (a generator). The DVFS
	// model scales them from it to each P-state; 0 (unknown) takes them
	// as measured at each machine's fastest P-state, and every output
	// says so (RecordedConfig). With models.file the model file's
	// recorded section gives it instead.
	RecordedGHz float64 `toml:"recorded_ghz"`
	// Replicate, when positive, replays a Chakra trace of k NPUs on this
	// many ranks (a multiple of k), every collective spanning all of them
	// (chakra.Options.Replicate): a recorded data-parallel step scaled
	// out.
	Replicate int `toml:"replicate"`
}

// Models binds compute models to regions.
type Models struct {
	File            string  `toml:"file"`             // model file (JSON); empty: DVFS model below
	MemoryBoundness float64 `toml:"memory_boundness"` // DVFS: fraction of time insensitive to frequency
}

// Bound configures the power-constrained LP bound.
type Bound struct {
	// Messages is how the LP prices communication: "engine" (the
	// engine's LogGOPS semantics as rows, under the orders of a replay at
	// the fastest P-state: a bound over the schedules that keep them),
	// "loggops" (each message's uncontended cost, calls instantaneous) or
	// "replay" (the default for now: durations measured on one replay,
	// contention included, which other schedules can beat).
	Messages string `toml:"messages"`
	// SlackPolicy is the initial schedule's slack reduction (Bailey et al., SC'15,
	// §3.3): "local" (the default) or "late" (bound.ParseSlackPolicy).
	SlackPolicy string `toml:"slack_policy"`
	// Cuts relaxes the engine LP into blocks (bound.Options.CutTasks,
	// docs/design/bound.md): "auto" (the default: every 64 tasks on LPs of over
	// 512 tasks), "none" (the exact LP) or the least number of tasks
	// between two cuts.
	Cuts string `toml:"cuts"`
}

// ParseCuts parses a cuts setting ("auto", "none" or a positive count)
// into bound.Options.CutTasks.
func ParseCuts(s string) (int, error) {
	switch s {
	case "", "auto":
		return 0, nil
	case "none":
		return -1, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("cuts %q: want auto, none or a positive number of tasks", s)
	}
	return n, nil
}

// CutTasks returns bound.Options.CutTasks of the scenario.
func (b *Bound) CutTasks() int {
	n, _ := ParseCuts(b.Cuts) // checked by Parse
	return n
}

// OrderOptions returns the LP's event-order options of the scenario.
func (b *Bound) OrderOptions() bound.OrderOptions {
	p, _ := bound.ParseSlackPolicy(b.SlackPolicy) // checked by Parse
	return bound.OrderOptions{Slack: p}
}

// Sweep lists the axes whose cartesian product is the set of points.
type Sweep struct {
	CapsW []float64 `toml:"caps_w"` // job power caps in watts
	Caps  string    `toml:"caps"`   // or a range "from:to:step" in watts
	// CapScope says what a cap bounds: "job" (the default: the job's
	// power) or "node" (every node's power, its CPUs, GPUs and devices;
	// static shares nodes × cap among the job's ranks, and the LP, its
	// bound and the lp and min-energy policies cap each node).
	CapScope string           `toml:"cap_scope"`
	Policies []string         `toml:"policies"` // see Policies()
	Params   map[string][]any `toml:"params"`   // workload parameter axes
	// SlowdownPct is the min-energy policy's deadline at every cap: this
	// many percent above the least makespan of the trace's order under
	// the cap (default 0: as fast as the order runs within the cap, with
	// the least energy that takes).
	SlowdownPct float64 `toml:"slowdown_pct"`
}

// Cap scopes (Sweep.CapScope).
const (
	CapScopeJob  = "job"
	CapScopeNode = "node"
)

// ParseError is an error in a scenario file, naming the file, the line
// (0 when unknown) and the key.
type ParseError struct {
	File string
	Line int
	Key  string
	Msg  string
	Err  error // the error Msg tells, if any (errors.Is and errors.As see it)
}

// Unwrap returns the error the message tells, if any.
func (e *ParseError) Unwrap() error { return e.Err }

func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Key != "" {
		fmt.Fprintf(&b, ": key %s", e.Key)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// Load reads and validates the scenario file at path.
func Load(path string) (*Scenario, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	return Parse(path, text)
}

// LoadDefault parses the embedded default scenario.
func LoadDefault() (*Scenario, error) { return Parse(DefaultName, Default()) }

// Parse parses and validates scenario text; file names it in errors.
func Parse(file string, text []byte) (*Scenario, error) {
	if k := jsondup.Compressed(text); k != "" {
		// The TOML decoder's "cannot contain control characters: '0x1f'".
		return nil, &ParseError{File: file, Line: 1, Msg: "a " + k + "-compressed file, not TOML text: unpack it first"}
	}
	var s Scenario
	md, err := toml.NewDecoder(bytes.NewReader(text)).Decode(&s)
	if err != nil {
		if pe, ok := err.(toml.ParseError); ok {
			e := &ParseError{File: file, Line: pe.Position.Line, Msg: pe.Message}
			// A value the decoder refused is reported at its key's line:
			// name the key then.
			if k := pe.LastKey; k != "" && keyLine(text, strings.Split(k, ".")) == e.Line {
				e.Key = k
			}
			return nil, e
		}
		e := typeError(file, err)
		if l := typeLine(text, strings.Split(e.Key, "."), e.Msg); l > 0 {
			e.Line = l
		}
		return nil, e
	}
	if und := md.Undecoded(); len(und) > 0 {
		var known []string
		for _, k := range und {
			if strings.HasPrefix(k.String(), "workload.params.") || strings.HasPrefix(k.String(), "sweep.params.") {
				continue // free-form maps; checked by the generator
			}
			known = append(known, k.String())
		}
		if len(known) > 0 {
			k := und[0]
			for _, kk := range und {
				if kk.String() == known[0] {
					k = kk
				}
			}
			return nil, &ParseError{File: file, Line: keyLine(text, k), Key: k.String(), Msg: "unknown key"}
		}
	}
	s.File, s.Text = file, text
	s.Warnings = deprecated(file, text, md)
	if k := s.emptyPath(md); k != nil {
		return nil, &ParseError{File: file, Line: keyLine(text, k), Key: k.String(),
			Msg: "an empty string where a file's path is expected: give the path, or leave the key out"}
	}
	if err := s.normalize(); err != nil {
		if pe, ok := err.(*ParseError); ok {
			pe.File = file
			if pe.Line == 0 && pe.Key != "" {
				pe.Line = keyLine(text, strings.Split(pe.Key, "."))
			}
		}
		return nil, err
	}
	return &s, nil
}

// emptyPath returns the first key that names a file but is set to the
// empty string, which would otherwise read as the key left out (no model
// file, no trace): nil when there is none.
func (s *Scenario) emptyPath(md toml.MetaData) toml.Key {
	for _, k := range s.pathKeys() {
		if k.path == "" && md.IsDefined(k.key...) {
			return k.key
		}
	}
	return nil
}

// pathKey is a scenario key that names a file, and its value.
type pathKey struct {
	key  toml.Key
	path string
}

// pathKeys lists the scenario's keys that name a file (the topology's
// mapping, unless it is "block" or "round-robin"), set or not.
func (s *Scenario) pathKeys() []pathKey {
	keys := []pathKey{{toml.Key{"workload", "trace"}, s.Workload.Trace}, {toml.Key{"models", "file"}, s.Models.File}}
	if t := s.Network.Topology; t != nil && t.Mapping != "block" && t.Mapping != "round-robin" {
		keys = append(keys, pathKey{toml.Key{"network", "topology", "mapping"}, t.Mapping})
	}
	if a := s.Aggregate; a != nil {
		keys = append(keys, pathKey{toml.Key{"aggregate", "ipc_model"}, a.IPCModel}, pathKey{toml.Key{"aggregate", "ipc_samples"}, a.IPCSamples})
	}
	return keys
}

// deprecatedKeys are the keys a scenario may still set but that have no
// effect.
var deprecatedKeys = []toml.Key{{"network", "topology", "exact"}}

// deprecated returns a warning for each deprecated key the text sets.
func deprecated(file string, text []byte, md toml.MetaData) []string {
	var out []string
	for _, k := range deprecatedKeys {
		if md.IsDefined(k...) {
			out = append(out, fmt.Sprintf("%s:%d: %s: deprecated: has no effect", file, keyLine(text, k), k))
		}
	}
	return out
}

// tomlTypeError matches the decoder's type errors, which are not
// toml.ParseError values: `toml: line 7 (last key "seed"): incompatible types: ...`.
var tomlTypeError = regexp.MustCompile(`^toml: (?:line (\d+) )?\(last key "([^"]*)"\): (.*)$`)

// typeError turns a TOML decoding error into a ParseError naming the line
// and key when the decoder's message gives them.
func typeError(file string, err error) *ParseError {
	m := tomlTypeError.FindStringSubmatch(err.Error())
	if m == nil {
		return &ParseError{File: file, Msg: err.Error()}
	}
	line, _ := strconv.Atoi(m[1])
	return &ParseError{File: file, Line: line, Key: m[2], Msg: m[3]}
}

// keyLine finds the line that defines key (a dotted path; array indices
// are not part of TOML key paths) by following table headers. It returns 0
// when the key cannot be located.
func keyLine(text []byte, key toml.Key) int {
	if ls := keyLines(text, key, 1); len(ls) > 0 {
		return ls[0]
	}
	return 0
}

// keyLines returns the lines that define key, up to n of them (n < 0: all):
// a key of an array of tables ([[machine.pstate]]) is defined once per
// element.
func keyLines(text []byte, key toml.Key, n int) []int {
	var out []int
	if len(key) == 0 {
		return nil
	}
	table := ""
	want := strings.Join(key[:len(key)-1], ".")
	last := key[len(key)-1]
	for i, line := range strings.Split(string(text), "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "[") {
			table = strings.Trim(strings.SplitN(l, "#", 2)[0], "[] \t")
			if table == strings.Join(key, ".") {
				if out = append(out, i+1); len(out) == n {
					return out
				}
			}
			continue
		}
		eq := strings.IndexByte(l, '=')
		if eq < 0 {
			continue
		}
		k := strings.Trim(strings.TrimSpace(l[:eq]), `"'`)
		full := k
		if table != "" {
			full = table + "." + k
		}
		if full == strings.Join(key, ".") || (table == want && k == last) {
			if out = append(out, i+1); len(out) == n {
				return out
			}
		}
	}
	return out
}

// tomlValueType matches the type the decoder names in a type error.
var tomlValueType = regexp.MustCompile(`TOML value has type (\S+);`)

// typeLine picks, among the lines that define key, the first whose value
// has the TOML type the decoder's message msg names. The decoder gives
// one position per key, the last element's for a key of an array of
// tables, so its line may be another element's. 0 when none matches.
func typeLine(text []byte, key toml.Key, msg string) int {
	m := tomlValueType.FindStringSubmatch(msg)
	if m == nil {
		return 0
	}
	lines := strings.Split(string(text), "\n")
	for _, n := range keyLines(text, key, -1) {
		_, v, ok := strings.Cut(lines[n-1], "=")
		if ok && tomlTypeOf(strings.TrimSpace(v)) == m[1] {
			return n
		}
	}
	return 0
}

// tomlTypeOf is the decoder's name for the type of the TOML value that
// starts v: string, []any, map[string]any, bool, float64 or int64.
func tomlTypeOf(v string) string {
	switch {
	case v == "":
		return ""
	case v[0] == '"' || v[0] == '\'':
		return "string"
	case v[0] == '[':
		return "[]any"
	case v[0] == '{':
		return "map[string]any"
	case strings.HasPrefix(v, "true") || strings.HasPrefix(v, "false"):
		return "bool"
	}
	num := strings.Fields(strings.SplitN(v, "#", 2)[0])
	if len(num) == 0 {
		return ""
	}
	w := strings.TrimLeft(num[0], "+-")
	if strings.HasPrefix(w, "0x") || strings.HasPrefix(w, "0o") || strings.HasPrefix(w, "0b") {
		return "int64"
	}
	if strings.ContainsAny(w, ".eE") || w == "nan" || w == "inf" {
		return "float64"
	}
	return "int64"
}

func bad(key, format string, a ...any) error {
	return &ParseError{Key: key, Msg: fmt.Sprintf(format, a...)}
}

// keyError is a ParseError for key of sc's text, at the key's line where
// the text has it: an error found after parsing (building the workload,
// reading a mapping file) names the line as a parse error does.
func (sc *Scenario) keyError(key, msg string) *ParseError {
	return &ParseError{File: sc.File, Line: keyLine(sc.Text, strings.Split(key, ".")), Key: key, Msg: msg}
}

// keyErr is keyError telling err, which errors.Is and errors.As still see.
func (sc *Scenario) keyErr(key string, err error) *ParseError {
	e := sc.keyError(key, err.Error())
	e.Err = err
	return e
}

// badAt is bad for a key of the i-th [[table]] (or, with j ≥ 0, of the
// j-th [[table.sub]] inside it): the error names the line of that entry
// where the text has it.
func (s *Scenario) badAt(table string, i int, sub string, j int, key, format string, a ...any) error {
	full := table + "." + key
	if sub != "" {
		full = table + "." + sub + "." + key
	}
	return &ParseError{Key: full, Line: arrayKeyLine(s.Text, table, i, sub, j, key), Msg: fmt.Sprintf(format, a...)}
}

// arrayKeyLine finds the line of key in the i-th [[table]] block of text
// (counted from 0), or with sub != "" in the j-th [[table.sub]] block
// within it; 0 when it is not written there.
func arrayKeyLine(text []byte, table string, i int, sub string, j int, key string) int {
	top, inner := -1, -1
	cur := ""
	for n, line := range strings.Split(string(text), "\n") {
		l := strings.TrimSpace(strings.SplitN(line, "#", 2)[0])
		if strings.HasPrefix(l, "[") {
			cur = strings.TrimSpace(strings.Trim(l, "[]"))
			switch {
			case strings.HasPrefix(l, "[[") && cur == table:
				top, inner = top+1, -1
			case strings.HasPrefix(l, "[[") && sub != "" && cur == table+"."+sub:
				inner++
			}
			continue
		}
		k, _, ok := strings.Cut(l, "=")
		if !ok || top != i || strings.Trim(strings.TrimSpace(k), `"'`) != key {
			continue
		}
		if sub == "" && cur == table || sub != "" && cur == table+"."+sub && inner == j {
			return n + 1
		}
	}
	return 0
}

// atEntry gives err, a ParseError without a line for a key of the i-th
// [[table]] entry (counted from 0), the line of that entry: where the
// entry sets the key, else its header. Without it the error would name
// the line where the first entry sets the key.
func (s *Scenario) atEntry(err error, table string, i int) error {
	pe, ok := err.(*ParseError)
	if !ok || pe.Line != 0 || (pe.Key != table && !strings.HasPrefix(pe.Key, table+".")) {
		return err
	}
	pe.Line = entryLine(s.Text, table, i, strings.TrimPrefix(strings.TrimPrefix(pe.Key, table), "."))
	return pe
}

// entryLine finds the line of key, a dotted path below table ("" for the
// entry itself, "pstate.freq_ghz" for a key of one of its
// [[table.pstate]]), in the i-th [[table]] entry of text (counted from
// 0): the first line inside the entry that sets it, else the entry's
// header line; 0 when text has no such entry.
func entryLine(text []byte, table string, i int, key string) int {
	top, header := -1, 0
	cur := ""
	for n, line := range strings.Split(string(text), "\n") {
		l := strings.TrimSpace(strings.SplitN(line, "#", 2)[0])
		if strings.HasPrefix(l, "[") {
			cur = strings.TrimSpace(strings.Trim(l, "[]"))
			if strings.HasPrefix(l, "[[") && cur == table {
				if top++; top == i {
					header = n + 1
				}
			} else if top == i && !strings.HasPrefix(cur, table+".") {
				return header
			}
			continue
		}
		k, _, ok := strings.Cut(l, "=")
		if !ok || top != i || key == "" {
			continue
		}
		if cur+"."+strings.Trim(strings.TrimSpace(k), `"'`) == table+"."+key {
			return n + 1
		}
	}
	return header
}

// finite reports whether v is a finite number of at least lo (strictly
// above lo when strict).
func finite(v, lo float64, strict bool) bool {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return false
	}
	if strict {
		return v > lo
	}
	return v >= lo
}

// normalize fills defaults and checks every value.
func (s *Scenario) normalize() error {
	if s.Name == "" {
		s.Name = "scenario"
	}
	// TOML integers are int64: a seed past math.MaxInt64 was a negative
	// number, wrapped by the decoder.
	if s.Seed > math.MaxInt64 {
		return bad("seed", "want an integer ≥ 0, got %d", int64(s.Seed))
	}
	if len(s.Machines) == 0 {
		return bad("machine", "at least one [[machine]] is required")
	}
	names := map[string]bool{}
	for i := range s.Machines {
		if err := s.normalizeMachine(i, names); err != nil {
			return s.atEntry(err, "machine", i)
		}
	}
	if err := s.checkRelativeFromPipe(); err != nil {
		return err
	}
	for _, step := range []func() error{s.normalizeNetwork, s.normalizeBound, s.normalizeWorkload, s.normalizeSweep, s.normalizeAggregate, s.checkIdleFloor} {
		if err := step(); err != nil {
			return err
		}
	}
	return s.checkPointCount()
}

// normalizeMachine fills machine i's defaults and checks its counts,
// powers, P-states and accelerators; names holds the names taken so far.
func (s *Scenario) normalizeMachine(i int, names map[string]bool) error {
	m := &s.Machines[i]
	key := fmt.Sprintf("machine.%d", i)
	if m.Name == "" {
		m.Name = fmt.Sprintf("machine%d", i)
	}
	if names[m.Name] {
		return bad("machine.name", "machine name %q used twice", m.Name)
	}
	names[m.Name] = true
	// A key left out takes its default; one written as 0 is refused (it
	// would silently take the default too).
	for _, c := range []struct {
		key  string
		zero bool
	}{{"sockets_per_node", m.SocketsPerNode == 0}, {"threads_per_rank", m.ThreadsPerRank == 0}, {"compute_speed_factor", m.SpeedFactor == 0}} {
		if c.zero && arrayKeyLine(s.Text, "machine", i, "", -1, c.key) > 0 {
			return s.badAt("machine", i, "", -1, c.key, "machine %s: %s = 0: want a number > 0 (leave the key out for 1)", m.Name, c.key)
		}
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&m.SocketsPerNode, 1)
	def(&m.ThreadsPerRank, 1)
	if m.SpeedFactor == 0 {
		m.SpeedFactor = 1
	}
	for _, c := range []struct {
		name string
		v    int
	}{{"nodes", m.Nodes}, {"sockets_per_node", m.SocketsPerNode}, {"cores_per_socket", m.CoresPerSocket},
		{"ranks_per_node", m.RanksPerNode}, {"threads_per_rank", m.ThreadsPerRank}} {
		if c.v <= 0 || c.v > graph.MaxRanks {
			return s.badAt("machine", i, "", -1, c.name, "must be a positive integer up to %d (machine %s, %s)", graph.MaxRanks, m.Name, key)
		}
	}
	if m.RanksPerNode*m.ThreadsPerRank > m.SocketsPerNode*m.CoresPerSocket {
		return bad("machine.ranks_per_node", "machine %s: %d ranks × %d threads exceed %d cores per node",
			m.Name, m.RanksPerNode, m.ThreadsPerRank, m.SocketsPerNode*m.CoresPerSocket)
	}
	if m.Nodes > graph.MaxRanks || m.RanksPerNode > graph.MaxRanks || m.Nodes*m.RanksPerNode > graph.MaxRanks {
		return s.badAt("machine", i, "", -1, "nodes", "machine %s: %d nodes × %d ranks per node exceed %d ranks (graph.MaxRanks)", m.Name, m.Nodes, m.RanksPerNode, graph.MaxRanks)
	}
	for _, c := range []struct {
		key string
		v   float64
	}{{"idle_power_w", m.IdlePowerW}, {"core_idle_power_w", m.CoreIdlePowerW}} {
		if err := power.CheckWatts(c.v, false); err != nil {
			return s.badAt("machine", i, "", -1, c.key, "machine %s: %s: %v", m.Name, c.key, err)
		}
	}
	if !finite(m.SpeedFactor, 0, true) {
		return s.badAt("machine", i, "", -1, "compute_speed_factor", "machine %s: compute_speed_factor must be a finite number > 0, got %g", m.Name, m.SpeedFactor)
	}
	if err := s.normalizePStates(i); err != nil {
		return err
	}
	if err := s.normalizeGPU(i); err != nil {
		return err
	}
	return s.normalizeAccelerators(i)
}

// normalizeGPU checks machine i's [machine.gpu] and clamps its clocks to
// its power limit.
func (s *Scenario) normalizeGPU(i int) error {
	m := &s.Machines[i]
	g := m.GPU
	if g == nil {
		return nil
	}
	if g.Name == "" {
		g.Name = "gpu"
	}
	if err := power.CheckWatts(g.PowerLimitW, false); err != nil {
		return bad("machine.gpu.power_limit_w", "machine %s: power_limit_w (0: no limit): %v", m.Name, err)
	}
	if err := power.CheckWatts(g.IdleW, false); err != nil {
		return bad("machine.gpu.idle_w", "machine %s: gpu idle_w: %v", m.Name, err)
	}
	if len(g.Clocks) == 0 {
		return bad("machine.gpu.clock", "machine %s: [machine.gpu] needs at least one [[machine.gpu.clock]] (mhz, power_w)", m.Name)
	}
	if !(g.MemoryBoundness >= 0 && g.MemoryBoundness <= 1) {
		return s.badAt("machine", i, "gpu", -1, "memory_boundness", "machine %s: gpu memory_boundness %g: want a number in [0, 1]", m.Name, g.MemoryBoundness)
	}
	if err := gpu.CheckMHz(g.RecordedMHz); g.RecordedMHz != 0 && err != nil {
		return s.badAt("machine", i, "gpu", -1, "recorded_mhz", "machine %s: gpu recorded_mhz (0: the fastest clock): %v", m.Name, err)
	}
	for j, c := range g.Clocks { // in the file's order, before Normalize sorts them
		if err := gpu.CheckMHz(c.MHz); err != nil {
			return s.badAt("machine", i, "gpu.clock", j, "mhz", "machine %s: gpu clock %d: mhz: %v", m.Name, j+1, err)
		}
		if err := power.CheckWatts(c.PowerW, true); err != nil {
			return s.badAt("machine", i, "gpu.clock", j, "power_w", "machine %s: gpu clock %d: power_w: %v", m.Name, j+1, err)
		}
	}
	md := &gpu.Model{Clocks: append([]gpu.Clock(nil), g.Clocks...), IdleW: g.IdleW, MemoryBound: g.MemoryBoundness, RecordedMHz: g.RecordedMHz}
	if err := md.Normalize(); err != nil {
		return s.badAt("machine", i, "gpu", -1, "clock", "machine %s: %v", m.Name, err)
	}
	allowed, err := md.Limit(g.PowerLimitW)
	if err != nil {
		return bad("machine.gpu.power_limit_w", "machine %s: %v", m.Name, err)
	}
	g.Clocks, g.model, g.allowed = md.Clocks, md, allowed
	return nil
}

// normalizePStates checks machine i's P-states and sorts them, fastest
// first.
func (s *Scenario) normalizePStates(i int) error {
	m := &s.Machines[i]
	if len(m.PStates) == 0 {
		return bad("machine.pstate", "machine %s needs at least one [[machine.pstate]]", m.Name)
	}
	for j, p := range m.PStates {
		if !finite(p.FreqGHz, 0, true) {
			return s.badAt("machine", i, "pstate", j, "freq_ghz", "machine %s: pstate %d: freq_ghz must be a finite number > 0, got %g", m.Name, j+1, p.FreqGHz)
		}
		if err := compute.CheckGHz(p.FreqGHz); err != nil {
			return s.badAt("machine", i, "pstate", j, "freq_ghz", "machine %s: pstate %d: freq_ghz: %v", m.Name, j+1, err)
		}
		if err := power.CheckWatts(p.ActivePowerW, true); err != nil {
			return s.badAt("machine", i, "pstate", j, "active_power_w", "machine %s: pstate %d: active_power_w: %v", m.Name, j+1, err)
		}
	}
	sort.SliceStable(m.PStates, func(a, b int) bool { return m.PStates[a].FreqGHz > m.PStates[b].FreqGHz })
	for j := 1; j < len(m.PStates); j++ {
		p, q := m.PStates[j], m.PStates[j-1]
		if p.FreqGHz == q.FreqGHz {
			return bad("machine.pstate", "machine %s: frequency %g GHz listed twice", m.Name, p.FreqGHz)
		}
		// As a GPU's clocks: a slower P-state that draws more power than
		// a faster one is a typo (no policy would pick it).
		if p.ActivePowerW > q.ActivePowerW {
			return bad("machine.pstate", "machine %s: P-state %g GHz draws %g W, more than the faster %g GHz (%g W)", m.Name, p.FreqGHz, p.ActivePowerW, q.FreqGHz, q.ActivePowerW)
		}
	}
	if err := m.coreIdleBelowActive(); err != nil {
		return s.badAt("machine", i, "", -1, "core_idle_power_w", "%v", err)
	}
	return nil
}

// coreIdleBelowActive refuses an idle core that draws more than a busy
// rank at the slowest P-state: a per-socket power given as
// core_idle_power_w, or a power above idle given as active_power_w (which
// is all a busy rank draws). The LP would need that idle power for every
// rank at the instant the job starts, and no schedule would meet caps the
// replays hold.
func (m *Machine) coreIdleBelowActive() error {
	slow := m.PStates[len(m.PStates)-1]
	if m.CoreIdlePowerW > slow.ActivePowerW {
		return fmt.Errorf("machine %s: core_idle_power_w %g W is above the slowest P-state's active_power_w (%g W at %g GHz): an idle core draws less than a busy one (a socket's idle power goes in idle_power_w; active_power_w is all a busy rank draws, not its power above idle)",
			m.Name, m.CoreIdlePowerW, slow.ActivePowerW, slow.FreqGHz)
	}
	return nil
}

// normalizeAccelerators fills machine i's accelerators' defaults and
// checks them.
func (s *Scenario) normalizeAccelerators(i int) error {
	m := &s.Machines[i]
	for k := range m.Accelerators {
		a := &m.Accelerators[k]
		if a.PerNode == 0 && arrayKeyLine(s.Text, "machine", i, "accelerator", k, "per_node") > 0 {
			return s.badAt("machine", i, "accelerator", k, "per_node", "machine %s: accelerator %s: per_node = 0: want a positive integer (leave the key out for 1)", m.Name, a.Name)
		}
		if a.PerNode == 0 {
			a.PerNode = 1
		}
		if a.PerNode < 0 {
			return bad("machine.accelerator.per_node", "machine %s: accelerator %s: per_node must be a positive integer", m.Name, a.Name)
		}
		if a.Name == "" {
			return bad("machine.accelerator.name", "machine %s: an accelerator needs the name of its device in the model file", m.Name)
		}
		if _, err := path.Match(a.Regions, ""); err != nil || a.Regions == "" {
			return bad("machine.accelerator.regions", "machine %s: accelerator %s needs a glob of region names (path.Match syntax)", m.Name, a.Name)
		}
		if err := power.CheckWatts(a.PowerW, false); err != nil {
			return s.badAt("machine", i, "accelerator", k, "power_w", "machine %s: accelerator %s: power_w: %v", m.Name, a.Name, err)
		}
		if err := power.CheckWatts(a.IdleW, false); err != nil {
			return s.badAt("machine", i, "accelerator", k, "idle_w", "machine %s: accelerator %s: idle_w: %v", m.Name, a.Name, err)
		}
		if s.Models.File == "" {
			return bad("machine.accelerator", "machine %s: accelerators need models.file (its accel models price the device)", m.Name)
		}
	}
	return nil
}

// checkHeader returns why h is not a header size in bytes, or "".
func checkHeader(h int64) string {
	if h < 0 || h > network.MaxHeaderBytes {
		return fmt.Sprintf("must be in 0..%d bytes, got %d", int64(network.MaxHeaderBytes), h)
	}
	return ""
}

// normalizeNetwork fills [network]'s defaults and checks its values, its
// topology and its overrides.
func (s *Scenario) normalizeNetwork() error {
	n := &s.Network
	if n.Model == "" {
		n.Model = "loggops"
	}
	if n.Model != "loggops" {
		return bad("network.model", "unknown network model %q (want loggops)", n.Model)
	}
	for _, c := range []struct {
		key string
		v   *int64
		d   int64
	}{{"L_ns", (*int64)(&n.LNs), 2500}, {"o_ns", (*int64)(&n.ONs), 1500}, {"g_ns", (*int64)(&n.GapNs), 1000},
		{"S_bytes", &n.SBytes, 65535}} {
		if *c.v < 0 {
			return bad("network."+c.key, "must be ≥ 0, got %d", *c.v)
		}
		if c.key != "S_bytes" && *c.v > graph.MaxTimeNs {
			return bad("network."+c.key, "%d ns exceeds %d ns (graph.MaxTimeNs, about 31.7 years)", *c.v, graph.MaxTimeNs)
		}
		if *c.v == 0 && !s.setInText("network", c.key) {
			*c.v = c.d
		}
	}
	if err := checkHeader(n.HBytes); err != "" {
		return bad("network.H_bytes", "%s", err)
	}
	for _, c := range []struct {
		key string
		v   *network.PerByte
		d   int64
	}{{"G_ns_per_byte", &n.GNsPerByte, 6}, {"O_ns_per_byte", &n.ONsPerByte, 0}} {
		if err := checkPerByte(*c.v); err != "" {
			return bad("network."+c.key, "%s", err)
		}
		if c.v.Femtoseconds() == 0 && !s.setInText("network", c.key) {
			*c.v = network.NsPerByte(c.d)
		}
	}
	if t := n.Topology; t != nil {
		t.given = map[string]bool{}
		for _, k := range []string{"k", "n", "oversub", "down", "up", "links", "dims", "groups", "routers", "hosts", "global",
			"bw_GBps", "local_bw_GBps", "global_bw_GBps", "chassis", "chassis_bw_GBps"} {
			t.given[k] = keyLine(s.Text, toml.Key{"network", "topology", k}) > 0
		}
		top, err := topo.Parse(t.Spec())
		if err != nil {
			return bad("network.topology", "%v", err)
		}
		if t.Mapping != "" && t.Mapping != "block" && t.Mapping != "round-robin" {
			if _, err := os.Stat(s.path(t.Mapping)); err != nil {
				return bad("network.topology.mapping", "%v", err)
			}
			if err := s.checkReopenable("network.topology.mapping", t.Mapping); err != nil {
				return err
			}
		}
		s.top = top
	}
	if len(n.Overrides) >= network.MaxClasses {
		return bad("network.override", "%d overrides (at most %d)", len(n.Overrides), network.MaxClasses-1)
	}
	for i, o := range n.Overrides {
		if o.Communicator == "" && o.Region == "" {
			return s.atEntry(bad("network.override", "override %d selects nothing: set communicator and/or region", i+1), "network.override", i)
		}
		if _, err := path.Match(o.Region, ""); err != nil {
			return s.atEntry(bad("network.override.region", "override %d: pattern %q: %v", i+1, o.Region, err), "network.override", i)
		}
		if o.LNs == nil && o.ONs == nil && o.GapNs == nil && o.GNsPerByte == nil && o.ONsPerByte == nil && o.SBytes == nil && o.HBytes == nil {
			// It would change nothing for its messages and keep every
			// later override from them.
			return s.atEntry(bad("network.override", "override %d sets no parameter: give at least one of L_ns, o_ns, g_ns, G_ns_per_byte, O_ns_per_byte, S_bytes, H_bytes", i+1),
				"network.override", i)
		}
		for _, c := range []struct {
			key string
			v   *int64
		}{{"L_ns", (*int64)(o.LNs)}, {"o_ns", (*int64)(o.ONs)}, {"g_ns", (*int64)(o.GapNs)}, {"S_bytes", o.SBytes}} {
			if c.v != nil && *c.v < 0 {
				return s.badAt("network.override", i, "", -1, c.key, "override %d: must be ≥ 0, got %d", i+1, *c.v)
			}
			if c.v != nil && c.key != "S_bytes" && *c.v > graph.MaxTimeNs {
				return s.badAt("network.override", i, "", -1, c.key, "override %d: %d ns exceeds %d ns (graph.MaxTimeNs, about 31.7 years)", i+1, *c.v, graph.MaxTimeNs)
			}
		}
		if o.HBytes != nil {
			if err := checkHeader(*o.HBytes); err != "" {
				return s.badAt("network.override", i, "", -1, "H_bytes", "override %d: %s", i+1, err)
			}
		}
		for _, c := range []struct {
			key string
			v   *network.PerByte
		}{{"G_ns_per_byte", o.GNsPerByte}, {"O_ns_per_byte", o.ONsPerByte}} {
			if c.v == nil {
				continue
			}
			if err := checkPerByte(*c.v); err != "" {
				return s.badAt("network.override", i, "", -1, c.key, "override %d: %s", i+1, err)
			}
		}
	}
	return nil
}

// normalizeBound fills [bound]'s defaults and checks them.
func (s *Scenario) normalizeBound() error {
	switch s.Bound.Messages {
	case "":
		// "engine" is the bound (docs/design/bound.md); the others are kept
		// for comparison: "replay" is no bound, "loggops" a loose one.
		s.Bound.Messages = MessagesEngine
	case MessagesEngine, MessagesReplay, MessagesLogGOPS:
	default:
		return bad("bound.messages", "unknown message model %q (want %s, %s or %s)", s.Bound.Messages, MessagesEngine, MessagesLogGOPS, MessagesReplay)
	}
	if s.Bound.SlackPolicy == "" {
		s.Bound.SlackPolicy = "local"
	}
	if _, err := ParseCuts(s.Bound.Cuts); err != nil {
		return bad("bound.cuts", "%v", err)
	}
	if _, err := bound.ParseSlackPolicy(s.Bound.SlackPolicy); err != nil {
		return bad("bound.slack_policy", "unknown slack policy %q (want local or late)", s.Bound.SlackPolicy)
	}
	if s.Bound.Messages == MessagesEngine && s.Bound.SlackPolicy != "local" {
		return bad("bound.slack_policy", "%q applies to bound.messages = \"replay\" or \"loggops\"; the \"engine\" LP (the default) keeps the order of its reference replay", s.Bound.SlackPolicy)
	}
	return nil
}

// normalizeWorkload checks [workload] and [models], loading the model
// file.
func (s *Scenario) normalizeWorkload() error {
	w := &s.Workload
	if (w.Trace == "") == (w.Generator == "") {
		return bad("workload", "set exactly one of workload.trace and workload.generator")
	}
	if w.Replicate < 0 || w.Replicate > graph.MaxRanks {
		return bad("workload.replicate", "must be an integer in 0..%d (0: as recorded), got %d", graph.MaxRanks, w.Replicate)
	}
	if w.Trace != "" && len(w.Params) > 0 {
		return bad("workload.params", "parameters are a workload.generator's; workload.trace reads none (drop [workload.params])")
	}
	if w.Replicate != 0 && w.Trace == "" {
		return bad("workload.replicate", "applies to a Chakra workload.trace")
	}
	if w.KeepGaps && w.Trace == "" {
		return bad("workload.keep_gaps", "applies to workload.trace (generated workloads have no measurement gaps)")
	}
	if w.AlignStarts && w.Trace == "" {
		return bad("workload.align_starts", "applies to workload.trace (generated workloads start every rank at 0)")
	}
	if err := s.checkReopenable("workload.trace", w.Trace); err != nil {
		return err
	}
	if err := s.checkReopenable("models.file", s.Models.File); err != nil {
		return err
	}
	if !(s.Models.MemoryBoundness >= 0 && s.Models.MemoryBoundness <= 1) {
		return bad("models.memory_boundness", "must be in [0, 1], got %g", s.Models.MemoryBoundness)
	}
	if g := w.RecordedGHz; !(g >= 0) || math.IsInf(g, 0) {
		return bad("workload.recorded_ghz", "must be a finite frequency ≥ 0 GHz (0: unknown), got %g", g)
	}
	if err := compute.CheckGHz(w.RecordedGHz); err != nil {
		return bad("workload.recorded_ghz", "%v", err)
	}
	if w.RecordedGHz != 0 && s.Models.File != "" {
		return bad("workload.recorded_ghz", "set it in the model file's recorded section (models.file), not both")
	}
	if s.Models.File != "" {
		if s.Models.MemoryBoundness != 0 {
			return bad("models.memory_boundness", "set models.file or models.memory_boundness, not both")
		}
		_, set, err := models.Load(s.path(s.Models.File))
		if err != nil {
			return bad("models.file", "%v", err)
		}
		s.set = set
	}
	return nil
}

// checkRelativeFromPipe refuses a relative path in a scenario read from a
// pipe or device (<(sed … my.toml), /dev/stdin): a relative path is taken
// from the scenario's folder, which such a scenario does not have (it
// would be looked for under /dev/fd).
func (s *Scenario) checkRelativeFromPipe() error {
	if s.File == DefaultName {
		return nil
	}
	st, err := os.Stat(s.File)
	if err != nil || st.Mode().IsRegular() && !strings.HasPrefix(s.File, "/dev/") && !strings.HasPrefix(s.File, "/proc/") {
		return nil // /dev/stdin is a regular file where the shell redirects one
	}
	for _, k := range s.pathKeys() {
		if k.path != "" && !filepath.IsAbs(k.path) {
			return bad(k.key.String(), "%q is relative to the scenario's folder, but the scenario was read from a pipe or device (%s), which has none: give an absolute path, or read the scenario from a file", k.path, s.File)
		}
	}
	return nil
}

// checkReopenable refuses a pipe, FIFO or device (/dev/stdin, a bash
// process substitution) as the file of key: a sweep reads its inputs
// more than once (the check, each workload, its identity, and again on
// resume, merge and report), and a stream is empty after its first read.
func (s *Scenario) checkReopenable(key, name string) error {
	if name == "" {
		return nil
	}
	st, err := os.Stat(s.path(name))
	if err != nil || st.IsDir() || st.Mode().IsRegular() {
		return nil // a missing file is reported where it is read
	}
	return bad(key, "%s is a pipe or device, which can be read only once, but a sweep reads its inputs again (each workload, and its identity on resume, merge and report): write it to a file and name that", name)
}

// normalizeSweep checks [sweep]: its caps, policies and parameter axes.
func (s *Scenario) normalizeSweep() error {
	sw := &s.Sweep
	if sw.Caps != "" {
		if len(sw.CapsW) > 0 {
			return bad("sweep.caps", "set sweep.caps or sweep.caps_w, not both")
		}
		caps, err := ParseCapRange(sw.Caps)
		if err != nil {
			return bad("sweep.caps", "%v", err)
		}
		sw.CapsW = caps
	}
	capKey := s.capKey()
	capSeen := map[float64]bool{}
	for _, c := range sw.CapsW {
		if err := power.CheckWatts(c, true); err != nil {
			return bad(capKey, "cap: %v", err)
		}
		if capSeen[c] {
			return bad(capKey, "cap %g W listed twice", c)
		}
		capSeen[c] = true
	}
	if len(sw.Policies) == 0 {
		if s.setInText("sweep", "policies") {
			return bad("sweep.policies", "an empty list: name at least one policy (leave the key out for [%q])", policy.Uncapped)
		}
		sw.Policies = []string{policy.Uncapped}
	}
	if !(sw.SlowdownPct >= 0) || math.IsInf(sw.SlowdownPct, 0) {
		return bad("sweep.slowdown_pct", "want a finite percentage ≥ 0, got %g", sw.SlowdownPct)
	}
	seen := map[string]bool{}
	for _, p := range sw.Policies {
		pol, err := policy.Lookup(p)
		if err != nil || !pol.Sweep {
			return bad("sweep.policies", "unknown policy %q (want one of %s)", p, strings.Join(Policies(), ", "))
		}
		if seen[p] {
			return bad("sweep.policies", "policy %q listed twice", p)
		}
		seen[p] = true
		if pol.Capped && len(sw.CapsW) == 0 {
			return bad("sweep.caps_w", "policy %q needs at least one power cap", p)
		}
	}
	switch sw.CapScope {
	case "", CapScopeJob:
		sw.CapScope = CapScopeJob
	case CapScopeNode: // steering and dct-dvfs on an execution graph: refused by Scenario.capScopeFits
	default:
		return bad("sweep.cap_scope", "unknown cap scope %q (want job or node)", sw.CapScope)
	}
	for _, k := range s.paramAxes() {
		vs := sw.Params[k]
		if len(vs) == 0 {
			return bad("sweep.params."+k, "an axis needs at least one value")
		}
		// A value listed twice would sweep the same points twice, as a
		// cap listed twice would (numbers compare by value: 1 is 1.0).
		seen := map[string]bool{}
		for _, v := range vs {
			id := fmt.Sprint(v)
			if n, ok := v.(int64); ok {
				id = fmt.Sprint(float64(n))
			}
			if seen[id] {
				return bad("sweep.params."+k, "value %v listed twice", v)
			}
			seen[id] = true
		}
		if !strings.Contains(k, ".") && s.Workload.Trace != "" {
			return bad("sweep.params."+k, "a workload parameter axis needs workload.generator; workload.trace reads no parameters, so every value would sweep the same workload")
		}
		if err := checkAxis(k, vs); err != nil {
			return err
		}
	}
	return nil
}

// capKey is the key the sweep's caps were given under, for errors.
func (s *Scenario) capKey() string {
	if s.Sweep.Caps != "" {
		return "sweep.caps"
	}
	return "sweep.caps_w"
}

// checkIdleFloor refuses a cap at or below a machine's idle floor (every
// socket, accelerator and GPU idle, BaseW and gpuIdleW; under per-node
// caps a node's share of it): no policy has a watt left to run a core there, so
// such a point has no schedule at all, and a sweep is refused before it
// starts rather than stopped at its first such point. A cap between the
// idle floor and the least power the job can run at is kept: there the
// policies report their over-cap time or infeasibility per point.
func (s *Scenario) checkIdleFloor() error {
	capKey := s.capKey()
	if len(s.Sweep.CapsW) == 0 {
		return nil
	}
	least := slices.Min(s.Sweep.CapsW)
	idle, from := 0.0, "idle_power_w"
	for _, v := range s.Sweep.Params["machine.idle_power_w"] {
		x, _ := v.(float64)
		if n, ok := v.(int64); ok {
			x = float64(n)
		}
		idle, from = max(idle, x), "sweep.params.machine.idle_power_w up to"
	}
	for i := range s.Machines {
		m := s.Machines[i]
		if from != "idle_power_w" {
			m.IdlePowerW = idle
		}
		floor, gpus := m.BaseW()+m.gpuIdleW(), ""
		if s.nodeScope() { // every cap is each node's
			if g := m.gpuIdleW() / float64(m.Nodes); g > 0 {
				gpus = fmt.Sprintf(" + GPUs' idle_w %g W", g)
			}
			if b := floor / float64(m.Nodes); least <= b {
				return bad(capKey, "cap %g W per node (sweep.cap_scope = %q) is at or below machine %s's idle floor of %g W per node (%d sockets × %s %g W%s): no power is left for any core",
					least, CapScopeNode, m.Name, b, m.SocketsPerNode, from, m.IdlePowerW, gpus)
			}
			continue
		}
		if g := m.gpuIdleW(); g > 0 {
			gpus = fmt.Sprintf(" + GPUs' idle_w %g W", g)
		}
		if b := floor; least <= b {
			return bad(capKey, "cap %g W is at or below machine %s's idle floor of %g W (%d nodes × %d sockets × %s %g W%s): no power is left for any core",
				least, m.Name, b, m.Nodes, m.SocketsPerNode, from, m.IdlePowerW, gpus)
		}
	}
	return nil
}

// MaxPoints is the largest number of points a sweep may have (machines ×
// the product of the sweep.params axes × the caps of each policy). Parse
// checks it from the axis lengths, before any point is built.
const MaxPoints = 1 << 20

func (s *Scenario) checkPointCount() error {
	perCombo := 0 // points per machine and parameter combination
	for _, p := range s.Sweep.Policies {
		if !policy.IsCapped(p) {
			perCombo++
		} else {
			perCombo += len(s.Sweep.CapsW)
		}
	}
	n := len(s.Machines) * perCombo
	if a := s.Aggregate; a != nil {
		most := 0
		for i := range s.Machines {
			most = max(most, len(a.patterns(&s.Machines[i])))
		}
		n *= most
	}
	var dims []string
	for _, k := range s.paramAxes() {
		l := len(s.Sweep.Params[k])
		dims = append(dims, fmt.Sprintf("%s: %d", k, l))
		if n > MaxPoints/l { // n·l > MaxPoints, without overflow
			return bad("sweep.params", "the sweep has more than %d points (scenarios.MaxPoints): %d machine(s) × %d point(s) per policy and cap list × axes (%s)",
				MaxPoints, len(s.Machines), perCombo, strings.Join(dims, ", "))
		}
		n *= l
	}
	if n > MaxPoints {
		return bad("sweep", "the sweep has %d points, more than %d (scenarios.MaxPoints): %d machine(s) × %d caps over the policies", n, MaxPoints, len(s.Machines), perCombo)
	}
	return nil
}

// setInText reports whether table.key is written in the scenario text
// (to tell an explicit 0 from a left-out key).
func (s *Scenario) setInText(table, key string) bool {
	return keyLine(s.Text, toml.Key{table, key}) > 0
}

// MaxCapsInRange is the most caps a "from:to:step" range may expand to.
const MaxCapsInRange = 100000

// ParseCapRange expands "from:to:step" (watts, inclusive of to when the
// steps land on it) into a list of caps.
func ParseCapRange(spec string) ([]float64, error) {
	parts := strings.Split(spec, ":")
	if len(parts) != 3 {
		return nil, fmt.Errorf("cap range %q: want from:to:step", spec)
	}
	var v [3]float64
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("cap range %q: %q is not a number", spec, p)
		}
		v[i] = f
	}
	from, to, step := v[0], v[1], v[2]
	if !(step > 0) || !(from > 0) || to < from {
		return nil, fmt.Errorf("cap range %q: need 0 < from ≤ to and step > 0", spec)
	}
	if to > power.MaxWatts {
		return nil, fmt.Errorf("cap range %q: caps above %g W (power.MaxWatts)", spec, power.MaxWatts)
	}
	// The count is taken in floating point first: a step tiny against the
	// range would overflow an int.
	count := math.Floor((to-from)/step+1e-9) + 1
	if count > MaxCapsInRange {
		return nil, fmt.Errorf("cap range %q: %.4g caps is too many (at most %d)", spec, count, MaxCapsInRange)
	}
	caps := make([]float64, int(count))
	for i := range caps {
		caps[i] = from + float64(i)*step
		if i > 0 && !(caps[i] > caps[i-1]) {
			return nil, fmt.Errorf("cap range %q: step %g is below the precision of %g W: caps %d and %d are equal", spec, step, caps[i], i, i+1)
		}
	}
	return caps, nil
}

// Policies lists the policy names a sweep accepts: "uncapped" runs every
// rank at the fastest P-state; "static" gives every rank an equal share of
// the cap above the machine's base power and runs it at the fastest
// P-state that fits (the discrete reading of Bailey et al., SC'15, §4.1);
// "static-rapl" is the paper's Static: the same per-rank share as a RAPL
// limit at the recorded thread count, the firmware time-averaging the two
// P-states that bracket it and modulating the clock below the slowest
// (policy.RAPLMix); "lp" replays the LP bound's schedule rounded by
// splitting each task between two adjacent P-states; "conductor" replays
// the Conductor baseline (optimize/conductor, default parameters);
// "min-energy" replays the energy–time frontier's schedule under the cap
// at sweep.slowdown_pct above the order's least makespan there
// (optimize/energy), rounded as lp's. The last three need MPI-trace
// workloads.
func Policies() []string {
	return policy.SweepNames()
}
