// This file holds the settled verdicts of a session: the rules that judged a class
// of message silent once are not asked again about the next message of that class.

package rule

import (
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// class is what a message is to a rule that judges it by itself, against the
// contract that governs it: the contract's terms, the message's kind, method and
// direction, the request it answers (its method and direction), whether it
// travelled in a batch or has a null id, and its wire shape (the structure and the
// values the official schemas look at). Two messages of one class differ only in
// what such a rule does not read: ids, lines, times, payload values the schemas do
// not constrain.
type class struct {
	terms uint64
	shape uint64
	// method is the spec's index of a request's or notification's method, or of
	// the answered request's (spec.MethodRef.Index).
	method int32
	// traits packs the message's kind, direction, the answered request's
	// direction, and whether it was batched or has a null id: with no padding in
	// the struct, a lookup hashes its bytes in one go.
	traits uint32
}

// classOf returns the message's class; ok is false when the message has none that
// can be told (no contract terms, no wire shape, a method the spec does not define,
// a response to no known request).
func classOf(m *session.Message) (class, bool) {
	if m.Contract == nil || m.Shape() == 0 {
		return class{}, false
	}
	c := class{terms: m.Contract.Terms(), shape: m.Shape()}
	if c.terms == 0 {
		return class{}, false
	}
	method := m.MethodIndex()
	if method < 0 {
		return class{}, false
	}
	var reqDir spec.Direction
	if m.Kind.IsResponse() {
		reqDir = m.Request.Dir
	}
	c.method = int32(method)
	c.traits = uint32(m.Kind) | uint32(m.Dir)<<8 | uint32(reqDir)<<16
	if m.Batch != nil {
		c.traits |= 1 << 24
	}
	if m.ID == "null" {
		c.traits |= 1 << 25
	}
	return c, true
}

// maxSettledClasses bounds the classes a session remembers; when full it starts
// again empty.
const maxSettledClasses = 4096

// maxSettling is how many checkers can settle (one bit each).
const maxSettling = 64

// settled remembers, per class, the checkers that settled it silent in one session.
type settled struct {
	classes map[class]uint64
	// The message being judged: its class (when it has one) and the checkers that
	// settled it so far.
	current class
	known   bool
	fresh   uint64
}

// begin starts judging a message: it returns the checkers that already settled its
// class (bit i for checker i).
func (s *settled) begin(m *session.Message) uint64 {
	s.fresh = 0
	s.current, s.known = classOf(m)
	if !s.known {
		return 0
	}
	return s.classes[s.current]
}

// settle records that checker i settled the current message's class.
func (s *settled) settle(i int) {
	if s.known && i < maxSettling {
		s.fresh |= 1 << i
	}
}

// finish keeps what the checkers settled about the current message.
func (s *settled) finish() {
	if s.fresh == 0 {
		return
	}
	if s.classes == nil {
		s.classes = map[class]uint64{}
	}
	if len(s.classes) >= maxSettledClasses {
		clear(s.classes)
	}
	s.classes[s.current] |= s.fresh
}

// reset forgets everything (an ended session's state, before it is reused).
func (s *settled) reset() {
	clear(s.classes)
	*s = settled{classes: s.classes}
}

// Settled tells the engine that the rule judged the current message silent and
// would judge every later message of its class in this session alike: it is not
// asked about them. A rule says it only where its verdict depends on nothing but
// the class (see class): the governing contract's terms (revision, era, verdict,
// capabilities), the message's kind, method and direction, the answered request's
// method and direction, its batch and null id, its wire shape. Never after
// reporting, noting a cannot-judge, or reading or changing the rule's own state
// in a way a later message could see. AnalyzerOptions.NoSettling turns it off (the
// reference tests compare against).
func (p *Pass) Settled() {
	if p.settled != nil {
		p.settled.settle(p.index)
	}
}
