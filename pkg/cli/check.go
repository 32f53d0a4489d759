package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
)

func checkCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "analyse captures: rebuild each session's contract and report what broke it",
		ArgsUsage: "[FILE|DIR|-]...",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "format", Value: "text", Usage: "report format: text or json"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the report to `FILE` instead of stdout"},
			&cli.StringFlag{Name: "fail-on", Value: "error", Usage: "exit 1 when a finding is at or above this severity: error, warning, info or never"},
			&cli.StringSliceFlag{Name: "enable", Usage: "run only these rules (IDs or names, comma-separated)"},
			&cli.StringSliceFlag{Name: "disable", Usage: "do not run these rules (IDs or names, comma-separated)"},
			&cli.StringFlag{Name: "color", Value: "auto", Usage: "colour the text report: auto, always or never (NO_COLOR is honoured)"},
			&cli.BoolFlag{Name: "list-formats", Usage: "list the input formats and exit"},
		}, readFlags...),
		Action: func(c *cli.Context) error { return runCheck(env, c) },
	}
}

func runCheck(env Env, c *cli.Context) error {
	if c.Bool("list-formats") {
		fmt.Fprintln(env.Stdout, "auto")
		for _, f := range frame.Formats() {
			fmt.Fprintln(env.Stdout, f)
		}
		return nil
	}
	format := strings.ToLower(c.String("format"))
	if format != "text" && format != "json" {
		return usageErr("mcpsleuth: --format must be text or json, not %q", c.String("format"))
	}
	failOn, err := parseFailOn(c.String("fail-on"))
	if err != nil {
		return err
	}
	colour, err := colorMode(env, c.String("color"), c.String("output") == "")
	if err != nil {
		return err
	}
	selected, err := selectRules(c)
	if err != nil {
		return err
	}
	fopt, err := frameOptions(c)
	if err != nil {
		return err
	}
	names, err := expandInputs(env, c.Args().Slice())
	if err != nil {
		return err
	}
	results, unreadable := analyseAll(env, names, selected, fopt)
	rep := report.Build(Version(), results)
	if err := writeReport(env, c.String("output"), func(w io.Writer) error {
		if format == "json" {
			return report.WriteJSON(w, rep)
		}
		return report.WriteText(w, rep, report.TextOptions{Color: colour})
	}); err != nil {
		return err
	}
	switch {
	case unreadable:
		return &exitError{code: ExitUsage}
	case failOn != 0 && rep.Worst() >= failOn:
		return &exitError{code: ExitFindings}
	}
	return nil
}

// parseFailOn reads --fail-on; 0 means never.
func parseFailOn(s string) (rule.Severity, error) {
	if strings.EqualFold(s, "never") {
		return 0, nil
	}
	sev, ok := rule.ParseSeverity(s)
	if !ok {
		return 0, usageErr("mcpsleuth: --fail-on must be error, warning, info or never, not %q", s)
	}
	return sev, nil
}

// colorMode decides colour: never through the global color.NoColor.
func colorMode(env Env, mode string, toStdout bool) (bool, error) {
	switch strings.ToLower(mode) {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto", "":
		return toStdout && env.StdoutIsTerminal && env.Getenv("NO_COLOR") == "" && env.Getenv("TERM") != "dumb", nil
	}
	return false, usageErr("mcpsleuth: --color must be auto, always or never, not %q", mode)
}

// writeReport writes to --output or stdout.
func writeReport(env Env, output string, write func(io.Writer) error) error {
	if output == "" || output == "-" {
		return write(env.Stdout)
	}
	f, err := os.Create(output)
	if err != nil {
		return &exitError{code: ExitUsage, msg: fmt.Sprintf("mcpsleuth: %s: cannot write the report: %v", output, unwrapPath(err))}
	}
	if err := write(f); err != nil {
		f.Close()
		return &exitError{code: ExitUsage, msg: err.Error()}
	}
	if err := f.Close(); err != nil {
		return &exitError{code: ExitUsage, msg: fmt.Sprintf("mcpsleuth: %s: %v", output, err)}
	}
	return nil
}
