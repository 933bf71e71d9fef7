package power

import (
	"fmt"
	"io"
	"sort"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TimelineFormat is the value of the "capsim.format" schema metadata key
// of a power timeline file.
const TimelineFormat = "power-timeline"

// TimelineSchema returns the schema of a power timeline file: one row per
// constant-power segment of a rank (or node: unit names the first column),
// ranks in order, segments in time order.
//
//	rank:int32  start_ns:int64  end_ns:int64  watts:float64
//
// Metadata "capsim.format" = "power-timeline", "capsim.version" = "1",
// "base_w" the job's constant power on top of the ranks', and any extra
// keys given to WriteTimeline (sorted by key).
func TimelineSchema(unit string, baseW float64, extra map[string]string) *arrow.Schema {
	keys := []string{"capsim.format", "capsim.version", "base_w"}
	vals := []string{TimelineFormat, "1", strconv.FormatFloat(baseW, 'g', -1, 64)}
	ek := make([]string, 0, len(extra))
	for k := range extra {
		ek = append(ek, k)
	}
	sort.Strings(ek)
	for _, k := range ek {
		keys = append(keys, k)
		vals = append(vals, extra[k])
	}
	md := arrow.NewMetadata(keys, vals)
	return arrow.NewSchema([]arrow.Field{
		{Name: unit, Type: arrow.PrimitiveTypes.Int32},
		{Name: "start_ns", Type: arrow.PrimitiveTypes.Int64},
		{Name: "end_ns", Type: arrow.PrimitiveTypes.Int64},
		{Name: "watts", Type: arrow.PrimitiveTypes.Float64},
	}, &md)
}

// WriteTimeline writes per-rank (unit "rank") or per-node (unit "node")
// power step functions, as from Accountant.RankProfiles or NodeProfiles,
// as an Arrow IPC file with TimelineSchema.
func WriteTimeline(w io.Writer, unit string, ranks []Step, baseW float64, extra map[string]string) error {
	sc := TimelineSchema(unit, baseW, extra)
	fw, err := ipc.NewFileWriter(w, ipc.WithSchema(sc))
	if err != nil {
		return fmt.Errorf("power timeline: %w", err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	rk := b.Field(0).(*array.Int32Builder)
	st := b.Field(1).(*array.Int64Builder)
	en := b.Field(2).(*array.Int64Builder)
	wa := b.Field(3).(*array.Float64Builder)
	rows := 0
	flush := func() error {
		rec := b.NewRecordBatch()
		defer rec.Release()
		rows = 0
		return fw.Write(rec)
	}
	for r, s := range ranks {
		for i, t := range s.Times {
			end := s.End
			if i+1 < len(s.Times) {
				end = s.Times[i+1]
			}
			rk.Append(int32(r))
			st.Append(t)
			en.Append(end)
			wa.Append(s.Watts[i])
			if rows++; rows == 1<<16 {
				if err := flush(); err != nil {
					return fmt.Errorf("power timeline: %w", err)
				}
			}
		}
	}
	if rows > 0 || len(ranks) == 0 {
		if err := flush(); err != nil {
			return fmt.Errorf("power timeline: %w", err)
		}
	}
	if err := fw.Close(); err != nil {
		return fmt.Errorf("power timeline: %w", err)
	}
	return nil
}
