package rules

import (
	"fmt"
	"hash/fnv"
	"sort"
	"strings"

	"github.com/tidwall/gjson"

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
	New: func() rule.Checker {
		return &listWatch{lists: map[string]*listState{}}
	},
}

// listKinds maps list methods to the result member that holds the items, the key
// that names an item, and the notification that announces a change.
var listKinds = map[string]struct{ member, key, capability string }{
	"tools/list":     {"tools", "name", "tools"},
	"prompts/list":   {"prompts", "name", "prompts"},
	"resources/list": {"resources", "uri", "resources"},
}

type listState struct {
	line     int
	items    map[string]uint64 // item key -> hash of the item
	notified bool
}

type listWatch struct {
	lists map[string]*listState // by capability
}

func (w *listWatch) Message(p *rule.Pass, m *session.Message) {
	if m.Kind == frame.KindNotification && m.Dir != spec.C2S {
		if kind, ok := strings.CutPrefix(m.Method, "notifications/"); ok {
			if capability, ok := strings.CutSuffix(kind, "/list_changed"); ok {
				if st := w.lists[capability]; st != nil {
					st.notified = true
				}
			}
		}
		return
	}
	if m.Kind != frame.KindResult || m.Request == nil {
		return
	}
	kind, ok := listKinds[m.Request.Method]
	if !ok {
		return
	}
	res := gjson.ParseBytes(m.Result)
	if m.Request.Paginated || res.Get("nextCursor").Exists() {
		p.CannotJudge("paginated list results are not compared yet")
		return
	}
	items := fingerprint(res.Get(kind.member), kind.key)
	prev := w.lists[kind.capability]
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
		p.CannotJudge("no contract")
		return
	}
	declared, known := c.Declares(spec.Server, kind.capability+".listChanged", true)
	if !known {
		p.CannotJudge("the server's capabilities are unknown")
		return
	}
	if !declared {
		return // no promise: a client must re-list on its own
	}
	p.Report(rule.At(m), fmt.Sprintf("%s result (line %d) differs from the one at line %d (%s) with no notifications/%s/list_changed between them, although the %s declared %s.listChanged: clients that trust it keep the stale list",
		m.Request.Method, m.Line, prev.line, describeDiff(added, removed, changed), kind.capability, c.DeclaredIn(spec.Server), kind.capability),
		rule.Related{Line: prev.line, Note: "the earlier list"},
		rule.Related{Line: c.DeclaredLine(spec.Server), Note: c.DeclaredIn(spec.Server) + ": " + c.CapabilitySummary(spec.Server, kind.capability)})
}

func (w *listWatch) End(*rule.Pass) {}

func fingerprint(list gjson.Result, key string) map[string]uint64 {
	items := map[string]uint64{}
	list.ForEach(func(_, item gjson.Result) bool {
		h := fnv.New64a()
		_, _ = h.Write([]byte(item.Raw))
		name := item.Get(key).String()
		if name == "" {
			name = item.Raw
		}
		items[name] = h.Sum64()
		return true
	})
	return items
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

func describeDiff(added, removed, changed []string) string {
	var parts []string
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
		parts = append(parts, d.what+": "+strings.Join(names, ", ")+more)
	}
	return strings.Join(parts, "; ")
}
