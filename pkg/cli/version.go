package cli

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v3"
)

func versionCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "the module version, the VCS revision and time it was built from, and the Go toolchain (as --version)",
		Action: func(context.Context, *cli.Command) error {
			_, err := fmt.Fprintln(env.Stdout, "mcpsleuth version "+buildDescription())
			return err
		},
	}
}

// buildDescription is what `mcpsleuth version` and --version say after the
// name: the module version (Version, as the reports record it), then the VCS
// revision and commit time the binary was built from, "modified" when the tree
// had uncommitted changes, and the Go toolchain. What the build did not record
// is left out.
func buildDescription() string {
	parts := []string{Version()}
	if info, ok := debug.ReadBuildInfo(); ok {
		settings := map[string]string{}
		for _, s := range info.Settings {
			settings[s.Key] = s.Value
		}
		if rev := settings["vcs.revision"]; rev != "" {
			if settings["vcs.modified"] == "true" {
				rev += " (modified)"
			}
			parts = append(parts, "revision "+rev)
		}
		if t := settings["vcs.time"]; t != "" {
			parts = append(parts, "committed "+t)
		}
	}
	parts = append(parts, runtime.Version())
	return strings.Join(parts, ", ")
}
