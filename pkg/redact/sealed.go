package redact

import (
	"cmp"
	"slices"
)

// A Set is built while its session is replayed and read once the session ended:
// its report is redacted when the sessions before it were handed on, which, on
// the regions of a file judged at once, is after the regions before it were
// judged. A session's set then waits with it, and the maps a set is built in
// (Go's maps keep room to grow: about 60 bytes a value, once the entries, the
// groups' control words and the lists of lengths are counted) were the largest
// part of what the waiting sessions of a --redact run held. Seal keeps the same
// content in sorted slices instead, 16 bytes a value, read by binary search.
// Sealing takes time (4-6% of the CPU of --redact on payload-heavy, most of it
// sorting and walking the maps), so only a set that waits is sealed: the trace
// that holds it seals it when its session's result starts waiting
// (rule.Compacter), not when the session ends.

// sealed is a set's content once sealed (Set.Seal).
type sealed struct {
	// values are the set's values, by hash and then length.
	values []sealedValue
	// prefixes are the keys of Set.lengths, sorted; the lengths of values that
	// start with prefixes[i] are lengths[at[i]:at[i+1]], longest first.
	prefixes []uint32
	at       []int32
	lengths  []int32
	// starts and heads are the keys of Set.starts and Set.longHeads, sorted.
	starts []uint64
	heads  []uint32
}

// sealedValue is a value of a sealed set: its key and its length in characters.
type sealedValue struct {
	hash     uint64
	n, chars int32
}

func compareValue(v sealedValue, k valueKey) int {
	if c := cmp.Compare(v.hash, k.hash); c != 0 {
		return c
	}
	return cmp.Compare(int(v.n), k.n)
}

// Seal makes the set compact for reading: called when its session ended, after
// which its values are looked for and no more are added (one added later
// unseals it first). Seal is idempotent; a nil set stays nil.
func (s *Set) Seal() {
	if s == nil || s.sealed != nil || s.ahead != nil {
		return
	}
	z := &sealed{values: make([]sealedValue, 0, len(s.values))}
	for k, chars := range s.values {
		z.values = append(z.values, sealedValue{hash: k.hash, n: int32(k.n), chars: int32(chars)})
	}
	slices.SortFunc(z.values, func(a, b sealedValue) int {
		return compareValue(a, valueKey{hash: b.hash, n: int(b.n)})
	})
	z.prefixes = make([]uint32, 0, len(s.lengths))
	for p := range s.lengths {
		z.prefixes = append(z.prefixes, p)
	}
	slices.Sort(z.prefixes)
	z.at = make([]int32, 0, len(z.prefixes)+1)
	for _, p := range z.prefixes {
		z.at = append(z.at, int32(len(z.lengths)))
		z.lengths = append(z.lengths, s.lengths[p]...)
		slices.SortFunc(z.lengths[z.at[len(z.at)-1]:], func(a, b int32) int { return int(b - a) })
	}
	z.at = append(z.at, int32(len(z.lengths)))
	for st := range s.starts {
		z.starts = append(z.starts, st)
	}
	slices.Sort(z.starts)
	for p := range s.longHeads {
		z.heads = append(z.heads, p)
	}
	slices.Sort(z.heads)
	s.sealed = z
	s.values, s.lengths, s.starts, s.longHeads, s.scratch, s.unsorted = nil, nil, nil, nil, nil, false
}

// unseal puts a sealed set's content back into maps, to add to it.
func (s *Set) unseal() {
	z := s.sealed
	s.sealed = nil
	s.values = make(map[valueKey]int, len(z.values))
	for _, v := range z.values {
		s.values[valueKey{hash: v.hash, n: int(v.n)}] = int(v.chars)
	}
	s.lengths = make(map[uint32][]int32, len(z.prefixes))
	for i, p := range z.prefixes {
		s.lengths[p] = slices.Clone(z.lengths[z.at[i]:z.at[i+1]])
	}
	if len(z.starts) > 0 {
		s.starts = make(map[uint64]struct{}, len(z.starts))
		for _, st := range z.starts {
			s.starts[st] = struct{}{}
		}
	}
	if len(z.heads) > 0 {
		s.longHeads = make(map[uint32]struct{}, len(z.heads))
		for _, p := range z.heads {
			s.longHeads[p] = struct{}{}
		}
	}
}

// valueOf is the length in characters of the value of key k, if the set holds
// it.
func (s *Set) valueOf(k valueKey) (chars int, ok bool) {
	if z := s.sealed; z != nil {
		i, found := slices.BinarySearchFunc(z.values, k, compareValue)
		if !found {
			return 0, false
		}
		return int(z.values[i].chars), true
	}
	chars, ok = s.values[k]
	return chars, ok
}

// lengthsOf is the lengths of the values that start with the MinValue bytes p,
// longest first (once sorted: valueSpans).
func (s *Set) lengthsOf(p uint32) []int32 {
	if z := s.sealed; z != nil {
		i, found := slices.BinarySearch(z.prefixes, p)
		if !found {
			return nil
		}
		return z.lengths[z.at[i]:z.at[i+1]]
	}
	return s.lengths[p]
}

// hasStart reports whether a form of the set starts with the startBytes bytes
// whose hash is st.
func (s *Set) hasStart(st uint64) bool {
	if z := s.sealed; z != nil {
		_, found := slices.BinarySearch(z.starts, st)
		return found
	}
	_, ok := s.starts[st]
	return ok
}

// hasLongHead reports whether a value left out as too long has a form that
// starts with the MinValue bytes p.
func (s *Set) hasLongHead(p uint32) bool {
	if z := s.sealed; z != nil {
		_, found := slices.BinarySearch(z.heads, p)
		return found
	}
	_, ok := s.longHeads[p]
	return ok
}

// counts is the number of values and of long values' heads the set holds.
func (s *Set) counts() (values, heads int) {
	if z := s.sealed; z != nil {
		return len(z.values), len(z.heads)
	}
	return len(s.values), len(s.longHeads)
}
