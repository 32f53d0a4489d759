// Command mcpsleuth analyses captured Model Context Protocol sessions.
package main

import (
	"os"
	"runtime/debug"

	"github.com/mcpsleuth/mcpsleuth/pkg/cli"
)

// softMemoryLimit is where the garbage collector starts to work harder (unless
// GOMEMLIMIT says otherwise). What mcpsleuth keeps is bounded by design (the
// longest session's tables and timeline summaries stay under about 80 MB of live
// heap); left to its default pacing the collector lets the heap grow to twice what
// is live, which took the worst hostile inputs to 190-260 MB of RSS. Runs that keep
// less (nearly all: a 1 GiB check peaks near 50 MB) never reach the limit and are
// collected as before.
const softMemoryLimit = 128 << 20

func main() {
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(softMemoryLimit)
	}
	os.Exit(cli.Main())
}
