// Package cputime reads the CPU time the process has used, for benchmarks
// and traces that report work per CPU second on a shared machine.
package cputime
