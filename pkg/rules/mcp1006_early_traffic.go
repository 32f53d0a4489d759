package rules

import (
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// EarlyTraffic reports requests (and server notifications) sent before the
// handshake allows them.
var EarlyTraffic = &rule.Rule{
	ID:       "MCP1006",
	Name:     "early-traffic",
	Severity: rule.SeverityWarning,
	Title:    "Traffic before the initialize handshake allows it",
	Anchor:   "the early request or notification",
	Hint:     "the client waits for the initialize result before sending anything but ping; the server waits for notifications/initialized before sending anything but ping and notifications/message",
	Doc: rule.Doc{
		Sees: "Legacy sessions (an initialize handshake). On the client side: a request other than ping sent while initialize is still unanswered. " +
			"On the server side: a request other than ping, or a notification other than notifications/message, sent before the client's " +
			"notifications/initialized. Progress and cancellation notifications are left out (they refer to a request that is judged itself). " +
			"Server traffic after the initialize result is judged only once notifications/initialized arrives: when it never comes, MCP1005 " +
			"reports the missing notification and this rule notes that it could not judge. Modern (2026-07-28) sessions have no handshake and " +
			"are not judged, nor are server messages that came on a Streamable HTTP GET stream (a capture records the whole stream as " +
			"one exchange at the time it started, with no time for each event).",
		Why: "Until the handshake completes, the receiver does not know the protocol revision or the sender's capabilities, so it cannot know " +
			"whether it may even answer. Many implementations drop or reject requests that arrive before initialization (\"server not initialized\"), " +
			"and a server that pushes list_changed or sampling requests before initialized talks to a client that has not yet set up its handlers: " +
			"the message is lost and the failure shows up later as a missing update.",
		Fix: "Client: await the initialize response before sending any other request (ping excepted), then send notifications/initialized. " +
			"Server: queue requests and notifications (other than ping and logging) until notifications/initialized has been received, for " +
			"example by registering change listeners in the initialized handler.",
		Bad: `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{...}}
{"jsonrpc":"2.0","id":1,"method":"tools/list"}
{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18",...}}`,
		Good: `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{...}}
{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18",...}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		Spec: []rule.SpecRef{
			{Revision: spec.Rev20250618, Page: "basic/lifecycle#initialization", Says: "The client SHOULD NOT send requests other than pings before the server has responded to the initialize request. The server SHOULD NOT send requests other than pings and logging before receiving the initialized notification."},
			{Revision: spec.Rev20241105, Page: "basic/lifecycle#initialization", Says: "The same two SHOULD NOTs, unchanged since the first revision."},
		},
	},
	New: func() rule.Checker { return &earlyTrafficWatch{} },
}

// maxEarlyDeferred bounds the server messages held while notifications/initialized
// is awaited.
const maxEarlyDeferred = 256

type earlyFinding struct {
	anchor rule.Anchor
	text   string
}

type earlyTrafficWatch struct {
	// deferred holds server traffic seen after the initialize result and before
	// notifications/initialized: early only if initialized does come later.
	deferred []earlyFinding
	dropped  int
	flushed  bool
}

func (w *earlyTrafficWatch) Message(p *rule.Pass, m *session.Message) {
	legacy := m.Session.Legacy
	if legacy == nil || m.Contract == nil || m.Contract.Era != session.EraLegacy {
		return // no handshake (MCP0004), or a modern session: no lifecycle to judge
	}
	if m.Kind == frame.KindNotification && m.Method == "notifications/initialized" && m.Dir != spec.S2C {
		w.flush(p, m.Line)
		return
	}
	if m.Kind != frame.KindRequest && m.Kind != frame.KindNotification {
		return
	}
	if m.Dir == spec.DirUnknown {
		if earlyServerMessage(m) && m.Session.InitializedLine == 0 && legacy.ErrorLine == 0 {
			p.CannotJudge(reasonDirectionUnknown)
		}
		return
	}
	if m.Unplaced() {
		// An HTTP GET stream's events carry no time of their own: whether one came
		// before notifications/initialized cannot be told.
		if earlyServerMessage(m) && m.Session.InitializedLine == 0 {
			p.CannotJudge(reasonServerMessageOnGet)
		}
		return
	}
	answered := legacy.ResultLine != 0 || legacy.ErrorLine != 0
	if m.Session.Unordered && (m.Dir == spec.C2S && !answered || m.Dir == spec.S2C && m.Session.InitializedLine == 0) {
		// The log's two directions are not in causal order: "before the result" or
		// "before notifications/initialized" cannot be told from line order.
		if m.Kind == frame.KindRequest && m.Method != "ping" && m.Method != "initialize" || m.Dir == spec.S2C && earlyServerMessage(m) {
			p.CannotJudge(reasonConcurrentLog)
		}
		return
	}
	switch m.Dir {
	case spec.C2S:
		if m.Kind != frame.KindRequest || m.Method == "ping" || m.Method == "initialize" || answered {
			return
		}
		p.Report(rule.At(m), rule.Sprintf("the client sent %s before the server answered its initialize request (line %d): until the initialize result the client should send nothing but ping",
			rule.Describe(m), legacy.RequestLine), rule.Related{Line: legacy.RequestLine, Note: "initialize request, still unanswered"})
	case spec.S2C:
		if !earlyServerMessage(m) || m.Session.InitializedLine != 0 || legacy.ErrorLine != 0 {
			return
		}
		if !answered {
			p.Report(rule.At(m), rule.Sprintf("the server sent %s before it had even answered initialize (line %d): before the client's notifications/initialized the server should send nothing but ping and notifications/message",
				rule.Describe(m), legacy.RequestLine), rule.Related{Line: legacy.RequestLine, Note: "initialize request"})
			return
		}
		if w.flushed {
			return
		}
		if len(w.deferred) >= maxEarlyDeferred {
			w.dropped++
			return
		}
		w.deferred = append(w.deferred, earlyFinding{anchor: kept(rule.At(m)), text: rule.Describe(m)})
	}
}

// earlyServerMessage reports whether a server message is one the server should hold
// back until notifications/initialized.
func earlyServerMessage(m *session.Message) bool {
	switch m.Method {
	case "ping", "notifications/message", "notifications/progress", "notifications/cancelled":
		return false
	}
	return m.Kind == frame.KindRequest || m.Kind == frame.KindNotification
}

// flush reports the server traffic held back once notifications/initialized arrives.
func (w *earlyTrafficWatch) flush(p *rule.Pass, initializedLine int) {
	if w.flushed {
		return
	}
	w.flushed = true
	result := p.Session.Legacy.ResultLine
	for _, d := range w.deferred {
		p.Report(d.anchor, rule.Sprintf("the server sent %s (line %d) after the initialize result (line %d) but before the client's notifications/initialized (line %d): until then the server should send nothing but ping and notifications/message",
			d.text, d.anchor.Line, result, initializedLine), rule.Related{Line: initializedLine, Note: "notifications/initialized"})
	}
	for range w.dropped {
		p.CannotJudge(because(reasonTooManyEarlyf, maxEarlyDeferred))
	}
	w.deferred, w.dropped = nil, 0
}

func (w *earlyTrafficWatch) End(p *rule.Pass) {
	if w.flushed {
		return
	}
	for range len(w.deferred) + w.dropped {
		p.CannotJudge(reasonInitializedNeverCame)
	}
}
