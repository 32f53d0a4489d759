package rules

import (
	"hash/fnv"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// UpdateNotNotified reports a subscribed resource whose contents changed between two
// reads with no notifications/resources/updated between them.
var UpdateNotNotified = &rule.Rule{
	ID:               "MCP2011",
	Name:             "update-not-notified",
	Severity:         rule.SeverityError,
	CapabilityScaled: true,
	Title:            "A subscribed resource changed between two reads with no notifications/resources/updated",
	Anchor:           "the later resources/read result",
	Hint:             "send notifications/resources/updated to every session subscribed to a URI whenever its contents change (after the change is visible to resources/read), or stop accepting resources/subscribe",
	Doc: rule.Doc{
		Sees: "Legacy sessions (2024-11-05 to 2025-11-25): after a resources/subscribe answered with a result, each " +
			"resources/read result for exactly that URI is fingerprinted (a hash of each content's uri, mimeType, text and " +
			"blob; `_meta` is ignored and nothing is kept but the hash). When two reads of the subscribed URI differ and no " +
			"notifications/resources/updated for it (or for a URI it contains, or one containing it) came between them, the " +
			"promise the subscription made was broken. Reads before the subscribe and after the client's " +
			"resources/unsubscribe do not count. When an update for the URI came on a Streamable HTTP GET stream (recorded as " +
			"one exchange, with no time for each event), it may have come between any two reads, and the rule cannot judge them.",
		Why: "A client subscribes so that it can cache the resource and re-read only when told. A server that changes the " +
			"resource silently leaves every subscribed client working from stale contents until it happens to read again, " +
			"and the capture here shows it only because the client did read again.",
		Fix: "Call your SDK's resource-updated hook (Go SDK: Server.ResourceUpdated; TypeScript: server.sendResourceUpdated; " +
			"mcp-go: the resource-updated notification) wherever the resource's contents change, for every subscribed " +
			"session; if changes cannot be detected, do not declare `resources.subscribe`.",
		Bad: `{"id":2,"method":"resources/subscribe","params":{"uri":"file:///srv/notes/todo.md"}}
{"id":2,"result":{}}
{"id":3,"method":"resources/read","params":{"uri":"file:///srv/notes/todo.md"}}
{"id":3,"result":{"contents":[{"uri":"file:///srv/notes/todo.md","text":"- [ ] ship 1.0\n"}]}}
{"id":4,"method":"resources/read","params":{"uri":"file:///srv/notes/todo.md"}}
{"id":4,"result":{"contents":[{"uri":"file:///srv/notes/todo.md","text":"- [x] ship 1.0\n"}]}}`,
		Good: `{"id":2,"method":"resources/subscribe","params":{"uri":"file:///srv/notes/todo.md"}}
{"id":2,"result":{}}
{"id":3,"method":"resources/read","params":{"uri":"file:///srv/notes/todo.md"}}
{"id":3,"result":{"contents":[{"uri":"file:///srv/notes/todo.md","text":"- [ ] ship 1.0\n"}]}}
{"method":"notifications/resources/updated","params":{"uri":"file:///srv/notes/todo.md"}}
{"id":4,"method":"resources/read","params":{"uri":"file:///srv/notes/todo.md"}}
{"id":4,"result":{"contents":[{"uri":"file:///srv/notes/todo.md","text":"- [x] ship 1.0\n"}]}}`,
		Spec: []rule.SpecRef{
			{Revision: spec.Rev20250618, Page: "server/resources#subscriptions", Says: "clients can subscribe to specific resources and receive notifications when they change (notifications/resources/updated); resources.subscribe declares that promise"},
			{Revision: spec.Rev20251125, Page: "server/resources#subscriptions", Says: "unchanged in 2025-11-25 (removed in 2026-07-28, where subscriptions/listen resourceSubscriptions replaces resources/subscribe)"},
			{Revision: spec.Rev20250618, Page: "basic/lifecycle#operation", Says: "both parties MUST respect the negotiated protocol version and only use capabilities that were successfully negotiated (SHOULD before 2025-06-18): the severity of this rule follows that revision split"},
		},
	},
	New: func() rule.Checker {
		return &readWatch{}
	},
	// The methods it looks at (the engine asks it about no other message).
	Methods: []string{"resources/subscribe", "resources/unsubscribe", "resources/read", "notifications/resources/updated"},
}

type readState struct {
	line     int
	hash     uint64
	size     int
	notified bool // an updated notification for the URI came since this read
}

type readWatch struct {
	inflight   inflightURIs          // subscribe, unsubscribe and read requests -> URI
	subscribed map[string]int        // URI -> line of the successful resources/subscribe
	reads      map[string]*readState // subscribed URI -> its last read
	// unplaced holds the URIs of updates whose place among the frames is unknown (an
	// HTTP GET stream): they may have come between any two reads.
	unplaced map[string]bool
}

func (w *readWatch) Message(p *rule.Pass, m *session.Message) {
	switch {
	case m.Kind == frame.KindRequest && m.Dir != spec.S2C:
		switch m.Method {
		case "resources/unsubscribe":
			// From the moment the client asks, it no longer relies on the promise.
			uri := get(m.ParamsNode(), "uri").Text()
			delete(w.subscribed, uri)
			delete(w.reads, uri)
		case "resources/subscribe", "resources/read":
			uri := get(m.ParamsNode(), "uri").Text() // aliases the frame: cloned where it is kept
			if m.Request.Answered() {
				if m.Method == "resources/subscribe" {
					w.subscribe(m.Request, strings.Clone(uri))
				} else if _, ok := w.subscribed[uri]; ok {
					p.CannotJudge(reasonReadBeforeRequest)
				}
				return
			}
			if _, ok := w.subscribed[uri]; ok || m.Method == "resources/subscribe" {
				w.inflight.put(m.Request, uri)
			}
		}
	case m.Kind.IsResponse() && m.Request != nil && (m.Request.Method == "resources/subscribe" || m.Request.Method == "resources/read"):
		uri, ok := w.inflight.take(m.Request)
		if !ok {
			return
		}
		if m.Request.Method == "resources/subscribe" {
			w.subscribe(m.Request, uri)
			return
		}
		if m.Kind == frame.KindResult {
			w.read(p, m, uri)
		}
	case m.Kind == frame.KindNotification && m.Method == "notifications/resources/updated" && m.Dir != spec.C2S:
		uri := get(m.ParamsNode(), "uri").Text()
		if m.Unplaced() {
			if w.unplaced == nil {
				w.unplaced = map[string]bool{}
			}
			if len(w.unplaced) < maxSubscriptions {
				w.unplaced[strings.Clone(uri)] = true
			}
		}
		for read, st := range w.reads {
			if resourceURICovers(read, uri) || resourceURICovers(uri, read) {
				st.notified = true
			}
		}
	}
}

func (w *readWatch) subscribe(r *session.Request, uri string) {
	if r.ResponseErr || len(w.subscribed) >= maxSubscriptions {
		return
	}
	if w.subscribed == nil {
		w.subscribed = map[string]int{} // made on first use: most sessions never need it
	}
	w.subscribed[uri] = r.Line
	delete(w.reads, uri) // reads before the subscription promised nothing
}

func (w *readWatch) read(p *rule.Pass, m *session.Message, uri string) {
	subLine, ok := w.subscribed[uri]
	if !ok {
		return // unsubscribed while the read was in flight
	}
	c := m.Contract
	switch {
	case c == nil:
		p.CannotJudge(reasonNoContract)
		return
	case c.Era != session.EraLegacy:
		return
	}
	hash, size := contentsFingerprint(get(m.ResultNode(), "contents"))
	prev := w.reads[uri]
	if w.reads == nil {
		w.reads = map[string]*readState{} // made on first use: most sessions never need it
	}
	w.reads[uri] = &readState{line: m.Line, hash: hash, size: size}
	if prev == nil || prev.notified || prev.hash == hash {
		return
	}
	for u := range w.unplaced {
		if resourceURICovers(u, uri) || resourceURICovers(uri, u) {
			p.CannotJudge(reasonUpdateOnGetBetweenRead)
			return
		}
	}
	p.Report(rule.At(m), rule.Sprintf("resources/read of %s returned different contents at line %d (%d bytes) than at line %d (%d bytes), and no notifications/resources/updated for it came between them, although the client subscribed to it (resources/subscribe at line %d)",
		rule.Quote(rule.ValueURI, uri), m.Line, size, prev.line, prev.size, subLine),
		rule.Related{Line: prev.line, Note: "the earlier read"},
		rule.Related{Line: subLine, Note: "resources/subscribe"})
}

// contentsFingerprint hashes what a reader sees of a resource (uri, mimeType, text,
// blob of each content) and counts its text and blob bytes.
func contentsFingerprint(contents frame.Node) (uint64, int) {
	h := fnv.New64a()
	size := 0
	eachValue(contents, func(item frame.Node) bool {
		for _, k := range [...]string{"uri", "mimeType", "text", "blob"} {
			v := get(item, k)
			_, _ = h.Write([]byte(k))
			_, _ = h.Write([]byte{0})
			_, _ = h.Write(v.Raw())
			_, _ = h.Write([]byte{0})
			if k == "text" || k == "blob" {
				size += unescapedLen(v)
			}
		}
		return true
	})
	return h.Sum64(), size
}

// unescapedLen is the length of a string value unescaped (0 for any other value),
// without unescaping one that has no escapes.
func unescapedLen(v frame.Node) int {
	if !v.Escaped() {
		return len(v.Bytes())
	}
	s, _ := v.Str()
	return len(s)
}

func (w *readWatch) End(*rule.Pass) {}
