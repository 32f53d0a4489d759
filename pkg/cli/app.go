// Package cli is mcpsleuth's command line: one file per command, plus the colour
// and exit-code policy.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"

	"github.com/urfave/cli/v2"
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
	// StdinIsTerminal / StdoutIsTerminal decide defaults (reading stdin, colour).
	StdinIsTerminal  bool
	StdoutIsTerminal bool
}

// Main runs the program with os.Args and returns the exit code.
func Main() int {
	env := Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv,
		StdinIsTerminal: isTerminal(os.Stdin), StdoutIsTerminal: isTerminal(os.Stdout)}
	return Run(env, os.Args)
}

// Run runs the program with explicit arguments and streams; it returns the exit code.
func Run(env Env, args []string) int {
	app := newApp(env)
	err := app.Run(args)
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(env.Stderr, ee.msg)
		}
		return ee.code
	}
	fmt.Fprintf(env.Stderr, "mcpsleuth: %v\n", err)
	return ExitUsage
}

func newApp(env Env) *cli.App {
	app := &cli.App{
		Name:      "mcpsleuth",
		Usage:     "forensic analysis of captured Model Context Protocol sessions",
		Version:   Version(),
		Reader:    env.Stdin,
		Writer:    env.Stdout,
		ErrWriter: env.Stderr,
		// Usage errors (unknown flags) must exit 2, not print and exit 1.
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageErr("mcpsleuth: %v", err)
		},
		ExitErrHandler: func(*cli.Context, error) {},
		Commands: []*cli.Command{
			checkCommand(env),
			handshakeCommand(env),
			timelineCommand(env),
			rulesCommand(env),
			explainCommand(env),
			validateArgsCommand(env),
			scanCommand(env),
		},
		HideHelpCommand: true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "cpuprofile", Hidden: true, Usage: "write a CPU profile of the run to `FILE` (go tool pprof reads it; see docs/performance.md)"},
			&cli.StringFlag{Name: "memprofile", Hidden: true, Usage: "write a heap profile (allocations and what is in use at the end) to `FILE`"},
		},
	}
	var profile *os.File
	app.Before = func(c *cli.Context) error {
		path := c.String("cpuprofile")
		if path == "" {
			return nil
		}
		f, err := os.Create(path)
		if err != nil {
			return usageErr("mcpsleuth: %s: cannot write the profile: %v", path, unwrapPath(err))
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return usageErr("mcpsleuth: %s: %v", path, err)
		}
		profile = f
		return nil
	}
	app.After = func(c *cli.Context) error {
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

// Version is the module version of the binary ("(devel)" when built from a checkout).
func Version() string {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
