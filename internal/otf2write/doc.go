// Package otf2write writes OTF2 archives with the OTF2 library's writer
// API, so that capsim's tests and benchmarks can make OTF2 traces of every
// record kind the importer (package traces/otf2) reads, at any size.
//
// Events are handed over one at a time and go straight to the library,
// which writes them out in chunks: memory stays bounded whatever the
// trace's length. The definitions (strings, regions, location groups,
// locations, groups, communicators, the clock) are written at Close.
//
// It needs cgo and the OTF2 library; without them the package is empty.
package otf2write
