package report

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// escapeSeeds are captured strings of the kinds the escaping must handle.
var escapeSeeds = []string{
	"tools/list", "tools/l\u200bist", "x\x1b]0;pwned\x07\x1b[2J", "\u009b31m\u202e\u2066", "a\xfe\xffb", "\xf0\x9f\x98",
	"caf\u00e9 \u65e5\u672c \u274c\ufe0f", "srv\U000E0069\U000E0067", "\ufffe\uffff\ufdd0", "\ufeff\u00ad\u180e\u3164", "\x7f\r\n\t", "",
}

// FuzzSafe: what Safe writes is valid UTF-8 with no character mustEscape names,
// and text with none of them is written as it is.
func FuzzSafe(f *testing.F) {
	for _, s := range escapeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Safe(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Safe(%q) = %q: not UTF-8", s, got)
		}
		for _, r := range got {
			if mustEscape(r) {
				t.Fatalf("Safe(%q) = %q: raw U+%04X", s, got, r)
			}
		}
		clean := utf8.ValidString(s)
		for _, r := range s {
			clean = clean && !mustEscape(r)
		}
		if clean && got != s {
			t.Fatalf("Safe(%q) = %q changed text that needs no escaping", s, got)
		}
	})
}

// FuzzEscapeJSONText: a JSON string token holding any bytes (invalid UTF-8, C1
// controls, format characters raw) comes out of escapeJSONText valid UTF-8 and
// valid JSON with none of them raw, and decodes to the string the token decoded
// to (encoding/json reads invalid bytes as U+FFFD too).
func FuzzEscapeJSONText(f *testing.F) {
	for _, s := range escapeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		token := rawJSONString(s)
		if !json.Valid([]byte(token)) {
			t.Fatalf("the test built invalid JSON: %q", token)
		}
		got := escapeJSONText([]byte(token))
		if !utf8.Valid(got) || !json.Valid(got) {
			t.Fatalf("escapeJSONText(%q) = %q: not UTF-8 or not JSON", token, got)
		}
		for _, r := range string(got) {
			if r >= 0x7f && mustEscape(r) {
				t.Fatalf("escapeJSONText(%q) = %q: raw U+%04X", token, got, r)
			}
		}
		var before, after string
		if err := json.Unmarshal([]byte(token), &before); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(got, &after); err != nil {
			t.Fatal(err)
		}
		if before != after {
			t.Fatalf("escapeJSONText changed the value: %q, then %q", before, after)
		}
	})
}

// rawJSONString writes s as a JSON string token the way a capture may hold it:
// quotes, backslashes and C0 controls escaped, every other byte raw.
func rawJSONString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
