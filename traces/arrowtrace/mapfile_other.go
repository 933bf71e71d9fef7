//go:build !linux

package arrowtrace

import "os"

func mapFile(f *os.File, size int64) []byte { return nil }

func unmapFile(b []byte) {}

func dropPages(b []byte) {}
