package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// licensesCommand prints the licences of what the binary holds: its own, and the
// specification schemas it embeds (their licence asks that it travel with them).
func licensesCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:  "licenses",
		Usage: "the licences of mcpsleuth and of the MCP specification schemas embedded in it",
		Action: func(_ context.Context, _ *cli.Command) error {
			revisions := make([]string, 0, len(spec.Revisions()))
			for _, r := range spec.Revisions() {
				revisions = append(revisions, string(r))
			}
			text := "mcpsleuth is licensed under the Apache License, Version 2.0.\n\n" +
				"It embeds the JSON schemas of the Model Context Protocol specification (revisions " + strings.Join(revisions, ", ") + "),\n" +
				"copied unchanged from https://github.com/modelcontextprotocol/modelcontextprotocol, under this licence:\n\n"
			if _, err := fmt.Fprint(env.Stdout, text); err != nil {
				return err
			}
			_, err := env.Stdout.Write(spec.SchemaLicense())
			return err
		},
	}
}
