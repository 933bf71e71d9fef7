// Package table holds measured configuration tables: for each region or
// task, rows of (configuration → time, power). They are the LP's input
// (the per-task configurations of Bailey et al., SC'15, §3.2, Table 1)
// and a compute.Model that looks configurations up.
package table

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/power"
	"github.com/capsim/capsim/internal/bom"
)

// Row is one measured configuration of region or task Key.
type Row struct {
	Key     string         `json:"key"`
	Config  compute.Config `json:"config"`
	Seconds float64        `json:"seconds"`
	Watts   float64        `json:"watts"`
}

// Table is a set of rows. Keys and configurations are unique together.
type Table struct {
	Rows []Row `json:"rows"`
}

// Validate checks that every row has a key, a positive finite time, a
// power in [0, power.MaxWatts], and that no (key, configuration) repeats.
func (t *Table) Validate() error {
	seen := make(map[string]int, len(t.Rows))
	for i, r := range t.Rows {
		if r.Key == "" {
			return fmt.Errorf("table: row %d: empty key", i+1)
		}
		if !(r.Seconds > 0) || math.IsInf(r.Seconds, 0) {
			return fmt.Errorf("table: row %d (%s, %s): time %g s must be positive", i+1, r.Key, r.Config, r.Seconds)
		}
		if err := power.CheckWatts(r.Watts, false); err != nil {
			return fmt.Errorf("table: row %d (%s, %s): power: %w", i+1, r.Key, r.Config, err)
		}
		if err := r.Config.Validate(); err != nil {
			return fmt.Errorf("table: row %d (%s): %w", i+1, r.Key, err)
		}
		id := r.Key + "\x00" + canon(r.Config)
		if j, ok := seen[id]; ok {
			return fmt.Errorf("table: row %d repeats row %d (%s, %s)", i+1, j, r.Key, r.Config)
		}
		seen[id] = i + 1
	}
	return nil
}

func canon(c compute.Config) string {
	d := c.Device
	if d == "" {
		d = compute.DeviceCPU
	}
	return fmt.Sprintf("%s|%.9g|%d|%.9g|%.9g", d, c.CPUFreqGHz, c.Threads, c.MemFreqGHz, c.MemThrottle)
}

// Keys returns the sorted distinct keys.
func (t *Table) Keys() []string {
	m := map[string]bool{}
	for _, r := range t.Rows {
		m[r.Key] = true
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Model returns the lookup model of key's rows.
func (t *Table) Model(key string) (*Model, error) {
	m := &Model{Key: key}
	for _, r := range t.Rows {
		if r.Key == key {
			m.Rows = append(m.Rows, r)
		}
	}
	if len(m.Rows) == 0 {
		return nil, fmt.Errorf("table: no rows for %q", key)
	}
	return m, nil
}

// Model is the configuration table of one region or task as a
// compute.Model. Predict scales the recorded work by the ratio of the
// target row's time to the recorded configuration's row's time, and
// returns the target row's power. Both configurations must be rows.
type Model struct {
	Key  string `json:"key"`
	Rows []Row  `json:"rows"`
}

// Kind returns compute.KindTable.
func (m *Model) Kind() compute.Kind { return compute.KindTable }

// Lookup returns the row of configuration c.
func (m *Model) Lookup(c compute.Config) (Row, bool) {
	k := canon(c)
	for _, r := range m.Rows {
		if canon(r.Config) == k {
			return r, true
		}
	}
	return Row{}, false
}

// Predict implements compute.Model.
func (m *Model) Predict(w compute.Work, target compute.Config) (compute.Prediction, error) {
	rec, ok := m.Lookup(w.At)
	if !ok {
		return compute.Prediction{}, fmt.Errorf("table %q: recorded configuration %s is not a row", m.Key, w.At)
	}
	tgt, ok := m.Lookup(target)
	if !ok {
		return compute.Prediction{}, fmt.Errorf("table %q: target configuration %s is not a row", m.Key, target)
	}
	p := compute.Prediction{Seconds: w.Seconds * tgt.Seconds / rec.Seconds, Watts: tgt.Watts, Kind: compute.KindTable}
	if tgt.Watts == 0 {
		p.Flags |= compute.NoPower
	}
	return p, nil
}

// Grid evaluates model m for work at every configuration and returns the
// rows (key, config, time, power): the {config → time, power} table the
// LP needs for a task (Bailey et al., SC'15, §3.2). Configurations the model rejects
// are an error.
func Grid(key string, m compute.Model, w compute.Work, configs []compute.Config) (*Table, error) {
	t := &Table{}
	for _, c := range configs {
		p, err := m.Predict(w, c)
		if err != nil {
			return nil, fmt.Errorf("table: %s at %s: %w", key, c, err)
		}
		t.Rows = append(t.Rows, Row{Key: key, Config: c, Seconds: p.Seconds, Watts: p.Watts})
	}
	return t, nil
}

// CSV columns. "key" and "seconds" are required; the others default to 0
// / "".
var columns = []string{"key", "device", "cpu_ghz", "threads", "mem_ghz", "mem_throttle", "seconds", "watts"}

// ReadCSV reads a table from CSV with a header row naming columns among
// key, device, cpu_ghz, threads, mem_ghz, mem_throttle, seconds, watts (in
// any order). name is used in error messages.
func ReadCSV(r io.Reader, name string) (*Table, error) {
	cr := csv.NewReader(bom.Skip(r))
	cr.Comment = '#'
	cr.TrimLeadingSpace = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty file (need a header row)", name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	idx := map[string]int{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(h))
		known := false
		for _, c := range columns {
			known = known || c == h
		}
		if !known {
			return nil, fmt.Errorf("%s: line 1: unknown column %q (want %s)", name, h, strings.Join(columns, ", "))
		}
		if _, dup := idx[h]; dup {
			return nil, fmt.Errorf("%s: line 1: duplicate column %q", name, h)
		}
		idx[h] = i
	}
	for _, req := range []string{"key", "seconds"} {
		if _, ok := idx[req]; !ok {
			return nil, fmt.Errorf("%s: line 1: missing required column %q", name, req)
		}
	}
	t := &Table{}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		get := func(col string) string {
			if i, ok := idx[col]; ok {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		num := func(col string) (float64, error) {
			s := get(col)
			if s == "" {
				return 0, nil
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, fmt.Errorf("%s: line %d: column %s: %q is not a finite number", name, line, col, s)
			}
			return v, nil
		}
		var row Row
		row.Key = get("key")
		row.Config.Device = get("device")
		var errs []error
		var v float64
		v, err = num("cpu_ghz")
		row.Config.CPUFreqGHz, errs = v, append(errs, err)
		v, err = num("mem_ghz")
		row.Config.MemFreqGHz, errs = v, append(errs, err)
		v, err = num("mem_throttle")
		row.Config.MemThrottle, errs = v, append(errs, err)
		v, err = num("seconds")
		row.Seconds, errs = v, append(errs, err)
		v, err = num("watts")
		row.Watts, errs = v, append(errs, err)
		if s := get("threads"); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 {
				errs = append(errs, fmt.Errorf("%s: line %d: column threads: %q is not a non-negative integer", name, line, s))
			}
			row.Config.Threads = n
		}
		if err := errors.Join(errs...); err != nil {
			return nil, err
		}
		if row.Config.CPUFreqGHz < 0 || row.Config.MemFreqGHz < 0 || row.Config.MemThrottle < 0 {
			return nil, fmt.Errorf("%s: line %d: negative frequency or throttle", name, line)
		}
		if err := row.Config.CheckClocks(); err != nil {
			return nil, fmt.Errorf("%s: line %d: column %w", name, line, err)
		}
		if row.Seconds > compute.MaxSeconds {
			return nil, fmt.Errorf("%s: line %d: column seconds: %g s is past %g s (compute.MaxSeconds, about 31.7 years)", name, line, row.Seconds, float64(compute.MaxSeconds))
		}
		t.Rows = append(t.Rows, row)
	}
	if err := t.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return t, nil
}

// WriteCSV writes t with all columns, in row order.
func (t *Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(columns); err != nil {
		return err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, r := range t.Rows {
		rec := []string{r.Key, r.Config.Device, f(r.Config.CPUFreqGHz), strconv.Itoa(r.Config.Threads),
			f(r.Config.MemFreqGHz), f(r.Config.MemThrottle), f(r.Seconds), f(r.Watts)}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
