package arrowtrace

import (
	"bytes"

	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// streamOf re-encodes an Arrow IPC file as an IPC stream (nil on error),
// optionally compressed: fuzz seeds for the stream reader.
func streamOf(file []byte, opts ...ipc.Option) []byte {
	fr, err := ipc.NewFileReader(bytes.NewReader(file))
	if err != nil {
		return nil
	}
	defer fr.Close()
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, append([]ipc.Option{ipc.WithSchema(fr.Schema())}, opts...)...)
	for i := 0; i < fr.NumRecords(); i++ {
		rec, err := fr.RecordBatch(i)
		if err != nil || w.Write(rec) != nil {
			return nil
		}
	}
	if w.Close() != nil {
		return nil
	}
	return buf.Bytes()
}
