package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/capsim/capsim/optimize/clp"
	"github.com/capsim/capsim/scenarios"
	"github.com/capsim/capsim/scenarios/results"
)

// TestMain lets the test binary run as capsim itself (CAPSIM_AS_MAIN=1),
// so tests can send signals to a real capsim process.
func TestMain(m *testing.M) {
	if os.Getenv("CAPSIM_AS_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// stopLimit is how soon a signalled capsim must have stopped: it stops an
// LP solve within milliseconds and exits by itself a second after the
// signal whatever it is doing; the rest is slack for a loaded machine.
// The stop is timed to capsim's last word on stderr, which it writes as it
// stops, not to the parent reaping it: the kernel's teardown of a process
// that holds an LP's memory took seconds on two loaded cores, and that is
// no part of how soon capsim stops.
const stopLimit = 3 * time.Second

// stampedBuffer is a child's stderr that records when it was last written.
type stampedBuffer struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	last time.Time
}

func (b *stampedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.last = time.Now()
	return b.buf.Write(p)
}

func (b *stampedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// lastWrite is when b was last written.
func (b *stampedBuffer) lastWrite() time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.last
}

// startCapsim starts capsim with args as a child process.
func startCapsim(t *testing.T, stderr *stampedBuffer, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "CAPSIM_AS_MAIN=1")
	cmd.Stdout = new(bytes.Buffer)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

// interrupt sends sig to cmd and returns its exit status and how long it
// took to stop: to its last write to stderr after the signal, or to its
// exit where it wrote nothing after the signal.
func interrupt(t *testing.T, cmd *exec.Cmd, stderr *stampedBuffer, sig syscall.Signal) (int, time.Duration) {
	t.Helper()
	start := time.Now()
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("no exit 30 s after %v", sig)
	}
	exited := time.Since(start)
	end := time.Now()
	if last := stderr.lastWrite(); last.After(start) {
		end = last
	}
	t.Logf("%v: last word on stderr after %v, reaped after %v", sig, end.Sub(start), exited)
	return cmd.ProcessState.ExitCode(), end.Sub(start)
}

// waitCPU waits until the process pid has used cpu of CPU time, so that a
// signal reaches it at work (in its LP) however loaded the machine, or
// until it has exited (the caller then sees its exit status); where /proc
// does not say, it waits cpu of wall time.
func waitCPU(t *testing.T, pid int, cpu time.Duration) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		used, exited, ok := procCPU(pid)
		if !ok {
			time.Sleep(cpu)
			return
		}
		if used >= cpu || exited {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("process %d did not use %v of CPU in 2 minutes", pid, cpu)
}

// procCPU reads the user and system time of process pid from
// /proc/PID/stat (fields 14 and 15, in clock ticks of 1/100 s), and
// whether it has exited (state Z, field 3).
func procCPU(pid int) (used time.Duration, exited, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false, false
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false, false
	}
	f := strings.Fields(string(b[i+1:])) // from field 3 on
	if len(f) < 13 {
		return 0, false, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false, false
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, f[0] == "Z", true
}

// lpScenario writes a sweep of the LP policy over many caps of a 32-rank
// stencil: each point solves an LP of some 50,000 columns.
func lpScenario(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile("../../examples/bound/stencil32.toml")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), "iterations = 20", "iterations = 300", 1)
	text = strings.Replace(text, `caps = "800:1400:100"`, `caps = "900:1400:10"`, 1)
	text = strings.Replace(text, `policies = ["uncapped", "static", "lp", "conductor"]`, `policies = ["lp"]`, 1)
	// The replay-calibrated LP, in 20 blocks: a point every few seconds.
	// The engine LP of these 9,600 tasks is one block and takes minutes
	// before the first point.
	text += "\n[bound]\nmessages = \"replay\"\n"
	p := filepath.Join(dir, "lp.toml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// journalLines waits until the journal in dir holds at least n lines.
func journalLines(t *testing.T, dir string, n int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(filepath.Join(dir, results.JournalFile)); err == nil && bytes.Count(b, []byte{'\n'}) >= n {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the journal in %s never reached %d lines", dir, n)
}

// tempFiles lists the temporary files under dir.
func tempFiles(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp-") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestSweepSIGINTAndLock: a sweep of the lp policy holds its results
// directory (a second sweep into it exits at once with status 1 naming
// the directory and the holder's pid), and Ctrl-C stops it within a
// second or two with status 130, every committed point intact in the
// journal, no temporary file left, and a rerun resuming from them. CLP's
// own SIGINT handler ignored Ctrl-C for the rest of the solve before, and
// two sweeps into one folder corrupted the journal.
func TestSweepSIGINTAndLock(t *testing.T) {
	if testing.Short() || !clp.Available() {
		t.Skip("needs CLP and a long LP")
	}
	dir := t.TempDir()
	sc := lpScenario(t, dir)
	out := filepath.Join(dir, "out")
	var stderr stampedBuffer
	cmd := startCapsim(t, &stderr, "sweep", sc, "-o", out, "--progress", "never", "--workers", "2")
	journalLines(t, out, 2) // the header and a point

	code, _, errText := capsim(t, "sweep", sc, "-o", out, "--progress", "never")
	if code != 1 || !strings.Contains(errText, out) || !strings.Contains(errText, fmt.Sprintf("pid %d", cmd.Process.Pid)) ||
		!strings.Contains(errText, "in use") {
		t.Errorf("second sweep: exit %d, %q; want 1 naming %s and pid %d", code, errText, out, cmd.Process.Pid)
	}

	code, took := interrupt(t, cmd, &stderr, syscall.SIGINT)
	t.Logf("sweep stopped %v after SIGINT: %s", took, strings.TrimSpace(stderr.String()))
	if code != 130 {
		t.Errorf("exit %d after SIGINT, want 130; stderr %q", code, stderr.String())
	}
	if took > stopLimit {
		t.Errorf("took %v to stop after SIGINT, want under %v", took, stopLimit)
	}
	if strings.Contains(stderr.String(), "panic") || strings.Contains(stderr.String(), "SIGSEGV") {
		t.Errorf("crash after SIGINT: %q", stderr.String())
	}
	if tmp := tempFiles(dir); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
	// Every journal line is whole and parses; a reopened store has them all.
	b, err := os.ReadFile(filepath.Join(out, results.JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(b) == 0 || b[len(b)-1] != '\n' {
		t.Errorf("the journal ends in a torn line")
	}
	lines := 0
	for sc := bufio.NewScanner(bytes.NewReader(b)); sc.Scan(); lines++ {
		if !json.Valid(sc.Bytes()) {
			t.Errorf("journal line %d is not JSON: %q", lines+1, sc.Text())
		}
	}
	if lines < 2 {
		t.Fatalf("journal has %d lines", lines)
	}
	// A rerun resumes: it skips the committed points (and is stopped
	// again as soon as it has started).
	var stderr2 stampedBuffer
	cmd2 := startCapsim(t, &stderr2, "sweep", sc, "-o", out, "--progress", "never", "--workers", "2")
	journalLines(t, out, lines+1)
	if code, _ := interrupt(t, cmd2, &stderr2, syscall.SIGINT); code != 130 {
		t.Errorf("rerun: exit %d, want 130; %q", code, stderr2.String())
	}
	// It says the points are kept: with their count when it stops within
	// stopGrace, or, when a replay under load does not poll the signal in
	// time and signalContextKeeping ends the process, in its hard-stop message.
	if want := fmt.Sprintf("capsim: %d of", lines); !strings.Contains(stderr2.String(), "finished and kept") &&
		!strings.Contains(stderr2.String(), "stopped at once (the points finished are kept in "+out+"; rerun the same command to resume") {
		t.Errorf("rerun's stderr %q does not report the points kept (%s…)", stderr2.String(), want)
	}
}

// TestBoundSIGINT: Ctrl-C during `bound --caps` exits 130 within a second
// or two, with no crash and no file written.
func TestBoundSIGINT(t *testing.T) {
	if testing.Short() || !clp.Available() {
		t.Skip("needs CLP and a long LP")
	}
	dir := t.TempDir()
	sc := lpScenario(t, dir)
	var stderr stampedBuffer
	cmd := startCapsim(t, &stderr, "bound", "--scenario", sc, "--caps", "900:1400:5", "--method", "primal", "--workers", "1",
		"--mps", filepath.Join(dir, "lp.mps"))
	waitCPU(t, cmd.Process.Pid, 3*time.Second)
	code, took := interrupt(t, cmd, &stderr, syscall.SIGINT)
	t.Logf("bound stopped %v after SIGINT: %s", took, strings.TrimSpace(stderr.String()))
	if code != 130 {
		t.Errorf("exit %d after SIGINT, want 130; stderr %q", code, stderr.String())
	}
	if took > stopLimit {
		t.Errorf("took %v to stop after SIGINT, want under %v", took, stopLimit)
	}
	if _, err := os.Stat(filepath.Join(dir, "lp.mps")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an interrupted bound wrote its MPS file (%v)", err)
	}
	if tmp := tempFiles(dir); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}

// TestSweepSIGTERM: SIGTERM (a batch system's time limit) stops a sweep
// like Ctrl-C, with status 143.
func TestSweepSIGTERM(t *testing.T) {
	if testing.Short() || !clp.Available() {
		t.Skip("needs CLP and a long LP")
	}
	dir := t.TempDir()
	sc := lpScenario(t, dir)
	out := filepath.Join(dir, "out")
	var stderr stampedBuffer
	cmd := startCapsim(t, &stderr, "sweep", sc, "-o", out, "--progress", "never", "--workers", "2")
	journalLines(t, out, 1)
	if code, took := interrupt(t, cmd, &stderr, syscall.SIGTERM); code != 143 || took > stopLimit {
		t.Errorf("exit %d after %v, want 143 within %v; %q", code, took, stopLimit, stderr.String())
	}
	if tmp := tempFiles(dir); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}

// A sweep stopped by a signal is reported by the points it was computing,
// in the scenario's terms, after the signal, not in the LP's.
func TestInterruptedSweepMessage(t *testing.T) {
	st := &scenarios.StoppedError{Running: []string{"point 21 (machine pal, policy lp, cap 290 W)"}, Err: context.Canceled}
	err := interruptedError{signalCause{syscall.SIGINT}, st}
	want := "interrupted by SIGINT: stopped while computing point 21 (machine pal, policy lp, cap 290 W) (not saved)"
	if err.Error() != want {
		t.Errorf("got %q, want %q", err.Error(), want)
	}
}
