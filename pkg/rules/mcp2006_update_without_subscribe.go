package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// UpdateWithoutSubscribe reports notifications/resources/updated for a URI the client
// is not subscribed to (legacy era; 2026-07-28 streams are MCP2009's).
var UpdateWithoutSubscribe = &rule.Rule{
	ID:       "MCP2006",
	Name:     "update-without-subscribe",
	Severity: rule.SeverityWarning,
	Title:    "notifications/resources/updated for a URI the client never subscribed to, or after it unsubscribed",
	Anchor:   "the notifications/resources/updated notification",
	Hint:     "keep a per-session set of subscribed URIs (add on a successful resources/subscribe, remove on resources/unsubscribe) and send notifications/resources/updated only for URIs in it",
	Doc: rule.Doc{
		Sees: "In legacy sessions (2024-11-05 to 2025-11-25) whose server declared `resources.subscribe`, every " +
			"notifications/resources/updated is matched against the client's subscriptions: a resources/subscribe answered " +
			"with a result adds its URI, a resources/unsubscribe answered with a result removes it, a subscribe answered with " +
			"an error adds nothing. A subscribe still in flight counts as subscribed (the server may notify before its answer " +
			"is logged), and an update for a sub-resource of a subscribed URI (`file:///notes/a.md` under `file:///notes`) " +
			"counts, as the schema allows. An update that came on a Streamable HTTP GET stream (recorded as one exchange, with no time for each event) cannot be placed before or after a subscribe: it is reported only if the client never subscribed to its URI during the session. An update from a server that never declared `resources.subscribe` is MCP2001's finding.",
		Why: "A client that did not subscribe has no handler waiting for the URI: the update is dropped, or worse, triggers " +
			"re-reads of resources the user never opened. A server that keeps notifying after resources/unsubscribe keeps " +
			"per-URI state it was told to release, which usually means the subscription table is keyed wrongly (by URI " +
			"across sessions instead of per session).",
		Fix: "Track subscriptions per session: add the URI when you answer resources/subscribe with a result, remove it when " +
			"you answer resources/unsubscribe, and send notifications/resources/updated only to sessions that hold the URI.",
		Bad: `{"id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"resources":{"subscribe":true}},...}}
{"id":3,"method":"resources/read","params":{"uri":"file:///srv/notes/todo.md"}}
{"id":3,"result":{"contents":[...]}}
{"method":"notifications/resources/updated","params":{"uri":"file:///srv/notes/todo.md"}}`,
		Good: `{"id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"resources":{"subscribe":true}},...}}
{"id":2,"method":"resources/subscribe","params":{"uri":"file:///srv/notes/todo.md"}}
{"id":2,"result":{}}
{"method":"notifications/resources/updated","params":{"uri":"file:///srv/notes/todo.md"}}`,
		Spec: []rule.SpecRef{
			{Revision: spec.Rev20250618, Page: "server/resources#subscriptions", Says: "clients subscribe to specific resources and receive notifications/resources/updated when they change; the schema says the notification \"should only be sent if the client previously sent a resources/subscribe request\""},
			{Revision: spec.Rev20251125, Page: "server/resources#subscriptions", Says: "unchanged in 2025-11-25: updates are for subscribed resources; the updated URI may be a sub-resource of the subscribed one"},
		},
	},
	New: func() rule.Checker {
		return &subscribeWatch{}
	},
	// The methods it looks at (the engine asks it about no other message).
	Methods: []string{"resources/subscribe", "resources/unsubscribe", "notifications/resources/updated"},
}

// maxSubscriptions bounds the URIs a session's subscription tracking keeps; past it
// the rule stops judging that session (it says so) rather than forget subscriptions.
const maxSubscriptions = 1024

type subscribeWatch struct {
	inflight   inflightURIs
	subscribed map[string]int    // URI -> line of the resources/subscribe that created it
	ended      map[string]string // URI -> why it is not subscribed (for messages)
	full       bool
	// ever holds the URIs subscribed at any time in the session, and unplaced the
	// uncovered updates whose place is unknown (an HTTP GET stream): judged at the end.
	ever     map[string]bool
	unplaced []unplacedUpdate
}

type unplacedUpdate struct {
	anchor rule.Anchor
	uri    string
}

func (w *subscribeWatch) Message(p *rule.Pass, m *session.Message) {
	switch {
	case m.Kind == frame.KindRequest && (m.Method == "resources/subscribe" || m.Method == "resources/unsubscribe") && m.Dir != spec.S2C:
		uri := get(m.ParamsNode(), "uri").Text()
		if m.Request.Answered() { // its response was logged first
			w.outcome(m.Request, strings.Clone(uri)) // kept in the subscription tables
			return
		}
		w.inflight.put(m.Request, uri)
	case m.Kind.IsResponse() && m.Request != nil && (m.Request.Method == "resources/subscribe" || m.Request.Method == "resources/unsubscribe"):
		if uri, ok := w.inflight.take(m.Request); ok {
			w.outcome(m.Request, uri)
		}
	case m.Kind == frame.KindNotification && m.Method == "notifications/resources/updated":
		w.updated(p, m)
	}
}

// outcome applies an answered subscribe or unsubscribe.
func (w *subscribeWatch) outcome(r *session.Request, uri string) {
	switch {
	case r.Method == "resources/subscribe" && !r.ResponseErr:
		if len(w.subscribed) >= maxSubscriptions {
			w.full = true
			return
		}
		if w.subscribed == nil {
			w.subscribed = map[string]int{} // made on first use: most sessions never need it
		}
		w.subscribed[uri] = r.Line
		delete(w.ended, uri)
		if w.ever == nil {
			w.ever = map[string]bool{}
		}
		if len(w.ever) < maxSubscriptions {
			w.ever[uri] = true
		}
	case r.Method == "resources/subscribe":
		if _, ok := w.subscribed[uri]; !ok && len(w.ended) < maxSubscriptions {
			if w.ended == nil {
				w.ended = map[string]string{} // made on first use: most sessions never need it
			}
			w.ended[uri] = fmt.Sprintf("its resources/subscribe id=%s (line %d) was answered with an error (line %d), so no subscription exists", r.ID, r.Line, r.ResponseLine)
		}
	case !r.ResponseErr: // unsubscribe
		delete(w.subscribed, uri)
		if len(w.ended) < maxSubscriptions {
			if w.ended == nil {
				w.ended = map[string]string{} // made on first use: most sessions never need it
			}
			w.ended[uri] = fmt.Sprintf("the client unsubscribed (resources/unsubscribe id=%s at line %d, answered at line %d)", r.ID, r.Line, r.ResponseLine)
		}
	}
}

func (w *subscribeWatch) updated(p *rule.Pass, m *session.Message) {
	c := m.Contract
	switch {
	case m.Dir == spec.DirUnknown:
		p.CannotJudge(reasonDirectionUnknown)
		return
	case m.Dir != spec.S2C:
		return
	case c == nil:
		p.CannotJudge(reasonNoContract)
		return
	case c.Era != session.EraLegacy:
		return // 2026-07-28 listen streams are MCP2009's
	}
	declared, known := c.DeclaresCapability(spec.Server, "resources.subscribe")
	switch {
	case !known:
		p.CannotJudge(reasonServerCapsUnknown)
		return
	case !declared:
		return // an undeclared notification: MCP2001
	case w.full:
		p.CannotJudge(because(reasonTooManySubscribedf, maxSubscriptions))
		return
	}
	uri := get(m.ParamsNode(), "uri").Text() // aliases the frame: cloned where it is kept
	for sub := range w.subscribed {
		if resourceURICovers(sub, uri) {
			return
		}
	}
	for r, sub := range w.inflight.uris {
		if (r.Method == "resources/subscribe" || r.Method == "resources/unsubscribe") && resourceURICovers(sub, uri) {
			return // subscribe not answered yet, or unsubscribe not yet effective
		}
	}
	if m.Unplaced() {
		// Its time is unknown: judged at the end, against every subscription.
		if len(w.unplaced) < maxSubscriptions {
			w.unplaced = append(w.unplaced, unplacedUpdate{anchor: kept(rule.At(m)), uri: strings.Clone(uri)})
		}
		return
	}
	why := w.ended[uri]
	if why == "" {
		why = "the client never sent resources/subscribe for it"
	}
	p.Report(rule.At(m), rule.Sprintf("server sent notifications/resources/updated for %s but %s; subscribed URIs: %s",
		rule.Quote(rule.ValueURI, uri), why, subscribedList(w.subscribed)))
}

// End judges the updates whose place is unknown: one for a URI the client subscribed
// to at some time may have come while it was subscribed.
func (w *subscribeWatch) End(p *rule.Pass) {
	for _, u := range w.unplaced {
		covered := false
		for sub := range w.ever {
			if resourceURICovers(sub, u.uri) {
				covered = true
				break
			}
		}
		if covered || w.full {
			p.CannotJudge(reasonUpdateOnGet)
			continue
		}
		ever := make(map[string]int, len(w.ever))
		for uri := range w.ever {
			ever[uri] = 0
		}
		p.Report(u.anchor, rule.Sprintf("server sent notifications/resources/updated for %s (on the HTTP GET stream) but the client never subscribed to it during the session; subscribed URIs: %s",
			rule.Quote(rule.ValueURI, u.uri), subscribedList(ever)))
	}
}

// subscribedList names the subscribed URIs for a message (at most 3).
func subscribedList(subs map[string]int) rule.Message {
	if len(subs) == 0 {
		return rule.Text("none")
	}
	uris := make([]string, 0, len(subs))
	for u := range subs {
		uris = append(uris, u)
	}
	sort.Strings(uris)
	more := ""
	if len(uris) > 3 {
		uris, more = uris[:3], fmt.Sprintf(" and %d more", len(uris)-3)
	}
	return quotedList(rule.ValueURI, uris).Plus(rule.Text(more))
}

// resourceURICovers reports whether a notification about uri concerns the subscribed
// URI sub: the same URI, or a sub-resource of it (the schema of
// notifications/resources/updated: "This might be a sub-resource of the one that the
// client actually subscribed to").
func resourceURICovers(sub, uri string) bool {
	if sub == uri {
		return true
	}
	if sub == "" || !strings.HasPrefix(uri, sub) {
		return false
	}
	if strings.HasSuffix(sub, "/") {
		return true
	}
	switch uri[len(sub)] {
	case '/', '?', '#':
		return true
	}
	return false
}

// inflightURIs remembers one URI (params.uri) per request in flight, until its
// response; bounded by maxInflightURIs (the oldest are forgotten first). Used by the
// resource rules, whose responses do not repeat the URI they answer.
type inflightURIs struct {
	uris  map[*session.Request]string
	order []*session.Request
}

const maxInflightURIs = 1024

func (f *inflightURIs) put(r *session.Request, uri string) {
	if f.uris == nil {
		f.uris = map[*session.Request]string{}
	}
	f.uris[r] = strings.Clone(uri)
	f.order = append(f.order, r)
	if len(f.order) > 2*maxInflightURIs {
		kept := f.order[:0]
		for _, q := range f.order {
			if _, ok := f.uris[q]; ok {
				kept = append(kept, q)
			}
		}
		f.order = kept
	}
	for len(f.uris) > maxInflightURIs && len(f.order) > 0 {
		delete(f.uris, f.order[0])
		f.order = f.order[1:]
	}
}

func (f *inflightURIs) take(r *session.Request) (string, bool) {
	uri, ok := f.uris[r]
	if ok {
		delete(f.uris, r)
	}
	return uri, ok
}
