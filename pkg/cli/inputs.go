package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/scan"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// expandInputs turns the arguments into input names: "-" for stdin, files as given,
// directories walked for capture files (sorted; the walk of scan, pkg/scan). What a
// walk skipped (pipes, devices, sockets, symlinks to those, loops) is named on
// stderr, not read, and returned as a skipped input; a directory that holds no
// capture at all is named on stderr and returned as an error (the run exits 2).
// A directory that cannot be listed is an input: opening it says why. No
// argument reads a piped stdin.
func expandInputs(env Env, c *cli.Command, args []string) ([]string, []report.InputError, error) {
	if len(args) == 0 {
		if env.StdinIsTerminal {
			return nil, nil, usageErr("mcpsleuth: no input: give a capture file, a directory or '-' (or pipe a capture into stdin)")
		}
		return []string{"-"}, nil, nil
	}
	walk, err := walkArgs(c, args, env.Stderr)
	if err != nil {
		return nil, nil, err
	}
	out := make([]string, 0, len(walk.Inputs))
	for _, in := range walk.Inputs {
		out = append(out, in.Path)
	}
	var failed []report.InputError
	for _, root := range walk.Empty {
		e := noCaptures(root)
		fmt.Fprintf(env.Stderr, "mcpsleuth: %s: %s\n", report.Safe(root), e.Message)
		failed = append(failed, e)
	}
	for _, sk := range walk.Skipped {
		if sk.Failed {
			// A directory that could not be listed is an input that could not be
			// read: opening it says why, and the exit code is 2, as for a file.
			out = append(out, sk.Path)
			continue
		}
		fmt.Fprintf(env.Stderr, "mcpsleuth: %s: skipped: %s\n", report.Safe(sk.Path), report.Safe(sk.Why))
		failed = append(failed, report.InputError{Input: sk.Path, Kind: report.ErrorSkipped, Message: "skipped: " + sk.Why})
	}
	return out, failed, nil
}

// noCaptures is the error of a directory or pattern that holds no capture file.
func noCaptures(root string) report.InputError {
	return report.InputError{Input: root, Kind: report.ErrorNoCaptures,
		Message: "no captures found (no file ending in " + captureEndings() + ", or one of those and .gz or .zst)"}
}

// captureEndings names the file endings a directory walk reads: ".jsonl, ... or .har".
func captureEndings() string {
	exts := scan.CaptureExtensions
	return strings.Join(exts[:len(exts)-1], ", ") + " or " + exts[len(exts)-1]
}

// unjudged is the error of an input read to its end without a frame in it
// (Stats.Lossy): empty, no line a frame, or a log that holds no messages.
func unjudged(name string, st frame.Stats) report.InputError {
	kind := report.ErrorNoFrames
	switch {
	case st.Lines == 0:
		kind = report.ErrorEmpty
	case lossyFormat(st.Format):
		kind = report.ErrorLossy
	}
	return report.InputError{Input: name, Kind: kind, Message: st.Lossy}
}

// lossyFormat reports whether the input format logs that messages passed
// without the messages themselves.
func lossyFormat(name string) bool {
	for _, f := range frame.About() {
		if f.Name == name {
			return f.Lossy
		}
	}
	return false
}

// reason is an error of the reader without the "mcpsleuth: NAME: " it may start
// with (the reports name the input in a member of its own).
func reason(err error, name string) string {
	msg := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	msg = strings.TrimPrefix(msg, "mcpsleuth: ")
	for _, prefix := range []string{name + ":", report.Safe(name) + ":"} {
		if rest, ok := strings.CutPrefix(msg, prefix); ok {
			if line, after, ok := strings.Cut(rest, ": "); ok && line != "" && strings.Trim(line, "0123456789") == "" {
				return "line " + line + ": " + after
			}
			return strings.TrimPrefix(rest, " ")
		}
	}
	return msg
}

// sessionRef is a capture and one session of it (1-based, as the reports
// number them): CAPTURE#N in diff, timeline and handshake.
type sessionRef struct {
	name    string
	session int
}

// parseSessionRef reads CAPTURE or CAPTURE#N; a file whose name holds a # is
// taken whole when it exists.
func parseSessionRef(arg string) (sessionRef, error) {
	ref := sessionRef{name: arg, session: 1}
	i := strings.LastIndexByte(arg, '#')
	if i < 0 {
		return ref, nil
	}
	if _, err := os.Stat(arg); err == nil {
		return ref, nil
	}
	n, err := strconv.Atoi(arg[i+1:])
	if err != nil || n < 1 {
		return ref, usageErr("mcpsleuth: %s: the session after # must be a number from 1", report.Safe(arg))
	}
	return sessionRef{name: arg[:i], session: n}, nil
}

// openSingle opens the one capture a command takes (handshake, timeline): the
// argument, or a piped stdin. CAPTURE#N picks its session N (as the reports
// number them; 0 when the argument names none), as diff's arguments do. The
// caller closes it.
func openSingle(env Env, c *cli.Command, command string) (name string, session int, in io.ReadCloser, err error) {
	if c.Args().Len() > 1 {
		return "", 0, nil, usageErr("mcpsleuth: %s takes one input", command)
	}
	args := c.Args().Slice()
	if len(args) == 1 {
		ref, err := parseSessionRef(args[0])
		if err != nil {
			return "", 0, nil, err
		}
		if ref.name != args[0] {
			args, session = []string{ref.name}, ref.session
		}
	}
	names, failed, err := expandInputs(env, c, args)
	if err != nil {
		return "", 0, nil, err
	}
	if len(names) == 0 && unreadable(failed) {
		return "", 0, nil, &exitError{code: ExitUsage} // "no captures found" is said
	}
	if len(names) != 1 {
		return "", 0, nil, usageErr("mcpsleuth: %s takes one capture file, not a directory of %d", command, len(names))
	}
	in, err = openInput(env, names[0])
	if err != nil {
		return "", 0, nil, &exitError{code: ExitUsage, msg: err.Error()}
	}
	return names[0], session, in, nil
}

// noSession is the usage error of CAPTURE#N when the capture has fewer sessions.
func noSession(command, name string, sessions, n int) error {
	return usageErr("mcpsleuth: %s: %s has %s, not a session %d", command, report.Safe(name), quote.Count(sessions, "session"), n)
}

// openInput opens one input by name ("-" is stdin).
func openInput(env Env, name string) (io.ReadCloser, error) {
	if name == "-" {
		return io.NopCloser(env.Stdin), nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("mcpsleuth: %s: cannot read: %w", report.Safe(name), unwrapPath(err))
	}
	return f, nil
}

func unwrapPath(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

// readFlags returns the flags shared by commands that read captures: new values
// for each command (urfave/cli keeps parse state in a flag, so no two commands or
// runs may share one).
func readFlags() []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: "input-format", Value: "auto", Usage: "input format: auto or one of " + strings.Join(frame.Formats(), ", ")},
		&cli.StringFlag{Name: "perspective", Usage: "side that wrote a read/write log (Go SDK LoggingTransport): client or server (default: inferred from who sent initialize)"},
	}, limitFlags()...)
}

func frameOptions(c *cli.Command) (frame.Options, error) {
	opt := frame.Options{Format: c.String("input-format")}
	switch strings.ToLower(c.String("perspective")) {
	case "":
	case "client":
		opt.Perspective = spec.Client
	case "server":
		opt.Perspective = spec.Server
	default:
		return opt, usageErr("mcpsleuth: --perspective must be client or server, not %q", c.String("perspective"))
	}
	if !frame.KnownFormat(opt.Format) {
		for _, f := range frame.NotReadYet() {
			if f.Name == opt.Format {
				return opt, usageErr("mcpsleuth: --input-format %s has no decoder of its own yet: %s", f.Name, f.Instead)
			}
		}
		return opt, usageErr("mcpsleuth: unknown --input-format %q (known: auto, %s)", opt.Format, strings.Join(frame.Formats(), ", "))
	}
	return opt, applyLimits(c, &opt)
}

// analyser analyses one input.
type analyser func(name string, r io.Reader) (*driver.InputResult, error)

// runRules analyses with the selected rules and, when a view needs more than
// findings, the tracer next to them (nil: none).
func runRules(selected []*rule.Rule, fopt frame.Options, tracer *trace.Tracer, show *shown) analyser {
	shared := rule.NewShared() // what the rules learn once serves every input
	return func(name string, r io.Reader) (*driver.InputResult, error) {
		opt := driver.RunOptions{Frame: fopt, Shared: shared}
		tracer.Apply(&opt)
		res, err := driver.Run(name, r, selected, opt)
		if res != nil {
			for _, sr := range res.Sessions {
				if show != nil {
					show.apply(sr)
				}
			}
		}
		return res, err
	}
}

// streamRules is runRules for a format written session by session: each session
// goes to the stream as it ends and is not kept; each input follows its sessions.
// The first error of the stream is kept in *failed (the analysis goes on).
func streamRules(selected []*rule.Rule, fopt frame.Options, tracer *trace.Tracer, show *shown, stream report.Stream, failed *error) analyser {
	shared := rule.NewShared()
	return func(name string, r io.Reader) (*driver.InputResult, error) {
		opt := driver.RunOptions{Frame: fopt, Discard: true, Shared: shared}
		tracer.Apply(&opt)
		opt.OnSession = func(sr *rule.SessionResult) {
			if show != nil {
				show.apply(sr)
			}
			if err := stream.Session(sr, tracer.Of(sr)); err != nil && *failed == nil {
				*failed = err
			}
		}
		res, err := driver.Run(name, r, selected, opt)
		if err == nil {
			stream.Input(res)
		}
		return res, err
	}
}

// analyseAll analyses every input in order. Inputs that cannot be read (or were
// read in part) are reported on stderr as they are met, and returned with the
// inputs that could not be judged (no frame in them), in input order.
func analyseAll(env Env, names []string, analyse analyser) (results []*driver.InputResult, failed []report.InputError) {
	for _, name := range names {
		in, err := openInput(env, name)
		if err != nil {
			fmt.Fprintln(env.Stderr, err)
			failed = append(failed, report.InputError{Input: name, Kind: report.ErrorUnreadable, Message: reason(err, name)})
			continue
		}
		res, err := analyse(name, in)
		in.Close()
		if err != nil {
			fmt.Fprintln(env.Stderr, err)
			failed = append(failed, report.InputError{Input: name, Kind: report.ErrorUnreadable, Message: reason(err, name)})
			continue
		}
		if res.Broken != nil {
			fmt.Fprintf(env.Stderr, "%v (the report covers what was read before)\n", res.Broken)
			failed = append(failed, readInPart(name, res.Broken))
		}
		if res.Stats.Lossy != "" {
			failed = append(failed, unjudged(name, res.Stats))
		}
		results = append(results, res)
	}
	return results, failed
}

// readInPart is the error of an input whose reading broke off (driver.InputResult.Broken).
func readInPart(name string, err error) report.InputError {
	return report.InputError{Input: name, Kind: report.ErrorReadInPart, Message: "read in part: " + reason(err, name)}
}

// unreadable reports whether an input could not be read at all, was read in
// part, or named no capture: what makes the exit code 2.
func unreadable(errs []report.InputError) bool {
	for _, e := range errs {
		switch e.Kind {
		case report.ErrorUnreadable, report.ErrorReadInPart, report.ErrorNoCaptures:
			return true
		}
	}
	return false
}

// notJudged lists the inputs that were read and could not be judged (no frame
// in them): never a clean pass.
func notJudged(errs []report.InputError) []report.InputError {
	var out []report.InputError
	for _, e := range errs {
		switch e.Kind {
		case report.ErrorEmpty, report.ErrorNoFrames, report.ErrorLossy:
			out = append(out, e)
		}
	}
	return out
}

func splitList(values []string) []string {
	var out []string
	for _, v := range values {
		out = append(out, strings.Split(v, ",")...)
	}
	return out
}
