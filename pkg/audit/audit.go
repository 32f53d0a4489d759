// Package audit automates the seeds' "mechanical version" of a capability
// investigation: it lists the capability-gated messages a program's source can
// send (method strings, and the helper calls and constants of the official SDKs
// and mcp-go that send them), and diffs that list against the capabilities a
// captured handshake declared. An emission without a declaration is a feature
// the receiver may silently drop; a declaration without an emission is a promise
// nothing in the source keeps.
//
// Source is read as text, line by line, and nothing is run: a match says a line
// can send the method, not that it does at run time. Which methods a side sends,
// and the capability that gates each, come from pkg/spec.
package audit

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// Kinds of findings.
const (
	// KindUndeclared: the source sends a method whose gate the contract does not declare.
	KindUndeclared = "undeclared-emission"
	// KindNotInRevision: the source sends a method the negotiated revision does not have.
	KindNotInRevision = "not-in-revision"
	// KindUnused: a capability declared in the handshake gates messages the audited
	// side sends, and no source line sends any of them.
	KindUnused = "declared-not-emitted"
)

// Finding is one difference between the source and the handshake.
type Finding struct {
	Kind     string        `json:"kind"`
	Severity rule.Severity `json:"-"`
	Method   string        `json:"method,omitempty"`
	// Methods are the methods a declaration gates (KindUnused).
	Methods []string `json:"methods,omitempty"`
	Gate    string   `json:"gate,omitempty"`
	// Emission is where the source sends the method (nil for KindUnused).
	Emission *Emission `json:"emission,omitempty"`
	// Capture and CaptureLine are the frame that declared (or did not declare)
	// the gate.
	Capture     string `json:"capture"`
	CaptureLine int    `json:"captureLine,omitempty"`
	Message     string `json:"message"`
}

// Contract is the handshake an audit compares with: a session's contract and
// where it was read.
type Contract struct {
	*session.Contract
	Capture string // the capture's name
	Session int    // 1-based session number in the capture
}

// Diff compares the emissions of the audited side with the contract.
func Diff(c Contract, side spec.Side, emissions []Emission) []Finding {
	send := spec.S2C
	if side == spec.Client {
		send = spec.C2S
	}
	rev := c.Revision
	var out []Finding
	emitted := map[string]bool{}
	for i := range emissions {
		e := &emissions[i]
		row, sends, ambiguous := sentRow(e.Method, send, rev)
		if !sends || (ambiguous && e.Via == "literal") {
			continue // handled, not sent; or a name both sides send
		}
		emitted[e.Method] = true
		if row == nil {
			out = append(out, Finding{
				Kind: KindNotInRevision, Severity: rule.SeverityWarning, Method: e.Method, Emission: e,
				Capture: c.Capture, CaptureLine: c.DeclaredLine(spec.Server),
				Message: fmt.Sprintf("%s sends %s, which the negotiated revision %s does not have (%s): the peer may answer -32601 or drop it",
					side, e.Method, rev, revisionsOf(e.Method, send)),
			})
			continue
		}
		g := row.Gate
		v := rules.GateUnder(c.Contract, g)
		if !v.Judged || v.Declared {
			continue // nothing to judge, an extension's gate, unknown, or declared
		}
		sev := rule.CapabilitySeverity(rev)
		out = append(out, Finding{
			Kind: KindUndeclared, Severity: sev, Method: e.Method, Gate: g.String(), Emission: e,
			Capture: c.Capture, CaptureLine: c.DeclaredLine(g.Side),
			Message: fmt.Sprintf("%s sends %s, gated on %s, but %s (%s): %s",
				side, e.Method, g, v.Lacking, c.DeclaredIn(g.Side), consequence(g, side)),
		})
	}
	out = append(out, unused(c, side, send, emitted)...)
	return out
}

// sentRow is the method table's row for method sent in direction send under
// rev: sends reports whether that side sends it in any revision, row is nil when
// rev does not have it, ambiguous that the other side sends it too.
func sentRow(method string, send spec.Direction, rev spec.Revision) (row *spec.Method, sends, ambiguous bool) {
	for _, m := range spec.MethodRows(method) {
		switch {
		case m.Dir == send:
			sends = true
			if rev == "" || m.In(rev) {
				row = &m
			}
		case m.Dir == send.Opposite():
			ambiguous = true
		}
	}
	return row, sends, ambiguous
}

func revisionsOf(method string, d spec.Direction) string {
	revs := spec.RevisionsOf(method, d)
	if len(revs) == 0 {
		return "no revision has it"
	}
	names := make([]string, len(revs))
	for i, r := range revs {
		names[i] = string(r)
	}
	return "it exists in " + strings.Join(names, ", ")
}

// consequence says what the undeclared gate means for the message.
func consequence(g spec.Gate, side spec.Side) string {
	if g.Side == side {
		return "the receiver is entitled to drop it, however correct it is"
	}
	return "the " + g.Side.String() + " may reject it with -32601 or ignore it"
}

// unused finds the declarations, in the contract, of gates on messages the
// audited side sends, that no emission uses: the side's own declarations are
// promises (a warning), the peer's are offers (info).
func unused(c Contract, side spec.Side, send spec.Direction, emitted map[string]bool) []Finding {
	type gated struct {
		gate    spec.Gate
		methods []string
	}
	var gates []*gated
	byGate := map[spec.Gate]*gated{}
	for _, m := range spec.Methods() {
		if m.Dir != send || m.Gate.None() || m.Gate.Extension != "" || (c.Revision != "" && !m.In(c.Revision)) {
			continue
		}
		g := byGate[m.Gate]
		if g == nil {
			g = &gated{gate: m.Gate}
			byGate[m.Gate] = g
			gates = append(gates, g)
		}
		if !containsString(g.methods, m.Name) {
			g.methods = append(g.methods, m.Name)
		}
	}
	sort.Slice(gates, func(i, j int) bool { return gates[i].gate.String() < gates[j].gate.String() })
	var out []Finding
	for _, g := range gates {
		declared, known := c.DeclaresGate(g.gate)
		if !known || !declared {
			continue
		}
		used := false
		for _, m := range g.methods {
			used = used || emitted[m]
		}
		if used {
			continue
		}
		f := Finding{Kind: KindUnused, Methods: g.methods, Gate: g.gate.String(), Capture: c.Capture, CaptureLine: c.DeclaredLine(g.gate.Side)}
		list := strings.Join(g.methods, ", ")
		if g.gate.Side == side {
			f.Severity = rule.SeverityWarning
			f.Message = fmt.Sprintf("the %s declared %s (%s), a promise to send %s, and no source line sends it: the peer waits for what never comes (an SDK that sends it by itself is not seen here)",
				side, g.gate.Path, c.DeclaredIn(g.gate.Side), list)
		} else {
			f.Severity = rule.SeverityInfo
			f.Message = fmt.Sprintf("the %s declared %s (%s): the %s may send %s, and no source line does (an offer, not a promise)",
				g.gate.Side, g.gate.Path, c.DeclaredIn(g.gate.Side), side, list)
		}
		out = append(out, f)
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ReadContract analyses a capture with the engine check uses (no rules) and
// returns the contract of its session number n (1-based; 0: the first session
// whose handshake declared both sides' capabilities).
func ReadContract(name string, r io.Reader, opt frame.Options, n int) (Contract, error) {
	res, err := driver.Run(name, r, nil, driver.RunOptions{Frame: opt})
	if err != nil {
		return Contract{}, err
	}
	if n > len(res.Sessions) {
		return Contract{}, fmt.Errorf("mcpsleuth: audit: %s has %s, not a session %d", name, quote.Count(len(res.Sessions), "session"), n)
	}
	for i, sr := range res.Sessions {
		if n > 0 && i != n-1 {
			continue
		}
		c := sr.Session.Contract()
		if c == nil || (n == 0 && (c.ClientCaps == nil || c.ServerCaps == nil)) {
			continue
		}
		return Contract{Contract: c, Capture: name, Session: i + 1}, nil
	}
	if res.Broken != nil {
		return Contract{}, res.Broken
	}
	if n > 0 {
		return Contract{}, fmt.Errorf("mcpsleuth: %s: session %d has no handshake: nothing declared to audit against", name, n)
	}
	return Contract{}, fmt.Errorf("mcpsleuth: %s: no session declares both sides' capabilities (an initialize request and its result, or a modern request and a server/discover result)", name)
}
