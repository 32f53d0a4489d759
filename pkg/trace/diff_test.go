package trace_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// compared analyses a capture with every rule and keeps its first session as
// the diff needs it.
func compared(t *testing.T, name, capture string) (trace.Compared, trace.DiffSide) {
	t.Helper()
	tr := trace.New(trace.Options{Needs: trace.DiffNeeds})
	ropt := driver.RunOptions{}
	tr.Apply(&ropt)
	res, err := driver.Run(name, strings.NewReader(capture), rules.All(), ropt)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sessions) == 0 {
		t.Fatalf("%s: no session", name)
	}
	sr := res.Sessions[0]
	c := trace.Compared{Trace: tr.Of(sr), Findings: sr.Findings}
	return c, trace.SideOf(c, len(res.Sessions))
}

func comparedFile(t *testing.T, path string) (trace.Compared, trace.DiffSide) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return compared(t, path, string(b))
}

func rulesOf(fs []trace.DiffFinding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Rule)
	}
	return out
}

// TestDiffRealPair: the same client and server, once without tools.listChanged
// (the list grows, no promise broken) and once with it (the list changes
// silently, MCP2005). The diff names the capability, the tools listed on one
// side only, and the new error.
func TestDiffRealPair(t *testing.T) {
	good, goodSide := comparedFile(t, "../../fixtures/real/ts-client-mcpgo-server-tools-change-undeclared.jsonl")
	bad, badSide := comparedFile(t, "../../fixtures/real/ts-client-mcpgo-server-tools-silent-change.jsonl")
	d := trace.DiffSessions(good, bad, goodSide, badSide)
	want := trace.CapabilityChange{Side: "server", Path: "tools.listChanged", A: "not declared", B: "declared"}
	if !slices.Contains(d.Capabilities, want) || len(d.Capabilities) != 1 {
		t.Errorf("capabilities: %+v, want only %+v", d.Capabilities, want)
	}
	if len(d.Contract) != 0 {
		t.Errorf("contract fields differ: %+v (the same revision and implementations)", d.Contract)
	}
	for _, c := range []trace.ListChange{{Kind: "tools/list", Name: "hidden-tool", Change: "added"}, {Kind: "tools/list", Name: "late-tool", Change: "removed"}} {
		if !slices.ContainsFunc(d.Lists, func(l trace.ListChange) bool { return l.Kind == c.Kind && l.Name == c.Name && l.Change == c.Change }) {
			t.Errorf("lists: %+v, want %+v", d.Lists, c)
		}
	}
	if got := rulesOf(d.OnlyB); !slices.Equal(got, []string{"MCP2005"}) || d.NewErrors != 1 || len(d.OnlyA) != 0 {
		t.Errorf("only in B: %v, only in A: %v, new errors %d; want MCP2005 only in B, one new error", got, rulesOf(d.OnlyA), d.NewErrors)
	}
	back := trace.DiffSessions(bad, good, badSide, goodSide)
	if back.NewErrors != 0 || !slices.Equal(rulesOf(back.OnlyA), []string{"MCP2005"}) {
		t.Errorf("reversed: new errors %d, only in A %v", back.NewErrors, rulesOf(back.OnlyA))
	}
	same := trace.DiffSessions(good, good, goodSide, goodSide)
	if len(same.Contract)+len(same.Capabilities)+len(same.Lists)+len(same.Behaviour)+len(same.OnlyA)+len(same.OnlyB) != 0 {
		t.Errorf("a session against itself differs: %+v", same)
	}
}

const diffBefore = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true},"prompts":{},"logging":{}},"serverInfo":{"name":"s","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":1,"method":"tools/list"}
{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"search","inputSchema":{"type":"object","properties":{"q":{"type":"string"},"date":{"type":"string","format":"date"},"page":{"type":"integer"}},"required":["q"]}},{"name":"old","inputSchema":{"type":"object"}}]}}
{"jsonrpc":"2.0","id":2,"method":"prompts/list"}
{"jsonrpc":"2.0","id":2,"result":{"prompts":[{"name":"summary","arguments":[{"name":"topic","required":true}]}]}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"q":"x"}}}
{"jsonrpc":"2.0","id":3,"result":{"content":[]}}
{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}
{"jsonrpc":"2.0","id":4,"method":"tools/list"}
{"jsonrpc":"2.0","id":4,"result":{"tools":[{"name":"search","inputSchema":{"type":"object","properties":{"q":{"type":"string"},"date":{"type":"string","format":"date"},"page":{"type":"integer"}},"required":["q"]}},{"name":"old","inputSchema":{"type":"object"}}]}}
`

const diffAfter = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"2"}}}
{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{},"prompts":{}},"serverInfo":{"name":"s","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":1,"method":"tools/list"}
{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"search","inputSchema":{"type":"object","properties":{"q":{"type":"string"},"date":{"type":"string","format":"date-time"},"limit":{"type":"integer"}},"required":["q","limit"]}},{"name":"new","inputSchema":{"type":"object"}}]}}
{"jsonrpc":"2.0","id":2,"method":"prompts/list"}
{"jsonrpc":"2.0","id":2,"result":{"prompts":[{"name":"summary","arguments":[{"name":"topic","required":false},{"name":"tone"}]}]}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"q":"x"}}}
{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"limit is required"}}
{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}
{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"new","arguments":{}}}
`

// TestDiffContractListsBehaviour: the revisions, a capability each side lost,
// schemas changed property by property (a format, a property added and one
// removed, a member now required), a prompt's arguments, and behaviour (an error
// code, a request left unanswered, a list_changed acted on in A and not in B)
// are all named.
func TestDiffContractListsBehaviour(t *testing.T) {
	a, sa := compared(t, "before.jsonl", diffBefore)
	b, sb := compared(t, "after.jsonl", diffAfter)
	d := trace.DiffSessions(a, b, sa, sb)
	for _, want := range []trace.FieldChange{{Field: "revision requested", A: "2025-06-18", B: "2025-11-25"}, {Field: "negotiation", A: "echoed", B: "downgraded"}, {Field: "client", A: "c 1", B: "c 2"}} {
		if !slices.Contains(d.Contract, want) {
			t.Errorf("contract: %+v lacks %+v", d.Contract, want)
		}
	}
	for _, want := range []trace.CapabilityChange{{Side: "client", Path: "roots", A: "declared", B: "not declared"}, {Side: "client", Path: "roots.listChanged", A: "declared", B: "not declared"},
		{Side: "server", Path: "logging", A: "declared", B: "not declared"}} {
		if !slices.Contains(d.Capabilities, want) {
			t.Errorf("capabilities: %+v lacks %+v", d.Capabilities, want)
		}
	}
	details := map[string][]string{}
	for _, l := range d.Lists {
		details[l.Kind+" "+l.Name+" "+l.Change] = l.Details
	}
	if _, ok := details["tools/list old removed"]; !ok {
		t.Errorf("lists: %+v, want old removed", d.Lists)
	}
	if _, ok := details["tools/list new added"]; !ok {
		t.Errorf("lists: %+v, want new added", d.Lists)
	}
	wantSearch := []string{`inputSchema property "date" format "date" → "date-time"`, `inputSchema property "limit" added`, `inputSchema property "page" removed`, `inputSchema requires "limit" now`}
	if got := details["tools/list search changed"]; !slices.Equal(got, wantSearch) {
		t.Errorf("search changed: %q, want %q", got, wantSearch)
	}
	wantSummary := []string{`argument "tone" added`, `argument "topic" required true → false`}
	if got := details["prompts/list summary changed"]; !slices.Equal(got, wantSummary) {
		t.Errorf("summary changed: %q, want %q", got, wantSummary)
	}
	for _, want := range []trace.CountChange{{Aspect: "error response", What: "-32602 for tools/call", A: 0, B: 1}, {Aspect: "unanswered request", What: "tools/call", A: 0, B: 1},
		{Aspect: "method", What: "c2s tools/call", A: 1, B: 2},
		{Aspect: "notification reacted to", What: "notifications/tools/list_changed", A: 1, B: 0},
		{Aspect: "notification without reaction", What: "notifications/tools/list_changed", A: 0, B: 1}} {
		if !slices.Contains(d.Behaviour, want) {
			t.Errorf("behaviour: %+v lacks %+v", d.Behaviour, want)
		}
	}
}
