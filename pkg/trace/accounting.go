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
		// Each session's account is its own; the memo is safe for concurrent
		// use, and a text's count is the same whoever counted it first.
		Apart: true,
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
	// Tools are the tools called or listed, by name; Prompts the prompts got or
	// listed.
	Tools   map[string]*ToolAccount
	Prompts map[string]*ToolAccount
	// InstructionsTokens are the tokens of the server's instructions.
	InstructionsTokens int
	// Frames, Bytes and Duration are the session's size and span (Duration 0
	// when the capture has no times).
	Frames   int
	Bytes    int64
	Duration time.Duration
	// Timed says the capture has times: latencies could be measured.
	Timed bool
	// ListsReplaced counts the tools/list results that replaced the list
	// (after list_changed, or asked again): ToolsAdded and ToolsRemoved are the
	// names the replacements brought and took away, FirstDefinitionTokens what
	// the first list's definitions took (DefinitionTokens of the tools is the
	// latest list's).
	ListsReplaced, ToolsAdded, ToolsRemoved int
	FirstDefinitionTokens                   int

	calls       map[*session.Request]call
	session     *session.Session
	memo        *tokens.Memo
	first, last time.Time
	lists       int // tools/list results without a cursor
}

// call is a tools/call or prompts/get followed until its answer.
type call struct {
	name   string
	prompt bool
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
	// Base64Bytes are the bytes of the base64 content of the results (image
	// and audio data, embedded resources' blobs), within ResultBytes.
	Base64Bytes int64
	// DefinitionTokens are the tokens of the tool's definition in the latest
	// tools/list (0: not listed), as the model receives it (compact JSON).
	DefinitionTokens int
	Listed           bool
}

// Result implements rule.Computation.
func (a *Account) Result() any { return a }

// tool is the account of the tool (or prompt) named name (nil past the bound).
func (a *Account) tool(name string, prompt bool) *ToolAccount {
	of := &a.Tools
	if prompt {
		of = &a.Prompts
	}
	t := (*of)[name]
	if t == nil && len(*of) < maxAccountedTools {
		if *of == nil {
			*of = map[string]*ToolAccount{} // most sessions of an archive call nothing: no map
		}
		t = &ToolAccount{}
		(*of)[strings.Clone(name)] = t
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
	case m.Kind == frame.KindRequest && (m.Method == "tools/call" || m.Method == "prompts/get") && m.Dir != spec.S2C && m.Request != nil:
		prompt := m.Method == "prompts/get"
		params := m.ParamsNode()
		name, ok := params.Get("name")
		if !ok {
			return
		}
		text, _ := name.Str()
		t := a.tool(text, prompt)
		if t == nil {
			return
		}
		t.Calls++
		if args, ok := params.Get("arguments"); ok {
			t.ArgBytes += int64(len(args.Raw()))
		}
		if len(a.calls) < maxCallsFollowed {
			if a.calls == nil {
				a.calls = map[*session.Request]call{}
			}
			a.calls[m.Request] = call{strings.Clone(text), prompt}
		}
	case m.Kind.IsResponse() && m.Request != nil:
		switch m.Request.Method {
		case "tools/call", "prompts/get":
			a.answered(m)
		case "tools/list":
			if m.Kind == frame.KindResult {
				a.listed(m, false)
			}
		case "prompts/list":
			if m.Kind == frame.KindResult {
				a.listed(m, true)
			}
		case "initialize", "server/discover":
			if c := m.Session.Contract(); c != nil && c.Instructions != "" && a.InstructionsTokens == 0 {
				a.InstructionsTokens = a.memo.Of([]byte(c.Instructions))
			}
		}
	}
}

// answered accounts for the answer to a tools/call or prompts/get.
func (a *Account) answered(m *session.Message) {
	c, ok := a.calls[m.Request]
	if !ok {
		return
	}
	delete(a.calls, m.Request)
	t := a.tool(c.name, c.prompt)
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
		t.Base64Bytes += base64Bytes(res, c.prompt)
	}
	if !m.Time.IsZero() && !m.Request.Time.IsZero() && len(t.Latencies) < maxLatencies {
		t.Latencies = append(t.Latencies, m.Time.Sub(m.Request.Time))
	}
}

// base64Bytes are the bytes of the base64 content of a tools/call result
// (content[]) or prompts/get result (messages[].content): image and audio
// data, an embedded resource's blob.
func base64Bytes(res frame.Node, prompt bool) int64 {
	var n int64
	item := func(c frame.Node) {
		if d, ok := c.Get("data"); ok {
			n += int64(len(d.Bytes()))
		}
		if r, ok := c.Get("resource"); ok {
			if b, ok := r.Get("blob"); ok {
				n += int64(len(b.Bytes()))
			}
		}
	}
	if prompt {
		if msgs, ok := res.Get("messages"); ok {
			msgs.Elements(func(_ int, msg frame.Node) bool {
				if c, ok := msg.Get("content"); ok {
					item(c)
				}
				return true
			})
		}
		return n
	}
	if content, ok := res.Get("content"); ok {
		content.Elements(func(_ int, c frame.Node) bool {
			item(c)
			return true
		})
	}
	return n
}

// listed accounts for the definitions of a tools/list (or prompts/list)
// result: the tokens of each as the model receives it. A page after the first
// (the request carried a cursor) adds to the list; a new list replaces it:
// the names it no longer has are no longer listed, and the replacement is
// counted (tools).
func (a *Account) listed(m *session.Message, prompt bool) {
	member := "tools"
	if prompt {
		member = "prompts"
	}
	list, ok := m.ResultNode().Get(member)
	if !ok || !list.IsArray() {
		return
	}
	of := a.Tools
	if prompt {
		of = a.Prompts
	}
	paged := m.Request.Paginated
	replacing := !paged && !prompt && a.lists > 0
	if !paged && !prompt {
		a.lists++
	}
	var before map[string]bool // made only when a list is replaced
	if !paged {
		for name, t := range of {
			if t.Listed {
				if before == nil {
					before = map[string]bool{}
				}
				before[name] = true
				t.Listed = false
			}
		}
	}
	list.Elements(func(_ int, def frame.Node) bool {
		name, ok := def.Get("name")
		if !ok {
			return true
		}
		text, _ := name.Str()
		if t := a.tool(text, prompt); t != nil {
			t.DefinitionTokens, t.Listed = a.memo.OfJSON(def.Raw()), true
			if replacing && !before[text] {
				a.ToolsAdded++
			}
		}
		return true
	})
	if prompt {
		return
	}
	if replacing {
		a.ListsReplaced++
		for name := range before {
			if t := a.Tools[name]; t != nil && !t.Listed {
				a.ToolsRemoved++
			}
		}
	}
	if a.lists == 1 {
		a.FirstDefinitionTokens = 0
		for _, t := range a.Tools {
			if t.Listed {
				a.FirstDefinitionTokens += t.DefinitionTokens
			}
		}
	}
}

// End implements rule.EndComputation: the calls never answered, the server, the span.
func (a *Account) End(*rule.SessionResult) {
	for r, c := range a.calls {
		if t := a.tool(c.name, c.prompt); t != nil {
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
