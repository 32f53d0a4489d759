package cli

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
)

func rulesCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:  "rules",
		Usage: "list the rule catalogue: ID, name, severity, title",
		Action: func(context.Context, *cli.Command) error {
			for _, r := range rules.All() {
				sev := r.Severity.String()
				if r.CapabilityScaled {
					sev += "*"
				}
				fmt.Fprintf(env.Stdout, "%s  %-26s %-9s %s\n", r.ID, r.Name, sev, r.Title)
			}
			fmt.Fprintln(env.Stdout, "\n* warning under 2024-11-05 and 2025-03-26 (the spec said SHOULD), error from 2025-06-18 (MUST)")
			return nil
		},
	}
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
			fmt.Fprint(env.Stdout, rules.Explain(r))
			return nil
		},
	}
}
