package rules

import (
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// Gates judges, for each request and notification, the capability gate its method
// has under the governing revision against the contract: the one judgement of
// "was this declared" that MCP2001, MCP2002 and MCP2004, the reactions and the
// timeline read (a method the spec never gates, or one the revision lacks, has
// nothing to judge; an extension's gate is not checked yet).
var Gates = &rule.Analysis{
	Name:  "gates",
	Apart: true, // a session's own state
	New: func(*session.Session, rule.Results) rule.Computation {
		return &GateLog{}
	},
}

// GateVerdict is what the contract says of a message's gate.
type GateVerdict struct {
	// Facts is the method's row under the governing revision (its Gate); zero
	// when there is nothing to judge.
	Facts spec.MethodFacts
	// Judged is set when there was a gate and the contract could judge it;
	// Declared then says whether its owner declared it.
	Judged   bool
	Declared bool
	// Lacking says what the gate's owner declared instead, when it did not
	// declare the gate ("the server declared resources without listChanged").
	Lacking string
	// Cannot says why a gate could not be judged ("" when it was, or when there
	// is nothing to judge): one of reasons.go's.
	Cannot rule.Reason
	// Settled is set when the outcome follows from the message's class alone
	// (nothing to judge, or declared): rule.Pass.Settled may skip the class.
	Settled bool
}

// GateLog is the result of Gates for one session.
type GateLog struct {
	// m is the message being visited; current its verdict, once asked for
	// (judged says it was): a verdict no rule or view asks for is never computed
	// (the rules skip the classes they settled).
	m       *session.Message
	current GateVerdict
	judged  bool
	// recent and known are the verdicts by contract terms, method and direction:
	// a session sends a few methods many times. The first few are kept inline (a
	// short session allocates nothing for them), the rest in known.
	recent  [8]knownGate
	nRecent int
	known   map[gateKey]GateVerdict
	// inputs holds the entries InputRequests returns (reused).
	inputs []InputRequest
}

type knownGate struct {
	key gateKey
	v   GateVerdict
}

type gateKey struct {
	terms  uint64
	method int32
	dir    spec.Direction
}

// maxKnownGates bounds the verdicts a session keeps.
const maxKnownGates = 4096

func (l *GateLog) Result() any { return l }

// Current is the verdict on the message being visited (the zero verdict for one
// that is not a request or a notification).
func (l *GateLog) Current() GateVerdict {
	if !l.judged {
		l.judged = true
		if m := l.m; m != nil && (m.Kind == frame.KindRequest || m.Kind == frame.KindNotification) {
			l.current = l.Of(m, m.Spec(), m.Dir)
		}
	}
	return l.current
}

func (l *GateLog) Message(m *session.Message) {
	l.m, l.current, l.judged = m, GateVerdict{}, false
}

// End lets go of the last message.
func (l *GateLog) End(*rule.SessionResult) { l.m = nil }

// Of judges the gate of method sent in direction d under m's contract and
// revision: for a message's own method, or for the request a response answers
// (MCP2004).
func (l *GateLog) Of(m *session.Message, method spec.MethodRef, d spec.Direction) GateVerdict {
	key := gateKey{method: int32(method.Index()), dir: d}
	if m.Contract != nil {
		key.terms = m.Contract.Terms()
	}
	cached := key.terms != 0 && key.method >= 0
	if cached {
		for _, k := range l.recent[:l.nRecent] {
			if k.key == key {
				return k.v
			}
		}
		if v, ok := l.known[key]; ok {
			return v
		}
	}
	v := judgeGate(m, method, d)
	switch {
	case !cached:
	case l.nRecent < len(l.recent):
		l.recent[l.nRecent] = knownGate{key, v}
		l.nRecent++
	case len(l.known) < maxKnownGates:
		if l.known == nil {
			l.known = map[gateKey]GateVerdict{}
		}
		l.known[key] = v
	}
	return v
}

// judgeGate looks up the gate of a method sent in direction d under the message's
// revision and checks it against the declaring side.
func judgeGate(m *session.Message, method spec.MethodRef, d spec.Direction) GateVerdict {
	if !method.GatedAnywhere() {
		return GateVerdict{Settled: true} // unknown to the spec, or never capability-gated
	}
	if d == spec.DirUnknown {
		return GateVerdict{Cannot: reasonDirectionUnknown}
	}
	rev := m.Revision()
	switch {
	case m.Contract == nil:
		return GateVerdict{Cannot: reasonNoContract}
	case rev == "":
		return GateVerdict{Cannot: reasonUnknownVersion}
	}
	row, found := method.Facts(rev, d)
	if !found {
		return GateVerdict{Settled: true} // a method the revision lacks is MCP1008's
	}
	v := GateUnder(m.Contract, row.Gate)
	v.Facts = row
	return v
}

// GateUnder judges a capability gate against a contract: nothing to judge (no
// gate: Settled), an extension's gate (not checked yet), the owner's capabilities
// not in the capture, declared, or not (Lacking says what was declared instead).
// It is the one place a gate is resolved: the per-message verdicts of Gates, the
// handshake view's table of who may send what, and the audit of source code.
func GateUnder(c *session.Contract, g spec.Gate) GateVerdict {
	switch {
	case g.None():
		return GateVerdict{Settled: true} // an ungated method needs no declaration
	case g.Extension != "":
		return GateVerdict{Cannot: because(reasonExtensionUncheckedf, g.Extension)}
	}
	declared, known := c.DeclaresGate(g)
	if !known {
		return GateVerdict{Cannot: because(reasonCapsUnknownf, g.Side, c.DeclaredIn(g.Side))}
	}
	v := GateVerdict{Facts: spec.MethodFacts{Gate: g}, Judged: true, Declared: declared, Settled: declared}
	if !declared {
		v.Lacking = c.Lacking(g)
	}
	return v
}

// judged is a gate verdict as a rule reads it: ok when there is a judged gate;
// a verdict that could not be judged is counted through p.CannotJudge.
func judged(p *rule.Pass, v GateVerdict) (GateVerdict, bool) {
	if reason := v.Cannot; reason != "" { // one of reasons.go's, set by Gates
		p.CannotJudge(reason)
	}
	return v, v.Judged
}

// InputRequest is one entry of an InputRequiredResult's inputRequests
// (2026-07-28): a request the server makes of the client inside its result
// (roots/list, sampling/createMessage, elicitation/create), gated by what the
// request's _meta clientCapabilities declared.
type InputRequest struct {
	// Key and Method name the entry; they alias the frame.
	Key, Method string
	// Gate is the method's gate as an input request; Defined says the spec
	// defines the method as one (else there is nothing to judge: the schema
	// rule's finding).
	Gate    spec.Gate
	Defined bool
	// Judged says the request's clientCapabilities are known; Declared then
	// says whether they declared the gate.
	Judged, Declared bool
}

// InputRequests reads and judges the inputRequests of m when it is an
// InputRequiredResult answering a request of the modern era: the one judgement
// of "did the request declare it" that MCP2008 and the contract table read. It
// returns nil for any other message; the entries are valid while m is visited.
func (l *GateLog) InputRequests(m *session.Message) []InputRequest {
	l.inputs = l.inputs[:0]
	if m.Kind != frame.KindResult || m.Request == nil || !isInputRequired(m) {
		return nil
	}
	c := m.Request.Contract
	if c == nil || c.Era != session.EraModern {
		return nil // InputRequiredResult exists only in 2026-07-28 (MCP1010 reports it elsewhere)
	}
	eachKeyed(get(m.ResultNode(), "inputRequests"), func(key string, entry frame.Node) bool {
		e := InputRequest{Key: key, Method: get(entry, "method").Text()}
		e.Gate, e.Defined = inputRequestGate(e.Method)
		if e.Defined && c.ClientCaps != nil {
			e.Judged = true
			e.Declared, _ = c.Declares(spec.Client, e.Gate.Path, false)
		}
		l.inputs = append(l.inputs, e)
		return true
	})
	return l.inputs
}

// inputRequestGate is the capability gate of an input request's method.
func inputRequestGate(method string) (spec.Gate, bool) {
	for _, row := range spec.MethodRows(method) {
		if row.Kind == spec.KindInputRequest {
			return row.Gate, true
		}
	}
	return spec.Gate{}, false
}
