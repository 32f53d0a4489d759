package scrub

import (
	"sort"
	"strings"
)

// Lengths of the values a textSet looks for.
const (
	// minGlobal is the shortest secret looked for in every line after the one
	// it was found in: shorter ones would match text they were never part of.
	minGlobal = 8
	// minAny is the shortest value looked for at all.
	minAny = 4
	// maxValues and maxBytes bound what a textSet looks for: a capture that
	// carries more (every value of an archive under --values) has its first
	// ones looked for, and the set says it is full.
	maxValues = 200_000
	maxBytes  = 64 << 20
)

// textSet replaces values in text, wherever one stands alone (not inside a
// longer word), with its pseudonym.
type textSet struct {
	// byPrefix holds the values by their first minAny bytes, longest first.
	byPrefix map[string][]string
	with     map[string]string
	unsorted bool
	bytes    int
	// Full is set once a value was left out for the bounds.
	Full bool
}

func newTextSet() *textSet {
	return &textSet{byPrefix: map[string][]string{}, with: map[string]string{}}
}

// add adds a secret to look for, when it is long enough to be looked for in
// text it was not found in (minGlobal).
func (t *textSet) add(value, with string) {
	if len(value) >= minGlobal {
		t.addAny(value, with)
	}
}

// addAny adds a value of at least minAny bytes.
func (t *textSet) addAny(value, with string) {
	if len(value) < minAny || t.with[value] != "" {
		return
	}
	if len(t.with) >= maxValues || t.bytes+len(value) > maxBytes {
		t.Full = true
		return
	}
	t.bytes += len(value)
	value = strings.Clone(value)
	t.with[value] = with
	p := value[:minAny]
	t.byPrefix[p] = append(t.byPrefix[p], value)
	t.unsorted = true
}

// replace replaces every value of the set that stands alone in line; counted
// is called for each.
func (t *textSet) replace(line []byte, counted func()) []byte {
	if len(t.with) == 0 {
		return line
	}
	if t.unsorted {
		for _, vs := range t.byPrefix {
			sort.Slice(vs, func(i, j int) bool { return len(vs[i]) > len(vs[j]) })
		}
		t.unsorted = false
	}
	var spans []span
	for i := 0; i+minAny <= len(line); i++ {
		if i > 0 && wordByte(line[i-1]) {
			continue
		}
		vs := t.byPrefix[string(line[i:i+minAny])]
		for _, v := range vs {
			end := i + len(v)
			if end <= len(line) && string(line[i:end]) == v && (end == len(line) || !wordByte(line[end]) || !wordByte(v[len(v)-1])) {
				spans = append(spans, span{i, end, t.with[v]})
				counted()
				i = end - 1
				break
			}
		}
	}
	out, _ := replaceSpans(line, spans)
	return out
}

// wordByte reports whether c continues a word or token.
func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' || c == '+' || c >= 0x80
}
