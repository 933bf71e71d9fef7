package scenarios

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/BurntSushi/toml"
)

// canonicalHash returns the SHA-256, in hex, of what the scenario text
// says rather than how it is written: its TOML decoded and written again
// with keys sorted, every value tagged with its TOML type. Comments,
// blank lines, indentation, the order of keys within a table, the order
// of the tables and how a string or number is spelled (quotes, escapes,
// 1e3 or 1000.0, 0x10 or 16) leave it unchanged; any value that changes,
// a key added or removed, an integer written as a float, or the order of
// an array's elements changes it. A sweep's results depend on the
// scenario through its decoded values alone, so an edit that leaves them
// alone leaves a results folder resumable.
func canonicalHash(text []byte) (string, error) {
	var v map[string]any
	if _, err := toml.NewDecoder(bytes.NewReader(text)).Decode(&v); err != nil {
		return "", err
	}
	h := sha256.New()
	writeCanonical(h, v)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// writeCanonical writes v, a value the TOML decoder gives for an untyped
// map, in the canonical form of canonicalHash: one letter for the type,
// then the value; tables with their keys sorted.
func writeCanonical(w io.Writer, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		io.WriteString(w, "{")
		for _, k := range keys {
			io.WriteString(w, strconv.Quote(k)+"=")
			writeCanonical(w, x[k])
			io.WriteString(w, ";")
		}
		io.WriteString(w, "}")
	case []map[string]any:
		io.WriteString(w, "[")
		for _, e := range x {
			writeCanonical(w, e)
			io.WriteString(w, ",")
		}
		io.WriteString(w, "]")
	case []any:
		io.WriteString(w, "[")
		for _, e := range x {
			writeCanonical(w, e)
			io.WriteString(w, ",")
		}
		io.WriteString(w, "]")
	case string:
		io.WriteString(w, "s"+strconv.Quote(x))
	case int64:
		io.WriteString(w, "i"+strconv.FormatInt(x, 10))
	case float64:
		if math.IsNaN(x) {
			io.WriteString(w, "fNaN") // every NaN alike, whatever its bits
			break
		}
		io.WriteString(w, "f"+strconv.FormatFloat(x, 'g', -1, 64))
	case bool:
		io.WriteString(w, "b"+strconv.FormatBool(x))
	case time.Time: // with its zone: a local date or time has its own
		io.WriteString(w, "t"+x.String())
	default:
		fmt.Fprintf(w, "%T(%v)", x, x)
	}
}
