package models

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/capsim/capsim/compute"
)

// RegionPrediction is what PredictRegion found: the region's model and
// the pattern that bound it, the target configuration with the recorded
// one's fields where the target left them unset, and the prediction (for
// an Offload model, with its offload decision).
type RegionPrediction struct {
	Model   compute.Model
	Pattern string // "" for the file's default model
	Config  compute.Config
	Pred    compute.Prediction
	Offload *OffloadReport // nil unless the model is an Offload model
}

// PredictRegion prices work seconds of region, recorded at set's Recorded
// configuration, under target (unset fields: the recorded ones) with the
// model set binds to the region. params ("name=value") give
// non-configuration inputs of an Eiger model for the predicted work (the
// recorded work keeps the model's fixed values); they are an ErrOption
// error for other models or for inputs the model does not have.
func PredictRegion(set *compute.Set, region string, work float64, target compute.Config, params []string) (*RegionPrediction, error) {
	cfg := target.Merge(set.Recorded)
	m, pat, err := set.Lookup(region)
	if err != nil {
		return nil, err
	}
	out := &RegionPrediction{Model: m, Pattern: pat, Config: cfg}
	var eg *Eiger
	var over map[string]float64
	if len(params) > 0 {
		if eg, over, err = eigerParams(m, params); err != nil {
			return nil, err
		}
	}
	if !isOffload(m) && !cfg.IsCPU() {
		return nil, optionf("device %q: region %q has a %s model (pattern %s), which runs on the host only; an accel model names the devices", cfg.Device, region, m.Kind(), pat)
	}
	w := compute.Work{Seconds: work, At: set.Recorded}
	switch {
	case isOffload(m):
		d, err := m.(*Offload).Decide(w, cfg)
		if err != nil {
			return nil, fmt.Errorf("region %q: %w", region, err)
		}
		out.Pred, out.Offload = d.Pred, &d
	case eg != nil:
		if out.Pred, err = eg.PredictWith(w, cfg, over); err != nil {
			return nil, fmt.Errorf("region %q: %w", region, err)
		}
	default:
		if out.Pred, err = m.Predict(w, cfg); err != nil {
			return nil, fmt.Errorf("region %q (%s model): %w", region, m.Kind(), err)
		}
	}
	return out, nil
}

func isOffload(m compute.Model) bool {
	_, ok := m.(*Offload)
	return ok
}

// eigerParams parses the "name=value" inputs params of Eiger model m.
func eigerParams(m compute.Model, params []string) (*Eiger, map[string]float64, error) {
	e, ok := m.(*Eiger)
	if !ok {
		return nil, nil, optionf("--param applies to eiger models; the region's model is %s", m.Kind())
	}
	over := map[string]float64{}
	for _, p := range params {
		k, v, ok := strings.Cut(p, "=")
		k = strings.TrimSpace(k)
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if !ok || k == "" || err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, nil, optionf("--param %q: want name=finite number", p)
		}
		if _, known := e.Fixed[k]; !known {
			return nil, nil, optionf("--param %q: the model has no fixed input %q", p, k)
		}
		over[k] = x
	}
	return e, over, nil
}
