package report

import (
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
)

func TestMarkdownEscaping(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"list_changed and _emphasis_", `list_changed and \_emphasis\_`},
		{"a | b `c` *d* [e](f) ~g~", "a \\| b \\`c\\` \\*d\\* \\[e\\](f) \\~g\\~"},
		{"</details><script>x</script> & co", "&lt;/details&gt;&lt;script&gt;x&lt;/script&gt; &amp; co"},
		{"see https://evil.example and www.evil.example", "see https&#58;//evil.example and www&#46;evil.example"},
		{"esc\x1b[2J bell\x07", `esc\\x1b\[2J bell\\x07`},
		{`back\slash`, `back\\slash`},
	} {
		if got := mdText(c.in); got != c.want {
			t.Errorf("mdText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"tools/list", "`tools/list`"},
		{"a`b", "``a`b``"},
		{"``x``", "``` ``x`` ```"},
		{"", "` `"},
		{"x\x1b", "`x\\x1b`"},
	} {
		if got := mdCode(c.in); got != c.want {
			t.Errorf("mdCode(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := cell("`a|b` \\| c|d"); got != "`a\\|b` \\| c\\|d" {
		t.Errorf("cell = %q", got)
	}
	if got := htmlText(`x</details>"<b>'`); got != "x&lt;/details&gt;&#34;&lt;b&gt;&#39;" {
		t.Errorf("htmlText = %q", got)
	}
	var b strings.Builder
	writeCodeBlock(&b, "json", "a ``` b\n````\nc\x1b")
	if got, want := b.String(), "`````json\na ``` b\n````\nc\\x1b\n`````\n\n"; got != want {
		t.Errorf("writeCodeBlock = %q, want %q", got, want)
	}
}

func TestMermaidEscaping(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"tools/call get_invoice id=88 (line 9)", "tools/call get_invoice id=88 (line 9)"},
		{"a;b:c#d%e", "a#59;b#58;c#35;d#37;e"},
		{"<br/>`x`\"q\" end", "#60;br/#62;#96;x#96;#34;q#34; end"},
		{"é\x1b", "#233;#92;x1b"},
		{" lead", "#32;lead"},
	} {
		if got := mermaidText(c.in); got != c.want {
			t.Errorf("mermaidText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestArtifactURI(t *testing.T) {
	for in, want := range map[string]string{
		"frames.jsonl":           "frames.jsonl",
		"-":                      "stdin",
		"dir/my capture#1.jsonl": "dir/my%20capture%231.jsonl",
		"/var/log/mcp/s.log":     "file:///var/log/mcp/s.log",
		"c:frames.jsonl":         "./c:frames.jsonl",
		"../fixtures/a%b.jsonl":  "../fixtures/a%25b.jsonl",
		"日本/frames.jsonl":        "%E6%97%A5%E6%9C%AC/frames.jsonl",
	} {
		if got := artifactURI(in); got != want {
			t.Errorf("artifactURI(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRedactValues: a finding's declared values of the kinds redaction hides are
// replaced exactly where the message shows them, whatever they look like (short,
// with spaces, quotes or "..." inside, bare); names stay; text that merely looks
// like a value (a protocol word, the start of a value) stays.
func TestRedactValues(t *testing.T) {
	long := strings.Repeat("x", 100)
	for _, c := range []struct {
		msg  rule.Message
		want string
	}{
		{rule.Sprintf("argument %s rejected", rule.Quote(rule.ValueData, "ab")), `argument "[redacted, 2 chars]" rejected`},
		{rule.Sprintf("argument %s rejected", rule.Quote(rule.ValueData, `say "hi"... now`)), `argument "[redacted, 15 chars]" rejected`},
		{rule.Sprintf(`capability "tools" is fine; argument %s`, rule.Quote(rule.ValueData, "tools are great")), `capability "tools" is fine; argument "[redacted, 15 chars]"`},
		{rule.Sprintf("tools/list changed: added %s", rule.As(rule.ValueURI, "list")), `tools/list changed: added [redacted URI, 4 chars]`},
		{rule.Sprintf("tool %s of %s", rule.Quote(rule.ValueName, "get_invoice"), rule.QuoteJSON(rule.ValueData, `{"q": "secret"}`)), `tool "get_invoice" of {"q":"[redacted string, 6 chars]"}`},
		{rule.Sprintf("instructions start %s", rule.Quote(rule.ValueInstructions, long)), `instructions start "[redacted, 100 chars]"`},
		{rule.Sprintf("(got %s)", rule.Shown(rule.ValueData, `{"type":"text","a":"abc...`, `{"type":"text","a":"abc...`)), `(got {"type":"text","a":"[redacted string, 3+ chars, cut]"...)`},
		{rule.Sprintf("(got %s)", rule.Shown(rule.ValueData, `{"code":-32603}`, `{"code":-32603}`)), `(got {"code":-32603})`},
		{rule.Sprintf("session %s: %s", rule.As(rule.ValueCredential, "abc123"), rule.QuoteJSON(rule.ValueID, `"p1"`)), `session [redacted secret, 6 chars]: "p1"`},
		{rule.Sprintf("uri %s and %s", rule.Quote(rule.ValueURI, "file:///a/b"), rule.Quote(rule.ValueURI, "file:///a/b/c")), `uri "[redacted URI, 11 chars]" and "[redacted URI, 13 chars]"`},
	} {
		if got := redactValues(c.msg.Text, c.msg.Values); got != c.want {
			t.Errorf("redactValues(%s)\n got %s\nwant %s", c.msg.Text, got, c.want)
		}
	}
}
