package modelfile

import (
	"fmt"
	"math"
	"strings"

	"github.com/capsim/capsim/compute"
	"github.com/capsim/capsim/compute/arrowtab"
)

// SamplesFromTable reads samples from an Arrow sample table with the
// columns of ReadSamples: region and device as strings, the others as
// numbers (region and seconds required). name labels errors, which give
// the column and 1-based row.
func SamplesFromTable(t *arrowtab.Table, name string) ([]Sample, error) {
	for _, c := range t.Columns {
		known := false
		for _, k := range sampleColumns {
			known = known || k == c.Name
		}
		if !known {
			return nil, fmt.Errorf("%s: unknown column %q (want %s)", name, c.Name, strings.Join(sampleColumns, ", "))
		}
		if str := c.Name == "region" || c.Name == "device"; str != c.IsString() {
			return nil, fmt.Errorf("%s: column %q must be a %s column", name, c.Name, map[bool]string{true: "string", false: "number"}[str])
		}
	}
	for _, req := range []string{"region", "seconds"} {
		if t.Column(req) == nil {
			return nil, fmt.Errorf("%s: missing required column %q", name, req)
		}
	}
	str := func(c string, i int) string {
		if col := t.Column(c); col != nil {
			return col.Strings[i]
		}
		return ""
	}
	var err error
	num := func(c string, i int) float64 {
		col := t.Column(c)
		if col == nil {
			return 0
		}
		v := col.Numbers[i]
		if v < 0 && err == nil {
			err = fmt.Errorf("%s: column %s row %d: %g is negative", name, c, i+1, v)
		}
		return v
	}
	out := make([]Sample, 0, t.Rows)
	for i := 0; i < t.Rows; i++ {
		s := Sample{Region: str("region", i)}
		s.Config = compute.Config{Device: str("device", i), CPUFreqGHz: num("cpu_ghz", i), MemFreqGHz: num("mem_ghz", i), MemThrottle: num("mem_throttle", i)}
		s.Seconds, s.Watts, s.Ts, s.LLCM, s.TPI = num("seconds", i), num("watts", i), num("ts", i), num("llcm", i), num("tpi", i)
		th := num("threads", i)
		if err != nil {
			return nil, err
		}
		if th != math.Trunc(th) || th > math.MaxInt32 {
			return nil, fmt.Errorf("%s: column threads row %d: %g is not an integer", name, i+1, th)
		}
		s.Config.Threads = int(th)
		if s.Region == "" {
			return nil, fmt.Errorf("%s: row %d: empty region", name, i+1)
		}
		if !(s.Seconds > 0) {
			return nil, fmt.Errorf("%s: row %d: seconds must be positive", name, i+1)
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no samples", name)
	}
	return out, nil
}
