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

func newSeenOnce() seenOnce { return seenOnce{seed: maphash.MakeSeed()} }

// first reports whether parts are seen for the first time, and remembers them.
func (s *seenOnce) first(parts ...string) bool {
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
	if s.seen == nil {
		s.seen = map[uint64]bool{} // made on first use: most sessions never need it
	}
	s.seen[key] = true
	return true
}
