package trace

import (
	"fmt"
	"slices"
	"sort"

	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
	"github.com/mcpsleuth/mcpsleuth/pkg/tokens"
)

// Handshake is the negotiated contract of one session, spelled out: the revision
// verdict, both declarations, who may send each gated message, the promises made,
// what the revision lacks, and what the instructions cost. Its JSON is the
// handshake command's --format json.
type Handshake struct {
	Input     string `json:"input"`
	Session   int    `json:"session"` // numbered from 1, as in every report
	StreamKey string `json:"streamKey"`
	Era       string `json:"era"`

	Requested string `json:"requested"`
	Answered  string `json:"answered"`
	// Negotiated is what the initialize exchange settled on: "" when initialize
	// was never answered, or answered with an error (nothing was negotiated).
	Negotiated string `json:"negotiated"`
	// Governing is the revision the session's frames are judged by: the
	// negotiated one, or, with no answer, the one the client requested.
	Governing string `json:"governing"`
	Verdict   string `json:"verdict"`
	Explained string `json:"explanation"`

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

// Instructions measures the instructions string. Whether it is over the
// budget is MCP1007's judgement, not the view's: the command that shows the
// handshake runs that rule with the configured budget and says what it found
// (OverBudget, Budget).
type Instructions struct {
	Present         bool `json:"present"`
	Bytes           int  `json:"bytes"`
	EstimatedTokens int  `json:"estimatedTokens"`
	OverBudget      bool `json:"overBudget"`
	// Budget is the budget MCP1007 judged by (0 when it did not run).
	Budget int `json:"budget,omitempty"`
}

// handshakeOf spells out the contract of a session.
func handshakeOf(s *session.Session, c *session.Contract) *Handshake {
	h := &Handshake{Input: s.Input, Session: s.Index + 1, StreamKey: s.StreamKey, Era: c.Era.String(),
		Requested: c.Requested, Answered: c.Answered, Negotiated: string(c.Revision), Governing: string(c.Revision), Verdict: verdictOf(c),
		Client: peerOf(c, spec.Client), Server: peerOf(c, spec.Server),
		ClientLine: c.RequestLine, ServerLine: c.ServerCapsLine,
		Permissions: []Permission{}, Promises: []Promise{}, Lacking: []Lack{}}
	if c.Era == session.EraLegacy && (c.Verdict == session.VerdictPending || c.Verdict == session.VerdictFailed) {
		h.Negotiated = "" // an initialize with no answer negotiated nothing
	}
	h.Explained = explainVerdict(c)
	if rev := c.Revision; rev != "" {
		h.Permissions = permissions(c, rev)
		h.Promises = promises(c, rev)
		h.Lacking = lacking(c, rev)
	}
	if c.Instructions != "" {
		tokens := tokens.Of(c.Instructions)
		h.Instructions = Instructions{Present: true, Bytes: len(c.Instructions), EstimatedTokens: tokens}
	}
	return h
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
	if c.Revision != "" {
		return fmt.Sprintf("initialize was never answered in the capture: nothing was negotiated; the frames are judged by %s, the revision the client requested", c.Revision)
	}
	return "initialize was never answered in the capture: nothing was negotiated"
}

func permissions(c *session.Contract, rev spec.Revision) []Permission {
	var out []Permission
	for _, m := range spec.Methods() {
		if !m.In(rev) || m.Gate.None() || m.Gate.Extension != "" {
			continue
		}
		p := Permission{Method: m.Name, Kind: m.Kind.String(), Sender: spec.Sender(m.Dir).String(), Needs: m.Gate.String()}
		switch v := rules.GateUnder(c, m.Gate); {
		case !v.Judged:
			p.Why = "the " + m.Gate.Side.String() + "'s capabilities are not in the capture"
		case v.Declared:
			p.Allowed = true
		default:
			p.Why = v.Lacking
		}
		if m.Kind == spec.KindInputRequest {
			p.Kind = "input request (inside InputRequiredResult)"
		}
		out = append(out, p)
	}
	return out
}

func promises(c *session.Contract, rev spec.Revision) []Promise {
	var out []Promise
	for _, capa := range spec.Capabilities() {
		if !capa.In(rev) {
			continue
		}
		must := capa.Obligation()
		if must == "" {
			continue
		}
		if declared, known := c.DeclaresCapability(capa.Side, capa.Path); !known || !declared {
			continue
		}
		out = append(out, Promise{Side: capa.Side.String(), Capability: capa.Path, Must: must})
	}
	return out
}

// lacking lists what the governing revision lacks of the newest legacy revision
// (or of the one the client asked for, when newer): batching, methods and
// capability fields, from the spec tables (spec.Lost). Fields of messages are
// MCP1010's, judged per message from the schemas.
func lacking(c *session.Contract, rev spec.Revision) []Lack {
	var out []Lack
	if why := spec.FeatureBatching.Lacking(rev); why != "" {
		out = append(out, Lack{spec.FeatureBatching.Name, why + ": send messages one by one"})
	}
	reference := spec.Rev20251125
	if req, ok := spec.ParseRevision(c.Requested); ok && rev.Before(req) {
		reference = req
	}
	lost := spec.Lost(reference, rev)
	names := make([]string, 0, len(lost.Methods))
	for _, m := range lost.Methods {
		names = append(names, m.Name)
	}
	sort.Strings(names)
	byName := map[string]spec.LostMethod{}
	for _, m := range lost.Methods {
		byName[m.Name] = m
	}
	for _, n := range names {
		out = append(out, Lack{n, lostMethodWhy(byName[n], rev)})
	}
	for _, capa := range lost.Capabilities {
		why := fmt.Sprintf("not in %s (from %s)", rev, capa.Revisions[0])
		if last := capa.Revisions[len(capa.Revisions)-1]; last.Before(rev) {
			why = "removed in " + string(last.Next())
		}
		out = append(out, Lack{capa.String() + " capability", why})
	}
	return out
}

// lostMethodWhy says how a method the session's revision lacks is missing, from
// the method table: kept there under another kind (a 2025-11-25 request that
// 2026-07-28 carries only as an input request inside an InputRequiredResult),
// carried by an extension, or not there at all, with the revision that added it
// or the one that removed it.
func lostMethodWhy(lost spec.LostMethod, rev spec.Revision) string {
	var core []spec.Revision
	extension, kept := "", false
	for _, m := range spec.MethodRows(lost.Name) {
		lostDir := (m.Dir == spec.C2S && lost.Client) || (m.Dir == spec.S2C && lost.Server)
		switch {
		case m.Extension != "":
			if m.In(rev) {
				extension = m.Extension
			}
		case m.In(rev) && m.Kind != lost.Kind:
			return fmt.Sprintf("not %s in %s: %s", kindWords(lost.Kind), rev, kindWords(m.Kind))
		case m.In(rev):
			kept = true // still sent the other way
		case lostDir:
			core = append(core, m.Revisions...)
		}
	}
	why := "not in " + string(rev)
	all := spec.Revisions()
	first, last := -1, -1
	for i, r := range all {
		if slices.Contains(core, r) {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	switch {
	case first >= 0 && rev.Before(all[first]):
		why = fmt.Sprintf("not in %s (from %s)", rev, all[first])
	case last >= 0 && last+1 < len(all):
		why = "removed in " + string(all[last+1])
	}
	if kept {
		sender := "client"
		if lost.Server {
			sender = "server"
		}
		why += " as sent by the " + sender
	}
	if extension != "" {
		why += "; the " + extension + " extension has it"
	}
	return why
}

// kindWords names a message kind in a sentence.
func kindWords(k spec.Kind) string {
	if k == spec.KindInputRequest {
		return "only an input request, inside an InputRequiredResult"
	}
	return "a " + k.String()
}
