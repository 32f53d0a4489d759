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
	Severity: rule.SeverityWarning,
	Title:    "Progress for an unknown token, not increasing, or after the response",
	Anchor:   "the progress notification",
	Hint:     "send progress only for the progressToken of a request you received and are still working on, with a value that increases each time, and never after its response",
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

type progressWatch struct {
	tokens map[progressKey]*progressState
	done   []progressKey
}

func (w *progressWatch) Message(p *rule.Pass, m *session.Message) {
	switch {
	case m.Kind == frame.KindRequest && m.Request != nil && m.Request.ProgressToken != "" && m.Dir != spec.DirUnknown:
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
