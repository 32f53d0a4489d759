package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// DiffNeeds is what Diff needs kept of each session: the frames (what became of
// each request and notification), the methods used and what the server listed.
var DiffNeeds = Needs{Frames: true, Lists: true, Uses: true}

// Compared is one side of a diff: what the analysis kept of one session and the
// findings the rules reported on it.
type Compared struct {
	Trace    *Trace
	Findings []rule.Finding
}

// Diff is the comparison of two sessions, A (say, one that worked) and B (one
// that failed): their contracts, what the server listed, how each behaved, and
// the findings of one that the other does not have. Computed once by the
// analysis; the views only render it.
type Diff struct {
	A DiffSide `json:"a"`
	B DiffSide `json:"b"`
	// Contract lists the contract's fields that differ: era, revision requested,
	// answered and negotiated, the verdict, each side's implementation.
	Contract []FieldChange `json:"contract"`
	// Capabilities lists each capability declared on one side and not the other.
	Capabilities []CapabilityChange `json:"capabilities"`
	// Lists lists the tools, prompts, resources and templates added, removed or
	// changed (with how their schemas changed).
	Lists []ListChange `json:"lists"`
	// Behaviour lists the counts that differ: methods used, notifications sent
	// and reacted to, requests left unanswered, error codes.
	Behaviour []CountChange `json:"behaviour"`
	// OnlyA and OnlyB are the findings (by fingerprint) of one side only.
	OnlyA []DiffFinding `json:"onlyA"`
	OnlyB []DiffFinding `json:"onlyB"`
	// NewErrors counts B's error findings that A does not have.
	NewErrors int `json:"newErrors"`
	// Notes say what could not be compared.
	Notes []string `json:"notes"`
	// Redacted is set once --redact was applied (report.RedactDiff).
	Redacted bool `json:"-"`
}

// DiffSide names one compared session.
type DiffSide struct {
	Input    string `json:"input"`
	Session  int    `json:"session"` // numbered from 1
	Sessions int    `json:"sessions"`
	Client   string `json:"client"`
	Server   string `json:"server"`
	Frames   int    `json:"frames"`
	Findings int    `json:"findings"`
}

// FieldChange is one field of the contract that differs.
type FieldChange struct {
	Field string `json:"field"`
	A     string `json:"a"`
	B     string `json:"b"`
}

// CapabilityChange is a capability declared by a side in one session only.
type CapabilityChange struct {
	Side string `json:"side"`
	Path string `json:"path"`
	// A and B say "declared", "not declared" or "unknown" (the declaration is
	// not in the capture).
	A string `json:"a"`
	B string `json:"b"`
}

// ListChange is a listed item added in B, removed from it, or changed.
type ListChange struct {
	Kind    string   `json:"kind"` // the list method: tools/list, prompts/list, ...
	Name    string   `json:"name"`
	Change  string   `json:"change"` // added, removed, changed
	Details []string `json:"details,omitempty"`
}

// CountChange is one behaviour counted differently in A and B.
type CountChange struct {
	// What is counted: "method c2s tools/call", "notification s2c
	// notifications/tools/list_changed reacted to", "unanswered tools/call",
	// "error -32601 for logging/setLevel".
	Aspect string `json:"aspect"`
	What   string `json:"what"`
	A      int    `json:"a"`
	B      int    `json:"b"`
}

// DiffFinding is a finding of one side only.
type DiffFinding struct {
	Rule        string `json:"rule"`
	Name        string `json:"name"`
	Severity    string `json:"severity"`
	Message     string `json:"message"`
	Line        int    `json:"line"`
	Fingerprint string `json:"fingerprint"`
	// Values are the captured values Message quotes (rule.Finding.Values), for
	// --redact; never written.
	Values []rule.Value `json:"-"`
}

// SideOf names a compared session (sessions counts the sessions of its input).
func SideOf(c Compared, sessions int) DiffSide {
	v := c.Trace.Session
	return DiffSide{Input: v.Input, Session: v.Index + 1, Sessions: sessions, Client: peerText(v.Client), Server: peerText(v.Server),
		Frames: v.Frames, Findings: len(c.Findings)}
}

func peerText(p Peer) string {
	s := strings.TrimSpace(p.Name + " " + p.Version)
	if s == "" {
		return "(unknown)"
	}
	return s
}

// DiffSessions compares session a with session b.
func DiffSessions(a, b Compared, sidesA, sidesB DiffSide) *Diff {
	d := &Diff{A: sidesA, B: sidesB, Contract: []FieldChange{}, Capabilities: []CapabilityChange{}, Lists: []ListChange{},
		Behaviour: []CountChange{}, OnlyA: []DiffFinding{}, OnlyB: []DiffFinding{}, Notes: []string{}}
	va, vb := a.Trace.Session, b.Trace.Session
	field := func(name, x, y string) {
		if x != y {
			d.Contract = append(d.Contract, FieldChange{Field: name, A: orNone(x), B: orNone(y)})
		}
	}
	field("era", va.Era, vb.Era)
	field("revision requested", va.Requested, vb.Requested)
	field("revision answered", va.Answered, vb.Answered)
	field("revision negotiated", string(va.Revision), string(vb.Revision))
	field("negotiation", va.Verdict, vb.Verdict)
	field("client", peerText(va.Client), peerText(vb.Client))
	field("server", peerText(va.Server), peerText(vb.Server))
	for _, side := range []struct {
		name string
		s    DiffSide
	}{{"A", sidesA}, {"B", sidesB}} {
		if side.s.Sessions > 1 {
			d.Notes = append(d.Notes, fmt.Sprintf("%s holds %d sessions; session %d was compared (CAPTURE#N picks another)", side.name, side.s.Sessions, side.s.Session))
		}
	}
	if !va.HasContract || !vb.HasContract {
		d.Notes = append(d.Notes, "a session without a contract (no handshake, no modern request): its capabilities are unknown")
	}
	for _, side := range []spec.Side{spec.Client, spec.Server} {
		d.Capabilities = append(d.Capabilities, capabilityChanges(side, peerOfSide(va, side).Capabilities, peerOfSide(vb, side).Capabilities)...)
	}
	d.Lists = listChanges(a.Trace.Lists, b.Trace.Lists)
	if a.Trace.ListsOmitted > 0 || b.Trace.ListsOmitted > 0 {
		d.Notes = append(d.Notes, "a session listed more items than are kept per kind: the lists were compared in part")
	}
	if a.Trace.Capped || b.Trace.Capped {
		d.Notes = append(d.Notes, "a session is longer than the frames the analysis keeps: its behaviour was counted in part")
	}
	d.Behaviour = countChanges(behaviour(a.Trace), behaviour(b.Trace))
	d.OnlyA, _ = findingsOnly(a.Findings, b.Findings)
	var newErrors int
	d.OnlyB, newErrors = findingsOnly(b.Findings, a.Findings)
	d.NewErrors = newErrors
	return d
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func peerOfSide(v SessionView, side spec.Side) Peer {
	if side == spec.Client {
		return v.Client
	}
	return v.Server
}

// capabilityPaths lists what a capability object declares: each top-level
// capability, and each member of it set to true (tools.listChanged) or holding an
// object (sampling.tools, tasks.requests); nil when the object is unknown.
func capabilityPaths(raw json.RawMessage) map[string]bool {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	caps, err := frame.Parse(raw)
	if err != nil {
		return nil
	}
	out := map[string]bool{}
	each(caps, func(k string, v frame.Node) bool {
		out[k] = true
		for sk, sv := range v.Members {
			if sv.Kind() == 't' || sv.IsObject() {
				out[k+"."+sk] = true
			}
		}
		return true
	})
	return out
}

func capabilityChanges(side spec.Side, a, b json.RawMessage) []CapabilityChange {
	pa, pb := capabilityPaths(a), capabilityPaths(b)
	state := func(paths map[string]bool, p string) string {
		switch {
		case paths == nil:
			return "unknown"
		case paths[p]:
			return "declared"
		}
		return "not declared"
	}
	all := map[string]bool{}
	for p := range pa {
		all[p] = true
	}
	for p := range pb {
		all[p] = true
	}
	var out []CapabilityChange
	for _, p := range sortedKeys(all) {
		if x, y := state(pa, p), state(pb, p); x != y {
			out = append(out, CapabilityChange{Side: side.String(), Path: p, A: x, B: y})
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// listChanges compares what the servers listed.
func listChanges(a, b []ListedItem) []ListChange {
	key := func(it ListedItem) string { return it.Kind + "\x00" + it.Name }
	ia, ib := map[string]ListedItem{}, map[string]ListedItem{}
	for _, it := range a {
		ia[key(it)] = it
	}
	for _, it := range b {
		ib[key(it)] = it
	}
	out := []ListChange{}
	for _, it := range a {
		if _, ok := ib[key(it)]; !ok {
			out = append(out, ListChange{Kind: it.Kind, Name: it.Name, Change: "removed"})
		}
	}
	for _, it := range b {
		old, ok := ia[key(it)]
		switch {
		case !ok:
			out = append(out, ListChange{Kind: it.Kind, Name: it.Name, Change: "added"})
		case !sameJSON(old.Definition, it.Definition):
			out = append(out, ListChange{Kind: it.Kind, Name: it.Name, Change: "changed", Details: definitionChanges(old.Definition, it.Definition)})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind < out[j].Kind
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// sameJSON compares two JSON values whatever the order of their members.
func sameJSON(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ca, _ := json.Marshal(x) // map keys sorted
	cb, _ := json.Marshal(y)
	return bytes.Equal(ca, cb)
}

// definitionChanges says how a listed item changed: its schemas property by
// property, a prompt's arguments, and every other member that differs. A
// definition that is not JSON (one cut at maxDefinition) has no members to compare.
func definitionChanges(a, b []byte) []string {
	ga, _ := frame.Parse(a)
	gb, _ := frame.Parse(b)
	var out []string
	members := map[string]bool{}
	each(ga, func(k string, _ frame.Node) bool { members[k] = true; return true })
	each(gb, func(k string, _ frame.Node) bool { members[k] = true; return true })
	for _, m := range sortedKeys(members) {
		x, y := child(ga, m), child(gb, m)
		if sameJSON(x.Raw(), y.Raw()) && x.Exists() == y.Exists() {
			continue
		}
		switch {
		case !x.Exists():
			out = append(out, m+" added")
		case !y.Exists():
			out = append(out, m+" removed")
		case m == "inputSchema" || m == "outputSchema":
			out = append(out, schemaChanges(m, x, y, 0)...)
		case m == "arguments":
			out = append(out, argumentChanges(x, y)...)
		default:
			out = append(out, m+" changed")
		}
	}
	return out
}

// maxSchemaDepth bounds how deep schemaChanges follows nested properties.
const maxSchemaDepth = 4

// schemaKeywords are the keywords of a property compared one by one.
var schemaKeywords = []string{"type", "format", "pattern", "enum", "const", "minimum", "maximum", "minLength", "maxLength", "default", "items", "additionalProperties", "description"}

// schemaChanges compares two JSON schemas: properties added, removed or changed
// (by keyword), required members added or removed.
func schemaChanges(path string, a, b frame.Node, depth int) []string {
	var out []string
	pa, pb := child(a, "properties"), child(b, "properties")
	names := map[string]bool{}
	each(pa, func(k string, _ frame.Node) bool { names[k] = true; return true })
	each(pb, func(k string, _ frame.Node) bool { names[k] = true; return true })
	for _, n := range sortedKeys(names) {
		x, y := child(pa, n), child(pb, n)
		where := fmt.Sprintf("%s property %q", path, n)
		switch {
		case !x.Exists():
			out = append(out, where+" added")
		case !y.Exists():
			out = append(out, where+" removed")
		case !sameJSON(x.Raw(), y.Raw()):
			for _, kw := range schemaKeywords {
				kx, ky := child(x, kw), child(y, kw)
				if kx.Exists() == ky.Exists() && sameJSON(kx.Raw(), ky.Raw()) {
					continue
				}
				out = append(out, fmt.Sprintf("%s %s %s → %s", where, kw, rawOr(kx), rawOr(ky)))
			}
			if depth < maxSchemaDepth {
				out = append(out, schemaChanges(path+"."+n, x, y, depth+1)...)
			}
		}
	}
	ra, rb := stringSet(child(a, "required")), stringSet(child(b, "required"))
	for _, n := range sortedKeys(rb) {
		if !ra[n] {
			out = append(out, fmt.Sprintf("%s requires %q now", path, n))
		}
	}
	for _, n := range sortedKeys(ra) {
		if !rb[n] {
			out = append(out, fmt.Sprintf("%s no longer requires %q", path, n))
		}
	}
	if depth == 0 && len(out) == 0 {
		out = append(out, path+" changed")
	}
	return out
}

func rawOr(r frame.Node) string {
	if !r.Exists() {
		return "(none)"
	}
	s := string(r.Raw())
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

func stringSet(r frame.Node) map[string]bool {
	out := map[string]bool{}
	each(r, func(_ string, v frame.Node) bool { out[v.Text()] = true; return true })
	return out
}

// argumentChanges compares a prompt's arguments by name.
func argumentChanges(a, b frame.Node) []string {
	byName := func(r frame.Node) map[string]frame.Node {
		out := map[string]frame.Node{}
		each(r, func(_ string, v frame.Node) bool { out[child(v, "name").Text()] = v; return true })
		return out
	}
	ma, mb := byName(a), byName(b)
	var out []string
	names := map[string]bool{}
	for n := range ma {
		names[n] = true
	}
	for n := range mb {
		names[n] = true
	}
	for _, n := range sortedKeys(names) {
		x, okx := ma[n]
		y, oky := mb[n]
		switch {
		case !okx:
			out = append(out, fmt.Sprintf("argument %q added", n))
		case !oky:
			out = append(out, fmt.Sprintf("argument %q removed", n))
		case child(x, "required").Truthy() != child(y, "required").Truthy():
			out = append(out, fmt.Sprintf("argument %q required %v → %v", n, child(x, "required").Truthy(), child(y, "required").Truthy()))
		case !sameJSON(x.Raw(), y.Raw()):
			out = append(out, fmt.Sprintf("argument %q changed", n))
		}
	}
	return out
}

// counted is a behaviour count: its aspect and what.
type counted struct{ aspect, what string }

// behaviour counts what a session did: methods used by direction, notifications
// sent, reacted to and left without the reaction they asked for, requests left
// unanswered, error codes by method.
func behaviour(t *Trace) map[counted]int {
	out := map[counted]int{}
	for _, u := range t.Uses {
		out[counted{"method", u.Dir.String() + " " + u.Method}] += u.Count
	}
	for _, fs := range t.Frames {
		if fs.Context || fs.Gap > 0 {
			continue
		}
		switch {
		case fs.Kind == KindNotification && fs.Reaction != nil && fs.Reaction.Expected != "":
			r := fs.Reaction
			switch {
			case r.Line > 0:
				out[counted{"notification reacted to", fs.Method}]++
			case r.Missing() || r.Dropped():
				out[counted{"notification without reaction", fs.Method}]++
			}
		case fs.Kind == KindRequest && fs.Unanswered && !fs.LongLived:
			out[counted{"unanswered request", fs.Method}]++
		case fs.Kind == KindError:
			out[counted{"error response", fmt.Sprintf("%d for %s", fs.ErrorCode, orNone(fs.Method))}]++
		}
	}
	return out
}

// aspectOrder sorts the behaviour changes.
var aspectOrder = map[string]int{"method": 0, "notification reacted to": 1, "notification without reaction": 2, "unanswered request": 3, "error response": 4}

func countChanges(a, b map[counted]int) []CountChange {
	all := map[counted]bool{}
	for k := range a {
		all[k] = true
	}
	for k := range b {
		all[k] = true
	}
	out := []CountChange{}
	for k := range all {
		if a[k] != b[k] {
			out = append(out, CountChange{Aspect: k.aspect, What: k.what, A: a[k], B: b[k]})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Aspect != out[j].Aspect {
			return aspectOrder[out[i].Aspect] < aspectOrder[out[j].Aspect]
		}
		return out[i].What < out[j].What
	})
	return out
}

// findingsOnly lists the findings of mine whose fingerprints other does not
// have (as many times as mine has them more), and counts the errors among them.
func findingsOnly(mine, other []rule.Finding) ([]DiffFinding, int) {
	left := map[string]int{}
	for _, f := range other {
		left[f.Fingerprint]++
	}
	out := []DiffFinding{}
	errors := 0
	for _, f := range mine {
		if left[f.Fingerprint] > 0 {
			left[f.Fingerprint]--
			continue
		}
		out = append(out, DiffFinding{Rule: f.Rule, Name: f.Name, Severity: f.Severity.String(), Message: f.Message, Line: f.Line, Fingerprint: f.Fingerprint, Values: f.Values})
		if f.Severity == rule.SeverityError {
			errors++
		}
	}
	return out, errors
}
