package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/scan"
)

// walkFlags are the flags of the commands that walk directories (check, scan):
// which files beyond the capture names are read or left, and whether every file
// left is named.
func walkFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "include", Usage: "in directories, also read files matching `GLOB` (a name such as '*.out', or a path below the directory such as 'logs/**/*.bak'; comma-separated or repeated); by default a walk reads " + captureEndings() + ", each also with .gz or .zst"},
		&cli.StringSliceFlag{Name: "exclude", Usage: "in directories, leave files and directories matching `GLOB` unread (as --include; --exclude wins)"},
		&cli.BoolFlag{Name: "verbose", Usage: "name every file a directory walk left unread, with why"},
		&cli.BoolFlag{Name: "follow", Usage: "in directories, follow symlinks that lead out of the directory walked (by default they are left unread, and said)"},
	}
}

// walkArgs expands the arguments with the command's selection (--include,
// --exclude) and says on w what the walk left unread on purpose: one line with
// a count and a few names, or, with --verbose, a line for each.
func walkArgs(c *cli.Command, args []string, w io.Writer) (scan.Walk, error) {
	sel := scan.Selection{Include: splitList(c.StringSlice("include")), Exclude: splitList(c.StringSlice("exclude")), Follow: c.Bool("follow")}
	if err := sel.Check(); err != nil {
		return scan.Walk{}, usageErr("mcpsleuth: --include/--exclude: %v", strings.TrimPrefix(err.Error(), "mcpsleuth: "))
	}
	walk := scan.ExpandWith(args, sel)
	sayUnread(w, walk.Unread, c.Bool("verbose"))
	return walk, nil
}

// maxUnreadNamed is how many unread files the one line names.
const maxUnreadNamed = 3

// sayUnread tells what a walk left unread on purpose (nothing when it left
// nothing): never an error, never silent.
func sayUnread(w io.Writer, unread []scan.Skipped, verbose bool) {
	if len(unread) == 0 {
		return
	}
	if verbose {
		for _, sk := range unread {
			fmt.Fprintf(w, "mcpsleuth: %s: not read: %s\n", report.Safe(sk.Path), report.Safe(sk.Why))
		}
		return
	}
	names := make([]string, 0, maxUnreadNamed)
	for _, sk := range unread[:min(len(unread), maxUnreadNamed)] {
		names = append(names, report.Safe(sk.Path))
	}
	more := ""
	if len(unread) > maxUnreadNamed {
		more = ", ..."
	}
	what := "entries"
	if len(unread) == 1 {
		what = "entry"
	}
	fmt.Fprintf(w, "mcpsleuth: %d %s of the directories given not read (%s%s): not a capture's name, or excluded; --verbose names each with why, --include reads more\n",
		len(unread), what, strings.Join(names, ", "), more)
}
