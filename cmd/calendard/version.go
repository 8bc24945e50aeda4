package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// versionString says which build this is, from what the Go toolchain stamped into the binary: the
// module version (a tag, or a pseudo-version of the commit when built from a checkout), the VCS
// revision and time with "+dirty" for uncommitted changes, and the Go version and platform.
func versionString() string {
	version, revision, when, modified := "(devel)", "", "", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "calendard %s", version)
	if revision != "" {
		fmt.Fprintf(&b, " (%s", revision)
		if modified {
			b.WriteString("+dirty")
		}
		if when != "" {
			b.WriteString(", " + when)
		}
		b.WriteString(")")
	}
	fmt.Fprintf(&b, " %s %s/%s", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return b.String()
}
