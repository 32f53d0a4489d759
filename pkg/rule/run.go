package rule

import (
	"errors"
	"io"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
)

// InputResult is the analysis of one input.
type InputResult struct {
	Name     string
	Stats    frame.Stats
	Sessions []*SessionResult
	// Broken is set when reading stopped before the end (a read or decompression
	// error); the sessions hold what was read until then.
	Broken error
}

// RunOptions configure Run.
type RunOptions struct {
	Frame frame.Options
	// FindingLimit caps the findings one rule lists per session (0 = default).
	FindingLimit int
	// Observers compute results next to the rules, in the same pass
	// (SessionResult.ResultOf); they report nothing.
	Observers []*Observer
	// OnContext, when set, receives each non-frame line (valid only during the call).
	OnContext func(line int, text []byte)
	// OnSession, when set, receives each session's result as soon as the session
	// ends and its rules have run (in the order sessions end).
	OnSession func(*SessionResult)
	// Discard drops each session's result after OnSession instead of keeping it in
	// the InputResult: memory then stays bounded by the open sessions.
	Discard bool
}

// Run reads one input to its end and analyses it with the given rules. The error is
// for an input that cannot be read at all.
func Run(name string, r io.Reader, rules []*Rule, opt RunOptions) (*InputResult, error) {
	rd, err := frame.NewReader(name, r, opt.Frame)
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	a := NewAnalyzer(name, rules, opt.FindingLimit)
	a.Observe(opt.Observers...)
	a.onSession, a.discard = opt.OnSession, opt.Discard
	res := &InputResult{Name: name}
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			res.Broken = err
			break
		}
		switch rec.Kind {
		case frame.RecordFrame:
			a.Frame(rec.Frame)
		case frame.RecordContext:
			if opt.OnContext != nil {
				opt.OnContext(rec.Line, rec.Text)
			}
		}
	}
	res.Sessions = a.Close()
	res.Stats = rd.Stats()
	return res, nil
}
