package redact

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
)

// hides says which kinds of captured values redaction replaces in messages: the
// data a session carries, as in frames; names, ids, error messages, versions and
// definitions stay (with secret-looking strings masked), as in frames.
func hides(k rule.ValueKind) bool {
	switch k {
	case rule.ValueData, rule.ValueURI, rule.ValueInstructions, rule.ValueCredential:
		return true
	}
	return false
}

// Message redacts a finding's message or a related frame's note: each value it
// declares of a kind redaction hides is replaced, exactly where the text shows it
// (as the value's Shown says, not glued to a word), with a placeholder of its
// kind and length; in each value it keeps (an error message, a name; not ids and
// versions, which triage needs), the values of set (the session's) are replaced; secret-looking strings are masked in the
// whole text. Occurrences are found in the original text and replaced in one
// pass, longest first where two overlap, so a placeholder is never searched again.
func Message(text string, values []rule.Value, set *Set) string {
	type span struct {
		start, end int
		with       string
	}
	var spans []span
	for _, v := range values {
		if v.Shown == "" {
			continue
		}
		var with string
		switch {
		case hides(v.Kind):
			with = valuePlaceholder(v, set)
		case set.Len() > 0 && v.Kind != rule.ValueID && v.Kind != rule.ValueVersion: // ids and versions stay, as in frames
			with = keptShown(v, set)
			if with == v.Shown {
				continue
			}
		default:
			continue
		}
		for from := 0; from < len(text); {
			i := strings.Index(text[from:], v.Shown)
			if i < 0 {
				break
			}
			start, end := from+i, from+i+len(v.Shown)
			if standalone(text, start, end) {
				spans = append(spans, span{start, end, with})
			}
			from = start + 1
		}
	}
	if len(spans) == 0 {
		return MaskSecrets(text)
	}
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].start != spans[j].start {
			return spans[i].start < spans[j].start
		}
		return spans[i].end > spans[j].end
	})
	var b strings.Builder
	at := 0
	for _, sp := range spans {
		if sp.start < at {
			continue // inside a longer value already replaced
		}
		b.WriteString(text[at:sp.start])
		b.WriteString(sp.with)
		at = sp.end
	}
	b.WriteString(text[at:])
	return MaskSecrets(b.String())
}

// keptShown is a kept value as a message shows it, with the set's values
// replaced: in the whole captured value, then rendered again as the message
// rendered it (rule.Value.Again: quoted, clipped), so that the clip leaves no
// start of a value that the whole held (an error message quoted at 80 bytes that
// echoes an argument); a value shown otherwise (rule.Shown) gets them replaced
// in what the message shows.
func keptShown(v rule.Value, set *Set) string {
	if shown, ok := v.Again(set.Replace(v.Text)); ok {
		return shown
	}
	return set.Replace(v.Shown)
}

// valuePlaceholder is what a hidden value becomes: "[redacted, 18 chars]", quoted
// when the message quoted it, "[redacted URI, ...]" for URIs and "[redacted
// secret, ...]" for credentials; the length is the captured value's, in
// characters. JSON data is redacted as in frames.
func valuePlaceholder(v rule.Value, set *Set) string {
	if v.JSON && v.Kind == rule.ValueData {
		return jsonValue(v.Shown, set)
	}
	text, quoted := v.Text, strings.HasPrefix(v.Shown, `"`)
	n := 0
	switch {
	case v.JSON && strings.HasPrefix(text, `"`):
		n = utf8.RuneCountInString(decodeString(text))
	default:
		n = utf8.RuneCountInString(text)
	}
	what := "redacted"
	switch v.Kind {
	case rule.ValueURI:
		what = "redacted URI"
	case rule.ValueCredential:
		what = "redacted secret"
	}
	p := "[" + what + ", " + quote.Count(n, "char") + "]"
	if quoted {
		return `"` + p + `"`
	}
	return p
}
