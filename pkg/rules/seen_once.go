package rules

import "hash/maphash"

// seenOnce remembers what a session's rule already judged, by a hash of its
// parts (a tool's name, a member, a schema's text): a list repeated unchanged is
// judged once. It is bounded: past maxSeenOnce entries it forgets them all and
// starts again (a finding may then come twice, memory never grows).
type seenOnce struct {
	seed maphash.Seed
	seen map[uint64]bool
}

// maxSeenOnce bounds what a seenOnce remembers.
const maxSeenOnce = 4096

// first reports whether parts are seen for the first time, and remembers them.
// The zero seenOnce remembers nothing yet.
func (s *seenOnce) first(parts ...string) bool {
	if s.seen == nil {
		// Made on first use (most sessions never need it), and kept when the
		// rule's checker is recycled (reset).
		s.seed, s.seen = maphash.MakeSeed(), map[uint64]bool{}
	}
	var h maphash.Hash
	h.SetSeed(s.seed)
	for _, p := range parts {
		h.WriteString(p)
		h.WriteByte(0)
	}
	key := h.Sum64()
	if s.seen[key] {
		return false
	}
	if len(s.seen) >= maxSeenOnce {
		clear(s.seen)
	}
	s.seen[key] = true
	return true
}

// reset forgets what was seen, keeping the table for the next session.
func (s *seenOnce) reset() { clear(s.seen) }
