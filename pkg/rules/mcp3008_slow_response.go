package rules

import (
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// DefaultSlowThreshold is the response time above which MCP3008 reports (check --slow).
const DefaultSlowThreshold = 30 * time.Second

// SlowResponse reports responses slower than its "slow" option (check --slow,
// the configuration's slow key; DefaultSlowThreshold unless set).
var SlowResponse = &rule.Rule{
	ID:       "MCP3008",
	Name:     "slow-response",
	Severity: rule.SeverityInfo,
	Title:    "A response slower than the --slow threshold (default 30s)",
	Anchor:   "the response",
	Hint:     "long work should report progress (when the request carried a progressToken) and stay well below the client's timeout; look for a blocking handler, a slow backend or a lock",
	Doc: rule.Doc{
		Sees: "The time between a request and its response, from the capture's timestamps, for every answered request except " +
			"subscriptions/listen (a stream answered only when it closes). Reported when it exceeds the threshold: 30s by default, set with " +
			"`mcpsleuth check --slow DURATION`. Captures without timestamps (bare JSON-RPC lines, Go SDK logs) cannot show it: the report " +
			"notes that once per session.",
		Why: "Clients time requests out (the TypeScript SDK's default is 60 seconds, and many hosts use less), and a model waiting on a tool " +
			"call blocks the whole conversation turn. A response that comes after the client gave up is wasted work, and the user sees " +
			"a failure although the server succeeded.",
		Fix: "In the server, make slow tools fast (cache, paginate, narrow the query) or report progress with notifications/progress when the " +
			"request carries a progressToken, so the client can extend its timeout. In the client, send a progressToken for long calls and " +
			"raise the timeout for tools known to be slow.",
		Bad: `{"ts":"12:00:00.000","dir":"c->s","msg":{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"report","arguments":{}}}}
{"ts":"12:00:45.000","dir":"s->c","msg":{"jsonrpc":"2.0","id":4,"result":{"content":[...]}}}`,
		Good: `{"ts":"12:00:00.000","dir":"c->s","msg":{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"report","arguments":{},"_meta":{"progressToken":"r4"}}}}
{"ts":"12:00:10.000","dir":"s->c","msg":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"r4","progress":1,"total":3}}}
{"ts":"12:00:12.000","dir":"s->c","msg":{"jsonrpc":"2.0","id":4,"result":{"content":[...]}}}`,
		Spec: []rule.SpecRef{
			{Revision: spec.Rev20250618, Page: "basic/lifecycle#timeouts", Says: "Implementations SHOULD establish timeouts for all sent requests; when no response arrives in time the sender SHOULD issue a cancellation. Progress notifications MAY reset the timeout, but a maximum timeout SHOULD be enforced."},
			{Revision: spec.Rev20250618, Page: "basic/utilities/progress", Says: "A request may carry _meta.progressToken; the receiver MAY then send notifications/progress while it works."},
		},
	},
	Options: []rule.Option{{Name: slowOption, Usage: "report responses slower than this (MCP3008 slow-response)", Default: DefaultSlowThreshold}},
	Kinds:   rule.KindsOf(frame.KindResult, frame.KindError),
	New:     func() rule.Checker { return &slowWatch{} },
}

// slowOption is MCP3008's threshold: a time.Duration.
const slowOption = "slow"

type slowWatch struct {
	threshold time.Duration // the option, read at the first response
	noTimes   bool
}

func (w *slowWatch) Message(p *rule.Pass, m *session.Message) {
	if !m.Kind.IsResponse() || m.Request == nil || m.Request.LongLived {
		return
	}
	r := m.Request
	if r.Time.IsZero() || m.Time.IsZero() {
		if !w.noTimes {
			w.noTimes = true
			p.CannotJudge(reasonNoTimestamps)
		}
		return
	}
	if w.threshold == 0 {
		w.threshold = p.Option(slowOption).(time.Duration)
	}
	took := m.Time.Sub(r.Time)
	if took <= w.threshold {
		return
	}
	text := rule.Sprintf("%s id=%s sent by the %s (line %d) was answered after %s, over the %s threshold",
		r.Method, r.ID, spec.Sender(r.Dir), r.Line, roundDuration(took), w.threshold)
	switch {
	case r.Cancelled:
		text = rule.Sprintf("%s; its sender had already cancelled it (line %d)", text, r.CancelLine)
	case r.ProgressToken == "":
		text = text.Plus(rule.Text("; the request carried no progressToken, so nothing told the sender it was still running"))
	}
	p.Report(rule.At(m), text, rule.Related{Line: r.Line, Note: "the request"})
}

func (w *slowWatch) End(*rule.Pass) {}
