package main

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// newProgress returns a progress callback drawing a bar with an ETA on
// stderr when mode is "always", or "auto" and stderr is a terminal outside
// CI; otherwise it returns nil and nothing is written: the bar library
// (schollz/progressbar) does no terminal detection itself.
func newProgress(mode string, stderr io.Writer, what string) (func(done, total int), func()) {
	update, _, done := newProgressNote(mode, stderr, what)
	return update, done
}

// newProgressNote is newProgress with a third callback that replaces the
// bar's description (what, then the note), to say which step of a long
// item runs. When no bar is drawn the update callback is nil, as
// newProgress's, and the other two are no-ops.
func newProgressNote(mode string, stderr io.Writer, what string) (func(done, total int), func(note string), func()) {
	tty := false
	if f, ok := stderr.(*os.File); ok {
		tty = term.IsTerminal(int(f.Fd())) && os.Getenv("CI") == ""
	}
	if mode == "never" || (mode == "auto" && !tty) {
		return nil, func(string) {}, func() {}
	}
	var bar *progressbar.ProgressBar
	update := func(done, total int) {
		if bar == nil {
			bar = progressbar.NewOptions(total,
				progressbar.OptionSetWriter(stderr),
				progressbar.OptionSetDescription(what),
				progressbar.OptionThrottle(100*time.Millisecond),
				progressbar.OptionShowCount(),
				progressbar.OptionSetPredictTime(true),
				progressbar.OptionClearOnFinish())
		}
		bar.Set(done)
	}
	note := func(n string) {
		if bar != nil {
			bar.Describe(what + " " + n)
		}
	}
	return update, note, func() {
		if bar != nil {
			bar.Finish()
		}
	}
}

func validProgress(mode string) error {
	switch mode {
	case "auto", "always", "never":
		return nil
	}
	return usagef("--progress %q: want auto, always or never", mode)
}
