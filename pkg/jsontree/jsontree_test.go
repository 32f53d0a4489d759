package jsontree

import (
	"encoding/json"
	"strings"
	"testing"
)

// DecodeString decodes as encoding/json does (invalid UTF-8 as U+FFFD), with or
// without escapes, and returns what it cannot decode without its quotes.
func TestDecodeString(t *testing.T) {
	for _, raw := range []string{`"plain"`, `""`, `"caf\u00e9"`, `"café"`, `"a\"b"`, `"tab\tx"`, "\"bad\xffutf8\"", `"\ud83d\ude00"`} {
		var want string
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatal(err)
		}
		if got := DecodeString(raw); got != want {
			t.Errorf("DecodeString(%q) = %q, want %q", raw, got, want)
		}
	}
	if got := DecodeString(`"cut \u00`); got != `cut \u00` {
		t.Errorf("DecodeString of a cut token = %q", got)
	}
}

// Parse never fails: a cut frame keeps what it read, trailing bytes stay as text,
// and Compact writes back what Parse read.
func TestParseAndCompact(t *testing.T) {
	for in, want := range map[string]string{
		`{"a": [1, "x", true], "b": {}}`: `{"a":[1,"x",true],"b":{}}`,
		`{"a":[1,2`:                      `{"a":[1,2`,
		`{"a":1} trailing`:               `{"a":1}trailing`,
		`not json`:                       `not json`,
	} {
		var b strings.Builder
		Parse([]byte(in)).Compact(&b)
		if got := b.String(); got != want {
			t.Errorf("Parse(%q).Compact = %q, want %q", in, got, want)
		}
	}
}
