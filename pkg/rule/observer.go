package rule

import "github.com/mcpsleuth/mcpsleuth/pkg/session"

// Observer computes a result from every session next to the rules, in the same
// pass: go/analysis's analyzer that reports nothing (passes/inspect). It has no ID,
// is not part of the catalogue and cannot report findings; a view that needs more
// than findings (the timeline, the Markdown report, the handshake) asks for its
// result with SessionResult.ResultOf, as an analyzer asks for Pass.ResultOf.
type Observer struct {
	// Name says what the observer computes (for messages and tests).
	Name string
	// Requires are the analyses whose results the observer reads
	// (SessionResult.ResultOf).
	Requires []*Analysis
	// New returns fresh per-session state; results gives the session's analyses
	// (those in Requires), to read as it goes.
	New func(s *session.Session, results Results) Observation
}

// Observation is an Observer's state for one session.
type Observation interface {
	// Message observes one message of the session, in capture order, after the
	// rules did (a batch as a whole, then member by member).
	Message(m *session.Message)
	// End runs when the session ends, after every rule's End, with the session's
	// sorted findings and notes; what it returns is the session's result.
	End(r *SessionResult) any
}

// ExchangeObservation is implemented by an Observation that also sees the HTTP
// exchanges of its session that carried no message (a GET, a DELETE, a status
// record), in capture order among the messages, after the rules did.
type ExchangeObservation interface {
	Exchange(e *session.Exchange)
}

// ObservedBy returns what an observer computed for the session (nil when it did not run).
func (r *SessionResult) ObservedBy(o *Observer) any {
	return r.results[o]
}

// ResultOf returns an analysis's result for the session (see Analysis); it
// panics when no rule or observer of the run required it.
func (r *SessionResult) ResultOf(a *Analysis) any {
	return r.analyses.ResultOf(a)
}

// Observe adds observers to a run prepared with NewAnalyzer (Run adds
// RunOptions.Observers); call it before the first frame.
func (a *Analyzer) Observe(observers ...*Observer) {
	a.observers = append(a.observers, observers...)
}

// observing is what the observers hold of one open session.
type observing []observed

type observed struct {
	o     *Observer
	state Observation
}

func (a *Analyzer) startObservers(s *session.Session, results Results) observing {
	if len(a.observers) == 0 {
		return nil
	}
	out := make(observing, len(a.observers))
	for i, o := range a.observers {
		out[i] = observed{o: o, state: o.New(s, results)}
	}
	return out
}

func (ob observing) message(m *session.Message) {
	for _, x := range ob {
		x.state.Message(m)
	}
}

func (ob observing) exchange(e *session.Exchange) {
	for _, x := range ob {
		if xo, ok := x.state.(ExchangeObservation); ok {
			xo.Exchange(e)
		}
	}
}

// end collects the observers' results into the session's result.
func (ob observing) end(r *SessionResult) {
	if len(ob) == 0 {
		return
	}
	r.results = make(map[*Observer]any, len(ob))
	for _, x := range ob {
		r.results[x.o] = x.state.End(r)
	}
}
