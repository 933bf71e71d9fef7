package arrowtrace

import (
	"math"
	"os"
	"syscall"
)

// mapFile maps the size bytes of f into memory read-only, or returns nil
// where it cannot (the reader then reads with ReadAt).
func mapFile(f *os.File, size int64) []byte {
	if size <= 0 || size > math.MaxInt {
		return nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil
	}
	return b
}

// unmapFile unmaps what mapFile mapped.
func unmapFile(b []byte) {
	if b != nil {
		_ = syscall.Munmap(b)
	}
}

// dropPages removes the pages of mapping b from the process's memory:
// the file's pages stay in the page cache and a later read maps them
// again.
func dropPages(b []byte) {
	if b != nil {
		_ = syscall.Madvise(b, syscall.MADV_DONTNEED)
	}
}
