package simgrid

import (
	"bytes"
)

// scanLines bounds how many action lines decide the dialect.
const scanLines = 1 << 16

// dialect decides, from the lines of a trace's first action file as they
// are read, whether the trace is written in the TI dialect of SimGrid
// 3.16 and older: point-to-point actions without a tag ("send dst size
// [datatype]", "Isend", "Irecv"), wait and test without arguments (they
// complete the last request started), and camel-case collective names
// ("allReduce", "waitAll"). SimGrid 3.17 added the tag, gave wait and
// test the request's (source, destination, tag) and renamed the actions
// in lower case. The first line that only one dialect writes decides
// (among the first scanLines actions); a file with none is read as
// today's.
type dialect struct {
	decided, legacy bool
	examined        int // action lines seen undecided
}

// see examines one line, split into fields, and reports whether the
// dialect is decided.
func (d *dialect) see(f [][]byte) bool {
	if d.decided || len(f) < 2 || f[0][0] == '#' {
		return d.decided
	}
	d.examined++
	if legacy, known := lineDialect(f); known {
		d.decided, d.legacy = true, legacy
	} else if d.examined >= scanLines {
		d.decided = true
	}
	return d.decided
}

// lineDialect says whether one action line is in the legacy dialect, and
// whether the line tells at all.
func lineDialect(f [][]byte) (legacy, known bool) {
	name, nargs := f[1], len(f)-2
	if _, old := legacyNames[string(name)]; old {
		return true, true
	}
	switch {
	case bytes.Equal(name, []byte("wait")) || bytes.Equal(name, []byte("test")):
		if nargs == 0 {
			return true, true
		}
		return false, nargs >= 3
	case bytes.Equal(name, []byte("send")) || bytes.Equal(name, []byte("recv")):
		if nargs == 2 {
			return true, true
		}
		return false, nargs >= 4
	}
	for _, now := range legacyNames {
		if string(name) == now {
			return false, true
		}
	}
	return false, false
}

// legacyUsage gives the number of arguments an action needs at least in
// the legacy dialect, and its layout there: point-to-point actions take
// the peer and the size, wait and test nothing.
func legacyUsage(a *action) (int, string) {
	switch a.kind {
	case actP2P:
		return 2, a.name + " peer size [datatype] (SimGrid 3.16)"
	case actWait:
		return 0, a.name + " (SimGrid 3.16)"
	}
	return a.min, a.usage
}
