package eiger

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/capsim/capsim/internal/bom"
)

// Samples are lwperf-style measurements: one header of column names, then one
// row of numbers per trial.
type Samples struct {
	Names []string    // all column names, in file order
	Rows  [][]float64 // one row per trial
}

// ReadCSV reads lwperf-style CSV samples (header of names, then rows of
// finite decimal numbers). name labels errors, which give line and column.
func ReadCSV(r io.Reader, name string) (*Samples, error) {
	cr := csv.NewReader(bom.Skip(r))
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = false
	hdr, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty file, want a header line", name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s := &Samples{}
	seen := map[string]int{}
	for c, h := range hdr {
		h = strings.TrimSpace(h)
		if h == "" {
			return nil, fmt.Errorf("%s:1: column %d: empty column name", name, c+1)
		}
		if p, dup := seen[h]; dup {
			return nil, fmt.Errorf("%s:1: column %d: name %q repeats column %d", name, c+1, h, p+1)
		}
		seen[h] = c
		s.Names = append(s.Names, h)
	}
	cr.FieldsPerRecord = len(hdr)
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, fmt.Errorf("%s:%d: column %d: %w", name, pe.StartLine, pe.Column, pe.Err)
			}
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		row := make([]float64, len(rec))
		for c, f := range rec {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%s:%d: column %d (%s): %q is not a finite number", name, line, c+1, s.Names[c], f)
			}
			row[c] = v
		}
		s.Rows = append(s.Rows, row)
	}
	return s, nil
}

// Split returns the input matrix of columns inputs and the output column.
// An input given twice, or the output among the inputs, is refused: the
// regression could not tell their coefficients apart.
func (s *Samples) Split(inputs []string, output string) ([][]float64, []float64, error) {
	idx := func(n string) (int, error) {
		for i, h := range s.Names {
			if h == n {
				return i, nil
			}
		}
		return 0, fmt.Errorf("eiger: no column %q", n)
	}
	in := make([]int, len(inputs))
	seen := map[string]bool{}
	for i, n := range inputs {
		j, err := idx(n)
		if err != nil {
			return nil, nil, err
		}
		if seen[n] {
			return nil, nil, fmt.Errorf("eiger: input column %q given twice (its two coefficients could not be told apart)", n)
		}
		seen[n] = true
		in[i] = j
	}
	o, err := idx(output)
	if err != nil {
		return nil, nil, err
	}
	if seen[output] {
		return nil, nil, fmt.Errorf("eiger: column %q is both an input and the output", output)
	}
	X := make([][]float64, len(s.Rows))
	y := make([]float64, len(s.Rows))
	for r, row := range s.Rows {
		x := make([]float64, len(in))
		for i, j := range in {
			x[i] = row[j]
		}
		X[r], y[r] = x, row[o]
	}
	return X, y, nil
}

// WriteJSON writes the model as indented JSON.
func (m *Model) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(m)
}

// ReadModel decodes and validates a JSON model; name labels errors.
func ReadModel(r io.Reader, name string) (*Model, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var m Model
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if m.Version != ModelVersion {
		return nil, fmt.Errorf("%s: unsupported version %d (want %d)", name, m.Version, ModelVersion)
	}
	p := len(m.Params)
	if len(m.Mean) != p || len(m.Std) != p || len(m.Clusters) == 0 {
		return nil, fmt.Errorf("%s: params, mean and std must have equal length and clusters must be non-empty", name)
	}
	for _, j := range m.Params {
		if j < 0 || j >= len(m.Names) {
			return nil, fmt.Errorf("%s: param index %d out of range", name, j)
		}
	}
	for i, c := range m.Clusters {
		if len(c.Beta) != len(c.Terms)+1 || (len(m.Clusters) > 1 && len(c.Center) != p) {
			return nil, fmt.Errorf("%s: cluster %d: beta must have len(terms)+1 values and center %d", name, i, p)
		}
		for _, t := range c.Terms {
			if t.Kind < PowNeg2 || t.Kind > Product || t.I < 0 || t.I >= p || t.J < 0 || t.J >= p {
				return nil, fmt.Errorf("%s: cluster %d: invalid term %+v", name, i, t)
			}
		}
	}
	return &m, nil
}
