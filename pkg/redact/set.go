package redact

import (
	"hash/maphash"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
)

// Limits of a Set.
const (
	// MinValue is the shortest value (in bytes) a Set looks for: shorter ones
	// ("ok", "1", "en") would match all over the text they were never part of.
	MinValue = 4
	// MaxValues bounds the distinct values a Set keeps for one session, and
	// MaxBytes their total size: a session carrying more data than that keeps the
	// first ones and says so (Set.Full).
	MaxValues = 50_000
	MaxBytes  = 4 << 20
	// MaxValue is the longest value (in bytes, as decoded) a Set keeps. The
	// texts a report prints from a session are shorter (frames it quotes are cut
	// at rule.MaxEvidence, subjects and context lines much shorter) but for
	// names and kept data, which are seldom that long: a longer value is left
	// out, and Long says so. Its bytes are neither decoded nor hashed, which is
	// most of what redaction costs on captures of large results. Replace then
	// hides whole every text longer than MaxValue (one that could hold it).
	MaxValue = rule.MaxEvidence
)

// Set is the session-wide set of captured values redaction hides: every string
// and number that Frame replaces in the session's frames, and every secret it
// masks there (Collect adds them as the analysis sees each frame). Redaction then
// replaces them wherever else the session prints them: a password in tool
// arguments that a server echoes in an error message, a bearer token repeated in
// a log line. Methods, ids and the report's own words are never searched.
//
// The set keeps no copy of a value, only its length and a 64-bit hash of its
// bytes (valueKey): Replace hashes the text at each place one of the lengths
// could start. A session's values cost the set about 60 bytes each in its maps
// whatever their size, 16 once sealed at the session's end (Seal; copies of up
// to MaxBytes a session came to most of the live heap of a --redact run), and a
// value another string shared the hash and length of would be taken for it with
// a probability of about 2^-64 a pair.
//
// A nil *Set is empty.
type Set struct {
	// values are the values (and their escaped forms) by length and hash, with
	// each one's length in characters as captured: what its placeholder says.
	values map[valueKey]int
	// lengths holds, by their first MinValue bytes, the lengths of the values
	// that start with them, longest first (once sorted).
	lengths map[uint32][]int32
	seed    maphash.Seed
	bytes   int
	// unsorted is set when a length was added since the lists were last sorted.
	unsorted bool
	// scratch holds the string a walk collecting into the set decoded last
	// (walk.add).
	scratch []byte
	// Full is set when a value was left out because the bounds were reached.
	Full bool
	// Long is set when a value longer than MaxValue was left out where the set
	// had room for it (past the bounds, Full says what is not looked for):
	// Replace hides whole the texts longer than MaxValue.
	Long bool
	// longHeads are the first MinValue bytes of the forms of the values left
	// out as longer than MaxValue (Long), at most maxLongHeads of them
	// (longHeadsFull past them): ReplaceCut hides a cut text from where one
	// starts.
	longHeads     map[uint32]struct{}
	longHeadsFull bool
	// starts are the hashes of the first startBytes bytes of the forms longer
	// than that (and of the long values' forms, with their heads): ReplaceCut
	// hides a cut text's end of startBytes bytes or more only when it starts so.
	starts map[uint64]struct{}
	// ahead, when set, makes the set a recorder (Collector): what would be
	// added to a set is written to ahead instead, to be added later (AddCollected).
	ahead *Collection
	// sealed, once set (Seal), holds what values, lengths, starts and longHeads
	// held, which are nil then.
	sealed *sealed
}

// valueKey is what the set keeps of a value.
type valueKey struct {
	hash uint64
	n    int
}

// NewSet returns an empty set.
func NewSet() *Set { return NewSeededSet(maphash.MakeSeed()) }

// NewSeededSet returns an empty set that hashes its values with seed: the seed of
// the collections (Collector) it adds.
func NewSeededSet(seed maphash.Seed) *Set {
	return &Set{values: map[valueKey]int{}, lengths: map[uint32][]int32{}, seed: seed}
}

// saturated reports whether nothing can be added to the set any more (a nil
// set is saturated).
func (s *Set) saturated() bool {
	if s == nil {
		return true
	}
	values, _ := s.counts()
	return s.Full && values >= MaxValues
}

// key is what the set keeps of text.
func (s *Set) key(text string) valueKey {
	return valueKey{hash: maphash.String(s.seed, text), n: len(text)}
}

// prefixOf is the first MinValue bytes of text (at least that long), as a key.
func prefixOf(text string) uint32 {
	return uint32(text[0]) | uint32(text[1])<<8 | uint32(text[2])<<16 | uint32(text[3])<<24
}

// add adds one form of a value (MinValue bytes long or more).
func (s *Set) add(form string, chars int) {
	k, p, st := s.key(form), prefixOf(form), s.startOf(form)
	if s.ahead != nil {
		s.ahead.record(k, chars, p, st, false)
		return
	}
	s.insert(k, chars, p, st)
}

// startBytes is how much of the end of a cut text ReplaceCut checks against the
// starts of the values (Set.starts) before it hides it: a shorter end is hidden
// on its first MinValue bytes alone.
const startBytes = 32

// startOf is the hash of a form's first startBytes bytes (0 for a form no
// longer).
func (s *Set) startOf(form string) uint64 {
	if len(form) <= startBytes {
		return 0
	}
	return s.startHash(form)
}

// startHash is the hash of a text's first startBytes bytes (it has as many).
func (s *Set) startHash(text string) uint64 { return maphash.String(s.seed, text[:startBytes]) }

// insert adds a form by its key, its length in characters, its prefix and the
// hash of its start (startOf).
func (s *Set) insert(k valueKey, chars int, p uint32, st uint64) {
	if s.sealed != nil {
		s.unseal()
	}
	if _, ok := s.values[k]; ok {
		return
	}
	if len(s.values) >= MaxValues || s.bytes+k.n > MaxBytes {
		s.Full = true
		return
	}
	s.values[k] = chars
	s.addStart(st)
	s.bytes += k.n
	if ls := s.lengths[p]; !slices.Contains(ls, int32(k.n)) {
		s.lengths[p] = append(ls, int32(k.n))
		s.unsorted = true
	}
}

// Hide hides in captured text what --redact hides there: the set's values
// (Replace) and the secrets (MaskSecrets). Neither may go first alone: masking
// the secrets first breaks a value that holds one (an argument "ghp_... customer
// Jane Roe owes 4000" no longer stands whole, and its rest would show), and
// replacing the values first breaks a secret's context (a value "password"
// replaced leaves "=hunter2" unmasked). So the secrets are masked first, as
// always, and where a value of the set, in the text as captured, overlaps a
// secret without lying inside it, what either hides is hidden (HideAll). A nil
// set masks secrets only.
func (s *Set) Hide(text string) string { return hideAll(text, false, s) }

// HideCut is Hide for a text the capture cut short (ReplaceCut).
func (s *Set) HideCut(text string) string { return hideAll(text, true, s) }

// HideAll is Hide with the values of several sets (the two sessions of a diff).
func HideAll(text string, sets ...*Set) string { return hideAll(text, false, sets...) }

func hideAll(text string, cut bool, sets ...*Set) string {
	masked := MaskSecrets(text)
	apart := func() string { // the secrets masked, then each set's values replaced
		out := masked
		for _, s := range sets {
			if cut {
				out = s.ReplaceCut(out)
			} else {
				out = s.Replace(out)
			}
		}
		return out
	}
	if masked == text {
		return apart() // no secret
	}
	for _, s := range sets {
		if s.hidesWhole(text, cut) {
			return apart() // hidden whole
		}
	}
	secrets := secretSpans(text)
	// The values are looked for in the text as captured (where a value that
	// holds a secret stands whole) and in the text with its secrets blanked
	// (where a value glued to a secret stands alone, as it does once the
	// secret is masked): the positions are the same in both.
	blanked := []byte(text)
	for _, sp := range secrets {
		for i := sp.start; i < sp.end; i++ {
			blanked[i] = ' '
		}
	}
	var values []hidden
	meet := false
	for _, s := range sets {
		if s == nil {
			continue
		}
		whole, cutFrom := s.valueSpans(text, cut)
		if cutFrom >= 0 {
			whole = append(whole, hidden{start: cutFrom, end: len(text), cut: true})
		}
		for _, v := range whole {
			for _, f := range secrets {
				if v.start < f.end && f.start < v.end && (v.start < f.start || v.end > f.end) {
					meet = true
				}
			}
		}
		alone, cutFrom := s.valueSpans(string(blanked), cut)
		if cutFrom >= 0 {
			alone = append(alone, hidden{start: cutFrom, end: len(text), cut: true})
		}
		values = append(append(values, whole...), alone...)
	}
	if !meet {
		return apart()
	}
	return hideBoth(text, append(values, secrets...))
}

// hidden is a span of a text that --redact hides, and what it becomes.
type hidden struct {
	start, end int
	with       string
	cut        bool // the end of a cut text from where a value could start
	secret     bool // a secret (secretSpans)
}

// hideBoth writes text with its hidden spans replaced: spans that overlap are
// hidden as one, as a secret when all of them are secrets, else as "[redacted, N
// chars]" with N the characters they cover together (cut when one is); a span
// alone as it says.
func hideBoth(text string, spans []hidden) string {
	slices.SortFunc(spans, func(a, b hidden) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return b.end - a.end
	})
	var b strings.Builder
	prev := 0
	for i := 0; i < len(spans); {
		g := spans[i]
		n := 1
		for i+n < len(spans) && spans[i+n].start < g.end {
			next := spans[i+n]
			g.end, g.cut, g.secret = max(g.end, next.end), g.cut || next.cut, g.secret && next.secret
			n++
		}
		b.WriteString(text[prev:g.start])
		switch region := text[g.start:g.end]; {
		case g.cut:
			b.WriteString(cutPlaceholder(utf8.RuneCountInString(region)))
		case n == 1:
			b.WriteString(g.with)
		case g.secret:
			b.WriteString(secretPlaceholder(region))
		default:
			b.WriteString("[redacted, " + quote.Count(utf8.RuneCountInString(region), "char") + "]")
		}
		prev, i = g.end, i+n
	}
	b.WriteString(text[prev:])
	return b.String()
}

// Len is the number of values (and escaped forms) in the set.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	values, _ := s.counts()
	return values
}

// Replace replaces in captured text each occurrence of a value of the set that
// stands alone (not glued to a word on either side: the value "list" is not the
// end of "tools/list") with "[redacted, N chars]", longest value first. When a
// value longer than MaxValue was left out (Long), a text longer than MaxValue is
// replaced whole: it could hold that value.
func (s *Set) Replace(text string) string {
	if s == nil || len(text) < MinValue {
		return text
	}
	if s.hidesWhole(text, false) {
		return "[redacted, " + quote.Count(utf8.RuneCountInString(text), "char") + "]"
	}
	return s.replace(text, false)
}

// ReplaceCut is Replace for a text the capture cut short: a string that a frame
// quoted up to a bound ends inside, an error message or a context line cut for
// the timeline. Such a text can end with the start of a value, which Replace,
// looking for whole values, does not find. So ReplaceCut also hides the text
// from the first place where a value of the set could start and run past its
// end (the MinValue bytes or more left there are that value's first bytes, or a
// value left out as too long starts with them), to its end. When the set left
// out more long values than it keeps the starts of, a cut text is hidden whole.
func (s *Set) ReplaceCut(text string) string {
	if s == nil || text == "" {
		return text
	}
	if s.hidesWhole(text, true) {
		return cutPlaceholder(utf8.RuneCountInString(text))
	}
	return s.replace(text, true)
}

// hidesWhole reports whether the set hides text whole (cut: a text the capture
// cut short): it left out a value longer than MaxValue (Long), and text is
// longer than that, or is cut when the set keeps no more starts of such values.
func (s *Set) hidesWhole(text string, cut bool) bool {
	return s != nil && s.Long && (len(text) > MaxValue || (cut && s.longHeadsFull))
}

// cutPlaceholder is what hides the end of a cut text: its length as captured,
// the rest unknown.
func cutPlaceholder(chars int) string {
	return "[redacted, " + strconv.Itoa(chars) + "+ chars, cut]"
}

// replace is Replace, and with cut, what ReplaceCut does but for hiding whole.
func (s *Set) replace(text string, cut bool) string {
	if values, heads := s.counts(); values == 0 && (!cut || heads == 0) {
		return text
	}
	spans, cutFrom := s.valueSpans(text, cut)
	if len(spans) == 0 && cutFrom < 0 {
		return text
	}
	var b strings.Builder
	prev := 0
	for _, v := range spans {
		b.WriteString(text[prev:v.start])
		b.WriteString(v.with)
		prev = v.end
	}
	if cutFrom >= 0 {
		b.WriteString(text[prev:cutFrom])
		b.WriteString(cutPlaceholder(utf8.RuneCountInString(text[cutFrom:])))
		return b.String()
	}
	b.WriteString(text[prev:])
	return b.String()
}

// valueSpans returns where the values of the set stand alone in text, longest
// first where several start at one place, each with its placeholder, and, with
// cut, where the start of one that could run past the text's end begins (-1:
// nowhere; the spans all end before it).
func (s *Set) valueSpans(text string, cut bool) (spans []hidden, cutFrom int) {
	if s.unsorted {
		for _, list := range s.lengths {
			slices.SortFunc(list, func(a, b int32) int { return int(b - a) })
		}
		s.unsorted = false
	}
	for i := 0; i+MinValue <= len(text); {
		if !utf8.RuneStart(text[i]) {
			i++
			continue
		}
		if cut && s.startsHere(text, i) {
			// Before any shorter value that starts alike: the longer one would
			// run past the end (what a whole match would leave shown).
			return spans, i
		}
		n, chars := 0, 0
		for _, l := range s.lengthsOf(prefixOf(text[i:])) {
			end := i + int(l)
			if end > len(text) {
				continue
			}
			if c, ok := s.valueOf(s.key(text[i:end])); ok && standalone(text, i, end) {
				n, chars = int(l), c
				break
			}
		}
		if n == 0 {
			i++
			continue
		}
		spans = append(spans, hidden{start: i, end: i + n, with: "[redacted, " + quote.Count(chars, "char") + "]"})
		i += n
	}
	return spans, -1
}

// addStart keeps the hash of a form's start (0: none).
func (s *Set) addStart(st uint64) {
	if st == 0 {
		return
	}
	if s.starts == nil {
		s.starts = map[uint64]struct{}{}
	}
	s.starts[st] = struct{}{}
}

// startsHere reports whether a value of the set could start at text[i] and run
// past the text's end: the MinValue bytes or more left from i are fewer than the
// value's and its first ones (as far as its first MinValue bytes tell, and its
// first startBytes when as many are left; a value left out as too long is longer
// than any), and the value would stand alone on its left, as Replace requires.
// Fewer bytes left say nothing, as values shorter than MinValue are not looked
// for.
func (s *Set) startsHere(text string, i int) bool {
	rest := len(text) - i
	if rest < MinValue {
		return false
	}
	if i > 0 {
		before, _ := utf8.DecodeLastRuneInString(text[:i])
		first, _ := utf8.DecodeRuneInString(text[i:])
		if gluing(before) && gluing(first) {
			return false
		}
	}
	p := prefixOf(text[i:])
	longer := s.hasLongHead(p) // a value left out, longer than any text cut
	for _, l := range s.lengthsOf(p) {
		longer = longer || int(l) > rest
	}
	if !longer || rest < startBytes {
		return longer
	}
	// Enough is left to tell more than the first bytes: it must be how such a
	// value starts (a log line's date is not every value that starts with one).
	return s.hasStart(s.startHash(text[i:]))
}

// standalone reports whether text[start:end] is not glued to a word on either
// side: a bare value "list" is not the end of "tools/list".
func standalone(text string, start, end int) bool {
	before, _ := utf8.DecodeLastRuneInString(text[:start])
	after, _ := utf8.DecodeRuneInString(text[end:])
	first, _ := utf8.DecodeRuneInString(text[start:end])
	last, _ := utf8.DecodeLastRuneInString(text[start:end])
	if start > 0 && gluing(before) && gluing(first) {
		return false
	}
	return end == len(text) || !gluing(after) || !gluing(last)
}

// gluing runes join a bare value to the text around it.
func gluing(r rune) bool {
	return r == '_' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || r > 0x7f || r == '/' || r == '-'
}
