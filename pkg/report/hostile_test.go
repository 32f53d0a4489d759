package report_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// The hostile fixtures of issue 11, output items.
const (
	invalidUTF8Capture    = "../../fixtures/hostile/invalid-utf8-id.jsonl"
	nonCharactersCapture  = "../../fixtures/hostile/junit-noncharacters.jsonl"
	invisibleCharsCapture = "../../fixtures/hostile/invisible-characters.jsonl"
)

// hostileOutputs renders a capture in every format the program writes: the check
// formats (whole and streamed), the timeline, and the handshake in text and JSON.
func hostileOutputs(t *testing.T, path string, ruleset []*rule.Rule, redact bool) map[string]string {
	t.Helper()
	out := everyFormat(t, path, ruleset, redact)
	out["json-streamed"] = string(streamedJSON(t, []string{path}, redact))
	out["jsonl-streamed"] = string(streamedJSONL(t, []string{path}, redact))
	res, tr := analyseFile(t, path, nil, trace.Options{Needs: report.HandshakeRequires})
	var hs []*report.Handshake
	for _, sr := range res.Sessions {
		if h := tr.Of(sr); h != nil && h.Handshake != nil {
			hs = append(hs, h.Handshake)
		}
	}
	if len(hs) == 0 {
		t.Fatalf("%s: no handshake", path)
	}
	var text, js bytes.Buffer
	if err := report.WriteHandshakeText(&text, hs, report.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteHandshakeJSON(&js, hs); err != nil {
		t.Fatal(err)
	}
	out["handshake"], out["handshake-json"] = text.String(), js.String()
	return out
}

func isJSONFormat(name string) bool {
	return strings.HasPrefix(name, "json") || name == "sarif" || name == "handshake-json"
}

// TestJSONIsValidUTF8 (issue 11 item 8): ids, names, methods and capability
// objects holding invalid UTF-8 reach the JSON, JSONL and SARIF reports (and the
// handshake JSON) as valid UTF-8 and valid JSON: raw tokens copied from the
// capture are re-encoded, invalid bytes as \ufffd, while a valid id is kept byte
// for byte. Before, ids and capability objects were copied raw.
func TestJSONIsValidUTF8(t *testing.T) {
	for _, ruleset := range [][]*rule.Rule{rules.All(), {flagEverything}} {
		for _, redact := range []bool{false, true} {
			for name, out := range hostileOutputs(t, invalidUTF8Capture, ruleset, redact) {
				if !isJSONFormat(name) {
					continue
				}
				if !utf8.ValidString(out) {
					i := firstInvalid(out)
					t.Errorf("rules %s, redact %v, %s: invalid UTF-8 at byte %d: %q", ruleset[0].ID, redact, name, i, out[max(0, i-40):min(len(out), i+10)])
				}
				if err := validJSONDocuments(out); err != nil {
					t.Errorf("rules %s, redact %v, %s: %v", ruleset[0].ID, redact, name, err)
				}
			}
		}
	}
	out := hostileOutputs(t, invalidUTF8Capture, rules.All(), false)
	for name, want := range map[string][]string{
		"json":  {`"id": "a\ufffd\ufffdb"`, `"id": "café-7"`, `"k\ufffd": "v\ufffd\ufffd"`},
		"jsonl": {`"id":"a\ufffd\ufffdb"`, `"id":"café-7"`},
		"sarif": {`"id": "a\ufffd\ufffdb"`},
	} {
		for _, w := range want {
			if !strings.Contains(out[name], w) {
				t.Errorf("%s lacks %s", name, w)
			}
		}
	}
}

func firstInvalid(s string) int {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

// validJSONDocuments checks that s is a sequence of JSON documents (one, or one a
// line).
func validJSONDocuments(s string) error {
	dec := json.NewDecoder(strings.NewReader(s))
	for {
		var v any
		if err := dec.Decode(&v); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// TestJUnitIsWellFormed (issue 11 item 9): U+FFFE, U+FFFF and other characters
// outside XML's Char production, raw or escaped in the capture, in names, ids,
// methods and error messages, leave the JUnit report well-formed
// XML that a parser reads to its end. Before, they reached CDATA sections raw.
func TestJUnitIsWellFormed(t *testing.T) {
	for _, ruleset := range [][]*rule.Rule{rules.All(), {flagEverything}} {
		for _, redact := range []bool{false, true} {
			junit := everyFormat(t, nonCharactersCapture, ruleset, redact)["junit"]
			if err := wellFormedXML(junit); err != nil {
				t.Errorf("rules %s, redact %v: %v", ruleset[0].ID, redact, err)
			}
			for _, r := range junit {
				if !xmlChar(r) {
					t.Errorf("rules %s, redact %v: U+%04X outside XML's Char production", ruleset[0].ID, redact, r)
				}
			}
		}
	}
	junit := everyFormat(t, nonCharactersCapture, []*rule.Rule{flagEverything}, false)["junit"]
	for _, want := range []string{`frame tools/\uffffcall id="\ufffe1"`, `value="server\uffff 1"`, `client\ufffe 1\uffff`} {
		if !strings.Contains(junit, want) {
			t.Errorf("junit lacks %s", want)
		}
	}
}

// wellFormedXML reads a document to its end with encoding/xml, which rejects
// characters outside the Char production.
func wellFormedXML(s string) error {
	dec := xml.NewDecoder(strings.NewReader(s))
	for {
		if _, err := dec.Token(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// xmlChar is XML 1.0's Char production.
func xmlChar(r rune) bool {
	return r == 0x9 || r == 0xa || r == 0xd || (r >= 0x20 && r <= 0xd7ff) || (r >= 0xe000 && r <= 0xfffd) || (r >= 0x10000 && r <= 0x10ffff)
}

// invisible is the oracle of issue 11 item 11: the characters that render as
// nothing (or move text around) and so must never reach an output raw.
func invisible(r rune) bool {
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Other_Default_Ignorable_Code_Point,
		unicode.Variation_Selector, unicode.Noncharacter_Code_Point) && r != '\n'
}

// TestInvisibleCharactersEscaped (issue 11 item 11): zero-width characters, tag
// characters, LRM/RLM/ALM, the BOM, the soft hyphen, word joiner and invisible
// operators, Hangul fillers and variation selectors in methods, names, ids, error
// messages, instructions and context lines reach no output raw, in any format,
// redacted or not: a method tools/l\u200bist never prints like tools/list. The
// JSON formats keep the exact value (escaped as \u200b, decoded the same).
func TestInvisibleCharactersEscaped(t *testing.T) {
	for _, ruleset := range [][]*rule.Rule{rules.All(), {flagEverything}} {
		for _, redact := range []bool{false, true} {
			for name, out := range hostileOutputs(t, invisibleCharsCapture, ruleset, redact) {
				switch name {
				case "text-colour":
					out = ownColour.ReplaceAllString(out, "")
				case "markdown", "html":
					out = strings.NewReplacer("⚠️", "", "ℹ️", "").Replace(out) // their own icons: U+FE0F asks for the emoji form
				}
				for i, r := range out {
					if invisible(r) {
						t.Errorf("rules %s, redact %v, %s: raw U+%04X at byte %d: %q", ruleset[0].ID, redact, name, r, i, out[max(0, i-40):min(len(out), i+10)])
						break
					}
				}
			}
		}
	}
	out := hostileOutputs(t, invisibleCharsCapture, []*rule.Rule{flagEverything}, false)
	for name, want := range map[string]string{
		"text":      `tools/l\u200bist`,
		"timeline":  `tools/l\u200bist`,
		"markdown":  `tools/l\\u200bist`,
		"junit":     `frame tools/l\u200bist id=1`,
		"lines":     `: error MCP9009 frame tools/l\u200bist id=1`,
		"sarif":     `tools/call id=\"\\u200d2\"`, // message text is escaped for people, then encoded
		"handshake": `srv\U000e0069\U000e0067`,
		"json":      `tools/l\u200bist`,
	} {
		if !strings.Contains(out[name], want) {
			t.Errorf("%s lacks %s", name, want)
		}
	}
	var doc struct {
		Sessions []struct {
			Server   struct{ Name string }
			Findings []struct{ Method *string }
		}
	}
	if err := json.Unmarshal([]byte(out["json"]), &doc); err != nil {
		t.Fatal(err)
	}
	methods := map[string]bool{}
	for _, f := range doc.Sessions[0].Findings {
		if f.Method != nil {
			methods[*f.Method] = true
		}
	}
	if !methods["tools/l\u200bist"] || !methods["notifications/tools/l\u200bist_changed"] {
		t.Errorf("the JSON report does not keep the exact methods: %v", methods)
	}
	if name := doc.Sessions[0].Server.Name; name != "srv\U000E0069\U000E0067\U000E006E\U000E006F\U000E0072\U000E0065\U000E0020\U000E0061\U000E006C\U000E006C" {
		t.Errorf("the JSON report does not keep the exact server name: %q", name)
	}
}

// The fixtures exist and hold what they are named for (a test that reads none
// proves nothing).
func TestHostileFixturesHoldTheirCharacters(t *testing.T) {
	for path, want := range map[string]func([]byte) bool{
		invalidUTF8Capture:    func(b []byte) bool { return !utf8.Valid(b) },
		nonCharactersCapture:  func(b []byte) bool { return bytes.Contains(b, []byte("\uffff")) && bytes.Contains(b, []byte("\ufffe")) },
		invisibleCharsCapture: func(b []byte) bool { return bytes.Contains(b, []byte("l\u200bist")) },
	} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !want(b) {
			t.Errorf("%s does not hold what the tests look for", path)
		}
	}
}

// redactedOutputs renders a capture redacted in every format that takes
// --redact (the handshake does not).
func redactedOutputs(t *testing.T, path string, ruleset []*rule.Rule, redact bool) map[string]string {
	t.Helper()
	out := hostileOutputs(t, path, ruleset, redact)
	delete(out, "handshake")
	delete(out, "handshake-json")
	return out
}

// TestRedactHidesEchoedValues (issue 11 item 18): a password and a query in tool
// arguments, hidden in the request, are echoed by the server in -32601 and
// -32602 error messages, in error data and in a stderr line of the session;
// with --redact none of them reaches any format, the timeline included, while
// the error messages around them stay. Before, the error messages (kept for
// triage) carried them into every format.
func TestRedactHidesEchoedValues(t *testing.T) {
	const capture = "../../fixtures/hostile/redact-echoed-secret.jsonl"
	secrets := []string{"Tr0ub4dor", "078-05-1120"}
	plain := redactedOutputs(t, capture, rules.All(), false)
	for _, name := range []string{"text", "timeline", "markdown", "json"} {
		for _, s := range secrets {
			if !strings.Contains(plain[name], s) {
				t.Fatalf("unredacted %s lacks %s: the test proves nothing", name, s)
			}
		}
	}
	for _, ruleset := range [][]*rule.Rule{rules.All(), {flagEverything}} {
		for name, out := range redactedOutputs(t, capture, ruleset, true) {
			for _, s := range secrets {
				if i := strings.Index(out, s); i >= 0 {
					t.Errorf("rules %s, %s: %s leaked: %q", ruleset[0].ID, name, s, out[max(0, i-80):min(len(out), i+30)])
				}
			}
		}
	}
	red := redactedOutputs(t, capture, rules.All(), true)
	for name, wants := range map[string][]string{
		"timeline": {"error -32601 Method not found: login(user=ann, pass=[redacted, 17 chars])", `error -32602 no results for "[redacted, 15 chars]"`,
			"stderr: retrying login for ann with [redacted, 17 chars]", "(last query: [redacted, 15 chars])"},
		"json":     {`was answered with error -32601 \"Method not found: login(user=ann, pass=[redacted, 17 chars])\"`},
		"markdown": {`"message": "Method not found: login(user=ann, pass=[redacted, 17 chars])"`, `"echo": "[redacted string, 17 chars]"`},
	} {
		for _, want := range wants {
			if !strings.Contains(red[name], want) {
				t.Errorf("redacted %s lacks %s", name, want)
			}
		}
	}
}

// TestRedactMasksURLPathTokens (issue 11 item 19): a credential in a HAR URL
// path (/u/<32 hex digits>/mcp), which MCP1011 quotes with the request line, is
// masked in every format under --redact; the rest of the path stays.
func TestRedactMasksURLPathTokens(t *testing.T) {
	const capture = "../../fixtures/hostile/redact-url-path-token.har"
	const token = "9f86d081884c7d659a2feaa0c55ad015"
	if plain := redactedOutputs(t, capture, rules.All(), false); !strings.Contains(plain["text"], token) {
		t.Fatal("the unredacted report lacks the token: the test proves nothing")
	}
	for _, ruleset := range [][]*rule.Rule{rules.All(), {flagEverything}} {
		for name, out := range redactedOutputs(t, capture, ruleset, true) {
			if i := strings.Index(out, token); i >= 0 {
				t.Errorf("rules %s, %s: the path token leaked: %q", ruleset[0].ID, name, out[max(0, i-80):min(len(out), i+40)])
			}
		}
	}
	if json := redactedOutputs(t, capture, rules.All(), true)["json"]; !strings.Contains(json, "POST /u/[redacted secret, 32 chars]/mcp (entry 3)") {
		t.Errorf("the redacted MCP1011 message lost its path:\n%s", json)
	}
}
