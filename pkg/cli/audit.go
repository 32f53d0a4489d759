package cli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/mcpsleuth/mcpsleuth/pkg/audit"
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

func auditCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:  "audit",
		Usage: "diff the capability-gated messages a program's source can send against the capabilities a captured handshake declared",
		Description: "Reads TypeScript, JavaScript, Python, Go, C#, Java and Kotlin sources as text (nothing is run)\n" +
			"for method strings and the SDK helpers that send them, and compares them with the session's\n" +
			"contract in CAPTURE (a capture, or the initialize request and result pasted as JSON): every\n" +
			"message sent without a declaration, and every declaration nothing sends, with file:line.",
		ArgsUsage: "--handshake CAPTURE SRC...",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "handshake", Usage: "the capture (or pasted initialize request and result) whose contract the source is compared with; CAPTURE#N: its session N (default: the first session that declares both sides)"},
			// --session N is CAPTURE#N's older spelling, kept for the scripts that use it.
			&cli.IntFlag{Name: "session", Hidden: true, Usage: "the session of the capture to compare with (as --handshake CAPTURE#N)"},
			&cli.StringFlag{Name: "side", Value: "server", Usage: "the side the source implements: server or client"},
			&cli.BoolFlag{Name: "tests", Usage: "read test files and directories too (by default a test's calls are not the program's)"},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text or json"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` instead of stdout"},
			failOnFlag(),
			configFlag(),
		}, readFlags()...),
		Action: func(_ context.Context, c *cli.Command) error { return runAudit(env, c) },
	}
}

func runAudit(env Env, c *cli.Command) error {
	out, err := parseOutput(env, c, textOrJSON...)
	if err != nil {
		return err
	}
	set, err := loadSettings(c)
	if err != nil {
		return err
	}
	failOn, fopt := set.failOnLevel, set.frame
	var side spec.Side
	switch strings.ToLower(c.String("side")) {
	case "server":
		side = spec.Server
	case "client":
		side = spec.Client
	default:
		return usageErr("mcpsleuth: --side must be server or client, not %q", c.String("side"))
	}
	ref, err := parseSessionRef(c.String("handshake"))
	if err != nil {
		return err
	}
	capture, session, sources := ref.name, int(c.Int("session")), c.Args().Slice()
	if capture != c.String("handshake") {
		if session != 0 && session != ref.session {
			return usageErr("mcpsleuth: --handshake %s names session %d and --session %d: give one", report.Safe(c.String("handshake")), ref.session, session)
		}
		session = ref.session
	}
	switch {
	case capture == "":
		return usageErr("mcpsleuth: audit needs --handshake CAPTURE: the handshake to compare the source with")
	case len(sources) == 0:
		return usageErr("mcpsleuth: audit needs the source to read: mcpsleuth audit --handshake CAPTURE SRC...")
	case session < 0:
		return usageErr("mcpsleuth: --session counts from 1")
	}
	if err := out.notAnInput(append([]string{capture}, sources...)); err != nil {
		return err
	}

	in, err := openInput(env, capture)
	if err != nil {
		return &exitError{code: ExitUsage, msg: err.Error()}
	}
	defer in.Close()
	br := bufio.NewReaderSize(in, 1<<20)
	var src io.Reader = br
	if pasted, ok := frame.Pasted(br); ok {
		src, fopt.Format = bytes.NewReader(pasted), "jsonrpc-jsonl"
	}
	contract, err := audit.ReadContract(capture, src, fopt, session)
	if err != nil {
		return &exitError{code: ExitUsage, msg: report.Safe(err.Error())}
	}

	scanner := audit.NewScanner(audit.Options{Tests: c.Bool("tests")})
	for _, root := range sources {
		if err := scanner.Scan(root); err != nil {
			return &exitError{code: ExitUsage, msg: report.Safe(err.Error())}
		}
	}
	res := &audit.Result{Side: side, Contract: contract, Sources: sources, Stats: scanner.Stats(), Emissions: scanner.Emissions()}
	res.Findings = audit.Diff(contract, side, res.Emissions)
	for _, u := range res.Stats.Unread {
		res.Notes = append(res.Notes, "not read: "+u)
	}
	if n := res.Stats.NotListed; n > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("not listed: %s more of methods a file sends from more than %d places (judged with the others)", quote.Count(n, "place"), audit.MaxSitesPerMethod))
	}
	if res.Stats.Files == 0 {
		res.Notes = append(res.Notes, "no source file of a language audit reads was found: nothing was compared")
	}
	if err := out.write(env, func(w io.Writer) error {
		if out.format == "json" {
			return audit.WriteJSON(w, res)
		}
		var text strings.Builder
		if err := audit.WriteText(&text, res); err != nil {
			return err
		}
		_, err := io.WriteString(w, report.Wrap(text.String(), out.width, "    "))
		return err
	}); err != nil {
		return err
	}
	switch {
	case res.Stats.Files == 0:
		return &exitError{code: ExitUsage, msg: "mcpsleuth: audit: no source file read"}
	case failOn != 0 && res.Worst() >= failOn:
		return &exitError{code: ExitFindings}
	}
	return nil
}
