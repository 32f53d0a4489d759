package report

import (
	"strings"
	"testing"
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
