package rule

import (
	"fmt"
	"slices"

	"github.com/mcpsleuth/mcpsleuth/pkg/session"
)

// Analysis computes one judgement of a session once, for every rule and view that
// asks for it: go/analysis's analyzer that reports nothing and returns a result.
// It has no ID and is not part of the catalogue. A Rule or another Analysis names
// the analyses it needs in Requires and reads their result with Pass.ResultOf or
// Results.ResultOf; a view adds the analysis it renders to the run
// (driver.RunOptions.Analyses) and reads its result with SessionResult.ResultOf. The
// engine runs each analysis a run needs once a session, whoever asked.
type Analysis struct {
	// Name says what the analysis computes (for messages and tests).
	Name string
	// Requires are the analyses this one reads (Results.ResultOf), run before it
	// on each message.
	Requires []*Analysis
	// AfterRules is set for an analysis of what the rules found (a view of the
	// session with its findings: the timeline): it sees each message after the
	// rules did, and its End comes after theirs, with the session's sorted
	// findings and notes. No rule can require it.
	AfterRules bool
	// Apart is set for an analysis whose computations share nothing across
	// sessions but what is safe for concurrent use: a run may then judge the
	// sessions of an input apart, on several goroutines (the regions of a file),
	// and the analysis gives each session what it gives it in one run. Unset, a
	// run that adds the analysis follows every session from one goroutine, in
	// input order.
	Apart bool
	// New returns fresh per-session state; results gives the state of the
	// analyses it requires.
	New func(s *session.Session, results Results) Computation
}

// Apart reports whether every analysis given, and every analysis they require,
// may follow sessions judged apart (Analysis.Apart).
func Apart(analyses []*Analysis) bool {
	for _, a := range analyses {
		if !a.Apart || !Apart(a.Requires) {
			return false
		}
	}
	return true
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
// session ends: before the rules' End (r's findings are not final then), or
// after them for an analysis that runs AfterRules.
type EndComputation interface {
	End(r *SessionResult)
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

// computing is what the analyses hold of one open session, in the order they run
// (those that run after the rules last).
type computing []computed

type computed struct {
	a     *Analysis
	state Computation
}

// split returns the analyses that run before the rules and those that run after.
func (c computing) split() (before, after computing) {
	for i, x := range c {
		if x.a.AfterRules {
			return c[:i], c[i:]
		}
	}
	return c, nil
}

// ResultOf returns the analysis's result for the session; it panics when the
// analysis was not run, that is, when who asks did not list it in Requires.
func (c computing) ResultOf(a *Analysis) any {
	if v, ok := c.lookup(a); ok {
		return v
	}
	panic(fmt.Sprintf("mcpsleuth: analysis %q was not required", a.Name))
}

// lookup returns the analysis's result, and whether it ran.
func (c computing) lookup(a *Analysis) (any, bool) {
	for _, x := range c {
		if x.a == a {
			return x.state.Result(), true
		}
	}
	return nil, false
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

func (c computing) end(r *SessionResult) {
	for _, x := range c {
		if xc, ok := x.state.(EndComputation); ok {
			xc.End(r)
		}
	}
}

// analysesOf orders the analyses that rules require and the run adds, with what
// they require, so that each comes after the analyses it reads and those that
// run after the rules come last. A rule or an analysis that runs before the rules
// cannot require one that runs after them.
func analysesOf(rules []*Rule, added []*Analysis) ([]*Analysis, error) {
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
			if a.AfterRules {
				return nil, fmt.Errorf("mcpsleuth: rule %s requires %q, which runs after the rules", r.ID, a.Name)
			}
			visit(a)
		}
	}
	for _, a := range added {
		visit(a)
	}
	for _, a := range order {
		for _, req := range a.Requires {
			if req.AfterRules && !a.AfterRules {
				return nil, fmt.Errorf("mcpsleuth: analysis %q requires %q, which runs after the rules", a.Name, req.Name)
			}
		}
	}
	// Stable: the order of the requirements holds within each group.
	slices.SortStableFunc(order, func(x, y *Analysis) int {
		switch {
		case x.AfterRules == y.AfterRules:
			return 0
		case y.AfterRules:
			return -1
		}
		return 1
	})
	return order, nil
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
