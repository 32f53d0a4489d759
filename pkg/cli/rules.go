package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
)

func rulesCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:  "rules",
		Usage: "list the rule catalogue: ID, name, severity, title",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text or json"},
		},
		Action: func(_ context.Context, c *cli.Command) error {
			switch strings.ToLower(c.String("format")) {
			case "text":
				return writeRulesText(env.Stdout, terminalWidth(env))
			case "json":
				return writeRulesJSON(env.Stdout)
			}
			return usageErr("mcpsleuth: --format must be %s, not %q", formatList(textOrJSON), c.String("format"))
		},
	}
}

// writeRulesText lists the catalogue, a rule a row (its title wrapped to width
// under the title column).
func writeRulesText(w io.Writer, width int) error {
	var b strings.Builder
	for _, r := range rules.All() {
		sev := r.Severity.String()
		if r.CapabilityScaled {
			sev += "*"
		}
		b.WriteString(report.WrapColumns(fmt.Sprintf("%s  %-26s %-9s ", r.ID, r.Name, sev), r.Title, width))
	}
	b.WriteString("\n" + report.WrapColumns("* ", rule.CapabilityScaling(), width))
	_, err := io.WriteString(w, b.String())
	return err
}

// ruleJSON is one rule of `rules --format json`.
type ruleJSON struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Severity string `json:"severity"`
	// CapabilityScaled: a warning under 2024-11-05 and 2025-03-26, an error from 2025-06-18.
	CapabilityScaled bool   `json:"capabilityScaled"`
	Title            string `json:"title"`
	Anchor           string `json:"anchor"`
	Hint             string `json:"hint"`
	Docs             string `json:"docs"`
}

func writeRulesJSON(w io.Writer) error {
	out := []ruleJSON{}
	for _, r := range rules.All() {
		out = append(out, ruleJSON{ID: r.ID, Name: r.Name, Severity: r.Severity.String(), CapabilityScaled: r.CapabilityScaled,
			Title: r.Title, Anchor: r.Anchor, Hint: r.Hint, Docs: "docs/rules.md#" + strings.ToLower(r.ID) + "-" + r.Name})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func explainCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:      "explain",
		Usage:     "explain one rule: what it sees, where it points, what to do",
		ArgsUsage: "ID|NAME",
		Action: func(_ context.Context, c *cli.Command) error {
			if c.Args().Len() != 1 {
				return usageErr("mcpsleuth: explain takes one rule ID or name (see mcpsleuth rules)")
			}
			r, ok := rules.Lookup(rules.All(), c.Args().First())
			if !ok {
				return usageErr("mcpsleuth: unknown rule %q (see mcpsleuth rules)", c.Args().First())
			}
			return report.WriteExplainText(env.Stdout, rules.Explain(r), terminalWidth(env))
		},
	}
}
