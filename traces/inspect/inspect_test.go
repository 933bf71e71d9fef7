package inspect

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"math/bits"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/traces/goal"
	"github.com/capsim/capsim/traces/graph"
	"github.com/capsim/capsim/traces/liballprof"
	"github.com/capsim/capsim/traces/otf2"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares rep, as JSON and as text, with testdata/name.json and
// testdata/name.txt.
func golden(t *testing.T, rep *Report, name string) {
	t.Helper()
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	js = append(js, '\n')
	var txt bytes.Buffer
	if err := WriteText(&txt, rep); err != nil {
		t.Fatal(err)
	}
	for ext, got := range map[string][]byte{".json": js, ".txt": txt.Bytes()} {
		path := filepath.Join("testdata", name+ext)
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs (go test -update rewrites it):\n%s", path, got)
		}
	}
}

// TestGoldenLiballprof summarises the 2-rank epoch-timestamp liballprof
// trace: one 16-byte send, a barrier, compute before each call, spans of
// 24.5 and 18 µs.
func TestGoldenLiballprof(t *testing.T) {
	tr, err := liballprof.ReadFile(filepath.Join("..", "liballprof", "testdata", "epoch"))
	if err != nil {
		t.Fatal(err)
	}
	rep := MPI(tr)
	rep.Trace, rep.Format = "epoch", "liballprof"
	if rep.Recorded == nil || rep.Recorded.JobNs != 24500 || rep.Messages.Count != 1 || rep.Messages.Total != 128 {
		t.Errorf("recorded %+v, messages %+v", rep.Recorded, rep.Messages)
	}
	golden(t, rep, "epoch")
}

// TestGoldenGraph summarises a GOAL schedule: sizes 0, 1, 3, 4096 give
// the median 1 and the bins 0, 1, 4, 4096; no recorded run.
func TestGoldenGraph(t *testing.T) {
	g, err := goal.ReadFile(filepath.Join("testdata", "small.goal"))
	if err != nil {
		t.Fatal(err)
	}
	rep := Graph(g)
	rep.Trace, rep.Format = "small.goal", "goal"
	m := rep.Messages
	if m.Count != 4 || m.Total != 4100 || m.Min != 0 || m.Median != 1 || m.Max != 4096 || len(m.Histogram) != 4 || m.Histogram[2] != (Bin{Le: 4, Count: 1}) || rep.Recorded != nil {
		t.Errorf("messages %+v, recorded %+v", m, rep.Recorded)
	}
	golden(t, rep, "small")
}

func TestSummariseBins(t *testing.T) {
	s := summarise([]int64{9, 1 << 62, 2, 8, 0, 1<<62 + 1})
	want := []Bin{{0, 1}, {2, 1}, {8, 1}, {16, 1}, {1 << 62, 1}, {1<<63 - 1, 1}}
	if !slices.Equal(s.Histogram, want) || s.Median != 8 || s.Count != 6 {
		t.Errorf("%+v", s)
	}
}

var (
	lengthRE = regexp.MustCompile(`Length: (\d+)`)
	clockRE  = regexp.MustCompile(`Ticks per Seconds: (\d+), Global Offset: (\d+)`)
	collRE   = regexp.MustCompile(`Operation: (\w+)`)
)

// TestAgainstOtf2Print checks inspect's summary of the Score-P traces in
// ../shared/traces/otf2 against otf2-print: the point-to-point messages
// sent (count, total, min, median, max of MPI_SEND/MPI_ISEND lengths),
// the collective calls by operation, and the job's recorded span: the
// longest from MPI_Init's LEAVE to MPI_Finalize's ENTER, or to the last
// record where a location has no MPI_Finalize (the importer's spans are
// checked per rank in package otf2).
func TestAgainstOtf2Print(t *testing.T) {
	dir := testenv.Shared(t, "traces/otf2")
	if _, err := exec.LookPath("otf2-print"); err != nil {
		t.Skip("otf2-print not installed (Debian otf2-tools)")
	}
	for _, name := range []string{"pipit-pingpong", "sstmacro-otf2test", "tracer-stencil4d-64"} {
		t.Run(name, func(t *testing.T) {
			anchor := filepath.Join(dir, name, "traces.otf2")
			tr, err := otf2.Read(anchor, otf2.Options{})
			if err != nil {
				if err == otf2.ErrUnavailable {
					t.Skip(err)
				}
				t.Fatal(err)
			}
			rep := MPI(tr)
			out, err := exec.Command("otf2-print", anchor).Output()
			if err != nil {
				t.Fatal(err)
			}
			gout, err := exec.Command("otf2-print", "-G", anchor).Output()
			if err != nil {
				t.Fatal(err)
			}
			ck := clockRE.FindSubmatch(gout)
			res, _ := strconv.ParseUint(string(ck[1]), 10, 64)
			off, _ := strconv.ParseUint(string(ck[2]), 10, 64)
			ns := func(tick uint64) int64 { // as the importer converts ticks
				hi, lo := bits.Mul64(tick-off, 1e9)
				q, _ := bits.Div64(hi, lo, res)
				return int64(q)
			}
			initAt, finAt, lastAt := map[string]int64{}, map[string]int64{}, map[string]int64{}
			var sizes []int64
			colls := map[string]int64{}
			sc := bufio.NewScanner(bytes.NewReader(out))
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				line := sc.Text()
				f := strings.Fields(line)
				if len(f) >= 3 {
					if tick, err := strconv.ParseUint(f[2], 10, 64); err == nil {
						lastAt[f[1]] = ns(tick)
					}
				}
				switch {
				case len(f) == 0:
				case f[0] == "MPI_SEND" || f[0] == "MPI_ISEND":
					m := lengthRE.FindStringSubmatch(line)
					n, _ := strconv.ParseInt(m[1], 10, 64)
					sizes = append(sizes, n)
				case f[0] == "MPI_COLLECTIVE_END":
					colls[collRE.FindStringSubmatch(line)[1]]++
				case f[0] == "LEAVE" && strings.Contains(line, `Region: "MPI_Init"`):
					tick, _ := strconv.ParseUint(f[2], 10, 64)
					initAt[f[1]] = ns(tick)
				case f[0] == "ENTER" && strings.Contains(line, `Region: "MPI_Finalize"`):
					tick, _ := strconv.ParseUint(f[2], 10, 64)
					finAt[f[1]] = ns(tick)
				}
			}
			want := summarise(sizes)
			if got := rep.Messages; got.Count != want.Count || got.Total != want.Total || got.Min != want.Min || got.Median != want.Median || got.Max != want.Max || !slices.Equal(got.Histogram, want.Histogram) {
				t.Errorf("messages %+v, otf2-print %+v", got, want)
			}
			var calls, wantCalls int64
			for _, c := range rep.Collectives {
				calls += c.Calls
			}
			for _, n := range colls {
				wantCalls += n
			}
			if calls != wantCalls {
				t.Errorf("%d collective calls, otf2-print %d (%v)", calls, wantCalls, colls)
			}
			var job int64
			for loc, last := range lastAt {
				if fin, ok := finAt[loc]; ok {
					last = fin
				}
				job = max(job, last-initAt[loc])
			}
			if rep.Recorded == nil || rep.Recorded.JobNs != job || len(initAt) != rep.Ranks {
				t.Errorf("recorded %+v, otf2-print: longest MPI_Init leave to MPI_Finalize enter (else last record) %d ns over %d locations", rep.Recorded.JobNs, job, len(initAt))
			}
			t.Logf("%d messages (%d B), %d collective calls %v, recorded %d ns", want.Count, want.Total, wantCalls, colls, rep.Recorded.JobNs)
		})
	}
}

// TestSumsSaturate: 16 ranks of 9·10^17 ns each sum past int64; the
// total wrapped to -4046744073709551616 ns. It stays at Saturated, which
// the text prints as past int64.
func TestSumsSaturate(t *testing.T) {
	b := graph.NewBuilder(16)
	for r := 0; r < 16; r++ {
		b.Add(r, graph.CalcOp(9e17))
	}
	g, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	rep := Graph(g)
	if len(rep.Operations) != 1 || rep.Operations[0].TimeNs != Saturated {
		t.Fatalf("operations %+v, want one kind of time_ns %d", rep.Operations, int64(Saturated))
	}
	var buf bytes.Buffer
	if err := WriteText(&buf, rep); err != nil {
		t.Fatal(err)
	}
	if s := buf.String(); !strings.Contains(s, ">9223372036854775807") || strings.Contains(s, "-") {
		t.Errorf("text %q: want the time past int64 and no negative number", s)
	}
}
