package trace

import (
	"strings"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
	"github.com/mcpsleuth/mcpsleuth/pkg/tokens"
)

// NewAccounting returns the analysis that computes, in the analysis's one pass,
// what a session cost: per tool its calls and how they ended, their latencies and
// bytes, and the tokens its definition takes in the model's context on every
// turn; the server's instructions too. `mcpsleuth stats` adds the sessions'
// accounts up. The analysis is one run's: the texts it counts are counted once
// in the run (the same definitions listed in every session).
func NewAccounting() *rule.Analysis {
	memo := tokens.NewMemo()
	return &rule.Analysis{
		Name: "accounting",
		New: func(s *session.Session, _ rule.Results) rule.Computation {
			return &Account{session: s, memo: memo}
		},
	}
}

// NewAccountingTo is NewAccounting for a run that adds the accounts up as the
// sessions end and keeps none (scan): each session's account goes to sink when
// the session ends, and is dropped; the session's result holds nothing of it.
// memo is shared by the runs of one scan (safe for concurrent use); sink is
// called from the run's goroutine.
func NewAccountingTo(memo *tokens.Memo, sink func(*Account)) *rule.Analysis {
	return &rule.Analysis{
		Name: "accounting",
		New: func(s *session.Session, _ rule.Results) rule.Computation {
			return &sunkAccount{a: &Account{session: s, memo: memo}, sink: sink}
		},
	}
}

// sunkAccount is an account handed to its sink when its session ends.
type sunkAccount struct {
	a    *Account
	sink func(*Account)
}

func (s *sunkAccount) Message(m *session.Message) {
	if s.a != nil {
		s.a.Message(m)
	}
}

// Result is nil: the account went to the sink.
func (s *sunkAccount) Result() any { return nil }

func (s *sunkAccount) End(r *rule.SessionResult) {
	if s.a == nil {
		return
	}
	s.a.End(r)
	s.sink(s.a)
	s.a, s.sink = nil, nil
}

// Limits of what an Account keeps.
const (
	// maxAccountedTools bounds the distinct tools a session accounts for.
	maxAccountedTools = 1024
	// maxLatencies bounds the latencies kept per tool and session.
	maxLatencies = 100_000
	// maxCallsFollowed bounds the tools/call requests followed until their answer.
	maxCallsFollowed = 16384
)

// Account is what one session cost.
type Account struct {
	// Server is the server's name and version as its handshake gave them.
	Server session.Implementation
	// Tools are the tools called or listed, by name.
	Tools map[string]*ToolAccount
	// InstructionsTokens are the tokens of the server's instructions.
	InstructionsTokens int
	// Frames, Bytes and Duration are the session's size and span (Duration 0
	// when the capture has no times).
	Frames   int
	Bytes    int64
	Duration time.Duration
	// Timed says the capture has times: latencies could be measured.
	Timed bool

	calls       map[*session.Request]string
	session     *session.Session
	memo        *tokens.Memo
	first, last time.Time
}

// ToolAccount is one tool's share of a session.
type ToolAccount struct {
	Calls int
	// RPCErrors answered with a JSON-RPC error, ToolErrors with a result whose
	// isError is true; Cancelled were cancelled by the client, Unanswered never
	// answered (nor cancelled).
	RPCErrors, ToolErrors, Cancelled, Unanswered int
	Latencies                                    []time.Duration
	// ArgBytes and ResultBytes are the bytes of the calls' arguments and results,
	// LargestResult the largest result.
	ArgBytes, ResultBytes, LargestResult int64
	// DefinitionTokens are the tokens of the tool's definition in the latest
	// tools/list (0: not listed), as the model receives it (compact JSON).
	DefinitionTokens int
	Listed           bool
}

// Result implements rule.Computation.
func (a *Account) Result() any { return a }

// tool is the account of the tool named name (nil past the bound).
func (a *Account) tool(name string) *ToolAccount {
	t := a.Tools[name]
	if t == nil && len(a.Tools) < maxAccountedTools {
		if a.Tools == nil {
			a.Tools = map[string]*ToolAccount{} // most sessions of an archive call no tool: no map
		}
		t = &ToolAccount{}
		a.Tools[strings.Clone(name)] = t
	}
	return t
}

// Message implements rule.Computation.
func (a *Account) Message(m *session.Message) {
	if m.Kind != frame.KindBatch {
		a.Frames++
		a.Bytes += int64(len(m.Raw))
	}
	if !m.Time.IsZero() {
		if a.first.IsZero() {
			a.first = m.Time
		}
		a.last, a.Timed = m.Time, true
	}
	switch {
	case m.Kind == frame.KindRequest && m.Method == "tools/call" && m.Dir != spec.S2C && m.Request != nil:
		params := m.ParamsNode()
		name, ok := params.Get("name")
		if !ok {
			return
		}
		text, _ := name.Str()
		t := a.tool(text)
		if t == nil {
			return
		}
		t.Calls++
		if args, ok := params.Get("arguments"); ok {
			t.ArgBytes += int64(len(args.Raw()))
		}
		if len(a.calls) < maxCallsFollowed {
			if a.calls == nil {
				a.calls = map[*session.Request]string{}
			}
			a.calls[m.Request] = strings.Clone(text)
		}
	case m.Kind.IsResponse() && m.Request != nil:
		switch m.Request.Method {
		case "tools/call":
			a.answered(m)
		case "tools/list":
			if m.Kind == frame.KindResult {
				a.listed(m)
			}
		case "initialize", "server/discover":
			if c := m.Session.Contract(); c != nil && c.Instructions != "" && a.InstructionsTokens == 0 {
				a.InstructionsTokens = a.memo.Of([]byte(c.Instructions))
			}
		}
	}
}

// answered accounts for the answer to a tools/call.
func (a *Account) answered(m *session.Message) {
	name, ok := a.calls[m.Request]
	if !ok {
		return
	}
	delete(a.calls, m.Request)
	t := a.Tools[name]
	switch {
	case m.Request.Cancelled:
		t.Cancelled++
	case m.Kind == frame.KindError:
		t.RPCErrors++
	default:
		res := m.ResultNode()
		if v, ok := res.Get("isError"); ok && v.Truthy() {
			t.ToolErrors++
		}
		n := int64(len(res.Raw()))
		t.ResultBytes += n
		t.LargestResult = max(t.LargestResult, n)
	}
	if !m.Time.IsZero() && !m.Request.Time.IsZero() && len(t.Latencies) < maxLatencies {
		t.Latencies = append(t.Latencies, m.Time.Sub(m.Request.Time))
	}
}

// listed accounts for the definitions of a tools/list result: the tokens of each
// as the model receives it. A page after the first (the request carried a
// cursor) adds to the list; a new list replaces the tokens of the tools it lists.
func (a *Account) listed(m *session.Message) {
	list, ok := m.ResultNode().Get("tools")
	if !ok || !list.IsArray() {
		return
	}
	list.Elements(func(_ int, def frame.Node) bool {
		name, ok := def.Get("name")
		if !ok {
			return true
		}
		text, _ := name.Str()
		if t := a.tool(text); t != nil {
			t.DefinitionTokens, t.Listed = a.memo.OfJSON(def.Raw()), true
		}
		return true
	})
}

// End implements rule.EndComputation: the calls never answered, the server, the span.
func (a *Account) End(*rule.SessionResult) {
	for r, name := range a.calls {
		if t := a.Tools[name]; t != nil {
			if r.Cancelled {
				t.Cancelled++
			} else {
				t.Unanswered++
			}
		}
	}
	clear(a.calls)
	if c := a.session.Contract(); c != nil {
		a.Server = c.Server
	}
	if a.Timed {
		a.Duration = a.last.Sub(a.first)
	}
	a.session = nil
}
