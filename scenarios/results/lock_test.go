package results

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain lets the test binary act as a second process holding a results
// directory (see TestLockTwoProcesses).
func TestMain(m *testing.M) {
	if dir := os.Getenv("CAPSIM_TEST_HOLD_RESULTS"); dir != "" {
		st, err := Open(dir, "fp", 10, testSchema)
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("holding")
		bufio.NewReader(os.Stdin).ReadString('\n') // until the parent closes stdin
		st.Close()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestLockTwoProcesses: while one process sweeps into a directory, a
// second Open of it fails at once with ErrLocked, naming the directory and
// the holder's pid; once the holder is gone (killed, even), Open succeeds.
// Two sweeps into one folder corrupted the journal before.
func TestLockTwoProcesses(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "CAPSIM_TEST_HOLD_RESULTS="+dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, _ := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "holding" {
		t.Fatalf("holder: %q", line)
	}
	_, err = Open(dir, "fp", 10, testSchema)
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open: err = %v, want ErrLocked", err)
	}
	for _, part := range []string{dir, fmt.Sprintf("pid %d", cmd.Process.Pid)} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("message %q lacks %q", err, part)
		}
	}
	cmd.Process.Kill() // the kernel drops the lock of a killed holder
	cmd.Wait()
	stdin.Close()
	st, err := Open(dir, "fp", 10, testSchema)
	if err != nil {
		t.Fatalf("Open after the holder died: %v", err)
	}
	st.Close()
}

// TestLockSameProcess: a directory open in this process cannot be opened
// again until it is closed.
func TestLockSameProcess(t *testing.T) {
	dir := t.TempDir()
	st, err := Open(dir, "fp", 10, testSchema)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, "fp", 10, testSchema); !errors.Is(err, ErrLocked) {
		t.Errorf("second Open: err = %v, want ErrLocked", err)
	}
	st.Close()
	st, err = Open(dir, "fp", 10, testSchema)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
}

// TestInUse: a folder a sweep is still writing is not read as results: a
// merge of it is refused naming the run, as a report is
// (scenarios.WriteReport); merged while its sweep ran, it said "points
// missing", and a report "open results.arrow: no such file". Once the
// run has closed it, the folder merges.
func TestInUse(t *testing.T) {
	dir := t.TempDir()
	if err := InUse(dir); err != nil {
		t.Errorf("a folder without a lock file: %v", err)
	}
	st, err := Open(dir, "fp", 1, testSchema)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Commit(row(0), 0); err != nil {
		t.Fatal(err)
	}
	err = InUse(dir)
	if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Errorf("InUse of a held folder: %v", err)
	}
	out := filepath.Join(t.TempDir(), "merged")
	if _, _, err := Merge(out, []string{dir}, MergeOptions{}); !errors.Is(err, ErrInUse) {
		t.Errorf("merge of a held folder: %v, want ErrInUse", err)
	}
	if err := st.Finalize(); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if err := InUse(dir); err != nil {
		t.Errorf("after the run closed it: %v", err)
	}
	if st, _, err := Merge(out, []string{dir}, MergeOptions{}); err != nil {
		t.Errorf("merge after the run: %v", err)
	} else {
		st.Close()
	}
}
