package rule

import (
	"fmt"

	"github.com/mcpsleuth/mcpsleuth/pkg/session"
)

// Analysis computes one judgement of a session once, for every rule and view that
// asks for it: go/analysis's analyzer that reports nothing and returns a result.
// It has no ID and is not part of the catalogue. A Rule or an Observer names the
// analyses it needs in Requires and reads their result with Pass.ResultOf or
// SessionResult.ResultOf; the engine runs each analysis a run needs once a
// session, on every message before the rules see it, whoever asked.
type Analysis struct {
	// Name says what the analysis computes (for messages and tests).
	Name string
	// Requires are the analyses this one reads (Computations.ResultOf), run
	// before it on each message.
	Requires []*Analysis
	// New returns fresh per-session state; results gives the state of the
	// analyses it requires.
	New func(s *session.Session, results Results) Computation
}

// Computation is an Analysis's state for one session.
type Computation interface {
	// Message observes one message of the session, in capture order, before the
	// rules do (a batch as a whole, then member by member).
	Message(m *session.Message)
	// Result is what the analysis computed so far: complete for the messages seen,
	// and for the whole session once End ran.
	Result() any
}

// EndComputation is implemented by a Computation with work to do when its
// session ends, before the rules' End.
type EndComputation interface {
	End()
}

// ExchangeComputation is implemented by a Computation that also sees the HTTP
// exchanges of its session that carried no message, before the rules do.
type ExchangeComputation interface {
	Exchange(e *session.Exchange)
}

// Results gives the results of the analyses of one session.
type Results interface {
	ResultOf(a *Analysis) any
}

// computing is what the analyses hold of one open session, in the order they run.
type computing []computed

type computed struct {
	a     *Analysis
	state Computation
}

// ResultOf returns the analysis's result for the session; it panics when the
// analysis was not run, that is, when who asks did not list it in Requires.
func (c computing) ResultOf(a *Analysis) any {
	for _, x := range c {
		if x.a == a {
			return x.state.Result()
		}
	}
	panic(fmt.Sprintf("mcpsleuth: analysis %q was not required", a.Name))
}

func (c computing) message(m *session.Message) {
	for _, x := range c {
		x.state.Message(m)
	}
}

func (c computing) exchange(e *session.Exchange) {
	for _, x := range c {
		if xc, ok := x.state.(ExchangeComputation); ok {
			xc.Exchange(e)
		}
	}
}

func (c computing) end() {
	for _, x := range c {
		if xc, ok := x.state.(EndComputation); ok {
			xc.End()
		}
	}
}

// analysesOf orders the analyses that rules and observers require, with what
// they require, so that each comes after the analyses it reads.
func analysesOf(rules []*Rule, observers []*Observer) []*Analysis {
	var order []*Analysis
	seen := map[*Analysis]bool{}
	var visit func(a *Analysis)
	visit = func(a *Analysis) {
		if seen[a] {
			return
		}
		seen[a] = true
		for _, r := range a.Requires {
			visit(r)
		}
		order = append(order, a)
	}
	for _, r := range rules {
		for _, a := range r.Requires {
			visit(a)
		}
	}
	for _, o := range observers {
		for _, a := range o.Requires {
			visit(a)
		}
	}
	return order
}

// startAnalyses makes the analyses' state for a new session.
func startAnalyses(order []*Analysis, s *session.Session) computing {
	if len(order) == 0 {
		return nil
	}
	c := make(computing, 0, len(order))
	for _, a := range order {
		c = append(c, computed{a: a, state: a.New(s, c)})
	}
	return c
}
