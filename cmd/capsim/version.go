package main

import (
	"runtime/debug"
	"strings"
)

// versionTemplate is what --version prints: the command's name and
// buildVersion's line.
const versionTemplate = "{{.Name}} {{.Version}}\n"

// buildVersion describes a build from its Go build information: the
// module version ("devel" for a build from a work tree), then the VCS
// revision, its commit time and whether the tree had uncommitted changes,
// as the go command records them (go help buildinfo); ok is false where
// the binary carries no build information.
func buildVersion(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil {
		return "devel (no build information)"
	}
	v := bi.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	var rev, at, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return v + " (no VCS revision: built outside a repository or with -buildvcs=false)"
	}
	var parts []string
	parts = append(parts, "revision "+rev)
	if at != "" {
		parts = append(parts, at)
	}
	if modified == "true" {
		parts = append(parts, "modified")
	}
	return v + " (" + strings.Join(parts, ", ") + ")"
}

// capsimVersion is buildVersion of the running binary.
func capsimVersion() string { return buildVersion(debug.ReadBuildInfo()) }
