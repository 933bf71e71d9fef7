// Package hugepage asks the operating system to back large slices with
// huge pages.
//
// The replay engine and the trace readers hold a few columns of millions
// of entries and touch them at many places at once (every rank's current
// operations): with 4 KiB pages almost every such access also misses the
// TLB. Linux backs memory with 2 MiB pages where a program asks for it
// (transparent huge pages in "madvise" mode, the common default), which Go
// does not do for its heap.
package hugepage

import "unsafe"

// Min is the smallest slice, in bytes, that Advise asks huge pages for.
const Min = 4 << 20

// Advise asks for huge pages for the backing array of s (its capacity),
// where it is at least Min bytes. Call it right after allocating s, before
// s is written: pages already touched stay as they are. It does nothing
// where the system offers no such advice, and never fails.
func Advise[T any](s []T) {
	var z T
	n := uintptr(cap(s)) * unsafe.Sizeof(z)
	if n < Min {
		return
	}
	advise(unsafe.Pointer(unsafe.SliceData(s)), n)
}
