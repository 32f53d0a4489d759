package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// InstructionsTokenBudget is the estimated size above which instructions are
// flagged: they are paid on every turn.
const InstructionsTokenBudget = session.InstructionsTokenBudget

// Handshake is the negotiated contract of one session, spelled out: the revision
// verdict, both declarations, who may send each gated message, the promises made,
// what the revision lacks, and what the instructions cost.
type Handshake struct {
	Input     string `json:"input"`
	Session   int    `json:"session"`
	StreamKey string `json:"streamKey"`
	Era       string `json:"era"`

	Requested  string `json:"requested"`
	Answered   string `json:"answered"`
	Negotiated string `json:"negotiated"`
	Verdict    string `json:"verdict"`
	Explained  string `json:"explanation"`

	Client       Peer         `json:"client"`
	Server       Peer         `json:"server"`
	ClientLine   int          `json:"clientLine"`
	ServerLine   int          `json:"serverLine"`
	Permissions  []Permission `json:"permissions"`
	Promises     []Promise    `json:"promises"`
	Lacking      []Lack       `json:"lacking"`
	Instructions Instructions `json:"instructions"`
}

// Permission says whether a capability-gated message may be sent in this session.
type Permission struct {
	Method  string `json:"method"`
	Kind    string `json:"kind"`
	Sender  string `json:"sender"`
	Needs   string `json:"needs"`
	Allowed bool   `json:"allowed"`
	Why     string `json:"why,omitempty"`
}

// Promise is a declared capability and what it now obliges its declarer to do.
type Promise struct {
	Side       string `json:"side"`
	Capability string `json:"capability"`
	Must       string `json:"must"`
}

// Lack is a feature the governing revision removed or does not have.
type Lack struct {
	Feature string `json:"feature"`
	Detail  string `json:"detail"`
}

// Instructions measures the instructions string.
type Instructions struct {
	Present         bool `json:"present"`
	Bytes           int  `json:"bytes"`
	EstimatedTokens int  `json:"estimatedTokens"`
	OverBudget      bool `json:"overBudget"`
}

// BuildHandshake spells out the contract of a session.
func BuildHandshake(s *session.Session) (*Handshake, bool) {
	c := s.Contract()
	if c == nil {
		return nil, false
	}
	h := &Handshake{Input: s.Input, Session: s.Index, StreamKey: s.StreamKey, Era: c.Era.String(),
		Requested: c.Requested, Answered: c.Answered, Negotiated: string(c.Revision), Verdict: c.Verdict.String(),
		Client:     Peer{Name: c.Client.Name, Version: c.Client.Version, Capabilities: rawOrNull(c.ClientCaps)},
		Server:     Peer{Name: c.Server.Name, Version: c.Server.Version, Capabilities: rawOrNull(c.ServerCaps)},
		ClientLine: c.RequestLine, ServerLine: c.ServerCapsLine,
		Permissions: []Permission{}, Promises: []Promise{}, Lacking: []Lack{}}
	h.Explained = explainVerdict(c)
	if c.Era == session.EraModern {
		h.Verdict = "per request"
	}
	rev := c.Revision
	if rev != "" {
		h.Permissions = permissions(c, rev)
		h.Promises = promises(c, rev)
		h.Lacking = lacking(c, rev)
	}
	if c.Instructions != "" {
		n := len(c.Instructions)
		tokens := session.EstimateTokens(c.Instructions)
		h.Instructions = Instructions{Present: true, Bytes: n, EstimatedTokens: tokens, OverBudget: tokens > InstructionsTokenBudget}
	}
	return h, true
}

func explainVerdict(c *session.Contract) string {
	switch c.Verdict {
	case session.VerdictEchoed:
		if c.Era == session.EraModern {
			return fmt.Sprintf("stateless: every request carries its own protocolVersion (latest seen: %s)", c.Requested)
		}
		return fmt.Sprintf("the server echoed the revision the client requested (%s)", c.Requested)
	case session.VerdictDowngraded:
		return fmt.Sprintf("the client requested %s and the server answered the older %s: negotiation working as designed; the client must not use anything added after %s", c.Requested, c.Answered, c.Answered)
	case session.VerdictNotOffered:
		return fmt.Sprintf("the client requested %s and the server answered %s, a newer revision the client never offered: a negotiation bug in the server (it must echo a supported request or answer an older revision)", c.Requested, c.Answered)
	case session.VerdictUnknown:
		return fmt.Sprintf("requested %q, answered %q: not both published revisions", c.Requested, c.Answered)
	case session.VerdictFailed:
		return fmt.Sprintf("initialize was answered with an error (line %d): no session", c.ErrorLine)
	}
	return "initialize was never answered in the capture"
}

func permissions(c *session.Contract, rev spec.Revision) []Permission {
	var out []Permission
	for _, m := range spec.Methods() {
		if !m.In(rev) || m.Gate.None() || m.Gate.Extension != "" {
			continue
		}
		p := Permission{Method: m.Name, Kind: m.Kind.String(), Sender: spec.Sender(m.Dir).String(), Needs: m.Gate.String()}
		declared, known := c.Declares(m.Gate.Side, m.Gate.Path, m.Gate.Boolean())
		switch {
		case !known:
			p.Why = "the " + m.Gate.Side.String() + "'s capabilities are not in the capture"
		case declared:
			p.Allowed = true
		default:
			p.Why = notDeclared(c, m.Gate)
		}
		if m.Kind == spec.KindInputRequest {
			p.Kind = "input request (inside InputRequiredResult)"
		}
		out = append(out, p)
	}
	return out
}

func notDeclared(c *session.Contract, g spec.Gate) string {
	top, sub, hasSub := strings.Cut(g.Path, ".")
	if declared, _ := c.Declares(g.Side, top, false); hasSub && declared {
		return fmt.Sprintf("the %s declared %s without %s", g.Side, top, sub)
	}
	return fmt.Sprintf("the %s declared no %s", g.Side, top)
}

// obligations says what each declared capability commits its declarer to.
var obligations = map[string]string{
	"server.tools":                 "answer tools/list and tools/call",
	"server.tools.listChanged":     "send notifications/tools/list_changed whenever the tool list changes; clients may cache the list and never re-list on their own",
	"server.prompts":               "answer prompts/list and prompts/get",
	"server.prompts.listChanged":   "send notifications/prompts/list_changed whenever the prompt list changes",
	"server.resources":             "answer resources/list, resources/templates/list and resources/read",
	"server.resources.listChanged": "send notifications/resources/list_changed whenever the resource list changes",
	"server.resources.subscribe":   "implement resources/subscribe and resources/unsubscribe, and send notifications/resources/updated when a subscribed resource changes",
	"server.logging":               "accept logging/setLevel (legacy) and send logs only as notifications/message",
	"server.completions":           "answer completion/complete",
	"client.roots":                 "answer roots/list with the roots the server may work in",
	"client.roots.listChanged":     "send notifications/roots/list_changed whenever the roots change",
	"client.sampling":              "answer sampling/createMessage (with a human able to approve it)",
	"client.sampling.tools":        "accept tools and toolChoice in sampling/createMessage",
	"client.sampling.context":      "honour includeContext thisServer/allServers",
	"client.elicitation":           "answer elicitation/create (form mode when the object is empty)",
	"client.elicitation.url":       "handle URL-mode elicitation",
}

func promises(c *session.Contract, rev spec.Revision) []Promise {
	var out []Promise
	for _, capa := range spec.Capabilities() {
		if !capa.In(rev) || strings.HasPrefix(capa.Path, "experimental") || capa.Path == "extensions" {
			continue
		}
		boolean := capa.Type == "boolean"
		declared, known := c.Declares(capa.Side, capa.Path, boolean)
		if !known || !declared {
			continue
		}
		key := capa.Side.String() + "." + capa.Path
		must, ok := obligations[key]
		if !ok {
			if capa.Gates == "" || strings.HasPrefix(capa.Gates, "none") {
				continue
			}
			must = "support " + capa.Gates
		}
		out = append(out, Promise{Side: capa.Side.String(), Capability: capa.Path, Must: must})
	}
	return out
}

// fieldFeatures are the message-level features that arrived with a revision.
var fieldFeatures = []struct {
	since  spec.Revision
	name   string
	detail string
}{
	{spec.Rev20250326, "audio content, tool annotations, progress messages", "added in 2025-03-26"},
	{spec.Rev20250618, "structured tool output (outputSchema, structuredContent)", "added in 2025-06-18"},
	{spec.Rev20250618, "resource_link content and title fields", "added in 2025-06-18"},
	{spec.Rev20250618, "MCP-Protocol-Version HTTP header", "required on HTTP from 2025-06-18"},
	{spec.Rev20251125, "icons, URL-mode elicitation, sampling with tools", "added in 2025-11-25"},
	{spec.Rev20260728, "resultType, ttlMs, cacheScope, server/discover, subscriptions/listen", "added in 2026-07-28"},
}

func lacking(c *session.Contract, rev spec.Revision) []Lack {
	var out []Lack
	switch {
	case rev.Batching():
	case rev == spec.Rev20241105:
		out = append(out, Lack{"JSON-RPC batching", "not defined in 2024-11-05 (2025-03-26 added it): send messages one by one"})
	default:
		out = append(out, Lack{"JSON-RPC batching", "removed in 2025-06-18: send messages one by one"})
	}
	// Methods that exist in the newest legacy revision (or the one the client asked
	// for) but not in the governing one.
	reference := spec.Rev20251125
	if req, ok := spec.ParseRevision(c.Requested); ok && rev.Before(req) {
		reference = req
	}
	seen := map[string]bool{}
	var names []string
	for _, m := range spec.Methods() {
		if m.Extension != "" || seen[m.Name] || m.In(rev) {
			continue
		}
		if m.In(reference) || (rev.Modern() && m.In(spec.Rev20251125)) {
			seen[m.Name] = true
			names = append(names, m.Name)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		why := "not in " + string(rev)
		if rev.Modern() {
			why = "removed in 2026-07-28"
		} else if revs := spec.RevisionsOf(n, dirOf(n)); len(revs) > 0 {
			why = fmt.Sprintf("not in %s (from %s)", rev, revs[0])
		}
		out = append(out, Lack{n, why})
	}
	for _, f := range fieldFeatures {
		if rev.Before(f.since) {
			out = append(out, Lack{f.name, f.detail})
		}
	}
	return out
}

func dirOf(method string) spec.Direction {
	for _, m := range spec.MethodRows(method) {
		return m.Dir
	}
	return spec.DirUnknown
}

// WriteHandshakeText renders handshakes for people.
func WriteHandshakeText(w io.Writer, hs []*Handshake, opt TextOptions) error {
	pal := NewPalette(opt.Color)
	var b bytes.Buffer
	for i, h := range hs {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s  %s  %s era\n", pal.Bold(fmt.Sprintf("Session %d", h.Session+1)), Safe(h.Input), h.Era)
		fmt.Fprintf(&b, "  client     %s  requested %s\n", peerName(h.Client), orDash(h.Requested))
		fmt.Fprintf(&b, "  server     %s  answered %s\n", peerName(h.Server), orDash(h.Answered))
		fmt.Fprintf(&b, "  negotiated %s: %s\n", pal.Bold(orDash(h.Negotiated)), Safe(h.Explained))
		fmt.Fprintf(&b, "\n  client capabilities %s\n", lineRef(h.ClientLine))
		writeIndentedJSON(&b, h.Client.Capabilities)
		fmt.Fprintf(&b, "  server capabilities %s\n", lineRef(h.ServerLine))
		writeIndentedJSON(&b, h.Server.Capabilities)
		if len(h.Permissions) > 0 {
			fmt.Fprintf(&b, "\n  %s\n", pal.Bold("Who may send what"))
			table := tablewriter.NewTable(&b, tablewriter.WithHeaderAutoFormat(tw.Off), tablewriter.WithRowAutoWrap(tw.WrapNormal),
				tablewriter.WithColumnWidths(tw.NewMapper[int, int]().Set(4, 48)))
			table.Header("METHOD", "KIND", "SENT BY", "NEEDS", "ALLOWED")
			for _, p := range h.Permissions {
				allowed := "yes"
				if !p.Allowed {
					allowed = pal.Bad("no") + ": " + p.Why
				}
				if err := table.Append(p.Method, p.Kind, p.Sender, p.Needs, allowed); err != nil {
					return fmt.Errorf("mcpsleuth: building the permissions table: %w", err)
				}
			}
			if err := table.Render(); err != nil {
				return fmt.Errorf("mcpsleuth: rendering the permissions table: %w", err)
			}
		}
		fmt.Fprintf(&b, "\n  %s\n", pal.Bold("Promises made"))
		if len(h.Promises) == 0 {
			b.WriteString("  none\n")
		}
		for _, p := range h.Promises {
			fmt.Fprintf(&b, "  %-7s %-28s must %s\n", p.Side, p.Capability, p.Must)
		}
		fmt.Fprintf(&b, "\n  %s\n", pal.Bold("Not in this revision"))
		if len(h.Lacking) == 0 {
			b.WriteString("  nothing\n")
		}
		for _, l := range h.Lacking {
			fmt.Fprintf(&b, "  %-40s %s\n", l.Feature, l.Detail)
		}
		in := h.Instructions
		switch {
		case !in.Present:
			fmt.Fprintf(&b, "\n  instructions: none\n")
		case in.OverBudget:
			fmt.Fprintf(&b, "\n  instructions: %d bytes, ~%d tokens: %s\n", in.Bytes, in.EstimatedTokens, pal.Warn("over the "+fmt.Sprint(InstructionsTokenBudget)+"-token budget")+", paid on every turn; move detail into tool descriptions (MCP1007)")
		default:
			fmt.Fprintf(&b, "\n  instructions: %d bytes, ~%d tokens (estimated at 4 bytes a token), paid on every turn\n", in.Bytes, in.EstimatedTokens)
		}
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("mcpsleuth: writing the handshake: %w", err)
	}
	return nil
}

func lineRef(line int) string {
	if line == 0 {
		return ""
	}
	return fmt.Sprintf("(line %d)", line)
}

func writeIndentedJSON(b *bytes.Buffer, raw json.RawMessage) {
	if len(raw) == 0 || string(raw) == "null" {
		b.WriteString("    (not in the capture)\n")
		return
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "    ", "  "); err != nil {
		b.WriteString("    " + Safe(string(raw)) + "\n")
		return
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if !strings.HasPrefix(line, "    ") {
			line = "    " + line
		}
		b.WriteString(Safe(line) + "\n")
	}
}

// WriteHandshakeJSON writes the handshakes as a JSON array.
func WriteHandshakeJSON(w io.Writer, hs []*Handshake) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if hs == nil {
		hs = []*Handshake{}
	}
	if err := enc.Encode(map[string]any{"version": 1, "handshakes": hs}); err != nil {
		return fmt.Errorf("mcpsleuth: writing the handshake: %w", err)
	}
	return nil
}
