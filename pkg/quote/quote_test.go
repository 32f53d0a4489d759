package quote

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"get_invoice", 80, `"get_invoice"`},
		{`say "hi"`, 80, `"say \"hi\""`},
		{"abcdef", 4, `"abcd..."`},
		{"ab\u00e9cd", 3, `"ab..."`}, // é is two bytes: not split
		{"a\nb", 80, `"a\nb"`},
	} {
		if got := String(c.in, c.max); got != c.want {
			t.Errorf("String(%q, %d) = %s, want %s", c.in, c.max, got, c.want)
		}
	}
}

func TestJSON(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{`{ "a": [1, 2],` + "\n" + ` "b": "x y" }`, 120, `{"a":[1,2],"b":"x y"}`},
		{`{"a":"abcdef"}`, 10, `{"a":"a...`},
		{`{"a":"\u00e9tre"}`, 12, `{"a":"...`}, // inside \u00e9
		{`{"a":"x\"yz"}`, 11, `{"a":"x...`},    // inside \"
		{`{"a":"\u00e9tre"}`, 15, `{"a":"\u00e9...`},
		{`{"a":"ééé"}`, 11, `{"a":"é...`}, // 3 bytes is mid-é: backs off
		{`"abc"`, 3, `"abc"`},
	} {
		got := JSON(c.in, c.max)
		if got != c.want {
			t.Errorf("JSON(%s, %d) = %s, want %s", c.in, c.max, got, c.want)
		}
		if len(got) > max(c.max, len(c.in)) || !utf8.ValidString(got) {
			t.Errorf("JSON(%s, %d) = %q: too long or not UTF-8", c.in, c.max, got)
		}
	}
}

// TestClipNeverSplits: at every bound, a clip of text full of escapes and
// multi-byte characters is valid UTF-8 and ends on a whole escape.
func TestClipNeverSplits(t *testing.T) {
	s := `{"k":"` + strings.Repeat(`é\"\u2028\\x`, 8) + `"}`
	for n := 4; n <= len(s); n++ {
		got := Clip(s, n)
		if !utf8.ValidString(got) || len(got) > n {
			t.Fatalf("Clip at %d = %q", n, got)
		}
		body := strings.TrimSuffix(got, Ellipsis)
		if trail := len(body) - len(strings.TrimRight(body, `\`)); trail%2 == 1 {
			t.Fatalf("Clip at %d cut after a backslash: %q", n, got)
		}
		if i := strings.LastIndex(body, `\u`); i >= 0 && len(body)-i < 6 && (i == 0 || body[i-1] != '\\') {
			t.Fatalf("Clip at %d cut inside \\u: %q", n, got)
		}
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 messages", 1: "1 message", 2: "2 messages", 1000: "1000 messages"} {
		if got := Count(n, "message"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}
