package rules

import (
	"fmt"
	"slices"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// ChangeNotRefetched reports a declared list_changed notification after which the
// client never listed that kind again.
var ChangeNotRefetched = &rule.Rule{
	ID:       "MCP2007",
	Name:     "change-not-refetched",
	Severity: rule.SeverityInfo,
	Title:    "The client received a declared list_changed and never listed again",
	Anchor:   "the first list_changed notification the client did not react to",
	Hint:     "on notifications/<kind>/list_changed, call <kind>/list again (tools/list, prompts/list, resources/list) and replace the cached list: the notification carries no data of its own",
	Doc: rule.Doc{
		Sees: "A notifications/tools/list_changed, notifications/prompts/list_changed or notifications/resources/list_changed " +
			"from a server that declared the matching `listChanged`, followed by no tools/list, prompts/list or resources/list " +
			"(resources/templates/list also counts for resources) from the client before the session ends. A list request " +
			"sent before the notification does not count, even if its result arrives after it. A client that never listed " +
			"that kind before the notification holds no list that could be stale (servers often announce what they " +
			"register at start-up before the client first asks): the rule does not report it. When the capture ends less " +
			"than one second after the notification (or, without timestamps, right after it), the client had no time to " +
			"react and the rule says it cannot judge instead of reporting. Info: re-listing is what the notification is for, " +
			"but the spec does not oblige the client to do it at once.",
		Why: "list_changed carries no data: it only says the list the client holds is stale. A client that ignores it keeps " +
			"offering the model tools that are gone and never offers the new ones, which looks like a server bug (\"my new " +
			"tool never shows up\") although the server did its part. This is the usual cause when a server change is " +
			"announced correctly but a host only picks it up after a restart.",
		Fix: "Handle the notification in the client: on notifications/<kind>/list_changed call <kind>/list again (follow " +
			"nextCursor to the end) and replace the cached list; under 2026-07-28, open subscriptions/listen with the matching " +
			"flag so the notification arrives at all.",
		Bad: `{"id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true}},...}}
{"id":1,"method":"tools/list"}
{"id":1,"result":{"tools":[...]}}
{"method":"notifications/tools/list_changed"}
{"id":2,"method":"tools/call","params":{"name":"old_tool",...}}
(no tools/list until the end)`,
		Good: `{"id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true}},...}}
{"id":1,"method":"tools/list"}
{"id":1,"result":{"tools":[...]}}
{"method":"notifications/tools/list_changed"}
{"id":2,"method":"tools/list"}
{"id":2,"result":{"tools":[...]}}`,
		Spec: []rule.SpecRef{
			{Revision: spec.Rev20250618, Page: "server/tools#list-changed-notification", Says: "servers that declared listChanged SHOULD send notifications/tools/list_changed when the list changes; the message flow shows the client answering it with tools/list"},
			{Revision: spec.Rev20250618, Page: "server/prompts#list-changed-notification", Says: "the same for prompts"},
			{Revision: spec.Rev20250618, Page: "server/resources#list-changed-notification", Says: "the same for resources"},
			{Revision: spec.Rev20260728, Page: "server/tools#list-changed-notification", Says: "the notification arrives on a subscriptions/listen stream; the message flow shows the client listing again after it"},
		},
	},
	Requires: []*rule.Analysis{Reactions},
	New:      func() rule.Checker { return &refetchWatch{} },
	// The methods it looks at (the engine asks it about no other message).
	Methods: []string{"notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed"},
}

// refetchKinds are the list kinds whose change a client should re-fetch: the
// server's lists of spec.ListChanges (a server owes nothing to roots/list_changed
// that this rule judges).
var refetchKinds = [...]string{"tools", "prompts", "resources"}

// refetchWatch reports what Reactions found: the rule judges nothing itself.
type refetchWatch struct{}

func (*refetchWatch) Message(p *rule.Pass, m *session.Message) {
	if m.Kind != frame.KindNotification || m.Dir == spec.C2S {
		return
	}
	r := p.ResultOf(Reactions).(*ReactionLog).Current()
	if r == nil || r.Cannot == "" {
		return
	}
	if lc, ok := spec.ListChangeOf(m.Method); ok && slices.Contains(refetchKinds[:], lc.Kind) {
		reason := r.Cannot // one of reasons.go's, set by Reactions
		p.CannotJudge(reason)
	}
}

func (*refetchWatch) End(p *rule.Pass) {
	s := p.Session
	for _, run := range p.ResultOf(Reactions).(*ReactionLog).Ended() {
		if !run.Owed || run.from != spec.C2S || !slices.Contains(refetchKinds[:], run.Kind) {
			continue
		}
		if reason := run.Cannot; reason != "" { // one of reasons.go's, set by Reactions
			p.CannotJudge(reason)
			continue
		}
		if !run.Missing() {
			continue
		}
		kind, a := run.Kind, run.First
		times := ""
		if run.Count > 1 {
			times = fmt.Sprintf(" (and %d more after it)", run.Count-1)
		}
		p.Report(a, rule.Sprintf("the client received notifications/%s/list_changed at line %d%s and never sent %s/list again; %s: it may be working from a stale %s list",
			kind, a.Line, times, kind, sessionEndAfter(s, a.Line, a.Time), kind))
	}
}
