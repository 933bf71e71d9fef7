package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// scaleSizes are the scale table's traces: random permutations on 4,096
// ranks, 3 engine events a rank and round.
var scaleSizes = []struct {
	label  string
	events float64
	rounds int
}{{"10^7", 1e7, 814}, {"10^8", 1e8, 8138}, {"10^9", 1e9, 81380}}

// The scale targets.
const (
	scaleRanks       = 4096
	targetRSS        = 1 << 30 // peak RSS at 10^8 events
	targetGrowth     = 1.5     // CPU per event at 10^8 over 10^7
	targetPeerWall   = 0.2     // capsim's wall time over LogGOPSim's
	targetPeerMemory = 0.33    // capsim's peak RSS over LogGOPSim's
)

// scaleRow is one trace of the scale table: how it was made and replayed.
type scaleRow struct {
	label     string
	rounds    int
	skipped   string // why it did not run; "" when it ran
	fileBytes int64
	genWall   time.Duration
	events    int64
	wall, cpu time.Duration
	rss       int64
}

func (r scaleRow) nsPerEvent() float64 { return float64(r.cpu.Nanoseconds()) / float64(r.events) }

// scaleTable prints the scale targets: each trace of scaleSizes up to
// maxEvents written by `capsim gen pattern random_permutation` and
// replayed from disk by `capsim replay --json` in a child process (runs
// times up to 10^8 events, once beyond; CPU and peak RSS from rusage),
// its file removed afterwards; then LogGOPSim's ratios on the ring
// allreduce (ring, or measured here when the workload table did not run),
// each against its target.
func scaleTable(w io.Writer, bin, self, tmp string, runs int, maxEvents float64, ring *peerResult, workloadsRan bool) error {
	fmt.Fprintf(w, "\n## Scale\n\nRandom permutations on %d ranks written by `capsim gen pattern random_permutation --ranks %d --rounds N` and replayed from the file by `capsim replay FILE --json`, "+
		"each replay in a fresh process (up to 10^8 events the least CPU time of %d, one run beyond), CPU (user and system) and peak RSS from rusage:\n\n", scaleRanks, scaleRanks, runs)
	fmt.Fprintf(w, "| events | rounds | file | write wall | replay wall | CPU | CPU ns/event | peak RSS |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n")
	var rows []scaleRow
	perEvent := 30.0 // file bytes an event, until a file is measured
	for _, sz := range scaleSizes {
		row := scaleRow{label: sz.label, rounds: sz.rounds}
		if sz.events > maxEvents*1.01 {
			row.skipped = fmt.Sprintf("not run: above -scale-max %g", maxEvents)
		} else {
			n := 1
			if sz.events <= 1e8 {
				n = runs
			}
			var err error
			if row, err = scaleRun(bin, tmp, row, n, perEvent*sz.events); err != nil {
				return fmt.Errorf("scale %s: %w", sz.label, err)
			}
			if row.events > 0 {
				perEvent = float64(row.fileBytes) / float64(row.events)
			}
		}
		rows = append(rows, row)
		if row.skipped != "" {
			fmt.Fprintf(w, "| %s | %d | %s | | | | | |\n", row.label, row.rounds, row.skipped)
			continue
		}
		fmt.Fprintf(w, "| %s: %.2f M | %d | %.2f GB | %.1f s | %.1f s | %.1f s | %.0f | %s |\n", row.label, float64(row.events)/1e6, row.rounds, float64(row.fileBytes)/1e9,
			row.genWall.Seconds(), row.wall.Seconds(), row.cpu.Seconds(), row.nsPerEvent(), mib(row.rss))
	}
	if ring == nil && !workloadsRan && os.Getenv("CAPSIM_LOGGOPSIM") != "" && os.Getenv("CAPSIM_TXT2BIN") != "" {
		s, err := measureWorkload(bin, self, tmp, ringWorkload(), runs)
		if err != nil {
			return err
		}
		if ring, err = peer(bin, tmp, runs, s); err != nil {
			return err
		}
	}
	scaleTargets(w, rows, ring)
	return nil
}

// scaleRun writes row's trace into tmp, where about want bytes must be
// free (else the row says so), replays it n times and removes it.
func scaleRun(bin, tmp string, row scaleRow, n int, want float64) (scaleRow, error) {
	if free := freeBytes(tmp); free > 0 && float64(free) < want*1.1+2e9 {
		row.skipped = fmt.Sprintf("not run: its file needs about %.0f GB, %.0f GB free", want/1e9, float64(free)/1e9)
		return row, nil
	}
	file := filepath.Join(tmp, "scale.arrow")
	defer os.Remove(file)
	gen := exec.Command(bin, "gen", "pattern", "random_permutation", "--ranks", strconv.Itoa(scaleRanks), "--rounds", strconv.Itoa(row.rounds), "-o", file)
	wall, _, _, err := runProcess(gen)
	if err != nil {
		return row, fmt.Errorf("gen pattern: %w", err)
	}
	row.genWall = wall
	st, err := os.Stat(file)
	if err != nil {
		return row, err
	}
	row.fileBytes = st.Size()
	for k := 0; k < n; k++ {
		cmd := exec.Command(bin, "replay", file, "--json")
		wall, rss, out, err := runProcess(cmd)
		if err != nil {
			return row, fmt.Errorf("replay: %w", err)
		}
		var js replayJSON
		if err := json.Unmarshal(out, &js); err != nil {
			return row, fmt.Errorf("replay: %w", err)
		}
		if cpu := cpuTime(cmd); k == 0 || cpu < row.cpu {
			row.events, row.wall, row.cpu = js.Events, wall, cpu
		}
		row.rss = max(row.rss, rss)
	}
	return row, nil
}

// freeBytes is the space free to this user on dir's file system, 0 where
// unknown.
func freeBytes(dir string) int64 {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0
	}
	return int64(st.Bavail) * int64(st.Bsize)
}

// scaleTargets prints each scale target with what was measured and
// whether it is met.
func scaleTargets(w io.Writer, rows []scaleRow, ring *peerResult) {
	fmt.Fprintf(w, "\n| target | measured | met |\n| --- | --- | --- |\n")
	e7, e8, e9 := rows[0], rows[1], rows[2]
	if e8.skipped != "" {
		fmt.Fprintf(w, "| peak RSS at 10^8 events ≤ 1 GiB | %s | not checked |\n", e8.skipped)
	} else {
		fmt.Fprintf(w, "| peak RSS at 10^8 events ≤ 1 GiB | %s | %s |\n", mib(e8.rss), met(e8.rss <= targetRSS))
	}
	if e7.skipped != "" || e8.skipped != "" {
		fmt.Fprintf(w, "| CPU time per event at 10^8 events ≤ %.1f× that at 10^7 | not run | not checked |\n", targetGrowth)
	} else {
		g := e8.nsPerEvent() / e7.nsPerEvent()
		fmt.Fprintf(w, "| CPU time per event at 10^8 events ≤ %.1f× that at 10^7 | %.2f× (%.0f and %.0f ns) | %s |\n", targetGrowth, g, e8.nsPerEvent(), e7.nsPerEvent(), met(g <= targetGrowth))
	}
	if e9.skipped != "" {
		fmt.Fprintf(w, "| a 10^9-event replay completes | %s | not checked |\n", e9.skipped)
	} else {
		fmt.Fprintf(w, "| a 10^9-event replay completes | %d events in %.0f s CPU, peak RSS %s | met |\n", e9.events, e9.cpu.Seconds(), mib(e9.rss))
	}
	if ring == nil {
		fmt.Fprintf(w, "| ring allreduce (1,024 ranks): wall time ≤ %.2g of LogGOPSim's | no LogGOPSim | not checked |\n", targetPeerWall)
		fmt.Fprintf(w, "| ring allreduce: peak RSS ≤ %.2g of LogGOPSim's | no LogGOPSim | not checked |\n", targetPeerMemory)
		fmt.Fprintln(w, "\n"+noPeer)
		return
	}
	cpu := ring.capsim.minCPU.Seconds() / ring.lgsCPU.Seconds()
	busy := ""
	if (cpu <= targetPeerWall) != (ring.wallRatio() <= targetPeerWall) {
		busy = "; the CPU ratio says otherwise: the machine was busy, rerun on an idle one"
	}
	fmt.Fprintf(w, "| ring allreduce (1,024 ranks): wall time ≤ %.2g of LogGOPSim's | %.2f (%.3f s and %.3f s, least of each; CPU %.2f: %.3f s and %.3f s%s) | %s |\n", targetPeerWall,
		ring.wallRatio(), ring.capsim.min.Seconds(), ring.lgsMin.Seconds(), cpu, ring.capsim.minCPU.Seconds(), ring.lgsCPU.Seconds(), busy, met(ring.wallRatio() <= targetPeerWall))
	fmt.Fprintf(w, "| ring allreduce: peak RSS ≤ %.2g of LogGOPSim's | %.2f (%s and %s) | %s |\n", targetPeerMemory, ring.rssRatio(), mib(ring.capsim.rss), mib(ring.lgsRSS), met(ring.rssRatio() <= targetPeerMemory))
	fmt.Fprintf(w, "| ring allreduce: the same finish times | %s | met |\n", ring.check)
}

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "not met"
}
