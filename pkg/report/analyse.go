package report

import (
	"io"
	"slices"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
)

// AnalyseOptions configure Analyse.
type AnalyseOptions struct {
	Run rule.RunOptions
	// Observer runs with the rules (nil: none is kept for the caller).
	Observer *Observer
	// OnSession receives each session's result as soon as the session ends (in the
	// order sessions end), with what the observer kept of it.
	OnSession func(*rule.SessionResult, *Trace)
	// Stream drops each session's result after OnSession: the returned input
	// result then holds no sessions, and memory stays bounded by one session.
	Stream bool
}

// Analyse reads one input to its end and analyses it with the given rules, like
// rule.Run (it is rule.Run with the observer as one more checker), and hands each
// session over with what the observer kept of it as soon as the session ends, so
// that what is kept per session (frame summaries) can be reduced or written out then.
func Analyse(name string, r io.Reader, rules []*rule.Rule, opt AnalyseOptions) (*rule.InputResult, error) {
	obs := opt.Observer
	if obs == nil {
		obs = NewObserver(ObserveOptions{})
	}
	run := opt.Run
	onContext := run.OnContext
	run.OnContext = func(line int, text []byte) {
		if onContext != nil {
			onContext(line, text)
		}
		obs.context(line, text)
	}
	run.OnSession = func(sr *rule.SessionResult) {
		obs.finish(sr)
		if opt.OnSession != nil {
			opt.OnSession(sr, obs.Trace(sr.Session))
		}
		if opt.Stream || opt.Observer == nil {
			obs.forget(sr.Session)
		}
	}
	run.Discard = opt.Stream
	return rule.Run(name, r, append(slices.Clip(rules), obs.Rule()), run)
}
