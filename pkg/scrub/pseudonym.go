package scrub

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"strings"
	"unicode/utf8"
)

// pseudonymPrefix starts every pseudonym.
const pseudonymPrefix = "redacted-"

// pseudonyms makes the pseudonym of a value: the prefix and 12 hex digits of
// its HMAC-SHA256 under the key.
type pseudonyms struct {
	key []byte
}

func newPseudonyms(key []byte) (pseudonyms, error) {
	if len(key) == 0 {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return pseudonyms{}, err
		}
	}
	return pseudonyms{key: key}, nil
}

// of is the pseudonym of a value. What the analysis relates values by keeps
// its shape: a URI or an absolute path is replaced segment by segment (scheme,
// separators, "." and ".." stay), so that a path still lies under the root it
// lay under and a read still matches the template it matched; a string of one
// character becomes one letter, so that a string spread into an object of
// one-character members still shows as one.
func (p pseudonyms) of(value string) string {
	if structured, ok := p.structured(value); ok {
		return structured
	}
	if utf8.RuneCountInString(value) == 1 {
		return string(rune('a' + p.sum(value)[0]%26))
	}
	name := pseudonymPrefix + hex.EncodeToString(p.sum(value)[:6])
	if scheme := uriScheme(value); scheme != "" {
		return scheme + ":" + name // "urn:", "file:": still a URI
	}
	return name
}

// sum is the keyed hash of a value.
func (p pseudonyms) sum(value string) []byte {
	m := hmac.New(sha256.New, p.key)
	m.Write([]byte(value))
	return m.Sum(nil)
}

// segment is the pseudonym of one segment of a path: "r-" and 8 hex digits of
// the segment, percent-decoded ("a%20b" and "a b" are one name).
func (p pseudonyms) segment(seg string) string {
	switch seg {
	case "", ".", "..":
		return seg
	}
	if dec, err := url.PathUnescape(seg); err == nil {
		seg = dec
	}
	return "r-" + hex.EncodeToString(p.sum("/" + seg)[:4])
}

// structured is the pseudonym of a URI with an authority ("file:///a/b",
// "https://host/x?y") or of an absolute path ("/home/ana/notes.txt"), segment
// by segment; ok is false for other values.
func (p pseudonyms) structured(value string) (string, bool) {
	scheme := uriScheme(value)
	var b strings.Builder
	rest := value
	switch {
	case scheme != "" && strings.HasPrefix(value[len(scheme)+1:], "//"):
		b.WriteString(scheme)
		b.WriteString("://")
		rest = value[len(scheme)+3:]
		authority, path, _ := strings.Cut(rest, "/")
		b.WriteString(p.segment(authority))
		if len(rest) == len(authority) {
			return b.String(), true
		}
		b.WriteByte('/')
		rest = path
	case strings.HasPrefix(value, "/") && !strings.HasPrefix(value, "//"):
		b.WriteByte('/')
		rest = value[1:]
	default:
		return "", false
	}
	path, query, hasQuery := strings.Cut(rest, "?")
	if !hasQuery {
		path, query, _ = strings.Cut(rest, "#")
	}
	for i, seg := range strings.Split(path, "/") {
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(p.segment(seg))
	}
	if len(path) < len(rest) {
		b.WriteByte(rest[len(path)])
		b.WriteString(p.segment(query))
	}
	return b.String(), true
}

// isPseudonym reports whether s is a pseudonym already (a copy scrubbed again).
func isPseudonym(s string) bool {
	if i := strings.Index(s, pseudonymPrefix); i >= 0 && (i == 0 || uriScheme(s) == s[:i-1]) {
		rest := s[i+len(pseudonymPrefix):]
		if len(rest) != 12 {
			return false
		}
		for j := 0; j < len(rest); j++ {
			if c := rest[j]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
				return false
			}
		}
		return true
	}
	return false
}

// uriScheme is the scheme of a value that is an absolute URI with an
// authority ("https://", "test://") or of a scheme that has none ("file:",
// "urn:", "data:", "mailto:"), "" for other text (a word and a colon).
func uriScheme(s string) string {
	for i := 0; i < len(s) && i < 32; i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '.' || c == '-'):
		case i > 0 && c == ':':
			switch scheme := s[:i]; {
			case strings.HasPrefix(s[i+1:], "//"):
				return scheme
			case strings.EqualFold(scheme, "file"), strings.EqualFold(scheme, "urn"), strings.EqualFold(scheme, "data"), strings.EqualFold(scheme, "mailto"):
				return scheme
			}
			return ""
		default:
			return ""
		}
	}
	return ""
}
