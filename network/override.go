package network

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/lower"
)

// MaxClasses is the number of network classes a replay can tell apart:
// the base parameters and up to MaxClasses−1 overrides.
const MaxClasses = 256

// Override gives the messages it selects their own LogGOPS parameters, for
// a communicator that maps onto a different network (a node-local
// communicator over shared memory, an I/O communicator) or a code region
// whose messages take another path. A message is selected when both
// selectors match; an empty selector matches everything.
type Override struct {
	// Comm selects messages on an MPI communicator, by name or by number
	// (0 is MPI_COMM_WORLD). Communicators are read from the tags that
	// package lower gives messages, so this applies to lowered MPI traces.
	Comm string
	// Region is a glob (path.Match syntax) over the region of the MPI call
	// that sent the message.
	Region string
	// Params are the parameters of the selected messages.
	Params LogGOPS
}

// Classes says which parameters each message of a replay uses: the
// message of send operation op uses Params[Of[op]]. Params[0] is
// conventionally the base network. Only send operations' entries are read.
type Classes struct {
	Of     []uint8
	Params []LogGOPS
}

// Validate checks c against a graph of ops operations.
func (c *Classes) Validate(ops int) error {
	if len(c.Of) != ops {
		return fmt.Errorf("network classes: %d entries for %d operations", len(c.Of), ops)
	}
	if len(c.Params) == 0 || len(c.Params) > MaxClasses {
		return fmt.Errorf("network classes: %d parameter sets (want 1..%d)", len(c.Params), MaxClasses)
	}
	for i, p := range c.Params {
		if err := p.Validate(); err != nil {
			return fmt.Errorf("network class %d: %w", i, err)
		}
	}
	for op, k := range c.Of {
		if int(k) >= len(c.Params) {
			return fmt.Errorf("network classes: operation %d has class %d of %d", op, k, len(c.Params))
		}
	}
	return nil
}

// Classify assigns every send of g the first override that selects its
// message (class k+1 for overrides[k]), else the base parameters (class
// 0), and a send with a wire protocol (graph.Graph.Wire) a class of its
// own: its override's parameters, or base, made its wire's
// (LogGOPS.ForWire). commName gives a communicator's name from its number
// ("" when it has none); it may be nil. It returns nil, nil when no
// message is selected and none has a wire, so the replay runs on base
// alone.
func Classify(g *graph.Graph, base LogGOPS, overrides []Override, commName func(int32) string) (*Classes, error) {
	if len(overrides) == 0 && g.Wire == nil {
		return nil, nil
	}
	if len(overrides) >= MaxClasses {
		return nil, fmt.Errorf("network: %d overrides (at most %d)", len(overrides), MaxClasses-1)
	}
	c := &Classes{Of: make([]uint8, g.NumOps()), Params: []LogGOPS{base}}
	for i, o := range overrides {
		if err := o.Params.Validate(); err != nil {
			return nil, fmt.Errorf("network override %d: %w", i+1, err)
		}
		if _, err := path.Match(o.Region, ""); err != nil {
			return nil, fmt.Errorf("network override %d: region pattern %q: %w", i+1, o.Region, err)
		}
		c.Params = append(c.Params, o.Params)
	}
	// Resolve each (communicator, region) pair and each (class, wire)
	// pair once.
	memo := map[commRegion]uint8{}
	wired := new(wireClasses)
	var pairs []commRegion // in order of first send
	used := false
	for op, k := range g.Kind {
		if k != graph.Send {
			continue
		}
		cls := uint8(0)
		if len(overrides) > 0 {
			kk := commRegion{lower.TagComm(g.Tag[op]), g.Region[op]}
			var ok bool
			if cls, ok = memo[kk]; !ok {
				pairs = append(pairs, kk)
				for i, o := range overrides {
					if o.matches(kk.comm, kk.region, g, commName) {
						cls = uint8(i + 1)
						break
					}
				}
				memo[kk] = cls
			}
		}
		if g.Wire != nil && g.Wire[op] != 0 {
			var err error
			if cls, err = c.wired(wired, cls, lower.Wire(g.Wire[op])); err != nil {
				return nil, fmt.Errorf("network: send %s: %w", g.Describe(int32(op)), err)
			}
		}
		c.Of[op] = cls
		used = used || cls != 0
	}
	if err := selectSome(overrides, pairs, memo, g, commName); err != nil {
		return nil, err
	}
	if !used {
		return nil, nil
	}
	return c, nil
}

// wireClasses holds the class of each (class, wire) pair given one so
// far; 0 (the base class, never a wire's) where none.
type wireClasses [MaxClasses][lower.NumWires]uint8

// wired returns the class of messages of class cls that travel with wire
// w, adding it to c (and to memo) on first use.
func (c *Classes) wired(memo *wireClasses, cls uint8, w lower.Wire) (uint8, error) {
	if !w.Valid() {
		return 0, fmt.Errorf("message wire %d is not one of lower's", uint8(w))
	}
	if k := memo[cls][w]; k != 0 {
		return k, nil
	}
	if len(c.Params) >= MaxClasses {
		return 0, fmt.Errorf("more than %d network classes (overrides × wire protocols)", MaxClasses)
	}
	p, err := c.Params[cls].ForWire(w)
	if err != nil {
		return 0, err
	}
	c.Params = append(c.Params, p)
	k := uint8(len(c.Params) - 1)
	memo[cls][w] = k
	return k, nil
}

// commRegion is the communicator and region of a send.
type commRegion struct{ comm, region int32 }

// SelectError is an override that can never apply: it selects no
// message of the trace, or every message it selects is taken first by
// earlier overrides (Shadowed, 1-based, non-empty then). Either way it
// is a silent no-op that a misspelt selector or a misordered list would
// otherwise leave in a scenario.
type SelectError struct {
	Override int // 1-based
	Comm     string
	Region   string
	Shadowed []int
	// Comms and Regions list what the trace's messages have, for the
	// message of an override that selects none.
	Comms, Regions string
	// By describes the shadowing overrides' selectors.
	By []string
}

func (e *SelectError) Error() string {
	if len(e.Shadowed) == 0 {
		return fmt.Sprintf("network override %d (communicator %q, region %q) selects no message of the trace: its messages are on communicators %s and in regions %s",
			e.Override, e.Comm, e.Region, e.Comms, e.Regions)
	}
	by := make([]string, len(e.Shadowed))
	for k, i := range e.Shadowed {
		by[k] = fmt.Sprintf("override %d (%s)", i, e.By[k])
	}
	return fmt.Sprintf("network override %d (communicator %q, region %q) never applies: every message it selects is taken first by %s (the first override that selects a message applies)",
		e.Override, e.Comm, e.Region, strings.Join(by, " and "))
}

// selectSome refuses an override that can never apply (SelectError):
// one that selects none of the messages (a misspelt communicator name or
// region glob), or one whose every message an earlier override takes
// (class gives each communicator and region pair its override).
func selectSome(overrides []Override, pairs []commRegion, class map[commRegion]uint8, g *graph.Graph, commName func(int32) string) error {
	for i := range overrides {
		o := &overrides[i]
		hit, applies := false, false
		earlier := map[int]bool{}
		for _, p := range pairs {
			if !o.matches(p.comm, p.region, g, commName) {
				continue
			}
			hit = true
			if c := int(class[p]); c == i+1 {
				applies = true
				break
			} else {
				earlier[c] = true
			}
		}
		switch {
		case applies:
			continue
		case hit:
			e := &SelectError{Override: i + 1, Comm: o.Comm, Region: o.Region}
			for c := range earlier {
				e.Shadowed = append(e.Shadowed, c)
			}
			sort.Ints(e.Shadowed)
			for _, c := range e.Shadowed {
				e.By = append(e.By, fmt.Sprintf("communicator %q, region %q", overrides[c-1].Comm, overrides[c-1].Region))
			}
			return e
		}
		comms, regions := map[string]bool{}, map[string]bool{}
		for _, p := range pairs {
			name := strconv.Itoa(int(p.comm))
			if commName != nil && commName(p.comm) != "" {
				name += " (" + commName(p.comm) + ")"
			}
			comms[name] = true
			if p.region >= 0 && int(p.region) < len(g.Regions) {
				regions[strconv.Quote(g.Regions[p.region])] = true
			}
		}
		return &SelectError{Override: i + 1, Comm: o.Comm, Region: o.Region, Comms: listOf(comms), Regions: listOf(regions)}
	}
	return nil
}

// listOf lists a set's members sorted, at most 8 of them, or "none".
func listOf(set map[string]bool) string {
	if len(set) == 0 {
		return "none"
	}
	ks := make([]string, 0, len(set))
	for k := range set {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	if len(ks) > 8 {
		ks = append(ks[:8], fmt.Sprintf("… (%d in all)", len(ks)))
	}
	return strings.Join(ks, ", ")
}

func (o *Override) matches(comm, region int32, g *graph.Graph, commName func(int32) string) bool {
	if o.Comm != "" {
		name := ""
		if commName != nil {
			name = commName(comm)
		}
		if o.Comm != name && o.Comm != strconv.Itoa(int(comm)) {
			return false
		}
	}
	if o.Region != "" {
		name := ""
		if region >= 0 && int(region) < len(g.Regions) {
			name = g.Regions[region]
		}
		if ok, _ := path.Match(o.Region, name); !ok {
			return false
		}
	}
	return true
}

// ParseOverride reads an override spec "SELECTORS;PARAMS" such as
// "comm=node;L=300,o=100,G=1" or "region=halo*;L=8000": selectors comm=
// and region= (either may be left out), then LogGOPS parameters as in
// ParseSpec; parameters left out keep their base value.
func ParseOverride(spec string, base LogGOPS) (Override, error) {
	sel, params, ok := strings.Cut(spec, ";")
	if !ok {
		return Override{}, fmt.Errorf("network override %q: want SELECTORS;PARAMS, e.g. comm=node;L=300,o=100", spec)
	}
	var o Override
	for _, kv := range strings.Split(sel, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return Override{}, fmt.Errorf("network override %q: selector %q is not KEY=VALUE", spec, kv)
		}
		switch strings.TrimSpace(k) {
		case "comm":
			o.Comm = strings.TrimSpace(v)
		case "region":
			o.Region = strings.TrimSpace(v)
			if _, err := path.Match(o.Region, ""); err != nil {
				return Override{}, fmt.Errorf("network override %q: region pattern %q: %w", spec, o.Region, err)
			}
		default:
			return Override{}, fmt.Errorf("network override %q: unknown selector %q (want comm, region)", spec, k)
		}
	}
	if o.Comm == "" && o.Region == "" {
		return Override{}, fmt.Errorf("network override %q: no selector (comm= or region=)", spec)
	}
	p, err := parseParams(spec, params, base)
	if err != nil {
		return Override{}, err
	}
	if p.Offload != base.Offload {
		return Override{}, fmt.Errorf("network override %q: offload holds for the whole network: set it in the network spec", spec)
	}
	if err := p.Validate(); err != nil {
		return Override{}, fmt.Errorf("network override %q: %w", spec, err)
	}
	o.Params = p
	return o, nil
}
