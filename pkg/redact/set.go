package redact

import (
	"sort"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
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
)

// Set is the session-wide set of captured values redaction hides: every string
// and number that Frame replaces in the session's frames, and every secret it
// masks there (Collect adds them as the analysis sees each frame). Redaction then
// replaces them wherever else the session prints them: a password in tool
// arguments that a server echoes in an error message, a bearer token repeated in
// a log line. Methods, ids and the report's own words are never searched.
//
// A nil *Set is empty.
type Set struct {
	// byPrefix holds the values by their first MinValue bytes, longest first.
	byPrefix map[string][]string
	// chars is the length of each value (and of its escaped forms) as captured,
	// in characters: what its placeholder says.
	chars map[string]int
	bytes int
	// unsorted is set when a value was added since the lists were last sorted.
	unsorted bool
	// block is where the set copies the forms it keeps (copy).
	block []byte
	// scratch holds the string a walk collecting into the set decoded last
	// (walk.add): the set keeps a copy of it, if anything.
	scratch []byte
	// Full is set when a value was left out because the bounds were reached.
	Full bool
}

// NewSet returns an empty set.
func NewSet() *Set {
	return &Set{byPrefix: map[string][]string{}, chars: map[string]int{}}
}

// saturated reports whether nothing can be added to the set any more (a nil
// set is saturated).
func (s *Set) saturated() bool {
	return s == nil || (s.Full && len(s.chars) >= MaxValues)
}

// Blocks the set copies its forms into: from firstBlock bytes, doubling up to
// maxBlock (a session with a few values keeps a small block); a form longer than
// the block it would start is a string of its own.
const (
	firstBlock = 512
	maxBlock   = 64 << 10
)

// copy is a copy of form that the set keeps, in its current block.
func (s *Set) copy(form string) string {
	if len(form) > cap(s.block)-len(s.block) {
		size := min(max(2*cap(s.block), firstBlock), maxBlock)
		if len(form) > size {
			return strings.Clone(form)
		}
		s.block = make([]byte, 0, size)
	}
	start := len(s.block)
	s.block = append(s.block, form...)
	return unsafe.String(&s.block[start], len(form))
}

// add adds one form of a value; owned says the set may keep the string as it is
// (else it keeps a copy: the form may alias a frame's bytes).
func (s *Set) add(form string, chars int, owned bool) {
	if _, ok := s.chars[form]; ok {
		return
	}
	if len(s.chars) >= MaxValues || s.bytes+len(form) > MaxBytes {
		s.Full = true
		return
	}
	if !owned {
		form = s.copy(form)
	}
	s.chars[form] = chars
	s.bytes += len(form)
	p := form[:MinValue]
	s.byPrefix[p] = append(s.byPrefix[p], form)
	s.unsorted = true
}

// Len is the number of values (and escaped forms) in the set.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.chars)
}

// Replace replaces in captured text each occurrence of a value of the set that
// stands alone (not glued to a word on either side: the value "list" is not the
// end of "tools/list") with "[redacted, N chars]", longest value first.
func (s *Set) Replace(text string) string {
	if s == nil || len(s.chars) == 0 || len(text) < MinValue {
		return text
	}
	if s.unsorted {
		for _, list := range s.byPrefix {
			sort.SliceStable(list, func(i, j int) bool { return len(list[i]) > len(list[j]) })
		}
		s.unsorted = false
	}
	var b strings.Builder
	prev := 0
	for i := 0; i+MinValue <= len(text); {
		if !utf8.RuneStart(text[i]) {
			i++
			continue
		}
		matched := ""
		for _, v := range s.byPrefix[text[i:i+MinValue]] {
			if strings.HasPrefix(text[i:], v) && standalone(text, i, i+len(v)) {
				matched = v
				break
			}
		}
		if matched == "" {
			i++
			continue
		}
		b.WriteString(text[prev:i])
		b.WriteString("[redacted, " + quote.Count(s.chars[matched], "char") + "]")
		i += len(matched)
		prev = i
	}
	if prev == 0 {
		return text
	}
	b.WriteString(text[prev:])
	return b.String()
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
