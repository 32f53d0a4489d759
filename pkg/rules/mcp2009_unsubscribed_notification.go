package rules

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// UnsubscribedNotification reports, in 2026-07-28 sessions, a change notification the
// client did not opt in to on a subscriptions/listen stream: outside any stream, before
// the stream's acknowledgement, or of a type the acknowledgement did not grant.
var UnsubscribedNotification = &rule.Rule{
	ID:       "MCP2009",
	Name:     "unsubscribed-notification",
	Severity: rule.SeverityError,
	Title:    "A change notification outside a subscriptions/listen stream, before its acknowledgement, or of a type it did not grant",
	Anchor:   "the notification",
	Hint:     "send list_changed and resources/updated only on a subscriptions/listen stream (with _meta io.modelcontextprotocol/subscriptionId set to the listen request's id), after notifications/subscriptions/acknowledged, and only for the types and URIs that acknowledgement granted",
	Doc: rule.Doc{
		Sees: "In 2026-07-28 sessions, every notifications/tools/list_changed, notifications/prompts/list_changed, " +
			"notifications/resources/list_changed and notifications/resources/updated from the server. Its " +
			"`_meta[\"io.modelcontextprotocol/subscriptionId\"]` must name a subscriptions/listen request; that stream's " +
			"notifications/subscriptions/acknowledged must have come first; and the acknowledgement's `notifications` " +
			"must grant the type: `toolsListChanged`, `promptsListChanged`, `resourcesListChanged`, or for " +
			"resources/updated a `resourceSubscriptions` entry equal to the URI (or a parent of it). A notification without " +
			"a subscriptionId is reported too: 2026-07-28 has no other channel for it.",
		Why: "From 2026-07-28 notifications are opt-in per stream. A client routes stream notifications by subscriptionId; " +
			"one without it, or on a stream that never granted the type, has no handler and is dropped, so the change it " +
			"announces is lost. A client that did not ask for it may also treat the stream as broken and close it.",
		Fix: "Open nothing on your own: wait for the client's subscriptions/listen, answer with " +
			"notifications/subscriptions/acknowledged listing the types you will send (only those requested and supported), " +
			"and tag every later notification of that stream with its subscriptionId. Send nothing the acknowledgement " +
			"left out; with no open stream, send no change notifications at all (clients re-list or re-read on their own).",
		Bad: `{"id":2,"method":"subscriptions/listen","params":{"_meta":{...},"notifications":{"toolsListChanged":true}}}
{"method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2},"notifications":{"toolsListChanged":true}}}
{"method":"notifications/prompts/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2}}}
{"method":"notifications/tools/list_changed"}`,
		Good: `{"id":2,"method":"subscriptions/listen","params":{"_meta":{...},"notifications":{"toolsListChanged":true}}}
{"method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2},"notifications":{"toolsListChanged":true}}}
{"method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2}}}`,
		Spec: []rule.SpecRef{
			{Revision: spec.Rev20260728, Page: "basic/patterns/subscriptions", Says: "each notification type is opt-in on subscriptions/listen: the server MUST NOT send notification types the client has not explicitly requested; the acknowledgement MUST be the first message carrying the subscription's id, and the server MUST NOT send any notification on the subscription before it"},
			{Revision: spec.Rev20260728, Page: "server/tools#list-changed-notification", Says: "servers send notifications/tools/list_changed to clients that opened a subscriptions/listen stream with toolsListChanged: true"},
		},
	},
	New: func() rule.Checker { return &listenWatch{} },
	// The methods it looks at (the engine asks it about no other message).
	Methods: []string{"subscriptions/listen", "notifications/subscriptions/acknowledged", "notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed", "notifications/resources/updated"},
}

// listenFilter is a SubscriptionFilter: what a listen request asked for, or what its
// acknowledgement granted.
type listenFilter struct {
	tools, prompts, resources bool
	uris                      []string
}

// maxListenURIs bounds the resourceSubscriptions remembered per stream.
const maxListenURIs = 256

// readListenFilter reads a SubscriptionFilter as gjson did: a flag is true when
// truthy (true, "true", 1), and resourceSubscriptions that is not an array counts
// as its values (an object's) or as one entry.
func readListenFilter(v frame.Node) listenFilter {
	f := listenFilter{
		tools:     get(v, "toolsListChanged").Truthy(),
		prompts:   get(v, "promptsListChanged").Truthy(),
		resources: get(v, "resourcesListChanged").Truthy(),
	}
	eachValue(get(v, "resourceSubscriptions"), func(u frame.Node) bool {
		f.uris = append(f.uris, strings.Clone(u.Text()))
		return len(f.uris) < maxListenURIs
	})
	return f
}

// summary names what the filter asks for or grants, for a message.
func (f listenFilter) summary() rule.Message {
	var parts []rule.Message
	for _, b := range []struct {
		on   bool
		name string
	}{{f.tools, "toolsListChanged"}, {f.prompts, "promptsListChanged"}, {f.resources, "resourcesListChanged"}} {
		if b.on {
			parts = append(parts, rule.Text(b.name))
		}
	}
	if len(f.uris) > 0 {
		uris := f.uris
		more := ""
		if len(uris) > 3 {
			uris, more = uris[:3], fmt.Sprintf(" and %d more", len(f.uris)-3)
		}
		parts = append(parts, rule.Sprintf("resourceSubscriptions [%s%s]", quotedList(rule.ValueURI, uris), more))
	}
	if len(parts) == 0 {
		return rule.Text("nothing")
	}
	return rule.Join(parts, ", ")
}

// grants says whether the filter covers a notification, and names the flag it needs.
func (f listenFilter) grants(method, uri string) (ok bool, needs rule.Message) {
	switch method {
	case "notifications/tools/list_changed":
		return f.tools, rule.Text("toolsListChanged")
	case "notifications/prompts/list_changed":
		return f.prompts, rule.Text("promptsListChanged")
	case "notifications/resources/list_changed":
		return f.resources, rule.Text("resourcesListChanged")
	}
	for _, sub := range f.uris {
		if resourceURICovers(sub, uri) {
			return true, rule.Message{}
		}
	}
	return false, rule.Sprintf("resourceSubscriptions entry %s", rule.Quote(rule.ValueURI, uri))
}

type listenStream struct {
	id        string // raw JSON id of the subscriptions/listen request
	line      int
	requested listenFilter
	ackLine   int
	granted   listenFilter
}

// maxListenStreams bounds the streams remembered per session (the oldest go first).
const maxListenStreams = 256

type listenWatch struct {
	streams map[string]*listenStream // by raw listen request id
	order   []string
}

// subscriptionNotifications are the notifications a listen stream carries by opt-in.
var subscriptionNotifications = map[string]bool{
	"notifications/tools/list_changed":     true,
	"notifications/prompts/list_changed":   true,
	"notifications/resources/list_changed": true,
	"notifications/resources/updated":      true,
}

func (w *listenWatch) Message(p *rule.Pass, m *session.Message) {
	switch {
	case m.Kind == frame.KindRequest && m.Method == "subscriptions/listen" && m.Dir != spec.S2C && m.ID != "":
		w.remember(&listenStream{id: strings.Clone(m.ID), line: m.Line, requested: readListenFilter(get(m.ParamsNode(), "notifications"))})
	case m.Kind == frame.KindNotification && m.Method == "notifications/subscriptions/acknowledged" && m.Dir != spec.C2S:
		params := m.ParamsNode()
		sid, ok := params.Path("_meta", "io.modelcontextprotocol/subscriptionId")
		if !ok {
			return
		}
		st := w.lookup(sid)
		if st == nil {
			st = &listenStream{id: string(sid.Raw())} // its listen request is not in the capture
			w.remember(st)
		}
		if st.ackLine == 0 {
			st.ackLine = m.Line
			st.granted = readListenFilter(get(params, "notifications"))
		}
	case m.Kind == frame.KindNotification && subscriptionNotifications[m.Method]:
		w.notification(p, m)
	}
}

func (w *listenWatch) remember(st *listenStream) {
	if _, ok := w.streams[st.id]; !ok {
		w.order = append(w.order, st.id)
	}
	if w.streams == nil {
		w.streams = map[string]*listenStream{} // made on first use: most sessions never need it
	}
	w.streams[st.id] = st
	if len(w.order) > maxListenStreams {
		delete(w.streams, w.order[0])
		w.order = w.order[1:]
	}
}

// lookup finds the stream a subscriptionId names: by its raw JSON token, or leniently
// by the same value written as a number or as a string.
func (w *listenWatch) lookup(sid frame.Node) *listenStream {
	if st := w.streams[string(sid.Raw())]; st != nil {
		return st
	}
	switch sid.Kind() {
	case '"':
		s, _ := sid.Str()
		return w.streams[s]
	case '0':
		return w.streams[strconv.Quote(rawText(sid))]
	}
	return nil
}

func (w *listenWatch) notification(p *rule.Pass, m *session.Message) {
	switch {
	case m.Dir == spec.DirUnknown:
		p.CannotJudge(reasonDirectionUnknown)
		return
	case m.Dir != spec.S2C:
		return
	case m.Session.Era == session.EraUnknown:
		p.CannotJudge(reasonEraUnknown)
		return
	case m.Session.Era != session.EraModern:
		return // legacy sessions: MCP2001 and MCP2006
	}
	params := m.ParamsNode()
	uri := get(params, "uri").Text()
	what := rule.Text(m.Method)
	if m.Method == "notifications/resources/updated" {
		what = rule.Sprintf("%s for %s", m.Method, rule.Quote(rule.ValueURI, uri))
	}
	sid, ok := params.Path("_meta", "io.modelcontextprotocol/subscriptionId")
	if !ok {
		p.Report(rule.At(m), rule.Sprintf("server sent %s without _meta io.modelcontextprotocol/subscriptionId in a 2026-07-28 session: change notifications travel only on a subscriptions/listen stream the client opened (%s)",
			what, w.openedSummary()))
		return
	}
	st := w.lookup(sid)
	switch {
	case st == nil:
		p.CannotJudge(reasonUnknownSubscription)
	case st.ackLine == 0:
		p.Report(rule.At(m), rule.Sprintf("server sent %s on subscriptions/listen stream id=%s (line %d) before notifications/subscriptions/acknowledged: nothing may be sent on a subscription before its acknowledgement",
			what, st.id, st.line), rule.Note(st.line, rule.Sprintf("subscriptions/listen requesting %s", st.requested.summary())))
	default:
		ok, needs := st.granted.grants(m.Method, uri)
		if ok {
			return
		}
		related := []rule.Related{rule.Note(st.ackLine, rule.Sprintf("acknowledgement granting %s", st.granted.summary()))}
		requested := rule.Text("the listen request is not in the capture")
		if st.line > 0 {
			requested = rule.Sprintf("the client asked for %s at line %d", st.requested.summary(), st.line)
			related = append(related, rule.Note(st.line, rule.Sprintf("subscriptions/listen requesting %s", st.requested.summary())))
		}
		p.Report(rule.At(m), rule.Sprintf("server sent %s on subscriptions/listen stream id=%s, but its acknowledgement (line %d) granted %s, not %s (%s)",
			what, st.id, st.ackLine, st.granted.summary(), needs, requested), related...)
	}
}

// openedSummary says which listen streams the client opened, for a message about a
// notification that named none.
func (w *listenWatch) openedSummary() string {
	if len(w.order) == 0 {
		return "this client opened none"
	}
	var parts []string
	for _, id := range w.order {
		st := w.streams[id]
		if st.line > 0 {
			parts = append(parts, fmt.Sprintf("id %s at line %d", st.id, st.line))
		} else {
			parts = append(parts, "id "+st.id)
		}
		if len(parts) == 3 {
			break
		}
	}
	more := ""
	if len(w.order) > 3 {
		more = fmt.Sprintf(" and %d more", len(w.order)-3)
	}
	return "the client opened " + strings.Join(parts, ", ") + more
}

func (w *listenWatch) End(*rule.Pass) {}
