package hugepage

import (
	"syscall"
	"unsafe"
)

const hugeSize = 2 << 20

// advise marks the whole huge pages inside the n bytes at p MADV_HUGEPAGE.
func advise(p unsafe.Pointer, n uintptr) {
	skip := (hugeSize - uintptr(p)%hugeSize) % hugeSize
	if n <= skip {
		return
	}
	n = (n - skip) &^ (hugeSize - 1)
	if n == 0 {
		return
	}
	// The advice is a hint: an error (a kernel without transparent huge
	// pages) leaves the memory as it was.
	_ = syscall.Madvise(unsafe.Slice((*byte)(unsafe.Add(p, skip)), n), syscall.MADV_HUGEPAGE)
}
