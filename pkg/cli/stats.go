package cli

import (
	"bytes"
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
		Description: "Reads the captures in one pass (no rule runs) and adds up what each session cost.\n" +
			"Tokens are counted offline with o200k_base; a model's own tokenizer may count otherwise.",
		ArgsUsage: "CAPTURE...",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text, json, jsonl (one line per tool per capture, for a warehouse), markdown, or html (with charts of context cost and latency)"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` instead of stdout"},
			&cli.StringFlag{Name: "color", Value: "auto", Usage: "auto, always or never"},
			configFlag(),
		}, readFlags()...),
		Action: func(_ context.Context, c *cli.Command) error { return runStats(env, c) },
	}
}

func runStats(env Env, c *cli.Command) error {
	out, err := parseOutput(env, c, statsFormats...)
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
	// jsonl writes each capture's rows as the capture ends; the other formats add
	// every capture up first.
	table, accounting := report.NewStats(), trace.NewAccounting()
	var rows bytes.Buffer
	_, failed := analyseAll(env, names, func(name string, r io.Reader) (*driver.InputResult, error) {
		if out.format == "jsonl" {
			table = report.NewStats()
		}
		res, err := driver.Run(name, r, nil, driver.RunOptions{Frame: set.frame, Discard: true, Analyses: []*rule.Analysis{accounting},
			OnSession: func(sr *rule.SessionResult) {
				if a, ok := sr.ResultOf(accounting).(*trace.Account); ok {
					table.Add(a)
				}
			}})
		if err == nil && out.format == "jsonl" {
			err = report.WriteStatsJSONL(&rows, name, table)
		}
		return res, err
	})
	failed = append(walkErrs, failed...)
	if err := out.write(env, func(w io.Writer) error {
		switch out.format {
		case "json":
			return report.WriteStatsJSON(w, table)
		case "jsonl":
			_, err := w.Write(rows.Bytes())
			return err
		case "markdown":
			return report.WriteStatsMarkdown(w, table)
		case "html":
			return report.WriteStatsHTML(w, table, Version())
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

// statsFormats are the --format values of stats.
var statsFormats = []string{"text", "json", "jsonl", "markdown", "html"}
