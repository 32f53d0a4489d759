package cli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v3"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

func handshakeCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:  "handshake",
		Usage: "the negotiated contract: revision verdict, both capability sets, who may send what, promises made, what the revision lacks, instructions cost",
		Description: "Reads a capture, or just the initialize request and result pasted as two JSON documents\n" +
			"(pretty-printed or not; the bare params and result objects are accepted too).",
		ArgsUsage: "[FILE|-]",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text or json"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` instead of stdout"},
			&cli.StringFlag{Name: "color", Value: "auto", Usage: "auto, always or never"},
			configFlag(),
		}, readFlags()...),
		Action: func(_ context.Context, c *cli.Command) error { return runHandshake(env, c) },
	}
}

func runHandshake(env Env, c *cli.Command) error {
	out, err := parseOutput(env, c, textOrJSON...)
	if err != nil {
		return err
	}
	set, err := loadSettings(c)
	if err != nil {
		return err
	}
	fopt := set.frame
	name, session, in, err := openSingle(env, c, "handshake")
	if err != nil {
		return err
	}
	defer in.Close()
	if err := out.notAnInput([]string{name}); err != nil {
		return err
	}
	br := bufio.NewReaderSize(in, 1<<20)
	var src io.Reader = br
	if pasted, ok := frame.Pasted(br); ok {
		src, fopt.Format = bytes.NewReader(pasted), "jsonrpc-jsonl"
	}
	// Each session's handshake is spooled as the session ends (nothing of it is
	// kept), and written in session order at the end.
	newStream := report.NewHandshakeTextStream
	if out.format == "json" {
		newStream = report.NewHandshakeJSONStream
	}
	spool, err := newSpool()
	if err != nil {
		return err
	}
	defer spool.Close()
	stream := newStream(spool, report.StreamOptions{Text: report.TextOptions{Color: out.colour, Width: out.width}})
	tracer := trace.Require(trace.Options{Needs: report.HandshakeRequires})
	// MCP1007 judges the instructions (nil when the configuration disables it).
	var budget *rule.Rule
	for _, r := range set.rules {
		if r.ID == rules.InstructionsTooLong.ID {
			budget = r
		}
	}
	var found, sessions int
	var picked bool
	var streamErr error
	contradicted := ""
	ropt := driver.RunOptions{Frame: fopt, Discard: true, OnSession: func(sr *rule.SessionResult) {
		sessions++
		if session > 0 && sr.Session.Index+1 != session {
			return // CAPTURE#N: another session
		}
		picked = true
		if text := driver.Contradiction(sr, fopt); text != "" && contradicted == "" {
			contradicted = text
		}
		t := tracer.Of(sr)
		if t != nil && t.Handshake != nil {
			found++
			if budget != nil && t.Handshake.Instructions.Present {
				// Over the budget is MCP1007's judgement, with its configured budget.
				t.Handshake.Instructions.Budget = budget.Option(rules.InstructionsBudgetOption).(int)
				for _, f := range sr.Findings {
					t.Handshake.Instructions.OverBudget = t.Handshake.Instructions.OverBudget || f.Rule == rules.InstructionsTooLong.ID
				}
			}
		}
		if err := stream.Session(sr, t); err != nil && streamErr == nil {
			streamErr = err
		}
	}}
	tracer.Apply(&ropt)
	var judges []*rule.Rule
	if budget != nil {
		judges = []*rule.Rule{budget}
	}
	res, err := driver.Run(name, src, judges, ropt)
	if err != nil {
		return &exitError{code: ExitUsage, msg: err.Error()}
	}
	if streamErr == nil {
		streamErr = spool.Flush()
	}
	switch {
	case streamErr != nil:
		return &exitError{code: ExitUsage, msg: streamErr.Error()}
	case session > 0 && !picked:
		return noSession("handshake", name, sessions, session)
	case found == 0 && contradicted != "":
		return &exitError{code: ExitUsage, msg: fmt.Sprintf("mcpsleuth: %s: %s", report.Safe(name), contradicted)}
	case found == 0 && res.Broken != nil:
		return &exitError{code: ExitUsage, msg: res.Broken.Error()}
	case found == 0:
		return &exitError{code: ExitUsage, msg: fmt.Sprintf("mcpsleuth: %s: no initialize exchange and no modern request found: nothing to negotiate", name)}
	}
	if err := out.write(env, func(w io.Writer) error { return stream.Finish(w, spool.file) }); err != nil {
		return err
	}
	if res.Broken != nil { // a read error after the handshakes: they are shown, the run is not clean
		return &exitError{code: ExitUsage, msg: fmt.Sprintf("%v (the handshake covers what was read before)", res.Broken)}
	}
	return nil
}
