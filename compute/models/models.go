// Package models assembles every compute-model kind capsim knows into
// model-file decoders: the built-in kinds of compute/modelfile (measured,
// table, dvfs, cos, cos-bgq) plus the statistical Eiger models of
// compute/eiger (kind "eiger") and accelerator offload of compute/accel
// (kind "accel") and Dong Li's phase-time regression with the IPS power
// model (kind "phase-mlr", Dong Li, PhD thesis, Virginia Tech 2011,
// §3.4–3.5), which those packages cannot register themselves without
// an import cycle. Commands load model files through Load.
package models

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/modelfile"
)

// Kinds of the models this package adds to model files.
const (
	KindEiger compute.Kind = "eiger" // statistical model (Anger's thesis Ch. 3), see Eiger
	KindAccel compute.Kind = "accel" // accelerator offload (Meswani et al.), see Offload
)

// Decoders returns the decoders of the kinds this package adds, for
// modelfile.Decode and modelfile.File.Set.
func Decoders() modelfile.Decoders {
	d := modelfile.Decoders{}
	d[KindEiger] = func(p json.RawMessage) (compute.Model, error) { return DecodeEiger(p) }
	d[KindAccel] = func(p json.RawMessage) (compute.Model, error) { return DecodeOffload(p, d) }
	d[KindPhaseMLR] = func(p json.RawMessage) (compute.Model, error) { return DecodePhaseMLR(p) }
	return d
}

// Load reads the model file at path with every model kind.
func Load(path string) (*modelfile.File, *compute.Set, error) {
	return modelfile.Load(path, Decoders())
}

// Decode reads a model file from r with every model kind of this
// package; name names it in errors.
func Decode(r io.Reader, name string) (*modelfile.File, *compute.Set, error) {
	return modelfile.Decode(r, name, Decoders())
}

// Entry encodes m for regions matching pattern, like modelfile.NewEntry,
// with a note (e.g. the fit statistics).
func Entry(pattern string, m compute.Model, note string) (modelfile.Entry, error) {
	e, err := modelfile.NewEntry(pattern, m)
	if err != nil {
		return e, fmt.Errorf("model for %q: %w", pattern, err)
	}
	e.Note = note
	return e, nil
}
