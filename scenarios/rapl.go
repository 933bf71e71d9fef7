package scenarios

import "github.com/capsim/capsim/optimize/policy"

// raplRows applies policy.RAPLMix to every region row of sp on the CPU (RAPL
// caps the socket; static-rapl offloads nothing) under the per-rank limit
// limitW, returning the time ratios and powers of one rank.
func (sp *speeds) raplRows(limitW, floorW float64) (ratio, watts []float64) {
	n := len(sp.cpuRatio[0])
	ratio, watts = make([]float64, n), make([]float64, n)
	rs, ws := make([]float64, len(sp.cpuRatio)), make([]float64, len(sp.cpuRatio))
	for i := 0; i < n; i++ {
		for k := range sp.cpuRatio {
			rs[k], ws[k] = sp.cpuRatio[k][i], sp.cpuWatts[k][i]
		}
		ratio[i], watts[i], _ = policy.RAPLMix(rs, ws, limitW, floorW)
	}
	return ratio, watts
}
