package rules

import (
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// The option of MCP3009: how long after a cancellation the receiver's messages
// about the request may still have been in flight when it arrived.
const (
	cancelGraceOption = "cancel-grace"
	// DefaultCancelGrace covers a round trip and the receiver's reaction to the
	// cancellation on a slow network; work that goes on for seconds (mcp-framework
	// answers a cancelled tool 1.4 s later) is well beyond it.
	DefaultCancelGrace = 500 * time.Millisecond
)

// WorkAfterCancel reports a receiver of notifications/cancelled that went on with
// the cancelled request: progress for it, or its response, well after the
// cancellation.
var WorkAfterCancel = &rule.Rule{
	ID:       "MCP3009",
	Name:     "work-after-cancel",
	Severity: rule.SeverityWarning,
	Title:    "The receiver of a cancellation went on with the request: progress or a response well after notifications/cancelled",
	Anchor:   "the first progress notification or response for the request captured later than --cancel-grace after its cancellation",
	Hint:     "when notifications/cancelled names a request you are working on, stop the work (cancel its context, abort its signal), send no more progress for it, and do not answer it",
	Doc: rule.Doc{
		Sees: "Each request its sender cancelled while it was in flight (notifications/cancelled naming its id), and what the receiver sent " +
			"for it afterwards: notifications/progress with the request's progressToken, and the request's response. One captured more than " +
			"--cancel-grace (default 500ms) after the cancellation shows that the work went on: reported once a request, naming the receiver, " +
			"with how long after the cancellation it came. Within the grace it may have been in flight when the cancellation arrived (a race " +
			"the specification tolerates), and is not reported. The rule needs the capture's times: in a capture without them it does not judge " +
			"(frames cannot tell work that went on from messages already on their way), nor messages on a stream whose events the capture does " +
			"not time (a HAR's GET stream). A cancellation of initialize is MCP3005's.",
		Why: "A cancellation is how a user or a client's timeout stops work: a tool that keeps running after it goes on spending money, holding " +
			"locks and changing data the user asked to leave alone, and its progress and late answer reach a client that has forgotten the " +
			"request (the TypeScript SDK logs an unknown-response error; others drop it or, when the id was reused, hand it to the wrong " +
			"call). A server whose framework replaces the SDK's cancellation handling (mcp-framework) or whose handler never looks at its " +
			"context shows this, and nothing on either side says so.",
		Fix: "On the receiving side, tie each request's work to a cancellation signal the SDK fires on notifications/cancelled (the Go SDK and " +
			"mcp-go cancel the handler's context; the TypeScript SDK aborts extra.signal) and check it in long loops, between steps and in " +
			"calls to other services; once it fires, stop sending progress and return without a response (the SDKs drop the answer of a " +
			"cancelled request, or send it at once, within the race). Do not replace the SDK's notifications/cancelled handler without " +
			"keeping what it does.",
		Bad: `10:00:00.000 c->s {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"report","arguments":{},"_meta":{"progressToken":"p4"}}}
10:00:01.000 c->s {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4,"reason":"user cancelled"}}
10:00:01.900 s->c {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p4","progress":60,"total":100}}
10:00:02.400 s->c {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"report ready"}]}}`,
		Good: `10:00:00.000 c->s {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"report","arguments":{},"_meta":{"progressToken":"p4"}}}
10:00:01.000 c->s {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4,"reason":"user cancelled"}}
(nothing more for id 4)`,
		Spec: []rule.SpecRef{
			{Revision: spec.Rev20250618, Page: "basic/utilities/cancellation#behavior-requirements", Says: "Receivers of cancellation notifications SHOULD: Stop processing the cancelled request, Free associated resources, Not send a response for the cancelled request."},
			{Revision: spec.Rev20250618, Page: "basic/utilities/cancellation#timing-considerations", Says: "Due to network latency, cancellation notifications may arrive after request processing has completed, and potentially after a response has already been sent."},
			{Revision: spec.Rev20250618, Page: "basic/utilities/progress#behavior-requirements", Says: "Progress notifications MUST only reference tokens that were provided in an active request and are associated with an in-progress operation."},
		},
	},
	Options: []rule.Option{
		{Name: cancelGraceOption, Usage: "progress or a response captured at most this long after its request's cancellation may have been in flight (MCP3009 work-after-cancel)", Default: DefaultCancelGrace},
	},
	Kinds: rule.KindsOf(frame.KindNotification, frame.KindResult, frame.KindError),
	New:   func() rule.Checker { return &afterCancelWatch{} },
}

// maxCancelledTokens bounds the progress tokens of cancelled requests a session
// remembers (the oldest is forgotten first).
const maxCancelledTokens = 1024

// afterCancelWatch follows the requests cancelled in flight until their response:
// by their progress tokens, to recognise progress for them.
type afterCancelWatch struct {
	tokens   map[progressKey]*session.Request
	order    []progressKey // tokens in the order they were remembered
	reported map[*session.Request]bool
}

func (w *afterCancelWatch) Message(p *rule.Pass, m *session.Message) {
	switch {
	case m.Kind == frame.KindNotification && m.Method == "notifications/cancelled":
		w.cancelled(m)
	case m.Kind == frame.KindNotification && m.Method == "notifications/progress":
		if m.Dir == spec.DirUnknown || len(w.tokens) == 0 {
			return
		}
		key := progressKey{m.Dir.Opposite(), frame.IDKey(m.ProgressToken())}
		if r := w.tokens[key]; r != nil && r.Dir == key.dir {
			w.judge(p, m, r, "sent progress for")
		}
	case m.Kind.IsResponse():
		r := m.Request
		if r == nil || !r.Cancelled || r.Method == "initialize" {
			return
		}
		if r.ProgressKey != "" {
			delete(w.tokens, progressKey{r.Dir, r.ProgressKey}) // the request is over
		}
		w.judge(p, m, r, "answered")
	}
}

// cancelled remembers the progress token of the request a cancellation stopped
// in flight (the session marked it: Request.Cancelled at this line).
func (w *afterCancelWatch) cancelled(m *session.Message) {
	if m.Dir == spec.DirUnknown {
		return
	}
	r := m.Session.Pending(m.Dir, rawText(get(m.ParamsNode(), "requestId")))
	if r == nil || !r.Cancelled || r.CancelLine != m.Line || r.ProgressKey == "" || r.Method == "initialize" {
		return
	}
	if w.tokens == nil {
		w.tokens = map[progressKey]*session.Request{}
	}
	if len(w.order) >= maxCancelledTokens {
		delete(w.tokens, w.order[0])
		w.order = w.order[1:]
	}
	key := progressKey{r.Dir, r.ProgressKey}
	w.tokens[key] = r
	w.order = append(w.order, key)
}

// judge reports the receiver's message m about the cancelled request r when it
// came later than the grace after the cancellation: what says that the work went on.
func (w *afterCancelWatch) judge(p *rule.Pass, m *session.Message, r *session.Request, what string) {
	if w.reported[r] {
		return
	}
	switch {
	case m.Unplaced():
		p.CannotJudge(reasonAfterCancelUntimedStream)
		return
	case m.Time.IsZero() || r.CancelTime.IsZero():
		p.CannotJudge(reasonAfterCancelNoTimes)
		return
	}
	gap := m.Time.Sub(r.CancelTime)
	if gap <= p.Option(cancelGraceOption).(time.Duration) {
		return // it may have been on its way when the cancellation arrived
	}
	if w.reported == nil {
		w.reported = map[*session.Request]bool{}
	}
	w.reported[r] = true
	canceller, receiver := spec.Sender(r.Dir), spec.Sender(r.Dir.Opposite())
	p.Report(rule.At(m), rule.Sprintf("the %s %s the %s's %s id=%s (line %d) %s after the %s cancelled it (line %d): the work went on; "+
		"the receiver of a cancellation should stop it and not answer",
		receiver, rule.Text(what), canceller, r.Method, rule.QuoteJSON(rule.ValueID, r.ID), r.Line, rule.Text(roundGap(gap)), canceller, r.CancelLine).By(receiver),
		rule.Related{Line: r.CancelLine, Note: "notifications/cancelled"}, rule.Related{Line: r.Line, Note: "the " + canceller.String() + "'s " + r.Method})
}

func (w *afterCancelWatch) End(*rule.Pass) {}
