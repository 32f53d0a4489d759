package report

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

func TestWrapLine(t *testing.T) {
	cases := []struct {
		line   string
		width  int
		indent string
		want   []string
	}{
		{"short line", 20, "  ", []string{"short line"}},
		{"  note: the capture has no timestamps: response times unknown", 30, "        ",
			[]string{"  note: the capture has no", "        timestamps: response", "        times unknown"}},
		{"word " + strings.Repeat("x", 25) + " end", 20, "    ",
			[]string{"word xxxxxxxxxxxxxxx", "    xxxxxxxxxx end"}},
		{strings.Repeat("ab ", 10), 10, "", []string{"ab ab ab", "ab ab ab", "ab ab ab", "ab"}},
		{"héllo wörld ünïcode", 12, "", []string{"héllo wörld", "ünïcode"}},
	}
	for _, c := range cases {
		if got := wrapLine(c.line, c.width, c.indent); !reflect.DeepEqual(got, c.want) {
			t.Errorf("wrapLine(%q, %d, %q) = %q, want %q", c.line, c.width, c.indent, got, c.want)
		}
	}
}

// TestWrapLineKeepsEveryWord wraps random lines: no line is wider than the width,
// and the words read back in order, whole or broken across lines.
func TestWrapLineKeepsEveryWord(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"a", "tools/list", "notifications/initialized", "MCP3001", "—", "東京", strings.Repeat("z", 70)}
	for range 2000 {
		var b strings.Builder
		for n := rng.IntN(40); n > 0; n-- {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteString(strings.Repeat(" ", 1+rng.IntN(2)))
		}
		line, width, indent := strings.TrimRight(b.String(), " "), 20+rng.IntN(60), strings.Repeat(" ", rng.IntN(8))
		got := wrapLine(line, width, indent)
		var joined strings.Builder
		for i, l := range got {
			if w := textWidth(l); w > width {
				t.Fatalf("wrapLine(%q, %d): line %q is %d columns wide", line, width, l, w)
			}
			if i > 0 {
				l = strings.TrimPrefix(l, indent)
			}
			joined.WriteString(l)
		}
		if strip(joined.String()) != strip(line) {
			t.Fatalf("wrapLine(%q, %d, %q) lost text: %q", line, width, indent, got)
		}
	}
}

func strip(s string) string { return strings.ReplaceAll(s, " ", "") }
