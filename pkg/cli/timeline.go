package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

func timelineCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:      "timeline",
		Usage:     "the frame log as a timeline: findings inline, (no response), (no reaction), response latency",
		ArgsUsage: "[FILE|-]",
		Description: "One line per frame, as the seed articles print a frame log:\n" +
			"    14:22:01.007  s->c  ntf  notifications/resources/list_changed   62B\n" +
			"preceded by the line number and followed, for a response, by the time since its request.\n" +
			"Under a frame: the findings anchored at it; (no response) under a request never answered;\n" +
			"(no reaction) under a notification its receiver did not act on: a list_changed followed by\n" +
			"no list request from the receiver (tools/list, prompts/list, resources/list or\n" +
			"resources/templates/list, roots/list) before the next list_changed of the same kind or the\n" +
			"end of the session, a resources/updated followed by no resources/read of that URI before\n" +
			"its next update or the end, and any notification its sender's own declaration does not cover\n" +
			"(the receiver may drop it). Context lines (stderr, banners) are dimmed.\n\n" +
			"Sessions are printed as they end, so the output streams. Memory: a session's frame summaries\n" +
			"(about 250 bytes a frame, never the frames) are held until the session ends, because what did\n" +
			"not happen after a frame is known only then; at most 100000 per session are kept (the rest are\n" +
			"counted), and --around and --method keep only the frames they show.\n\n" +
			"Exit 0, or 1 when --around or --method let no frame through (said on stderr), 2 on a usage\n" +
			"error or an unreadable capture.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` instead of stdout"},
			&cli.StringFlag{Name: "color", Value: "auto", Usage: "auto, always or never (NO_COLOR is honoured)"},
			&cli.IntFlag{Name: "around", HideDefault: true, Usage: "show only the frames within --context lines of `LINE` (default: every frame)"},
			&cli.IntFlag{Name: "context", Value: 10, Usage: "with --around: how many lines before and after"},
			&cli.StringSliceFlag{Name: "method", Usage: "show only frames of these methods (names or patterns such as 'tools/*', comma-separated); a response shows with its request's method"},
			&cli.BoolFlag{Name: "redact", Usage: "mask secret-looking strings (tokens, keys, cookies) everywhere, and the values findings quote from params and results"},
		}, append(ruleFlags(""), readFlags()...)...),
		Action: func(_ context.Context, c *cli.Command) error { return runTimeline(env, c) },
	}
}

func runTimeline(env Env, c *cli.Command) error {
	out := output{path: c.String("output")}
	var err error
	toStdout := out.path == "" || out.path == "-"
	if out.colour, err = colorMode(env, c.String("color"), toStdout); err != nil {
		return err
	}
	out.width = outputColumns(env, toStdout)
	around, context := c.Int("around"), c.Int("context")
	if c.IsSet("around") && around < 1 {
		return usageErr("mcpsleuth: --around takes a line number (1 or more), not %d", around)
	}
	if context < 0 {
		return usageErr("mcpsleuth: --context must not be negative")
	}
	set, err := loadSettings(c)
	if err != nil {
		return err
	}
	selected, fopt := set.rules, set.frame
	show, err := showOf(c, set) // the configuration's suppressions and min-severity, as check's
	if err != nil {
		return err
	}
	methods := methodFilter(c.StringSlice("method"))
	shown := 0    // frames the filters let through
	lastLine := 0 // the line of the last frame or context entry read
	keep := func(line int, method string) bool {
		lastLine = max(lastLine, line)
		if around > 0 && (line < around-context || line > around+context) {
			return false
		}
		ok := methods == nil || (method != "" && methods(method))
		if ok {
			shown++
		}
		return ok
	}
	filtered := around > 0 || methods != nil
	topt := trace.Options{Needs: report.TimelineRequires.Union(trace.Needs{Redaction: c.Bool("redact")})}
	if filtered {
		topt.Keep = keep
	}
	tracer := trace.New(topt)
	name, session, in, err := openSingle(env, c, "timeline")
	if err != nil {
		return err
	}
	defer in.Close()
	if err := out.notAnInput([]string{name}); err != nil {
		return err
	}
	redact := c.Bool("redact")
	tlopt := report.TimelineOptions{Color: out.colour, Filtered: filtered, Width: out.width}
	var broken error
	var lines, sessions int
	var picked bool
	var document bool // lines counts entries: the file's lines are not counted
	err = out.write(env, func(w io.Writer) error {
		var werr error
		preamble := false
		writePreamble := func() error {
			preamble = true
			if session > 0 {
				tracer.Preamble, tracer.PreambleOmitted = nil, 0 // context before the capture's first session
			}
			if redact {
				report.RedactContext(tracer.Preamble)
			}
			return report.WriteTimelinePreamble(w, tracer, tlopt)
		}
		ropt := driver.RunOptions{Frame: fopt, Discard: true,
			OnSession: func(sr *rule.SessionResult) {
				sessions++
				if werr != nil || (session > 0 && sr.Session.Index+1 != session) {
					return // CAPTURE#N: another session
				}
				picked = true
				if show != nil {
					show.apply(sr)
				}
				if !preamble {
					werr = writePreamble()
				}
				s := report.SessionOf(sr, tracer.Of(sr))
				if redact {
					report.RedactSession(&s)
				}
				if werr == nil {
					werr = report.WriteTimelineSession(w, s, tlopt)
				}
			}}
		tracer.Apply(&ropt)
		res, err := driver.Run(name, in, selected, ropt)
		if err != nil {
			return err
		}
		broken, lines, document = res.Broken, res.Stats.Lines, res.Stats.Document
		if werr != nil {
			return werr
		}
		if session > 0 && !picked {
			return noSession("timeline", name, sessions, session)
		}
		if !preamble {
			return writePreamble()
		}
		return nil
	})
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			return ee
		}
		return &exitError{code: ExitUsage, msg: err.Error()}
	}
	if broken != nil {
		return &exitError{code: ExitUsage, msg: fmt.Sprintf("%v (the timeline covers what was read before)", broken)}
	}
	// A filter that let nothing through says so (exit 1, as grep does), never an
	// empty timeline that looks like a quiet capture.
	switch {
	case !filtered || shown > 0:
		return nil
	case around > 0 && document && around-context > lastLine:
		return &exitError{code: ExitFindings, msg: fmt.Sprintf("mcpsleuth: %s: nothing in it starts after line %d: --around %d is past its end", report.Safe(name), lastLine, around)}
	case around > 0 && !document && around-context > lines:
		return &exitError{code: ExitFindings, msg: fmt.Sprintf("mcpsleuth: %s has %s: --around %d is past its end", report.Safe(name), quote.Count(lines, "line"), around)}
	case methods != nil && around > 0:
		return &exitError{code: ExitFindings, msg: fmt.Sprintf("mcpsleuth: %s: no frame within %d lines of line %d matches --method %s", report.Safe(name), context, around, report.Safe(strings.Join(c.StringSlice("method"), ",")))}
	case methods != nil:
		return &exitError{code: ExitFindings, msg: fmt.Sprintf("mcpsleuth: %s: no frame matches --method %s", report.Safe(name), report.Safe(strings.Join(c.StringSlice("method"), ",")))}
	}
	return &exitError{code: ExitFindings, msg: fmt.Sprintf("mcpsleuth: %s: no frame within %d lines of line %d", report.Safe(name), context, around)}
}

// methodFilter matches methods against a --method list: exact names or shell
// patterns ("tools/*"), comma-separated.
func methodFilter(list []string) func(string) bool {
	var patterns []string
	for _, item := range list {
		for _, p := range strings.Split(item, ",") {
			if p = strings.TrimSpace(p); p != "" {
				patterns = append(patterns, p)
			}
		}
	}
	if len(patterns) == 0 {
		return nil
	}
	return func(method string) bool {
		for _, p := range patterns {
			if ok, _ := path.Match(p, method); ok || p == method || (strings.HasSuffix(p, "/") && strings.HasPrefix(method, p)) {
				return true
			}
		}
		return false
	}
}
