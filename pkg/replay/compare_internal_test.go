package replay

import (
	"strings"
	"testing"
)

// TestCompare: what each pair of answers is judged, and the changes listed.
func TestCompare(t *testing.T) {
	for _, c := range []struct {
		captured, live string
		verdict        Verdict
		changes        string
	}{
		{`{"result":{"content":[{"type":"text","text":"a"}]}}`, `{"result":{"content":[{"text":"a","type":"text"}]}}`, Same, ""},
		{`{"result":{"content":[{"type":"text","text":"a"}]}}`, `{"result":{"content":[{"type":"text","text":"b"}]}}`, Different, `/content/0/text: "a" in the capture, "b" now`},
		{`{"result":{"content":[]}}`, `{"result":{"content":[],"isError":true}}`, ErrorNow, "a result with isError true"},
		{`{"result":{}}`, `{"error":{"code":-32602,"message":"unknown tool"}}`, ErrorNow, `error -32602 "unknown tool"`},
		{`{"error":{"code":-32603,"message":"boom"}}`, `{"result":{}}`, Fixed, `a result now; the capture has error -32603 "boom"`},
		{`{"error":{"code":-32603,"message":"boom"}}`, `{"error":{"code":-32603,"message":"other words"}}`, Same, ""},
		{`{"result":{"tools":[{"name":"a","description":"x"},{"name":"b"}]}}`, `{"result":{"tools":[{"name":"c"},{"name":"a","description":"y"}]}}`, Different,
			`gone: tools "b"|new: tools "c"|/tools/a/description: "x" in the capture, "y" now`},
	} {
		v, changes := compare("m", []byte(c.captured), []byte(c.live))
		if v != c.verdict || strings.Join(changes, "|") != c.changes {
			t.Errorf("%s against %s: %s %q, want %s %q", c.live, c.captured, v, strings.Join(changes, "|"), c.verdict, c.changes)
		}
	}
}
