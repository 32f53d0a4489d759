package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v3"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/record"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
)

// Exit codes of record when the server could not be started (as a shell says).
const (
	exitNotExecutable = 126
	exitNotFound      = 127
)

func recordCommand(env Env) *cli.Command {
	first := 1 // flags stop at the server command: its own flags are its own
	return &cli.Command{
		Name:  "record",
		Usage: "capture a live session: a transparent stdio proxy that runs the server (or, with --http, a reverse proxy) and writes what crossed as envelope JSONL",
		Description: "A client starts `mcpsleuth record --out FILE -- SERVER ARGS...` instead of SERVER: the bytes\n" +
			"cross unchanged both ways, each frame is written to FILE as it completes, the server's\n" +
			"stderr passes through and is kept as context, and its exit is recorded. record exits\n" +
			"with the server's status (128+N when a signal killed it; 127 when it cannot be found).\n" +
			"With --http, `record --http --listen 127.0.0.1:PORT --upstream URL --out FILE` proxies\n" +
			"Streamable HTTP until interrupted; point the client at http://127.0.0.1:PORT with the\n" +
			"upstream's path. `mcpsleuth check FILE` analyses the recording.",
		ArgsUsage:    "-- COMMAND [ARGS...]",
		StopOnNthArg: &first,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "out", Usage: "write the recording to `FILE` (created or replaced; never stdout, which carries the protocol)"},
			&cli.BoolFlag{Name: "live", Usage: "analyse the session as it is recorded and print each finding to stderr when it is found"},
			&cli.BoolFlag{Name: "redact", Usage: "mask secret-looking values (credentials, tokens, members named like secrets, HTTP session ids) in the recording; the wire is never changed"},
			&cli.BoolFlag{Name: "http", Usage: "record Streamable HTTP as a reverse proxy instead of running a stdio server"},
			&cli.StringFlag{Name: "listen", Usage: "with --http: the `ADDRESS` to listen on, such as 127.0.0.1:8931"},
			&cli.StringFlag{Name: "upstream", Usage: "with --http: the server's `URL`, such as http://127.0.0.1:3000/mcp"},
		}, ruleFlags("with --live: ")...),
		Action: func(ctx context.Context, c *cli.Command) error { return runRecord(ctx, env, c) },
	}
}

func runRecord(ctx context.Context, env Env, c *cli.Command) error {
	out := c.String("out")
	switch {
	case out == "":
		return usageErr("mcpsleuth: record needs --out FILE: where to write the recording")
	case out == "-":
		return usageErr("mcpsleuth: record --out cannot be stdout: stdout carries the protocol to the client")
	}
	if err := recordingFile(env, out); err != nil {
		return err
	}
	args := c.Args().Slice()
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	httpMode := c.Bool("http")
	switch {
	case httpMode && len(args) > 0:
		return usageErr("mcpsleuth: record --http proxies --upstream and runs no command, not %q", args[0])
	case httpMode && (c.String("listen") == "" || c.String("upstream") == ""):
		return usageErr("mcpsleuth: record --http needs --listen ADDRESS and --upstream URL")
	case !httpMode && len(args) == 0:
		return usageErr("mcpsleuth: record needs the server to run: mcpsleuth record --out FILE -- COMMAND [ARGS...]")
	case !httpMode && (c.String("listen") != "" || c.String("upstream") != ""):
		return usageErr("mcpsleuth: --listen and --upstream go with --http")
	}
	var upstream *url.URL
	if httpMode {
		u, err := url.Parse(c.String("upstream"))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usageErr("mcpsleuth: --upstream must be an http or https URL, not %q", c.String("upstream"))
		}
		upstream = u
	}
	var selected []*rule.Rule
	var show *shown
	if c.Bool("live") {
		set, err := loadSettings(c)
		if err != nil {
			return err
		}
		selected = set.rules
		if show, err = showOf(c, set); err != nil {
			return err
		}
	}

	file, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return usageErr("mcpsleuth: %s: cannot write the recording: %v", report.Safe(out), unwrapPath(err))
	}
	defer file.Close()
	rec := record.NewRecording(file, record.Options{Redact: c.Bool("redact")})
	live := startLive(env, out, rec, selected, show)

	var result error
	if httpMode {
		result = recordHTTP(ctx, env, c.String("listen"), upstream, rec)
	} else {
		result = recordStdio(ctx, env, args, rec)
	}
	rec.Close()
	if err := live.wait(); err != nil {
		fmt.Fprintf(env.Stderr, "mcpsleuth: record --live: %v\n", err)
	}
	if err := rec.Err(); err != nil {
		fmt.Fprintf(env.Stderr, "%v\n", err)
		if result == nil {
			result = &exitError{code: ExitUsage}
		}
	}
	return result
}

// recordStdio runs the server behind the stdio proxy; its exit status becomes ours.
func recordStdio(ctx context.Context, env Env, command []string, rec *record.Recording) error {
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(signals)
	// A client that hangs up must not kill the recorder with SIGPIPE: writing to
	// it then fails, and the server's output is still recorded.
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	defer signal.Stop(pipes)

	proxy := &record.Stdio{Command: command, Stdin: env.Stdin, Stdout: env.Stdout, Stderr: env.Stderr, Recording: rec, Signals: signals}
	exit, err := proxy.Run(ctx)
	if err != nil {
		var start *record.StartError
		switch {
		case errors.As(err, &start) && errors.Is(err, exec.ErrNotFound), errors.Is(err, os.ErrNotExist):
			return &exitError{code: exitNotFound, msg: report.Safe(err.Error())}
		case errors.As(err, &start):
			return &exitError{code: exitNotExecutable, msg: report.Safe(err.Error())}
		}
		return &exitError{code: ExitUsage, msg: report.Safe(err.Error())}
	}
	switch {
	case exit.Signal != "":
		return &exitError{code: exit.Code, msg: fmt.Sprintf("mcpsleuth: record: the server was killed by %s (recorded)", exit.Signal)}
	case exit.Code != 0:
		return &exitError{code: exit.Code, msg: fmt.Sprintf("mcpsleuth: record: the server exited with status %d (recorded)", exit.Code)}
	}
	return nil
}

// recordHTTP serves the reverse proxy until interrupted.
func recordHTTP(ctx context.Context, env Env, listen string, upstream *url.URL, rec *record.Recording) error {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return usageErr("mcpsleuth: record --http: cannot listen on %s: %v", report.Safe(listen), err)
	}
	if record.LoopsBack(upstream, ln.Addr()) {
		ln.Close()
		return usageErr("mcpsleuth: record --http: --upstream %s is this proxy (%s): every request would come back to it; name the server", report.Safe(upstream.String()), ln.Addr())
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	srv := &http.Server{Handler: record.NewHTTPProxy(upstream, rec)}
	fmt.Fprintf(env.Stderr, "mcpsleuth: record: proxying http://%s%s to %s (interrupt to stop)\n", ln.Addr(), upstream.EscapedPath(), report.Safe(upstream.String()))
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return &exitError{code: ExitUsage, msg: fmt.Sprintf("mcpsleuth: record --http: %v", err)}
	case <-ctx.Done():
	}
	// Event streams stay open until their clients go: stop accepting, then close.
	_ = srv.Close()
	rec.Event("stop", nil, "the recorder was interrupted")
	return nil
}

// liveRun is the analysis of a recording in progress.
type liveRun struct {
	done chan error
}

// startLive analyses the recording as it grows, with the engine check uses,
// printing each finding to stderr when a rule reports it (nil rules: no live
// analysis).
//
// What the configuration hides (suppressions, min-severity) is not printed; how
// many were not is said when the recording ends.
func startLive(env Env, path string, rec *record.Recording, rules []*rule.Rule, show *shown) *liveRun {
	if rules == nil {
		return nil
	}
	in, err := os.Open(path)
	if err != nil {
		fmt.Fprintf(env.Stderr, "mcpsleuth: record --live: %s: %v (recording without it)\n", report.Safe(path), unwrapPath(err))
		return nil
	}
	run := &liveRun{done: make(chan error, 1)}
	var hidden liveHidden
	go func() {
		defer in.Close()
		opt := driver.RunOptions{
			Frame:   frame.Options{Format: "envelope-jsonl"},
			Live:    true,
			Discard: true,
			OnFinding: func(s *session.Session, f rule.Finding) {
				if show != nil && show.hidesLive(f, s, &hidden) {
					return
				}
				fmt.Fprintln(env.Stderr, liveLine(s, f))
			},
		}
		res, err := driver.Run(path, rec.Follow(in), rules, opt)
		if err == nil && res.Broken != nil {
			err = res.Broken
		}
		if hidden.suppressed > 0 {
			fmt.Fprintf(env.Stderr, "mcpsleuth: live: %s suppressed by %s: not shown\n", quote.Count(hidden.suppressed, "finding"), report.Safe(show.configPath))
		}
		if hidden.below > 0 {
			fmt.Fprintf(env.Stderr, "mcpsleuth: live: %s below --min-severity %s: not shown\n", quote.Count(hidden.below, "finding"), show.min)
		}
		run.done <- err
	}()
	return run
}

// recordingFile refuses an --out that is not a file the recording can be
// written to and read back from (--live follows it): stdout under another name
// (/dev/stdout, a link to the file stdout writes), where the protocol goes; a
// FIFO, a device or a directory.
func recordingFile(env Env, out string) error {
	info, err := os.Stat(out)
	if err != nil {
		return nil // a new file
	}
	for name, stream := range map[string]any{"stdout": env.stdoutFile, "stdin": env.Stdin} {
		if f, ok := stream.(*os.File); ok {
			if s, err := f.Stat(); err == nil && os.SameFile(s, info) {
				return usageErr("mcpsleuth: record --out %s is the %s of this process: it carries the protocol", report.Safe(out), name)
			}
		}
	}
	if !info.Mode().IsRegular() {
		return usageErr("mcpsleuth: record --out %s is not a regular file: the recording is written to a file and read back from it", report.Safe(out))
	}
	return nil
}

func (l *liveRun) wait() error {
	if l == nil {
		return nil
	}
	return <-l.done
}

// liveLine is one finding as --live prints it: where, what, and the rule.
func liveLine(s *session.Session, f rule.Finding) string {
	return fmt.Sprintf("mcpsleuth: live: %s:%d: %s %s %s (session %d): %s",
		report.Safe(f.Input), f.Line, f.Severity, f.Rule, f.Name, s.Index+1, report.Safe(f.Message))
}
