package arrowtrace

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/capsim/capsim/traces/graph"
)

// MetaRecorded is the optional schema metadata key of a trace's recorded
// run (graph.Recorded), as JSON:
//
//	{"version":1,"span_ns":[...],"start_ns":[...],"off_ns":[...],"outside_ns":[...],"gaps_kept":false}
//
// with one entry per rank in each list present. Files without it (older
// files, generated traces) have no recorded run.
const MetaRecorded = "capsim.recorded"

// recordedVersion is the version of MetaRecorded's JSON this capsim
// writes and reads.
const recordedVersion = 1

type recordedJSON struct {
	Version   int     `json:"version"`
	SpanNs    []int64 `json:"span_ns,omitempty"`
	StartNs   []int64 `json:"start_ns,omitempty"`
	OffNs     []int64 `json:"off_ns,omitempty"`
	OutsideNs []int64 `json:"outside_ns,omitempty"`
	GapsKept  bool    `json:"gaps_kept,omitempty"`
}

// withRecorded returns sc with rec in its metadata; sc itself when rec is
// nil.
func withRecorded(sc *arrow.Schema, rec *graph.Recorded) (*arrow.Schema, error) {
	if rec == nil {
		return sc, nil
	}
	b, err := json.Marshal(recordedJSON{Version: recordedVersion, SpanNs: rec.SpanNs, StartNs: rec.StartNs, OffNs: rec.OffNs, OutsideNs: rec.OutsideNs, GapsKept: rec.GapsKept})
	if err != nil {
		return nil, err
	}
	md := sc.Metadata()
	keys := append(append([]string(nil), md.Keys()...), MetaRecorded)
	vals := append(append([]string(nil), md.Values()...), string(b))
	nmd := arrow.NewMetadata(keys, vals)
	return arrow.NewSchema(sc.Fields(), &nmd), nil
}

// readRecorded returns the recorded run in md for a trace of n ranks, nil
// when md has none.
func readRecorded(md arrow.Metadata, n int, name string) (*graph.Recorded, error) {
	v, ok := md.GetValue(MetaRecorded)
	if !ok {
		return nil, nil
	}
	bad := func(format string, a ...any) error {
		return &FormatError{File: name, Row: -1, Field: MetaRecorded, Msg: fmt.Sprintf(format, a...)}
	}
	var j recordedJSON
	dec := json.NewDecoder(strings.NewReader(v))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return nil, bad("not the JSON of a recorded run: %v", err)
	}
	if j.Version != recordedVersion {
		return nil, bad("version %d (this capsim reads %d)", j.Version, recordedVersion)
	}
	rec := &graph.Recorded{SpanNs: j.SpanNs, StartNs: j.StartNs, OffNs: j.OffNs, OutsideNs: j.OutsideNs, GapsKept: j.GapsKept}
	if err := rec.Validate(n); err != nil {
		return nil, bad("%v", err)
	}
	return rec, nil
}
