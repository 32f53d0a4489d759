package scrub

import (
	"strings"
	"testing"
)

// TestPlaceInsideJSONString: a frame's bytes found inside a JSON string (a
// HAR's body) get their values replaced there, escapes of the string around
// them and inside the value kept in place.
func TestPlaceInsideJSONString(t *testing.T) {
	raw := []byte(`{"params":{"arguments":{"q":"caf\u00e9 \"x\"","k":"é✓😀"}}}`)
	// The frame as a HAR holds it: the body of a JSON string, escaped once, a
	// character written as \u escapes and a surrogate pair.
	text := []byte(`{"text": "{\"params\":{\"arguments\":{\"q\":\"caf\\u00e9 \\\"x\\\"\",\"k\":\"\u00e9\u2713\ud83d\ude00\"}}}"}` + "\n")
	qStart := strings.Index(string(raw), `caf`)
	qEnd := strings.Index(string(raw), `","k"`)
	kStart := strings.Index(string(raw), `é`)
	kEnd := strings.LastIndex(string(raw), `"}}}`)
	decoded, _ := decodeWithOrigins([]byte(`{\"params\":{\"arguments\":{\"q\":\"caf\\u00e9 \\\"x\\\"\",\"k\":\"\u00e9\u2713\ud83d\ude00\"}}}`))
	if string(decoded) != string(raw) {
		t.Fatalf("decoded %s, want %s", decoded, raw)
	}
	out, end, ok := placeIn(text, 0, raw, []span{{qStart, qEnd, "P1"}, {kStart, kEnd, "P2"}})
	if !ok {
		t.Fatal("not found inside the string")
	}
	want := `{"text": "{\"params\":{\"arguments\":{\"q\":\"P1\",\"k\":\"P2\"}}}"}` + "\n"
	if string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
	if got := string(out[end:]); got != `"}`+"\n" {
		t.Errorf("the frame ends before %q, want before the closing quote", got)
	}
}

// TestPlaceAsIs: several frames on one line (a batch's members, events of one
// body) are placed in order, each after the one before.
func TestPlaceAsIs(t *testing.T) {
	text := []byte(`{"a":{"v":"same"},"b":{"v":"same"}}` + "\n")
	raw := []byte(`{"v":"same"}`)
	e := []span{{6, 10, "X"}}
	out, end, ok := placeIn(text, 0, raw, e)
	if !ok || string(out) != `{"a":{"v":"X"},"b":{"v":"same"}}`+"\n" {
		t.Fatalf("first: %s", out)
	}
	out, _, ok = placeIn(out, end, raw, []span{{6, 10, "Y"}})
	if !ok || string(out) != `{"a":{"v":"X"},"b":{"v":"Y"}}`+"\n" {
		t.Fatalf("second: %s", out)
	}
}

// TestPseudonyms: the same value gets the same pseudonym under one key and
// another under another key; pseudonyms have one length; paths and URIs keep
// their structure, one character stays one character.
func TestPseudonyms(t *testing.T) {
	a, _ := newPseudonyms([]byte("k1"))
	b, _ := newPseudonyms([]byte("k2"))
	for _, v := range []string{"hunter2", "a much longer secret value that goes on"} {
		if first, again := a.of(v), a.of(v); first != again || first == b.of(v) {
			t.Errorf("%q: %s, %s", v, a.of(v), b.of(v))
		}
		if len(a.of(v)) != len(pseudonymPrefix)+12 || !isPseudonym(a.of(v)) {
			t.Errorf("%q: pseudonym %q", v, a.of(v))
		}
	}
	root, under, sibling := a.of("file:///home/ana/kb"), a.of("file:///home/ana/kb/notes%20one.txt"), a.of("file:///home/ana/kb2/x")
	if !strings.HasPrefix(under, root+"/") || strings.HasPrefix(sibling, root+"/") || !strings.HasPrefix(root, "file:///r-") {
		t.Errorf("URIs lost their structure: %s %s %s", root, under, sibling)
	}
	if a.of("file:///home/ana/kb/notes one.txt") != under {
		t.Error("percent-encoding changes the pseudonym")
	}
	if p := a.of("/home/ana/../.ssh/id_rsa"); !strings.Contains(p, "/../") || !strings.HasPrefix(p, "/r-") {
		t.Errorf("a path: %s", p)
	}
	if p := a.of("https://mcp.example.com/u/x?token=y"); !strings.HasPrefix(p, "https://r-") || !strings.Contains(p, "?r-") {
		t.Errorf("a URL: %s", p)
	}
	if p := a.of("urn:isbn:123"); !strings.HasPrefix(p, "urn:"+pseudonymPrefix) {
		t.Errorf("a URN: %s", p)
	}
	if p := a.of("Note: later"); strings.Contains(p, "Note") {
		t.Errorf("a word and a colon kept: %s", p)
	}
	if p := a.of("é"); len([]rune(p)) != 1 {
		t.Errorf("one character became %q", p)
	}
}

// TestTextSet: a value is replaced where it stands alone, never inside a
// longer word; the longest value wins.
func TestTextSet(t *testing.T) {
	s := newTextSet()
	s.add("short", "X") // under minGlobal: not looked for
	s.add("abcdefgh12", "A")
	s.add("abcdefgh1234", "B")
	n := 0
	got := string(s.replace([]byte(`"abcdefgh12" zabcdefgh12 abcdefgh1234 abcdefgh12z short`), func() { n++ }))
	if want := `"A" zabcdefgh12 B abcdefgh12z short`; got != want || n != 2 {
		t.Errorf("got %s (%d), want %s", got, n, want)
	}
}

// TestCredentialOf: an authentication scheme stays, a cookie header goes whole.
func TestCredentialOf(t *testing.T) {
	for in, want := range map[string]string{
		"Bearer abc.def":             "abc.def",
		"basic dXNlcjpw":             "dXNlcjpw",
		"session=abc; theme=dark":    "session=abc; theme=dark",
		"sk-abcdefghijklmnopqrstuvw": "sk-abcdefghijklmnopqrstuvw",
	} {
		if got := credentialOf(in); got != want {
			t.Errorf("credentialOf(%q) = %q, want %q", in, got, want)
		}
	}
}
