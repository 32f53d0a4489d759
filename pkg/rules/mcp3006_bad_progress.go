package rules

import (
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// BadProgress reports progress notifications that break the progress contract.
var BadProgress = &rule.Rule{
	ID:       "MCP3006",
	Name:     "bad-progress",
	Severity: rule.SeverityError,
	Title:    "Progress for an unknown token, not increasing, or after the response",
	Anchor:   "the progress notification",
	Hint:     "send progress only for the progressToken of a request you received and are still working on, with a value that increases each time, and never after its response",
	Doc: rule.Doc{
		Sees: `A notifications/progress that breaks the progress contract in one of three ways: its progressToken was carried in params._meta.progressToken by no request from the side that receives the progress (tokens are compared as raw JSON, so "4" and 4 differ); it arrives after the response to the request that carried the token; or its progress value is not greater than the previous notification's value for the same token. Progress whose direction is unknown is not judged.`,
		Why:  "The requester matches progress to its request by the token. Progress with an unknown token is dropped or, worse, moves another operation's progress bar. Progress after the response reaches a requester that has already torn the request down: some SDKs log an error or throw, and a UI may show a finished task as running again. A value that stalls or goes back makes progress bars jump backwards, and clients that extend a request's timeout on each progress notification are kept waiting by notifications that report nothing new.",
		Fix:  "On the side doing the work (the receiver of the request): echo the exact token from the request's params._meta.progressToken, same JSON type; send progress only while that request is in flight, and write the last one before the response (with concurrent workers, make sure nothing is still queued when the response goes out); make progress strictly increase, for example units done rather than a percentage recomputed against a changing total.",
		Bad: `c->s {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"reindex","arguments":{},"_meta":{"progressToken":"p4"}}}
s->c {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p4","progress":50,"total":100}}
s->c {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p4","progress":50,"total":100}}
s->c {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"reindexed"}]}}
s->c {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p4","progress":100,"total":100}}`,
		Good: `c->s {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"reindex","arguments":{},"_meta":{"progressToken":"p4"}}}
s->c {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p4","progress":50,"total":100}}
s->c {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p4","progress":100,"total":100}}
s->c {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"reindexed"}]}}`,
		Spec: []rule.SpecRef{
			{Revision: "2025-06-18", Page: "basic/utilities/progress#progress-flow", Says: "The progress value MUST increase with each notification, even if the total is unknown."},
			{Revision: "2025-06-18", Page: "basic/utilities/progress#behavior-requirements", Says: "Progress notifications MUST only reference tokens that were provided in an active request and are associated with an in-progress operation."},
			{Revision: "2025-06-18", Page: "basic/utilities/progress#implementation-notes", Says: "Progress notifications MUST stop after completion."},
			{Revision: "2026-07-28", Page: "basic/patterns/progress", Says: "The same requirements; only the server sends progress, for requests the client issued."},
		},
	},
	New: func() rule.Checker {
		return &progressWatch{tokens: map[progressKey]*progressState{}}
	},
}

type progressKey struct {
	dir   spec.Direction // direction of the request that carried the token
	token string
}

type progressState struct {
	req      *session.Request
	last     float64
	lastLine int
}

// maxDoneTokens bounds how many finished requests' tokens are remembered to
// recognise progress that arrives after the response.
const maxDoneTokens = 4096

// maxTokens bounds the tokens remembered at all (in flight or finished).
const maxTokens = 100_000

type progressWatch struct {
	tokens map[progressKey]*progressState
	done   []progressKey
}

func (w *progressWatch) Message(p *rule.Pass, m *session.Message) {
	switch {
	case m.Kind == frame.KindRequest && m.Request != nil && m.Request.ProgressToken != "" && m.Dir != spec.DirUnknown:
		if len(w.tokens) >= maxTokens {
			// Never-answered requests keep their tokens: bound the memory they take.
			p.CannotJudge(fmt.Sprintf("more than %d progress tokens in flight: the earlier ones were forgotten", maxTokens))
			clear(w.tokens)
			w.done = w.done[:0]
		}
		w.tokens[progressKey{m.Dir, m.Request.ProgressToken}] = &progressState{req: m.Request}
	case m.Kind.IsResponse() && m.Request != nil && m.Request.ProgressToken != "":
		w.done = append(w.done, progressKey{m.Request.Dir, m.Request.ProgressToken})
		if len(w.done) > maxDoneTokens {
			delete(w.tokens, w.done[0])
			w.done = w.done[1:]
		}
	case m.Kind == frame.KindNotification && m.Method == "notifications/progress":
		w.progress(p, m)
	}
}

func (w *progressWatch) progress(p *rule.Pass, m *session.Message) {
	if m.Dir == spec.DirUnknown {
		p.CannotJudge("direction unknown")
		return
	}
	params := gjson.ParseBytes(m.Params)
	token := params.Get("progressToken").Raw
	value := params.Get("progress")
	st := w.tokens[progressKey{m.Dir.Opposite(), token}]
	receiver := spec.Sender(m.Dir.Opposite())
	switch {
	case st == nil:
		p.Report(rule.At(m), fmt.Sprintf("progress for token %s that no request sent by the %s carried (no %s request has _meta.progressToken %s)", shortJSON(token), receiver, receiver, shortJSON(token)))
	case st.req.Answered() && st.req.ResponseLine < m.Line:
		p.Report(rule.At(m), fmt.Sprintf("progress for token %s after the response to %s id=%s (line %d): progress must stop when the request completes",
			shortJSON(token), st.req.Method, st.req.ID, st.req.ResponseLine), rule.Related{Line: st.req.ResponseLine, Note: "the response"})
	case st.lastLine > 0 && value.Float() <= st.last:
		p.Report(rule.At(m), fmt.Sprintf("progress for token %s went from %v (line %d) to %v: the value must increase with each notification",
			shortJSON(token), st.last, st.lastLine, value.Float()), rule.Related{Line: st.lastLine, Note: "the previous progress"})
	}
	if st != nil {
		st.last, st.lastLine = value.Float(), m.Line
	}
}

func (w *progressWatch) End(*rule.Pass) {}
