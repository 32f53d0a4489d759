package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/urfave/cli/v3"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

func diffCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:  "diff",
		Usage: "two captures (or sessions, A#2) side by side: contract, what the server listed, behaviour, findings",
		Description: "Compares session A (say, one that worked) with session B (one that failed): the revision\n" +
			"requested, answered and negotiated, each capability declared or not, the tools, prompts and\n" +
			"resources listed with their schemas, the methods used, the notifications reacted to, the\n" +
			"requests left unanswered, the error codes, and the findings of one that the other does not\n" +
			"have (by fingerprint). CAPTURE#N picks the capture's session N (default 1).\n" +
			"--redact hides what check --redact hides, in every format, so that the diff can be attached to a ticket.\n" +
			"Exits 1 when B has error findings that A does not.",
		ArgsUsage: "A[#N] B[#N]",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text, json, markdown or html"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` instead of stdout"},
			&cli.StringFlag{Name: "color", Value: "auto", Usage: "auto, always or never"},
			&cli.BoolFlag{Name: "redact", Usage: "replace the values findings quote from params and results by their type and length, mask secret-looking strings (tokens, keys, cookies) everywhere, as check --redact does"},
		}, append(ruleFlags(""), readFlags()...)...),
		Action: func(_ context.Context, c *cli.Command) error { return runDiff(env, c) },
	}
}

func runDiff(env Env, c *cli.Command) error {
	out, err := parseOutput(env, c, report.DiffFormats...)
	if err != nil {
		return err
	}
	if c.Args().Len() != 2 {
		return usageErr("mcpsleuth: diff takes two captures, A and B (CAPTURE or CAPTURE#N), not %d", c.Args().Len())
	}
	set, err := loadSettings(c)
	if err != nil {
		return err
	}
	fopt, selected := set.frame, set.rules
	show, err := showOf(c, set) // both sides without what the configuration hides, as check shows them
	if err != nil {
		return err
	}
	var refs [2]sessionRef
	for i, arg := range c.Args().Slice() {
		if refs[i], err = parseSessionRef(arg); err != nil {
			return err
		}
	}
	if refs[0].name == "-" && refs[1].name == "-" {
		return usageErr("mcpsleuth: diff: only one of A and B can be stdin")
	}
	if err := out.notAnInput([]string{refs[0].name, refs[1].name}); err != nil {
		return err
	}
	shared := rule.NewShared()
	var sides [2]trace.Compared
	var named [2]trace.DiffSide
	for i, ref := range refs {
		cmp, sessions, err := analyseSession(env, ref, selected, fopt, shared, show, c.Bool("redact"))
		if err != nil {
			return err
		}
		sides[i], named[i] = cmp, trace.SideOf(cmp, sessions)
	}
	d := trace.DiffSessions(sides[0], sides[1], named[0], named[1])
	if c.Bool("redact") {
		report.RedactDiff(d, sides[0].Trace.Redacted, sides[1].Trace.Redacted)
	}
	if err := out.write(env, func(w io.Writer) error {
		return report.WriteDiff(w, out.format, d, report.DiffOptions{Version: Version(), Width: out.width, Color: out.colour})
	}); err != nil {
		return err
	}
	if d.NewErrors > 0 {
		return &exitError{code: ExitFindings}
	}
	return nil
}

// analyseSession analyses one capture and keeps what the diff needs of the
// session ref names (the others are counted, not kept).
func analyseSession(env Env, ref sessionRef, selected []*rule.Rule, fopt frame.Options, shared *rule.Shared, show *shown, redact bool) (trace.Compared, int, error) {
	in, err := openInput(env, ref.name)
	if err != nil {
		return trace.Compared{}, 0, &exitError{code: ExitUsage, msg: err.Error()}
	}
	defer in.Close()
	tracer := trace.New(trace.Options{Needs: trace.DiffNeeds.Union(trace.Needs{Redaction: redact})})
	var found trace.Compared
	sessions := 0
	opt := driver.RunOptions{Frame: fopt, Shared: shared, Discard: true, OnSession: func(sr *rule.SessionResult) {
		sessions++
		if sr.Session.Index+1 == ref.session { // as the reports number sessions, whatever order they end in
			if show != nil {
				show.apply(sr)
			}
			found = trace.Compared{Trace: tracer.Of(sr), Findings: append([]rule.Finding(nil), sr.Findings...)}
		}
	}}
	tracer.Apply(&opt)
	res, err := driver.Run(ref.name, in, selected, opt)
	if err != nil {
		return trace.Compared{}, 0, &exitError{code: ExitUsage, msg: err.Error()}
	}
	if res.Broken != nil {
		return trace.Compared{}, 0, &exitError{code: ExitUsage, msg: fmt.Sprintf("%v", res.Broken)}
	}
	if found.Trace == nil {
		return trace.Compared{}, 0, usageErr("mcpsleuth: diff: %s has %s, not a session %d", report.Safe(ref.name), quote.Count(sessions, "session"), ref.session)
	}
	return found, sessions, nil
}
