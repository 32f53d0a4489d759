package spec

import "slices"

// Revision is an MCP specification revision: a dated protocol version string, or
// "draft" for the unreleased working copy.
type Revision string

// The six revisions of the specification, in chronological order.
const (
	Rev20241105 Revision = "2024-11-05"
	Rev20250326 Revision = "2025-03-26"
	Rev20250618 Revision = "2025-06-18"
	Rev20251125 Revision = "2025-11-25"
	Rev20260728 Revision = "2026-07-28"
	RevDraft    Revision = "draft"
)

// allRevisions lists every revision in chronological order. It is never modified.
var allRevisions = [...]Revision{
	Rev20241105,
	Rev20250326,
	Rev20250618,
	Rev20251125,
	Rev20260728,
	RevDraft,
}

// Revisions returns all six revisions in chronological order (draft last).
func Revisions() []Revision {
	return slices.Clone(allRevisions[:])
}

// ParseRevision reports whether s is a published protocol version string usable on
// the wire: one of the five dated revisions. "draft" is not a wire version, so
// ParseRevision("draft") returns false.
// The revision returned is the table's own string, never s itself: it may be kept
// long after the bytes s was read from are gone.
func ParseRevision(s string) (Revision, bool) {
	i := Revision(s).order()
	if i < 0 || allRevisions[i] == RevDraft {
		return "", false
	}
	return allRevisions[i], true
}

// RevisionShaped reports whether s is written as a revision identifier is
// (YYYY-MM-DD), known or not: what a client offers or a modern error lists.
func RevisionShaped(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if i != 4 && i != 7 && (s[i] < '0' || s[i] > '9') {
			return false
		}
	}
	return true
}

// Known reports whether r is one of the six revisions.
func (r Revision) Known() bool {
	return r.order() >= 0
}

// Before reports whether r precedes o chronologically; draft comes after
// 2026-07-28. It is false when either revision is unknown.
func (r Revision) Before(o Revision) bool {
	ri, oi := r.order(), o.order()
	return ri >= 0 && oi >= 0 && ri < oi
}

// Modern reports whether r belongs to the stateless era without an initialize
// handshake: 2026-07-28 and draft.
func (r Revision) Modern() bool { return r.Has(FeatureStateless) }

// Batching reports whether JSON-RPC batches (arrays) are part of the JSONRPCMessage
// union of r. That holds only for 2025-03-26.
func (r Revision) Batching() bool { return r.Has(FeatureBatching) }

// CapabilityMust reports whether the lifecycle rule "only use capabilities that were
// successfully negotiated" is a MUST in r. It is a MUST from 2025-06-18 on and a
// SHOULD in 2024-11-05 and 2025-03-26.
func (r Revision) CapabilityMust() bool { return r.Has(FeatureCapabilityMust) }

// Next is the revision after r in the table (r itself for the last, or for an
// unknown revision): where something r was the last to have was removed.
func (r Revision) Next() Revision {
	if i := r.order(); i >= 0 && i+1 < len(allRevisions) {
		return allRevisions[i+1]
	}
	return r
}

// order returns the chronological index of r, or -1 if r is unknown.
func (r Revision) order() int {
	// A switch on the constants: asked for every message (Modern, Has), where a
	// search of the table compared strings one by one.
	switch r {
	case Rev20241105:
		return 0
	case Rev20250326:
		return 1
	case Rev20250618:
		return 2
	case Rev20251125:
		return 3
	case Rev20260728:
		return 4
	case RevDraft:
		return 5
	}
	return -1
}
