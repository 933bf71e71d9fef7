// Package compute holds capsim's compute and power models. Subpackages:
//
//   - compute/dvfs: how a region's time scales with CPU frequency (the
//     frequency-sensitive / insensitive split), and a pricer that applies
//     per-rank frequencies to a replay;
//   - compute/power: per-P-state active power, idle power, and the energy
//     and power-over-time accounting of a replay.
package compute
