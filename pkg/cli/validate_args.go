package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
	"github.com/mcpsleuth/mcpsleuth/pkg/schema"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

func validateArgsCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:      "validate-args",
		Usage:     "what a strict client would say about these arguments for a tool of a capture",
		ArgsUsage: "CAPTURE[#N] TOOL JSON|@FILE|-",
		Description: "Takes the inputSchema TOOL published in the capture (the last tools/list result that lists it;\n" +
			"in session N with CAPTURE#N)\n" +
			"and validates the JSON arguments against it the way a strict client does before sending a\n" +
			"tools/call: in the schema's dialect ($schema, else draft-07 before 2025-11-25 and 2020-12 from\n" +
			"it), with formats asserted. The arguments are given inline, read from a file (@FILE) or from\n" +
			"stdin (-). Prints what the client would log. Exit 1 when the arguments are\n" +
			"rejected, 0 when accepted, 2 on a usage error, an unreadable capture or a tool it never listed.",
		Flags:  append([]cli.Flag{configFlag()}, readFlags()...),
		Action: func(_ context.Context, c *cli.Command) error { return runValidateArgs(env, c) },
	}
}

// publishedInput is the inputSchema of a tool as a capture published it.
type publishedInput struct {
	found    bool
	schema   []byte // nil when the tool was listed without one
	line     int
	revision spec.Revision
	// names are the tools the capture listed (the first maxListedNames), for the
	// error that names none of them.
	names []string
}

// maxListedNames bounds the tool names an error lists.
const maxListedNames = 40

func (p *publishedInput) listed() string {
	list := strings.Join(p.names, ", ")
	if len(p.names) == maxListedNames {
		list += ", ..."
	}
	return list
}

// readArguments reads the JSON arguments: inline, from a file (@FILE) or from
// stdin (-, unless the capture is read from stdin).
func readArguments(env Env, arg, capture string) ([]byte, error) {
	const maxArguments = 16 << 20
	var r io.Reader
	switch {
	case arg == "-":
		if capture == "-" {
			return nil, usageErr("mcpsleuth: validate-args: the capture and the arguments cannot both be read from stdin")
		}
		r = env.Stdin
	case strings.HasPrefix(arg, "@"):
		f, err := os.Open(arg[1:])
		if err != nil {
			return nil, usageErr("mcpsleuth: %s: cannot read the arguments: %v", report.Safe(arg[1:]), unwrapPath(err))
		}
		defer f.Close()
		r = f
	default:
		return []byte(arg), nil
	}
	b, err := io.ReadAll(io.LimitReader(r, maxArguments+1))
	if err != nil {
		return nil, usageErr("mcpsleuth: validate-args: cannot read the arguments: %v", err)
	}
	if len(b) > maxArguments {
		return nil, usageErr("mcpsleuth: validate-args: arguments larger than %s", frame.Size(maxArguments))
	}
	return bytes.TrimSpace(b), nil
}

func runValidateArgs(env Env, c *cli.Command) error {
	if c.Args().Len() != 3 {
		return usageErr("mcpsleuth: validate-args takes CAPTURE TOOL JSON (got %d arguments)", c.Args().Len())
	}
	ref, err := parseSessionRef(c.Args().Get(0))
	if err != nil {
		return err
	}
	capture, tool, wanted := ref.name, c.Args().Get(1), 0
	if capture != c.Args().Get(0) {
		wanted = ref.session
	}
	args, err := readArguments(env, c.Args().Get(2), capture)
	if err != nil {
		return err
	}
	if !json.Valid(args) {
		return usageErr("mcpsleuth: validate-args: the arguments are not valid JSON: %s", report.Safe(quote.JSON(string(args), 200)))
	}
	set, err := loadSettings(c)
	if err != nil {
		return err
	}
	fopt := set.frame
	in, err := openInput(env, capture)
	if err != nil {
		return &exitError{code: ExitUsage, msg: err.Error()}
	}
	defer in.Close()
	var found publishedInput
	sessions := 0
	// No rule runs: an analysis collects the tool's published inputSchema (the last
	// tools/list result that lists it, in any session or in the one CAPTURE#N names).
	collector := &rule.Analysis{Name: "published-input-schema", Requires: []*rule.Analysis{rules.Lists},
		New: func(s *session.Session, results rule.Results) rule.Computation {
			sessions++
			if wanted > 0 && s.Index+1 != wanted {
				return collectInput{}
			}
			return collectInput{found: &found, tool: tool, lists: results.ResultOf(rules.Lists).(*rules.ListLog)}
		}}
	res, err := driver.Run(capture, in, nil, driver.RunOptions{Frame: fopt, Analyses: []*rule.Analysis{collector}})
	if err != nil {
		return &exitError{code: ExitUsage, msg: err.Error()}
	}
	if res.Broken != nil {
		return &exitError{code: ExitUsage, msg: fmt.Sprintf("%v", res.Broken)}
	}
	if wanted > sessions {
		return noSession("validate-args", capture, sessions, wanted)
	}
	looked, where := capture, "capture" // where the errors below looked
	if wanted > 0 {
		looked, where = fmt.Sprintf("%s#%d", capture, wanted), "session"
	}
	switch {
	case !found.found && len(found.names) == 0:
		return &exitError{code: ExitUsage, msg: fmt.Sprintf("mcpsleuth: %s: no tools/list result lists a tool named %q: the %s holds no tools/list result with tools", report.Safe(looked), tool, where)}
	case !found.found:
		return &exitError{code: ExitUsage, msg: fmt.Sprintf("mcpsleuth: %s: no tools/list result lists a tool named %q (tools listed: %s)", report.Safe(looked), tool, report.Safe(found.listed()))}
	case found.schema == nil:
		return &exitError{code: ExitUsage, msg: fmt.Sprintf("mcpsleuth: %s:%d: tool %q is listed without an inputSchema: there is nothing to validate against", capture, found.line, tool)}
	}
	// What the capture published reaches stdout escaped, line by line, as the reports do.
	stdout := report.SafeMessageWriter(env.Stdout)
	width := terminalWidth(env)
	published := schema.CompilePublished(found.schema, found.revision)
	fmt.Fprintf(env.Stderr, "inputSchema of %s from the tools/list result at %s:%d (%s, read as JSON Schema %s, formats asserted)\n",
		tool, capture, found.line, revisionName(found.revision), published.Dialect)
	if published.Err != nil {
		fmt.Fprintf(stdout, "tool call validation failed: %s\n", tool)
		fmt.Fprintln(stdout, report.Wrap(fmt.Sprintf("schema: %v", published.Err), width, "  "))
		return &exitError{code: ExitFindings}
	}
	violations, err := published.Validate(args)
	if err != nil {
		return &exitError{code: ExitUsage, msg: fmt.Sprintf("mcpsleuth: validate-args: %v", err)}
	}
	if len(violations) == 0 {
		fmt.Fprintf(stdout, "tool call validation passed: %s\n", tool)
		return nil
	}
	fmt.Fprintf(stdout, "tool call validation failed: %s\n", tool)
	for i, v := range violations {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		for _, line := range v.ClientLines() {
			fmt.Fprintln(stdout, report.Wrap(line, width, "  "))
		}
	}
	return &exitError{code: ExitFindings}
}

// collectInput is the collector's observation of one session.
type collectInput struct {
	found *publishedInput
	tool  string
	lists *rules.ListLog
}

// Message observes a message of the session the collector looks in (found is
// nil in the others).
func (c collectInput) Message(m *session.Message) {
	if c.found != nil {
		c.found.observe(m, c.lists.Of(m), c.tool)
	}
}
func (collectInput) Result() any { return nil } // what it found is in found

// observe remembers the tool's inputSchema from a tools/list result that lists it
// (the last one wins): the tools as rules.Lists reads them, whichever side asked,
// an item named by its name's text (a number, an object: its JSON text; what
// testdata/script/validate_args.txtar pins with odd-tools.jsonl). Frame bytes are
// copied: they alias the reader's buffer.
func (p *publishedInput) observe(m *session.Message, listing *rules.Listing, tool string) {
	if listing == nil || listing.List.Method != "tools/list" {
		return
	}
	for _, item := range listing.Items {
		if item.Name != tool {
			if len(p.names) < maxListedNames && !slices.Contains(p.names, item.Name) {
				p.names = append(p.names, strings.Clone(item.Name))
			}
			continue
		}
		*p = publishedInput{found: true, line: m.Line, revision: m.Revision(), names: p.names}
		if s, ok := item.Value.Get("inputSchema"); ok {
			p.schema = bytes.Clone(s.Raw())
		}
		return
	}
}

func revisionName(rev spec.Revision) string {
	if rev == "" {
		return "revision unknown"
	}
	return "revision " + string(rev)
}
