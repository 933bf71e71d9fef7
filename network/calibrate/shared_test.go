package calibrate_test

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/capsim/capsim/internal/testenv"
	"github.com/capsim/capsim/network"
	"github.com/capsim/capsim/network/calibrate"
	"github.com/capsim/capsim/sim"
	"github.com/capsim/capsim/traces/importer"
	"github.com/capsim/capsim/traces/mpi"
	"github.com/capsim/capsim/traces/otf2"
)

// replay returns the predicted makespan of the trace at path under net,
// with its recorded span.
func replay(t testing.TB, path string, net network.LogGOPS) (pred, rec int64) {
	t.Helper()
	tr, err := importer.Read(path, importer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := tr.Lower(nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(g, net, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res.Makespan, tr.MPI.Recorded.JobNs()
}

// needOTF2 skips t in builds without the OTF2 library.
func needOTF2(t *testing.T) {
	t.Helper()
	if !otf2.Available {
		t.Skip("built without the OTF2 library")
	}
}

func calibrateFile(t testing.TB, path string, opt calibrate.Options) *calibrate.Result {
	t.Helper()
	tr, err := importer.Read(path, importer.Options{}.WithStamps(true))
	if err != nil {
		t.Fatal(err)
	}
	res, err := calibrate.Calibrate([]*mpi.Trace{tr.MPI}, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestSharedPingPongs calibrates each recorded ping-pong on itself: the
// replay under the fitted network predicts its recorded span within 3 %.
func TestSharedPingPongs(t *testing.T) {
	needOTF2(t)
	base := testenv.Shared(t, "traces/otf2")
	for _, name := range []string{"pipit-pingpong", "pipit-pingpong-papi"} {
		path := filepath.Join(base, name, "traces.otf2")
		for _, lg := range []bool{false, true} {
			res := calibrateFile(t, path, calibrate.Options{LogGP: lg})
			pred, rec := replay(t, path, res.Net)
			ratio := float64(pred) / float64(rec)
			t.Logf("%s %s: recorded %d ns, predicted %d ns (%.4f); one-way fit R² %.5f over %d sizes", name, res.Net, rec, pred, ratio, res.Fit.OneWay.R2, res.Fit.OneWay.Points)
			if math.Abs(ratio-1) > 0.03 || res.Fit.Source != "ping-pong" || res.Fit.OneWay.Points != 8 {
				t.Errorf("%s %s: predicted/recorded %.4f from %s over %d sizes; want within 3 %%, ping-pong, 8 sizes", name, res.Net, ratio, res.Fit.Source, res.Fit.OneWay.Points)
			}
		}
	}
}

// TestOutOfSample is the validation page's out-of-sample case: the
// network calibrated on pipit-pingpong-papi predicts the recorded span of
// pipit-pingpong, recorded on the same machine. docs/guide/validation.md
// reports predicted/recorded 1.069: the instrumented run's transfers were
// slower, so the 5 % target is not met; the test fails when the result
// drifts from that number by more than half a percent or the error grows
// beyond 7.5 %; likewise the reverse case.
func TestOutOfSample(t *testing.T) {
	needOTF2(t)
	base := testenv.Shared(t, "traces/otf2")
	for _, tc := range []struct {
		from, to  string
		want, tol float64
	}{
		{"pipit-pingpong-papi", "pipit-pingpong", 1.0694, 0.005},
		{"pipit-pingpong", "pipit-pingpong-papi", 0.9306, 0.005},
	} {
		res := calibrateFile(t, filepath.Join(base, tc.from, "traces.otf2"), calibrate.Options{})
		pred, rec := replay(t, filepath.Join(base, tc.to, "traces.otf2"), res.Net)
		ratio := float64(pred) / float64(rec)
		t.Logf("calibrated on %s: %s; %s recorded %d ns, predicted %d ns (%.4f)", tc.from, res.Net, tc.to, rec, pred, ratio)
		if math.Abs(ratio-tc.want) > tc.tol || math.Abs(ratio-1) > 0.075 {
			t.Errorf("%s under %s: predicted/recorded %.4f, documented %.4f", tc.to, res.Net, ratio, tc.want)
		}
	}
}

// TestOutOfSampleParts holds what docs/guide/validation.md says the
// out-of-sample error is made of: the pipit-pingpong-papi fit prices the
// 16 messages of pipit-pingpong (8 sizes of 16 KiB–2 MiB, each way) a
// per-message constant and a per-byte time longer. The per-message part,
// the most that removing the PAPI counter reads could take away, is
// under 2 % of the recorded span; the per-byte part alone is over 5 %,
// so no per-event correction brings the prediction within 5 %.
func TestOutOfSampleParts(t *testing.T) {
	needOTF2(t)
	base := testenv.Shared(t, "traces/otf2")
	plain := calibrateFile(t, filepath.Join(base, "pipit-pingpong", "traces.otf2"), calibrate.Options{})
	papi := calibrateFile(t, filepath.Join(base, "pipit-pingpong-papi", "traces.otf2"), calibrate.Options{})
	_, rec := replay(t, filepath.Join(base, "pipit-pingpong", "traces.otf2"), plain.Net)
	var bytes float64 // Σ (s−1) over the 16 messages
	for s := int64(16384); s <= 2097152; s *= 2 {
		bytes += 2 * float64(s-1)
	}
	perMsg := 16 * (papi.Fit.OneWay.Intercept - plain.Fit.OneWay.Intercept) / float64(rec)
	perByte := (papi.Fit.OneWay.Slope - plain.Fit.OneWay.Slope) * bytes / float64(rec)
	t.Logf("per message %+.2f %%, per byte %+.2f %% of the recorded %d ns", 100*perMsg, 100*perByte, rec)
	if perMsg <= 0 || perMsg > 0.02 || perByte < 0.05 {
		t.Errorf("per message %+.4f, per byte %+.4f of the span; documented about +0.017 and +0.055", perMsg, perByte)
	}
}
