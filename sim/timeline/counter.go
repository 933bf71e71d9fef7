package timeline

import (
	"math"
	"strconv"
)

// Counter adds a counter sample to the timeline: track name shows value
// from ts (ns) until the next sample of the same name. Perfetto draws one
// counter track per name, e.g. the power of each rank. Call it before
// Close; samples of a track need not be sorted. Non-finite values are
// skipped (JSON cannot hold them).
func (t *Writer) Counter(name string, ts int64, value float64) {
	if math.IsNaN(value) || math.IsInf(value, 0) {
		return
	}
	b := t.begin()
	b = append(b, `{"ph":"C","pid":0,"name":`...)
	b = strconv.AppendQuote(b, name)
	b = append(b, `,"ts":`...)
	b = appendMicros(b, ts)
	b = append(b, `,"args":{"value":`...)
	b = strconv.AppendFloat(b, value, 'g', -1, 64)
	b = append(b, "}}"...)
	t.end(b)
}
