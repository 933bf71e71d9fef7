package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// LockFile is the file in a results directory that a run holds an
// exclusive lock (flock) on while it writes there. It records the holder
// (pid, host, command, start time) for the message another run gets.
const LockFile = "capsim.lock"

// ErrLocked is returned by Open when another process holds the results
// directory.
var ErrLocked = errors.New("results directory is in use by another capsim run")

// holder is what a lock file records.
type holder struct {
	PID     int    `json:"pid"`
	Host    string `json:"host"`
	Command string `json:"command"`
	Since   string `json:"since"`
}

// lockDir takes the exclusive lock of dir without waiting, and writes this
// process into the lock file. The lock lasts until the file is closed (or
// the process ends, however it ends).
func lockDir(dir string) (*os.File, error) {
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			who := "another process"
			var h holder
			if b, rerr := os.ReadFile(path); rerr == nil && json.Unmarshal(b, &h) == nil && h.PID > 0 {
				who = fmt.Sprintf("pid %d on %s (%s), since %s", h.PID, h.Host, h.Command, h.Since)
			}
			return nil, fmt.Errorf("%w: %s is held by %s; wait for it to finish or write to another directory", ErrLocked, dir, who)
		}
		return nil, fmt.Errorf("results: lock %s: %w", path, err)
	}
	host, _ := os.Hostname()
	b, _ := json.Marshal(holder{PID: os.Getpid(), Host: host, Command: strings.Join(os.Args, " "),
		Since: time.Now().UTC().Format(time.RFC3339)})
	if err := f.Truncate(0); err == nil {
		f.WriteAt(append(b, '\n'), 0) // best effort: the lock itself is what excludes
	}
	return f, nil
}

// ErrInUse is returned by InUse when a run holds the directory's lock.
var ErrInUse = errors.New("a capsim run is writing the results directory")

// InUse returns an error wrapping ErrInUse, naming the run, when another
// process holds dir's lock (a sweep still writing its points there), and
// nil otherwise, also when dir has no lock file. Commands that only read
// a results directory (report, merge) check it first: what they would
// read is not yet the sweep's, and its table not yet written.
func InUse(dir string) error {
	path := filepath.Join(dir, LockFile)
	f, err := os.Open(path)
	if err != nil {
		return nil // no lock file: no run has written here, or it is unreadable to the reader too
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
	if !errors.Is(err, syscall.EWOULDBLOCK) {
		if err == nil {
			syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		}
		return nil
	}
	who := "another process"
	var h holder
	if b, rerr := os.ReadFile(path); rerr == nil && json.Unmarshal(b, &h) == nil && h.PID > 0 {
		who = fmt.Sprintf("pid %d on %s (%s), since %s", h.PID, h.Host, h.Command, h.Since)
	}
	return fmt.Errorf("%w: %s is held by %s; wait for it to finish", ErrInUse, dir, who)
}
