package calibrate

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// Report is the JSON form of a Result: the network spec (as --net and
// network.ParseSpec take it), the fits and the unidentified parameters.
type Report struct {
	Net          string         `json:"net"`
	Fit          Fit            `json:"fit"`
	Unidentified []Unidentified `json:"unidentified"`
}

// Report returns r's JSON form.
func (r *Result) Report() Report {
	u := r.Unidentified
	if u == nil {
		u = []Unidentified{}
	}
	return Report{Net: r.Net.String(), Fit: r.Fit, Unidentified: u}
}

// TOML returns the [network] table of a scenario file with r's
// parameters, or "" for the LogGP variant, which scenario files do not
// offer.
func (r *Result) TOML() string {
	p := r.Net
	if p.LogGP {
		return ""
	}
	return fmt.Sprintf("[network]\nL_ns = %d\no_ns = %d\ng_ns = %d\nG_ns_per_byte = %s\nO_ns_per_byte = %s\nS_bytes = %d\n",
		p.Latency, p.Overhead, p.Gap, p.GapPerByte, p.OverheadPerByte, p.EagerLimit)
}

// WriteText writes r for people: the spec, the fits with their residuals
// and the unidentified parameters.
func WriteText(w io.Writer, r *Result) error {
	f := r.Fit
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "net\t%s\n", r.Net)
	fmt.Fprintf(tw, "messages\t%d matched, %d in ping-pong round trips", f.Messages, f.PingPongs)
	if f.Wildcards > 0 {
		fmt.Fprintf(tw, ", %d wildcard receives left out", f.Wildcards)
	}
	fmt.Fprintln(tw)
	fmt.Fprintf(tw, "start spread\t%.3f ms between the first and the last rank's recorded start (MPI_Init's return)\n", float64(f.StartSpreadNs)/1e6)
	line := func(name, what string, l Line) {
		fmt.Fprintf(tw, "%s\t%s = %.0f ns + %.6g ns/B × (s−1); R² %.5f, residual rms %.0f ns, max %.0f ns; sizes %d–%d B, %d samples, %d envelope points\n",
			name, what, l.Intercept, l.Slope, l.R2, l.RMS, l.MaxAbs, l.MinBytes, l.MaxBytes, l.Samples, l.Points)
	}
	line("one-way", "2o + L + (s−1)·G from "+f.Source, f.OneWay)
	if f.Send != nil {
		line("send", "o + (s−1)·O from the send calls", *f.Send)
	}
	if st := f.Step; st != nil {
		fmt.Fprintf(tw, "step	S = %d B: one-way times above it are %.0f ns longer (common slope %.6g ns/B; p = %.2g, Bonferroni over the splits tried); the line above spreads that jump over all sizes\n",
			st.AfterBytes, st.JumpNs, st.Slope, st.P)
	}
	if f.GapSamples > 0 {
		fmt.Fprintf(tw, "gap\tg ≤ %.0f ns from %d back-to-back sends (exact when the interface held them back)\n", f.GapNs, f.GapSamples)
	}
	for _, u := range r.Unidentified {
		fmt.Fprintf(tw, "unidentified\t%s = %s: %s\n", u.Param, u.Value, u.Reason)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if t := r.TOML(); t != "" {
		_, err := fmt.Fprintf(w, "\nas scenario keys:\n%s", t)
		return err
	}
	_, err := fmt.Fprintln(w, "\nscenario files offer loggops only: use the spec with --net")
	return err
}
