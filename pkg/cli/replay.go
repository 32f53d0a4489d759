package cli

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/mcpsleuth/mcpsleuth/pkg/record"
	"github.com/mcpsleuth/mcpsleuth/pkg/replay"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

func replayCommand(env Env) *cli.Command {
	stop := 2 // CAPTURE, then the server's command: its flags are its own
	return &cli.Command{
		Name:  "replay",
		Usage: "play a captured client's messages against a server (a new build) and compare its answers with the captured ones",
		Description: "`mcpsleuth replay CAPTURE[#N] -- SERVER ARGS...` runs the server on stdio (or, with --url, POSTs to a\n" +
			"Streamable HTTP server) and sends what the captured client sent, in order, with ids of its own; the\n" +
			"server's requests (sampling, roots, elicitation) get what the captured client answered. Each request\n" +
			"is judged: same, different (what changed: JSON paths, list items gone or new), error now, no answer\n" +
			"(--timeout), fixed (a result where the capture has an error), answered now. Then the contract diff of\n" +
			"the two sessions, as diff shows it. Exit 1 when the server breaks what the capture shows working (an\n" +
			"error or no answer where the capture has a result, a listed tool, prompt or resource gone); with\n" +
			"--strict, any difference. --out keeps the live session as a capture that check judges.",
		ArgsUsage:    "CAPTURE[#N] -- COMMAND [ARGS...]",
		StopOnNthArg: &stop,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "url", Usage: "replay against the Streamable HTTP server at `URL` instead of running a command"},
			&cli.DurationFlag{Name: "timeout", Value: 10 * time.Second, Usage: "how long a request waits for its answer"},
			&cli.StringFlag{Name: "out", Usage: "record the live session to `FILE` as envelope JSONL"},
			&cli.BoolFlag{Name: "strict", Usage: "exit 1 on any difference, not only on what breaks the capture"},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text or json"},
		}, readFlags()...),
		Action: func(ctx context.Context, c *cli.Command) error { return runReplay(ctx, env, c) },
	}
}

func runReplay(ctx context.Context, env Env, c *cli.Command) error {
	format := strings.ToLower(c.String("format"))
	if format != "text" && format != "json" {
		return usageErr("mcpsleuth: --format must be text or json, not %q", c.String("format"))
	}
	args := c.Args().Slice()
	if len(args) == 0 {
		return usageErr("mcpsleuth: replay needs a capture: replay CAPTURE[#N] -- SERVER ARGS... (or --url URL)")
	}
	capture, command := args[0], args[1:]
	if len(command) > 0 && command[0] == "--" {
		command = command[1:]
	}
	url := c.String("url")
	switch {
	case url == "" && len(command) == 0:
		return usageErr("mcpsleuth: replay needs the server: -- COMMAND [ARGS...], or --url URL")
	case url != "" && len(command) > 0:
		return usageErr("mcpsleuth: replay takes a command or --url, not both")
	}
	ref, err := parseSessionRef(capture)
	if err != nil {
		return err
	}
	s, _, err := loadScript(env, c, capture)
	if err != nil {
		return err
	}
	// The live session is recorded: to --out, or to a file of its own for the
	// contract diff.
	out := c.String("out")
	keep := out != ""
	if !keep {
		f, err := os.CreateTemp("", "mcpsleuth-replay-*.jsonl")
		if err != nil {
			return fmt.Errorf("mcpsleuth: replay: a file for the live session: %w", err)
		}
		out = f.Name()
		f.Close()
		defer os.Remove(out)
	}
	recFile, err := os.Create(out)
	if err != nil {
		return usageErr("mcpsleuth: %s: cannot write the recording: %v", report.Safe(out), unwrapPath(err))
	}
	rec := record.NewRecording(recFile, record.Options{})
	opt := replay.Options{Timeout: c.Duration("timeout"), Crossed: rec.Frame}

	var srv replay.Server
	server := url
	var cmd *exec.Cmd
	if url != "" {
		srv = &replay.HTTP{URL: url}
	} else {
		server = strings.Join(command, " ")
		cmd = exec.CommandContext(ctx, command[0], command[1:]...)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			return err
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return err
		}
		stderr, err := cmd.StderrPipe()
		if err != nil {
			return err
		}
		if err := cmd.Start(); err != nil {
			rec.Close()
			recFile.Close()
			return &exitError{code: ExitUsage, msg: fmt.Sprintf("mcpsleuth: replay: cannot start %s: %v", report.Safe(command[0]), unwrapPath(err))}
		}
		go func() { // the server's stderr, safe for a terminal
			sc := bufio.NewScanner(stderr)
			sc.Buffer(make([]byte, 64<<10), 1<<20)
			for sc.Scan() {
				fmt.Fprintf(env.Stderr, "server: %s\n", report.Safe(sc.Text()))
			}
		}()
		srv = replay.NewLines(stdout, stdin)
		defer func() {
			stdin.Close()
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(2 * time.Second):
				cmd.Process.Kill()
				<-done
			}
		}()
	}
	res := replay.Play(ctx, s, srv, opt)
	rec.Close()
	recFile.Close()

	set, err := loadSettings(c)
	if err != nil {
		return err
	}
	var d *trace.Diff
	shared := rule.NewShared()
	captured, capturedSessions, err := analyseSession(env, ref, set.rules, set.frame, shared, nil, false)
	if err == nil {
		live, liveSessions, lerr := analyseSession(env, sessionRef{name: out, session: 1}, set.rules, set.frame, shared, nil, false)
		if lerr == nil {
			b := trace.SideOf(live, liveSessions)
			if !keep {
				b.Input = "live" // a file of its own, removed when replay ends
			}
			d = trace.DiffSessions(captured, live, trace.SideOf(captured, capturedSessions), b)
		}
	}
	run := report.ReplayRun{Capture: fmt.Sprintf("%s#%d", ref.name, ref.session), Server: server}
	if keep {
		run.Out = filepath.Clean(out)
	}
	write := report.WriteReplayText
	if format == "json" {
		write = report.WriteReplayJSON
	}
	if err := write(env.Stdout, run, res, d, report.DiffOptions{Version: Version(), Width: outputColumns(env, true)}); err != nil {
		return err
	}
	strict := c.Bool("strict")
	for _, q := range res.Requests {
		if q.Breaking || (strict && q.Verdict != replay.Same && q.Verdict != replay.Unanswered) {
			return &exitError{code: ExitFindings}
		}
	}
	return nil
}
