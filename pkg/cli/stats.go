package cli

import (
	"context"
	"io"

	"github.com/urfave/cli/v3"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

func statsCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:  "stats",
		Usage: "what sessions cost, per server and tool: calls and how they ended, latency, bytes, and the tokens of instructions and tool definitions paid on every turn",
		Description: "Reads the captures in the analysis's one pass (no rule runs) and adds up each session's\n" +
			"account (trace.NewAccounting). Tokens are counted offline with o200k_base; a model's own\n" +
			"tokenizer may count a few percent otherwise.",
		ArgsUsage: "CAPTURE...",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text or json"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` instead of stdout"},
			&cli.StringFlag{Name: "color", Value: "auto", Usage: "auto, always or never"},
			configFlag(),
		}, readFlags()...),
		Action: func(_ context.Context, c *cli.Command) error { return runStats(env, c) },
	}
}

func runStats(env Env, c *cli.Command) error {
	out, err := parseOutput(env, c, textOrJSON...)
	if err != nil {
		return err
	}
	set, err := loadSettings(c)
	if err != nil {
		return err
	}
	names, walkErrs, err := expandInputs(env, c, c.Args().Slice())
	if err != nil {
		return err
	}
	if err := out.notAnInput(names); err != nil {
		return err
	}
	table, accounting := report.NewStats(), trace.NewAccounting()
	_, failed := analyseAll(env, names, func(name string, r io.Reader) (*driver.InputResult, error) {
		return driver.Run(name, r, nil, driver.RunOptions{Frame: set.frame, Discard: true, Analyses: []*rule.Analysis{accounting},
			OnSession: func(sr *rule.SessionResult) {
				if a, ok := sr.ResultOf(accounting).(*trace.Account); ok {
					table.Add(a)
				}
			}})
	})
	failed = append(walkErrs, failed...)
	if err := out.write(env, func(w io.Writer) error {
		if out.format == "json" {
			return report.WriteStatsJSON(w, table)
		}
		return report.WriteStatsText(w, table, out.width)
	}); err != nil {
		return err
	}
	if unreadable(failed) {
		return &exitError{code: ExitUsage}
	}
	return nil
}
