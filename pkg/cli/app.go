// Package cli is mcpsleuth's command line: one file per command, plus the colour
// and exit-code policy.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strings"

	"github.com/urfave/cli/v3"
	"golang.org/x/term"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
)

// Exit codes (DESIGN.md section 5).
const (
	ExitOK       = 0 // analysis done, nothing at or above --fail-on
	ExitFindings = 1 // findings at or above --fail-on
	ExitUsage    = 2 // usage error, or an input that could not be read at all (wins over 1)
)

// exitError carries an exit code out of a command.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func usageErr(format string, args ...any) error {
	return &exitError{code: ExitUsage, msg: fmt.Sprintf(format, args...)}
}

// Env is what the program gets from its process: streams, arguments, environment.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	// StdinIsTerminal / StdoutIsTerminal decide defaults (reading stdin, colour,
	// check's report format: the tables on a terminal, one finding a line elsewhere).
	StdinIsTerminal  bool
	StdoutIsTerminal bool
	// StdoutColumns is the width of the terminal stdout is (0: unknown), which
	// text output fits when COLUMNS is not set (terminalWidth).
	StdoutColumns int

	// stderrFile is the process's stderr when it is a file, before escaping
	// wraps it: what a progress bar asks about and draws on.
	stderrFile *os.File
	// stdoutFile is the process's stdout when it is a file, before the writer
	// that remembers its errors wraps it.
	stdoutFile *os.File
}

// Main runs the program with os.Args and returns the exit code.
func Main() int {
	env := processEnv(os.Stdin, os.Stdout, os.Stderr)
	if env.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(softMemoryLimit(frame.DefaultMaxLine))
	}
	return Run(env, os.Args)
}

// processEnv is the Env of a process whose streams are these files: whether
// stdin and stdout are terminals (what decides reading stdin, colour and the
// default report format) and how wide stdout is, with the process's environment.
func processEnv(stdin, stdout, stderr *os.File) Env {
	return Env{Stdin: stdin, Stdout: stdout, Stderr: stderr, Getenv: os.Getenv,
		StdinIsTerminal: isTerminal(stdin), StdoutIsTerminal: isTerminal(stdout), StdoutColumns: stdoutColumns(stdout)}
}

// softMemoryLimit is the heap size at which the collector works harder: the
// longest line and the bounded tables, so that garbage (a long line's copies, a
// flood's request records) is collected before the heap doubles instead of after
// (issue 11: peak RSS under 200 MB on every hostile input at the default limits;
// at twice the line limit, the timeline of a flood of requests with progress
// reached 185-225 MB with 75 MB live). It is soft: a larger working set (one line
// near --max-line, judged) is served, with the collector busier.
func softMemoryLimit(maxLine int) int64 {
	return int64(maxLine) + 64<<20
}

// Run runs the program with explicit arguments and streams; it returns the exit code.
func Run(env Env, args []string) int {
	// Every stderr line is escaped as stdout is: file names and captured text in
	// messages reach the terminal with no control or invisible character raw.
	if f, ok := env.Stderr.(*os.File); ok {
		env.stderrFile = f // for the progress bar's own drawing, which quotes nothing captured
	}
	env.Stderr = report.SafeMessageWriter(env.Stderr)
	// A failed write to stdout (a full disk, /dev/full) is said once, the same
	// way by every command, whatever the writer that met it made of it.
	if f, ok := env.Stdout.(*os.File); ok {
		env.stdoutFile = f // what record compares --out with
	}
	stdout := &writeErrors{w: env.Stdout}
	env.Stdout = stdout
	app := newApp(env)
	if isCompletionRequest(args) {
		answerCompletion(app, env.Stdout, args)
	}
	err := app.Run(context.Background(), args)
	if err == nil {
		return ExitOK
	}
	if stdout.err != nil {
		fmt.Fprintf(env.Stderr, "mcpsleuth: stdout: cannot write: %v\n", unwrapPath(stdout.err))
		return ExitUsage
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(env.Stderr, ee.msg)
		}
		return ee.code
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "mcpsleuth: ") {
		msg = "mcpsleuth: " + msg
	}
	fmt.Fprintln(env.Stderr, msg)
	return ExitUsage
}

func newApp(env Env) *cli.Command {
	app := &cli.Command{
		Name:      "mcpsleuth",
		Usage:     "forensic analysis of captured Model Context Protocol sessions",
		Version:   buildDescription(),
		Reader:    env.Stdin,
		Writer:    env.Stdout,
		ErrWriter: env.Stderr,
		// Usage errors (unknown flags) must exit 2, not print and exit 1.
		OnUsageError: func(_ context.Context, c *cli.Command, err error, _ bool) error {
			return usageErr("mcpsleuth: %v%s", err, flagSuggestion(c, err))
		},
		ExitErrHandler: func(context.Context, *cli.Command, error) {},
		Commands: []*cli.Command{
			checkCommand(env),
			handshakeCommand(env),
			statsCommand(env),
			timelineCommand(env),
			diffCommand(env),
			rulesCommand(env),
			explainCommand(env),
			validateArgsCommand(env),
			configCommand(env),
			scanCommand(env),
			recordCommand(env),
			redactCommand(env),
			mockCommand(env),
			replayCommand(env),
			auditCommand(env),
			licensesCommand(env),
			versionCommand(env),
		},
		EnableShellCompletion: true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "cpuprofile", Hidden: true, Usage: "write a CPU profile of the run to `FILE` (go tool pprof reads it; see docs/performance.md)"},
			&cli.StringFlag{Name: "memprofile", Hidden: true, Usage: "write a heap profile (allocations and what is in use at the end) to `FILE`"},
		},
	}
	// A command name nobody knows is one line on stderr and exit 2, never a page of
	// help on stdout (which may be a report file).
	app.Action = func(_ context.Context, c *cli.Command) error {
		if c.Args().Len() > 0 {
			return usageErr("mcpsleuth: unknown command %q%s (mcpsleuth --help lists them)", c.Args().First(), didYouMean(c.Args().First(), commandNames(c), ""))
		}
		return cli.ShowRootCommandHelp(c)
	}
	// So is a bad flag of any command.
	for _, cmd := range app.Commands {
		cmd.OnUsageError = app.OnUsageError
	}
	// Help fits the terminal as every text view does; so does the completion
	// command's, which urfave/cli adds when the app starts, and which the help
	// lists (a user looks there first).
	width := terminalWidth(env)
	useWrappedHelp(app, width)
	app.ConfigureShellCompletionCommand = func(c *cli.Command) {
		c.Hidden = false
		c.Usage = "print the shell completion script: bash, zsh, fish or pwsh (source <(mcpsleuth completion bash))"
		useWrappedHelp(c, width)
		useOwnBashScript(c, env)
	}
	var profile *os.File
	app.Before = func(ctx context.Context, c *cli.Command) (context.Context, error) {
		path := c.String("cpuprofile")
		if path == "" {
			return ctx, nil
		}
		f, err := os.Create(path)
		if err != nil {
			return ctx, usageErr("mcpsleuth: %s: cannot write the profile: %v", path, unwrapPath(err))
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return ctx, usageErr("mcpsleuth: %s: %v", path, err)
		}
		profile = f
		return ctx, nil
	}
	app.After = func(_ context.Context, c *cli.Command) error {
		if profile != nil {
			pprof.StopCPUProfile()
			profile.Close()
		}
		if path := c.String("memprofile"); path != "" {
			f, err := os.Create(path)
			if err != nil {
				return usageErr("mcpsleuth: %s: cannot write the profile: %v", path, unwrapPath(err))
			}
			defer f.Close()
			runtime.GC()
			if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
				return usageErr("mcpsleuth: %s: %v", path, err)
			}
		}
		return nil
	}
	return app
}

// releaseVersion is stamped by the release build (.goreleaser.yaml, -ldflags -X):
// the tag without its v. Never assigned at run time.
var releaseVersion string

// Version is the version of the binary: the release's, else the module version
// go install or go build recorded ("(devel)" when built from a checkout without
// a tag).
func Version() string {
	if releaseVersion != "" {
		return releaseVersion
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
}

// isTerminal reports whether f is a terminal (asked of the terminal driver: /dev/null
// and other character devices are not terminals, so output sent there is not
// coloured, and input read from there is read).
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }
