package chakra

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"google.golang.org/protobuf/encoding/protowire"
)

// MaxMessage bounds the length of one message of a trace, in bytes.
const MaxMessage = 1 << 28

// File is one NPU's execution trace: the global metadata and the nodes in
// file order.
type File struct {
	Path  string
	Meta  Metadata
	Nodes []Node
}

// ReadFile reads the execution trace at path.
func ReadFile(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Decode(f, path)
}

// Decode reads an execution trace from r; name labels errors.
func Decode(r io.Reader, name string) (*File, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	file := &File{Path: name}
	var buf []byte
	var off int64
	for i := -1; ; i++ {
		what := "global metadata"
		if i >= 0 {
			what = fmt.Sprintf("node %d", i)
		}
		var err error
		buf, err = readMessage(br, name, what, &off, buf)
		if err == io.EOF {
			if i < 0 {
				return nil, fmt.Errorf("%s: empty file, want a Chakra global metadata message", name)
			}
			return file, nil
		}
		if err != nil {
			return nil, err
		}
		if i < 0 {
			if ls := legacyFirst(buf); ls != schemaCurrent {
				return decodeLegacy(br, name, append([]byte(nil), buf...), ls, off+int64(len(buf)))
			}
			file.Meta, err = decodeMetadata(buf)
		} else {
			var nd Node
			nd, err = decodeNode(buf)
			if err == nil && (nd.Type <= InvalidNode || nd.Type > CommCollNode) {
				err = fmt.Errorf("id %d: unknown node type %d", nd.ID, nd.Type)
			}
			if err == nil {
				err = checkAttrs(&nd)
			}
			file.Nodes = append(file.Nodes, nd)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: byte %d: %s: %w", name, off, what, err)
		}
		off += int64(len(buf))
	}
}

// readMessage reads the next length-delimited message of file name from
// br into buf (reused where large enough; nil: a new slice), what naming
// it in errors, and moves *off, its byte offset, past its length. It
// returns io.EOF itself where the file ends before the message.
func readMessage(br *bufio.Reader, name, what string, off *int64, buf []byte) ([]byte, error) {
	n, err := binary.ReadUvarint(br)
	if err == io.EOF {
		return nil, io.EOF
	}
	if err != nil {
		return nil, fmt.Errorf("%s: byte %d: length of %s: %w", name, *off, what, noEOF(err))
	}
	if n > MaxMessage {
		return nil, fmt.Errorf("%s: byte %d: %s is %d bytes long (limit %d)", name, *off, what, n, MaxMessage)
	}
	*off += int64(protowire.SizeVarint(n))
	if uint64(cap(buf)) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := io.ReadFull(br, buf); err != nil {
		return nil, fmt.Errorf("%s: byte %d: %s: %w", name, *off, what, noEOF(err))
	}
	return buf, nil
}

func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// Sniff reports whether head, the first bytes of a file, open a Chakra
// execution trace: a length that fits the file's size, then a global
// metadata message whose fields are the schema's (a version string and
// attributes with a name), then, where head holds it, the length and type
// field of a first node. A file of Chakra 0.0.2 or 0.0.3 opens with a node
// (an id, a name and a node type) instead.
func Sniff(head []byte) bool {
	n, k := protowire.ConsumeVarint(head)
	if k < 0 || n == 0 || n > MaxMessage {
		return false
	}
	rest := head[k:]
	if uint64(len(rest)) < n {
		return false // the metadata must fit the sniffed bytes
	}
	msg := rest[:n]
	if legacyFirst(msg) == schema003 {
		return sniffLegacyNode(msg) // Chakra 0.0.2 or 0.0.3: no global metadata
	}
	seen := false
	err := fields(msg, func(num protowire.Number, typ protowire.Type, v uint64, raw []byte) error {
		if (num != 1 && num != 2) || typ != protowire.BytesType {
			return errors.New("not a metadata field")
		}
		if num == 2 {
			a, err := decodeAttr(raw)
			if err != nil || a.Name == "" {
				return errors.New("bad attribute")
			}
		}
		seen = true
		return nil
	})
	if err != nil || !seen {
		return false
	}
	rest = rest[n:]
	if len(rest) == 0 {
		return true
	}
	m, k := protowire.ConsumeVarint(rest)
	if k < 0 || m == 0 || m > MaxMessage {
		return false
	}
	rest = rest[k:]
	if uint64(len(rest)) > m {
		rest = rest[:m]
	}
	// The node's first field must parse as a known node field.
	num, typ, k := protowire.ConsumeTag(rest)
	if k < 0 || num < 1 || num > 10 {
		return len(rest) == 0
	}
	switch num {
	case 1, 3, 6, 7:
		return typ == protowire.VarintType
	case 4, 5:
		return typ == protowire.VarintType || typ == protowire.BytesType
	}
	return typ == protowire.BytesType
}
