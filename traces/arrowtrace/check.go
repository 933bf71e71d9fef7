package arrowtrace

import "io"

// CheckFooter validates the schema vectors in the footer of the Arrow IPC
// file of size bytes read through r, before the Arrow library reads them:
// corrupt footers can otherwise make it allocate without bound. Readers of
// other Arrow tables (e.g. compute sample tables) call it first.
func CheckFooter(r io.ReaderAt, size int64) error { return checkFooter(r, size) }
