package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/scrub"
)

func redactCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:  "redact",
		Usage: "a copy of a capture fit to share: secrets (with --values, every value) replaced by stable pseudonyms; same format, same findings",
		Description: "The copy is the capture byte for byte but the values replaced, in the same format.\n" +
			"Replaced: members and headers whose names say credential (Authorization, Cookie, apiKey, token),\n" +
			"Mcp-Session-Id and a recording's session, bearer tokens, keys of well-known shapes, tokens in URLs;\n" +
			"with --values also every string of arguments, results, resource contents, log data and URIs.\n" +
			"Kept: methods, ids, protocol versions, capabilities, names, definitions and instructions, so that check finds\n" +
			"in the copy what it finds in the capture. The same value gets the same pseudonym throughout\n" +
			"(redacted- and 12 hex digits of a keyed hash: no length leaks); --key makes them the same across\n" +
			"captures. A compressed capture is written decompressed.",
		ArgsUsage: "CAPTURE",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the copy to `FILE` instead of stdout"},
			&cli.BoolFlag{Name: "values", Usage: "replace every string value the session carries too, not only secrets"},
			&cli.StringFlag{Name: "key", Usage: "make the pseudonyms from `KEY` (the same key gives the same pseudonyms in every capture; default: a random key)"},
			&cli.StringFlag{Name: "format", Value: "same", Usage: "same (the capture's own format, byte for byte but the values) or envelope (envelope JSONL, one record a line, from any stdio capture)"},
		}, readFlags()...),
		Action: func(_ context.Context, c *cli.Command) error { return runRedact(env, c) },
	}
}

func runRedact(env Env, c *cli.Command) error {
	args := c.Args().Slice()
	switch {
	case len(args) == 0 && env.StdinIsTerminal:
		return usageErr("mcpsleuth: redact: no input: give a capture file or '-' (or pipe a capture into stdin)")
	case len(args) == 0:
		args = []string{"-"}
	case len(args) > 1:
		return usageErr("mcpsleuth: redact takes one capture, not %d (the copy is one file)", len(args))
	}
	name := args[0]
	fopt, err := frameOptions(c)
	if err != nil {
		return err
	}
	out := output{path: outputPath(c), writes: "the copy"}
	if err := out.notAnInput([]string{name}); err != nil {
		return err
	}
	in, err := openInput(env, name)
	if err != nil {
		return &exitError{code: ExitUsage, msg: err.Error()}
	}
	defer in.Close()
	opt := scrub.Options{Values: c.Bool("values"), Reader: fopt}
	switch strings.ToLower(c.String("format")) {
	case "same":
	case "envelope":
		opt.Envelope = true
	default:
		return usageErr("mcpsleuth: --format must be same or envelope, not %q", c.String("format"))
	}
	if k := c.String("key"); k != "" {
		opt.Key = []byte(k)
	}
	var sum scrub.Summary
	var readErr error
	werr := out.write(env, func(w io.Writer) error {
		sum, readErr = scrub.Copy(name, in, w, opt)
		return readErr
	})
	if readErr != nil {
		return &exitError{code: ExitUsage, msg: report.Safe(readErr.Error())}
	}
	if werr != nil {
		return werr
	}
	fmt.Fprintf(env.Stderr, "mcpsleuth: redact: %s: %s\n", report.Safe(name), sum)
	if len(sum.Unplaced) > 0 {
		fmt.Fprintf(env.Stderr, "mcpsleuth: redact: %s: %d frames (first at line %d) were not found as they were read: their values were replaced as text, wherever they stand alone\n",
			report.Safe(name), len(sum.Unplaced), sum.Unplaced[0])
	}
	if sum.EchoesCapped {
		fmt.Fprintf(env.Stderr, "mcpsleuth: redact: %s: more values than are looked for as echoes: the later ones were replaced where they lie, not where a message quotes them again\n", report.Safe(name))
	}
	if len(sum.Deep) > 0 {
		fmt.Fprintf(env.Stderr, "mcpsleuth: redact: %s: %d frames (first at line %d) nest deeper than redaction reads: what lies past that depth was scrubbed by its shape only\n",
			report.Safe(name), len(sum.Deep), sum.Deep[0])
	}
	return nil
}
