package rules

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// ListChangedSilently reports a list that changed between two results with no
// list_changed notification between them, from a server that promised one.
var ListChangedSilently = &rule.Rule{
	ID:               "MCP2005",
	Name:             "list-changed-silently",
	Severity:         rule.SeverityError,
	CapabilityScaled: true,
	Title:            "A list changed with no list_changed notification, although the server declared listChanged",
	Anchor:           "the later list result",
	Hint:             "send notifications/<kind>/list_changed whenever the list changes (clients that trust listChanged cache the list and never re-fetch on their own), or stop declaring listChanged",
	Doc: rule.Doc{
		Sees: "Two results of the same list method in one session (tools/list, prompts/list or resources/list) that differ, with no notifications/tools/list_changed (prompts/list_changed, resources/list_changed) between them, from a server that declared listChanged: true for that capability. Items are matched by name (tools, prompts) or uri (resources); an item counts as changed when its JSON differs at all (description, schema, annotations). The finding lists what was added, removed and changed. A list_changed that came on a long-lived Streamable HTTP stream (the GET stream, or the response of a 2026-07-28 subscriptions/listen request: recorded as one exchange, with no time for each event) may have come between any two lists: the rule then cannot judge that kind. A list_changed that arrives shortly after the later result (within 1s, or within 10 frames when the capture has no timestamps) still counts: servers debounce these notifications (the Go SDK sends one 10 ms after the last change), so a list requested right after a change can be answered before the notification goes out. Paginated results (a cursor or a nextCursor) are not compared yet, and resources/templates/list is not watched. Without listChanged there is no promise and no finding: the client is expected to list again on its own.",
		Why:  `listChanged: true is a promise: "I will send notifications/tools/list_changed when the list changes". A client that trusts it caches the list and stops re-listing. The change is visible in this capture only because this client happened to list again; a client that trusts the flag keeps the stale list until it reconnects, so the model calls tools that are gone and never sees the new ones. That is worse than not declaring the flag, since without it the client would have re-listed on its own.`,
		Fix:  "On the server: send notifications/tools/list_changed (prompts, resources) every time the set of items or any item's definition changes: after registering or removing a tool, when a feature flag flips, when a backend comes up. If you cannot, stop declaring listChanged. If the difference is accidental (a timestamp in a description, object keys serialised in random order), make the list stable.",
		Bad: `# the initialize result declared "tools":{"listChanged":true}
c->s {"jsonrpc":"2.0","id":2,"method":"tools/list"}
s->c {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"search","inputSchema":{"type":"object"}}]}}
c->s {"jsonrpc":"2.0","id":5,"method":"tools/list"}
s->c {"jsonrpc":"2.0","id":5,"result":{"tools":[{"name":"search","inputSchema":{"type":"object"}},{"name":"deploy","inputSchema":{"type":"object"}}]}}`,
		Good: `c->s {"jsonrpc":"2.0","id":2,"method":"tools/list"}
s->c {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"search","inputSchema":{"type":"object"}}]}}
# the server registers deploy and says so
s->c {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}
c->s {"jsonrpc":"2.0","id":5,"method":"tools/list"}
s->c {"jsonrpc":"2.0","id":5,"result":{"tools":[{"name":"search","inputSchema":{"type":"object"}},{"name":"deploy","inputSchema":{"type":"object"}}]}}`,
		Spec: []rule.SpecRef{
			{Revision: "2025-06-18", Page: "server/tools#capabilities", Says: "listChanged indicates whether the server will emit notifications when the list of available tools changes."},
			{Revision: "2025-06-18", Page: "server/tools#list-changed-notification", Says: "When the list of available tools changes, servers that declared the listChanged capability SHOULD send a notification (notifications/tools/list_changed)."},
			{Revision: "2025-06-18", Page: "server/prompts#list-changed-notification", Says: "The same for prompts: notifications/prompts/list_changed."},
			{Revision: "2025-06-18", Page: "server/resources#list-changed-notification", Says: "The same for resources: notifications/resources/list_changed."},
			{Revision: "2025-06-18", Page: "basic/lifecycle#operation", Says: "Both parties MUST only use capabilities that were successfully negotiated; like every capability rule, this one is an error from 2025-06-18 and a warning before, when the lifecycle said SHOULD."},
		},
	},
	Requires: []*rule.Analysis{Lists},
	Shared:   func() any { return &listPrints{seed: maphash.MakeSeed(), by: map[uint64]listPrint{}} },
	New: func() rule.Checker {
		return &listWatch{}
	},
}

// listPrints are the fingerprints of the lists seen in the run, by the bytes of
// the list: the sessions of one server list the same tools, and a fingerprint
// (a hash of each item, by name) is the same for the same bytes. A session's
// listState shares the map, which nothing writes after it is made.
type listPrints struct {
	mu    sync.Mutex
	seed  maphash.Seed
	by    map[uint64]listPrint
	bytes int
}

// listPrint is one list's fingerprint, the bytes it is of and the member its
// items are named by (a hash is not trusted alone).
type listPrint struct {
	key   string
	list  []byte
	items map[string]uint64
}

// maxListPrintBytes bounds the list bytes listPrints keeps.
const maxListPrintBytes = 4 << 20

// of is fingerprint(listing.Items), for the list whose bytes are list (the
// result's member the items were read from).
func (l *listPrints) of(list []byte, listing *Listing) map[string]uint64 {
	if len(list) > maxListPrintBytes/8 {
		return fingerprint(listing.Items) // a list this large is kept by no one else
	}
	var h maphash.Hash
	h.SetSeed(l.seed)
	h.WriteString(listing.List.Key)
	h.WriteByte(0)
	h.Write(list)
	key := h.Sum64()
	l.mu.Lock()
	v, ok := l.by[key]
	l.mu.Unlock()
	if ok && v.key == listing.List.Key && bytes.Equal(v.list, list) {
		return v.items
	}
	items := fingerprint(listing.Items)
	l.mu.Lock()
	if l.bytes+len(list) > maxListPrintBytes {
		clear(l.by)
		l.bytes = 0
	}
	l.by[key] = listPrint{key: listing.List.Key, list: bytes.Clone(list), items: items}
	l.bytes += len(list)
	l.mu.Unlock()
	return items
}

// comparedLists are the list methods compared (resources/templates/list is not
// watched yet); what their results hold comes from spec.ListResultOf.
var comparedLists = [...]string{"tools/list", "prompts/list", "resources/list"}

type listState struct {
	line     int
	items    map[string]uint64 // item key -> hash of the item
	notified bool
}

type listWatch struct {
	lists map[string]*listState // by capability
	// granted records, in a modern session, the list_changed types a
	// subscriptions/listen acknowledgement granted: only those are promised.
	granted map[string]bool
	// pending holds, by capability, a change not announced before the later list
	// result: reported once the grace for a late (debounced) notification is over.
	pending map[string]*silentChange
	frames  int // messages seen, batch members not counted
	// unplaced records the capabilities whose list_changed came on a long-lived HTTP
	// stream, whose place among the frames is unknown: it may have come between.
	unplaced map[string]bool
}

// A list_changed this close after the later list result still announces the change:
// servers debounce the notification (the Go SDK sends it 10 ms after the last
// change), so a list requested right after a change can overtake it.
const (
	listChangedGrace       = time.Second
	listChangedGraceFrames = 10
)

type silentChange struct {
	anchor  rule.Anchor
	text    rule.Message
	related []rule.Related
	frame   int
}

// due reports whether the grace for a late notification is over at message m.
func (c *silentChange) due(m *session.Message, frames int) bool {
	if !c.anchor.Time.IsZero() && !m.Time.IsZero() {
		return m.Time.Sub(c.anchor.Time) > listChangedGrace
	}
	return frames-c.frame > listChangedGraceFrames
}

// settle reports the pending changes whose grace is over at m.
func (w *listWatch) settle(p *rule.Pass, m *session.Message) {
	for capability, c := range w.pending {
		if c.due(m, w.frames) {
			w.report(p, capability, c)
			delete(w.pending, capability)
		}
	}
}

func (w *listWatch) report(p *rule.Pass, capability string, c *silentChange) {
	if w.unplaced[capability] {
		p.CannotJudge(reasonListChangedOnStream)
		return
	}
	p.Report(c.anchor, c.text, c.related...)
}

func (w *listWatch) Message(p *rule.Pass, m *session.Message) {
	if m.Batch == nil {
		w.frames++
	}
	if len(w.pending) > 0 {
		w.settle(p, m)
	}
	if m.Kind == frame.KindNotification && m.Method == "notifications/subscriptions/acknowledged" {
		// Only an object's members have names: an array's elements, or a value that
		// is not a container, grant nothing (gjson's ForEach gave them no name).
		for k, v := range get(m.ParamsNode(), "notifications").Members {
			for _, lc := range spec.ListChanges() {
				if lc.ListenFlag != "" && lc.ListenFlag == k && v.Kind() == 't' {
					if w.granted == nil {
						w.granted = map[string]bool{}
					}
					w.granted[lc.Kind] = true
				}
			}
		}
		return
	}
	if m.Kind == frame.KindNotification && m.Dir != spec.C2S {
		if lc, ok := spec.ListChangeOf(m.Method); ok {
			capability := lc.Kind
			if st := w.lists[capability]; st != nil {
				st.notified = true
			}
			delete(w.pending, capability) // a late, debounced announcement of the change
			if m.Unplaced() {
				if w.unplaced == nil {
					w.unplaced = map[string]bool{}
				}
				w.unplaced[capability] = true
			}
		}
		return
	}
	listing := p.ResultOf(Lists).(*ListLog).Of(m)
	if listing == nil || !slices.Contains(comparedLists[:], listing.List.Method) {
		return
	}
	lc, _ := spec.ListChangeFetchedBy(m.Request.Method)
	kind := struct{ key, capability string }{listing.List.Key, lc.Kind}
	if _, next := m.ResultNode().Get("nextCursor"); m.Request.Paginated || next {
		p.CannotJudge(reasonPaginated)
		return
	}
	items := p.Shared().(*listPrints).of(get(m.ResultNode(), listing.List.Member).Raw(), listing)
	prev := w.lists[kind.capability]
	if w.lists == nil {
		w.lists = map[string]*listState{} // made on first use: most sessions never need it
	}
	w.lists[kind.capability] = &listState{line: m.Line, items: items}
	if prev == nil || prev.notified {
		return
	}
	added, removed, changed := diffLists(prev.items, items)
	if len(added)+len(removed)+len(changed) == 0 {
		return
	}
	c := m.Contract
	if c == nil {
		p.CannotJudge(reasonNoContractShort)
		return
	}
	declared, known := c.DeclaresGate(lc.Gate)
	if !known {
		p.CannotJudge(reasonServerCapsUnknown)
		return
	}
	if !declared {
		return // no promise: a client must re-list on its own
	}
	if c.Era == session.EraModern && !w.granted[kind.capability] {
		return // 2026-07-28: list_changed flows only on a listen stream that asked for it
	}
	if old := w.pending[kind.capability]; old != nil {
		w.report(p, kind.capability, old)
	}
	a := kept(rule.At(m))
	if w.pending == nil {
		w.pending = map[string]*silentChange{}
	}
	w.pending[kind.capability] = &silentChange{anchor: a, frame: w.frames,
		text: rule.Sprintf("%s result (line %d) differs from the one at line %d (%s) with no notifications/%s/list_changed between them, although the %s declared %s.listChanged: clients that trust it keep the stale list",
			m.Request.Method, m.Line, prev.line, describeDiff(itemKind(kind.key), added, removed, changed), kind.capability, c.DeclaredIn(spec.Server), kind.capability),
		related: []rule.Related{
			{Line: prev.line, Note: "the earlier list"},
			{Line: c.DeclaredLine(lc.Gate.Side), Note: c.DeclarationNote(lc.Gate.Side, lc.Gate.Path)},
		}}
}

// End reports the changes still pending: no notification came before the end.
func (w *listWatch) End(p *rule.Pass) {
	for _, capability := range []string{"tools", "prompts", "resources"} {
		if c := w.pending[capability]; c != nil {
			w.report(p, capability, c)
		}
	}
}

// fingerprint hashes each item of a list by its name (its JSON text when it
// has none). The keys are copies: the map outlives the message.
func fingerprint(listed []ListItem) map[string]uint64 {
	items := map[string]uint64{}
	for _, item := range listed {
		name := item.Name
		if name == "" {
			name = rawText(item.Value)
		}
		// Cloned even when the map has the name: assigning replaces the key too.
		items[strings.Clone(name)] = canonicalHash(item.Value)
	}
	return items
}

// canonicalHash hashes a JSON value so that a server that re-serialises the same item
// differently (members in another order, other whitespace) does not count as a
// change: an object's members are combined by a commutative sum, an array's elements
// in order, and a scalar by its token as written. A member's name counts as its
// text unescaped, written in quotes: "a" and "\u0061" name the same member.
func canonicalHash(v frame.Node) uint64 {
	switch v.Kind() {
	case '{':
		sum := uint64(0x9e3779b97f4a7c15)
		for k, member := range v.Members {
			sum += mix64(quotedFnv64(k) ^ mix64(canonicalHash(member)))
		}
		return mix64(sum)
	case '[':
		h := uint64(0xc2b2ae3d27d4eb4f)
		for _, element := range v.Elements {
			h = mix64(h ^ canonicalHash(element))
		}
		return h
	default:
		return fnv64(v.Raw())
	}
}

// fnv64 is FNV-1a of s, without allocating.
func fnv64[T string | []byte](s T) uint64 {
	return fnvAdd(14695981039346656037, s)
}

// quotedFnv64 is fnv64 of s written between double quotes (not escaped).
func quotedFnv64(s string) uint64 {
	return fnvAdd(fnvAdd(fnvAdd(14695981039346656037, `"`), s), `"`)
}

// fnvAdd adds the bytes of s to the FNV-1a hash h.
func fnvAdd[T string | []byte](h uint64, s T) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// mix64 is the finaliser of SplitMix64: every input bit reaches every output bit.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

func diffLists(before, after map[string]uint64) (added, removed, changed []string) {
	for k, h := range after {
		old, ok := before[k]
		switch {
		case !ok:
			added = append(added, k)
		case old != h:
			changed = append(changed, k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			removed = append(removed, k)
		}
	}
	sort.Strings(added)
	sort.Strings(removed)
	sort.Strings(changed)
	return added, removed, changed
}

func describeDiff(kind rule.ValueKind, added, removed, changed []string) rule.Message {
	var parts []rule.Message
	for _, d := range []struct {
		what  string
		names []string
	}{{"added", added}, {"removed", removed}, {"changed", changed}} {
		if len(d.names) == 0 {
			continue
		}
		names := d.names
		more := ""
		if len(names) > 5 {
			names, more = names[:5], fmt.Sprintf(" and %d more", len(d.names)-5)
		}
		shown := make([]rule.Message, len(names))
		for i, n := range names {
			shown[i] = rule.Sprintf("%s", rule.As(kind, n))
		}
		parts = append(parts, rule.Sprintf("%s: %s%s", d.what, rule.Join(shown, ", "), more))
	}
	return rule.Join(parts, "; ")
}

// itemKind says what the key of a list item is: a name, or a resource's URI.
func itemKind(key string) rule.ValueKind {
	if key == "uri" {
		return rule.ValueURI
	}
	return rule.ValueName
}
