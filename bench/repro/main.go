// Command repro writes docs/reproductions.md: for every checkable number of
// the notes (each note's worked examples and results), the paper's value,
// capsim's value computed by the packages' APIs, the relative error and the
// command that shows it. Rows whose inputs the paper publishes must match
// within their tolerance; rows on stand-in workloads check the qualitative
// relation the paper claims. It exits non-zero when a row fails.
//
//	go run ./bench/repro            # writes docs/reproductions.md
//	go run ./bench/repro -o -       # prints it
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/capsim/capsim/internal/atomicfile"
	"github.com/capsim/capsim/internal/testenv"
)

func main() {
	out := flag.String("o", "", "output file (default docs/reproductions.md under the module root; - for stdout)")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "repro:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	root, err := testenv.FindModuleRoot()
	if err != nil {
		return err
	}
	rows, err := Rows(root)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := Render(&b, rows); err != nil {
		return err
	}
	switch out {
	case "-":
		_, err = os.Stdout.Write(b.Bytes())
	case "":
		out = filepath.Join(root, "docs", "reproductions.md")
		fallthrough
	default:
		err = writePage(out, b.Bytes())
	}
	if err != nil {
		return fmt.Errorf("write: %w", err)
	}
	var failed []string
	for _, r := range rows {
		if !r.OK() {
			failed = append(failed, r.Note+" "+r.Section+" "+r.What)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d rows fail: %s", len(failed), strings.Join(failed, "; "))
	}
	return nil
}

// writePage replaces the file at path with data, atomically. It refuses a
// path that is not a regular file (a device such as /dev/null, a folder),
// which the rename would replace.
func writePage(path string, data []byte) error {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file (use -o - for stdout)", path)
	}
	return atomicfile.WriteFile(path, data)
}

// notes lists the notes in page order with their titles and row builders.
var notes = []struct {
	name, title string
	rows        func(root string) ([]Row, error)
	// without lists the note's results that have no row, and why.
	without string
}{
	{"000_cos", "COS: Eq. 9 (Intel) and Eq. 11 (BG/Q)", func(string) ([]Row, error) { return cosRows() },
		"§4's accuracy figures (Intel per-code mean error 1.4–7 %, SD ≤ 4.5 %; BG/Q ≤ 10 % and 17 % for LULESH region 2; " +
			"the prefetch and ROB/MSHR studies) are errors of the model against the paper's hardware measurements, " +
			"which are not published: they need measurements of our own (`capsim fit --kind cos` on them)."},
	{"001_anger", "Anger: energy scaling, Power Steering, task-graph schedulers", func(string) ([]Row, error) { return angerRows() },
		"The Eiger accuracy and simulator-speed figures (§1.11) and the energy-model errors (§2.5) need the thesis's measurements; " +
			"the Fig. 25 gains (CG 18.8 %, LU 15.4 %, Cholesky 38.4 %) and SAS-vs-PAS powers are measured on Xeon Phi profiles we do not have: the rows below check their relations on capsim's built-in profiles."},
	{"002_dongli", "Dong Li: DCT + DVFS, slack, IPS power, task aggregation", func(string) ([]Row, error) {
		rows, err := dongliRows()
		if err != nil {
			return nil, err
		}
		agg, err := dongliAggRows()
		return append(rows, agg...), err
	},
		"The NPB-MZ energy savings and prediction errors of §2.11 need the paper's measured phase profiles; " +
			"Part II's Fig. 4.7 and 4.8 savings (sp.D.16 70.03 %, lu.D.64/128 second-best patterns) and Table 4.1's predictions " +
			"need the NAS traces, hardware counters and the SPEC MPI training set the thesis measured: the rows check its worked " +
			"tests and Table 4.1's arithmetic (`capsim aggregate`, `[aggregate]` in a scenario and `capsim fit --kind ipc-mlr` run the study on other inputs)."},
	{"003_lp", "Bailey et al.: the fixed-order LP bound, Static, Conductor", lpAll,
		"§7's per-benchmark numbers (BT 74.9 % at 30 W, LULESH 35.6 % at 40 W, CoMD 2.4–12.6 %, Conductor within 4.2 %) " +
			"need the paper's traces and measured configurations; the stand-in rows check their relations. " +
			"The paper's RAPL-style Static is the sweep's static-rapl policy (scenarios/rapl.go), not checked here."},
	{"004_accel", "Meswani et al.: accelerator idioms, Eq. 2, roll-ups", accelRows,
		"Tables VI–IX publish sums only: the per-block rows run on the stand-in decomposition " +
			"examples/models/meswani-standin.json, whose blocks are invented so that their sums are the tables."},
}

// Rows computes every row of the page; root is the module root (for the
// example files the rows read).
func Rows(root string) ([]Row, error) {
	var all []Row
	for _, n := range notes {
		rs, err := n.rows(root)
		if err != nil {
			return nil, fmt.Errorf("note %s: %w", n.name, err)
		}
		all = append(all, rs...)
	}
	return all, nil
}

// Render writes the page.
func Render(w io.Writer, rows []Row) error {
	var b strings.Builder
	b.WriteString(`# Reproductions of the notes' numbers

Generated by ` + "`go run ./bench/repro`" + ` (or ` + "`make repro`" + `); do not edit by hand:
` + "`go test ./bench/repro`" + ` fails when this page differs from what the generator
writes, or when a row fails.

Every value in the **capsim** column is computed by the packages' APIs when
the page is generated. **Match** rows have inputs the paper (or the note's
worked example built from it) publishes: capsim's value must be within the
tolerance of the paper's. **Stand-in** rows run a workload that stands in for
data the paper does not publish (per-block data whose sums are the paper's
tables, a synthetic trace mimicking a benchmark): a stand-in match row checks
the paper's number on that data, a qualitative row checks the relation the
paper claims. The command column runs the test or capsim command that shows
the number.

`)
	var match, qualN, stand, ok int
	for _, r := range rows {
		if r.Kind == Match {
			match++
		} else {
			qualN++
		}
		if r.StandIn {
			stand++
		}
		if r.OK() {
			ok++
		}
	}
	fmt.Fprintf(&b, "%d rows: %d match rows, %d qualitative rows, %d on stand-in workloads; %d of %d pass.\n",
		len(rows), match, qualN, stand, ok, len(rows))
	for _, n := range notes {
		var mine []Row
		for _, r := range rows {
			if r.Note == n.name {
				mine = append(mine, r)
			}
		}
		if len(mine) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## Note %s — %s\n\n", n.name, n.title)
		var q []Row
		b.WriteString("| section | quantity | paper | capsim | rel. error | tolerance | status | command |\n")
		b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- |\n")
		for _, r := range mine {
			if r.Kind == Qualitative {
				q = append(q, r)
				continue
			}
			what := r.What
			if r.StandIn {
				what += " (stand-in)"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | ±%s | %s | `%s` |\n", cell(r.Section), cell(what), num(r.Paper, r.Unit),
				num(r.Capsim, r.Unit), relErr(r), num(r.Tol, ""), status(r), r.Command)
		}
		if n.without != "" {
			b.WriteString("\nNot checked here: " + n.without + "\n")
		}
		if len(q) > 0 {
			b.WriteString("\nQualitative claims (stand-in workloads):\n\n")
			b.WriteString("| section | workload | the paper claims | capsim measures | status | command |\n")
			b.WriteString("| --- | --- | --- | --- | --- | --- |\n")
			for _, r := range q {
				fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | `%s` |\n", cell(r.Section), cell(r.What), cell(r.Claim), cell(r.Measured), status(r), r.Command)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cell escapes the pipes of a table cell's text.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func status(r Row) string {
	if r.OK() {
		return "ok"
	}
	return "**FAIL**"
}

// num prints a value with 6 significant digits and its unit.
func num(v float64, unit string) string {
	s := fmt.Sprintf("%.6g", v)
	if unit != "" {
		s += " " + unit
	}
	return s
}

func relErr(r Row) string {
	e := r.RelErr()
	if r.Paper == 0 {
		return fmt.Sprintf("%.2g (abs.)", e)
	}
	if e < 1e-6 { // below this, rounding noise that varies by platform
		return "< 1e-6"
	}
	return fmt.Sprintf("%.2g", e)
}
