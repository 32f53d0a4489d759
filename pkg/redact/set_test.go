package redact

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/jsontree"
)

// TestSetReplace: a collected value is replaced where it stands alone, in the
// forms a message shows it (JSON-escaped); short values, glued occurrences and
// other text stay.
func TestSetReplace(t *testing.T) {
	set := NewSet()
	for _, v := range []string{"hunter2-x", `say "hi"`, "list", "ok", "hunter2-x-long"} {
		set.Add(v)
	}
	for in, want := range map[string]string{
		"bad password hunter2-x!":          "bad password [redacted, 9 chars]!",
		"bad password hunter2-x-long":      "bad password [redacted, 14 chars]",
		`echo "say \"hi\"" back`:           `echo "[redacted, 8 chars]" back`,
		"tools/list and list":              "tools/list and [redacted, 4 chars]",
		"xhunter2-x is glued, ok is short": "xhunter2-x is glued, ok is short",
		"nothing here":                     "nothing here",
	} {
		if got := set.Replace(in); got != want {
			t.Errorf("Replace(%q) = %q, want %q", in, got, want)
		}
	}
	var none *Set
	if got := none.Replace("hunter2-x"); got != "hunter2-x" {
		t.Errorf("a nil set replaced %q", got)
	}
}

// TestCollect: what Collect adds is what Frame hides (data values, secret
// members) and what it masks in kept strings; what Frame keeps is not added.
func TestCollect(t *testing.T) {
	set := NewSet()
	Collect([]byte(`{"jsonrpc":"2.0","id":"req-0001","method":"tools/call","params":{"name":"get_invoice","arguments":{"pass":"Tr0ub4dor","n":123456},"_meta":{"trace":"t-4242"}}}`), set)
	Collect([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"denied: Authorization: Bearer abcdefgh12345678","data":{"why":"quota-77"}}}`), set)
	for _, hidden := range []string{"Tr0ub4dor", "123456", "t-4242", "abcdefgh12345678", "quota-77"} {
		if got := set.Replace("x " + hidden + " y"); got == "x "+hidden+" y" {
			t.Errorf("%s was not collected", hidden)
		}
	}
	for _, kept := range []string{"req-0001", "tools/call", "get_invoice", "denied"} {
		if got := set.Replace(kept); got != kept {
			t.Errorf("%s was collected, but frames keep it", kept)
		}
	}
	if red := string(Frame([]byte(`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no tool for Tr0ub4dor"}}`), set)); strings.Contains(red, "Tr0ub4dor") {
		t.Errorf("Frame kept an echoed value: %s", red)
	}
	// ids stay exactly, even equal to a hidden value; the message around them does not.
	red := string(Frame([]byte(`{"jsonrpc":"2.0","id":"quota-77","error":{"code":-32000,"message":"over quota-77"}}`), set))
	if want := `{"jsonrpc":"2.0","id":"quota-77","error":{"code":-32000,"message":"over [redacted, 8 chars]"}}`; red != want {
		t.Errorf("Frame = %s, want %s", red, want)
	}
}

// TestSetBounds: a session with more values than the bounds keeps the first
// ones and says it is full.
func TestSetBounds(t *testing.T) {
	set := NewSet()
	for i := 0; i < MaxValues+10; i++ {
		set.Add(strings.Repeat("v", 4) + string(rune('a'+i%26)) + strings.Repeat("x", i%7) + itoa(i))
	}
	if !set.Full || set.Len() > MaxValues {
		t.Errorf("Full %v with %d values", set.Full, set.Len())
	}
}

func itoa(i int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + i%10)}, b...)
		if i /= 10; i == 0 {
			return string(b)
		}
	}
}

// TestPathTokens: token-like path segments are masked, names are not.
func TestPathTokens(t *testing.T) {
	for in, want := range map[string]string{
		"POST /u/9f86d081884c7d659a2feaa0c55ad015/mcp (entry 3)": "POST /u/[redacted secret, 32 chars]/mcp (entry 3)",
		"https://h/s/c0ffee00-1111-4222-8333-444455556666?x=1":   "https://h/s/[redacted secret, 36 chars]?x=1",
		"GET /k/AbCdEfGh1234IjKlMnOp5678/sse":                    "GET /k/[redacted secret, 24 chars]/sse",
		"POST /mcp/2025-06-18/notifications-and-resources":       "POST /mcp/2025-06-18/notifications-and-resources",
		"file:///home/ann/notes-for-the-meeting.txt":             "file:///home/ann/notes-for-the-meeting.txt",
		"tools/list and notifications/tools/list_changed":        "tools/list and notifications/tools/list_changed",
		"/srv/captures/deadbeef00c0ffee/x":                       "/srv/captures/[redacted secret, 16 chars]/x",
	} {
		if got := MaskSecrets(in); got != want {
			t.Errorf("MaskSecrets(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestStreamKey: a stream key that looks like a session identifier (an HTTP
// Mcp-Session-Id) is replaced whole; a server label stays.
func TestStreamKey(t *testing.T) {
	for in, want := range map[string]string{
		"c0ffee00-1111-4222-8333-444455556666": "[redacted stream key, 36 chars]",
		"everything":                           "everything",
		"":                                     "",
	} {
		if got := StreamKey(in); got != want {
			t.Errorf("StreamKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSecretNames: isSecretName says what the regular expression it replaced
// said, for the names of every fixture's frames and names made to be close calls.
func TestSecretNames(t *testing.T) {
	oracle := regexp.MustCompile(`(?i)^(?:[a-z0-9_.-]*(api[_-]?key|apikey|access[_-]?key|secret|password|passwd|passphrase|credentials?|private[_-]?key|token|session[_-]?id|sessionid|auth|authorization|cookie|signature|x-api-key)|pass|pwd)$`)
	names := []string{"apiKey", "API_KEY", "x-api-key", "GITHUB_TOKEN", "session_id", "Mcp-Session-Id", "sessionId", "password", "Authorization",
		"set-cookie", "progressToken", "maxTokens", "tokens", "authorize", "author", "oauth", "credentials", "private-key", "my.secret", "secrets",
		"name", "tool", "tok", "auth", "AUTH", "pass word", "pass", "PWD", "bypass", "compass", "pwds", "key", "monkey", "ssh_passphrase", "x_signature", "cookies", "é_token", "", strings.Repeat("a", 70) + "_token", strings.Repeat("b", 70)}
	err := filepath.WalkDir("../../fixtures", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range regexp.MustCompile(`"([^"\\]{1,40})"\s*:`).FindAllSubmatch(b, -1) {
			names = append(names, string(m[1]))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		want := oracle.MatchString(n) && !notSecretNames[strings.ToLower(n)]
		if got := isSecretName(n); got != want {
			t.Errorf("isSecretName(%q) = %v, the expression says %v", n, got, want)
		}
	}
}

// TestSetKeepsNoAliasedBytes: a value added from bytes that change afterwards (a
// frame's, once its batch is reused) is still found as it was, and the new bytes
// are not.
func TestSetKeepsNoAliasedBytes(t *testing.T) {
	b := []byte("secret-value-1")
	set := NewSet()
	set.Add(unsafe.String(&b[0], len(b)))
	copy(b, "XXXXXXXXXXXXXX")
	if got, want := set.Replace("echo secret-value-1"), "echo [redacted, 14 chars]"; got != want {
		t.Errorf("Replace after the bytes changed = %q, want %q", got, want)
	}
	if got := set.Replace("echo XXXXXXXXXXXXXX"); got != "echo XXXXXXXXXXXXXX" {
		t.Errorf("Replace found the bytes written after Add: %q", got)
	}
}

// TestSetLeavesOutLongValues: a value longer than MaxValue is not kept (Long
// says one was left out), and a text that could hold one, longer than MaxValue,
// is then replaced whole, whichever way the value came: added, collected from a
// frame's tokens (plain or escaped, decoded or not), or from its bytes. Shorter
// texts keep what they were; a set without a long value keeps long texts.
func TestSetLeavesOutLongValues(t *testing.T) {
	long := strings.Repeat("payload ", MaxValue/8+1)
	escaped := strings.Repeat(`line\n\"quoted\" `, MaxValue/14+1) // 17 bytes that decode to 14: more than MaxValue
	decodesShort := strings.Repeat(`\u00e9\n`, MaxValue/6)        // more bytes than MaxValue, decodes to fewer
	echo := "the server said: " + long + " and hunter2-x"
	short := "bad password hunter2-x"
	for name, fill := range map[string]func(*Set){
		"Add": func(s *Set) { s.Add(long) },
		"CollectFrame": func(s *Set) {
			eachFrame(linesReader(t, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`+long+`"}]}}`+"\n"), func(rec *frame.Record) { CollectFrame(rec.Frame, s) })
		},
		"CollectFrame escaped": func(s *Set) {
			eachFrame(linesReader(t, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`+escaped+`"}]}}`+"\n"), func(rec *frame.Record) { CollectFrame(rec.Frame, s) })
		},
		"Collect": func(s *Set) {
			Collect([]byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`+escaped+`"}]}}`), s)
		},
	} {
		set := NewSet()
		set.Add("hunter2-x")
		fill(set)
		if !set.Long || set.Len() != 1 {
			t.Errorf("%s: a value longer than MaxValue left the set with long %v and %d values, want true and 1", name, set.Long, set.Len())
		}
		if got, want := set.Replace(echo), "[redacted, "+itoa(len(echo))+" chars]"; got != want {
			t.Errorf("%s: Replace of a text longer than MaxValue = %.80q..., want %q", name, got, want)
		}
		if got, want := set.Replace(short), "bad password [redacted, 9 chars]"; got != want {
			t.Errorf("%s: Replace(%q) = %q, want %q", name, short, got, want)
		}
	}
	set := NewSet()
	set.Add("hunter2-x")
	CollectFrame(frameOf(t, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`+decodesShort+`"}]}}`), set)
	if set.Long || set.Len() < 2 {
		t.Errorf("a string of %d bytes that decodes to %d left the set with long %v and %d values", len(decodesShort), MaxValue/6*3, set.Long, set.Len())
	}
	if got := set.Replace(echo); !strings.HasPrefix(got, "the server said: payload") || !strings.HasSuffix(got, "and [redacted, 9 chars]") {
		t.Errorf("a set that left out no value replaced a long text whole: %.80q", got)
	}
}

// frameOf is the frame of one line.
func frameOf(t *testing.T, line string) *frame.Frame {
	t.Helper()
	var f *frame.Frame
	eachFrame(linesReader(t, line+"\n"), func(rec *frame.Record) { f = rec.Frame })
	if f == nil {
		t.Fatalf("no frame in %q", line)
	}
	return f
}

// FuzzDecodedAtLeast: decodedAtLeast never says more than the length of the
// string a JSON string's body decodes to.
func FuzzDecodedAtLeast(f *testing.F) {
	for _, s := range []string{`plain`, `a\nb`, `\u00e9\u2028`, `\ud83d\ude00`, `\\\\u0041`, `\"\/\b`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var s string
		if json.Unmarshal([]byte(`"`+body+`"`), &s) != nil {
			return
		}
		if at := decodedAtLeast([]byte(body)); at > len(s) {
			t.Fatalf("decodedAtLeast(%q) = %d, but it decodes to %d bytes", body, at, len(s))
		}
	})
}

// TestReplaceCut: a text cut short keeps nothing of the start of a value of the
// set it ends with, whatever the place of the cut, down to the value's first
// MinValue bytes; it keeps what is no value's start; a value glued to the word before it
// is not looked for (as Replace does not); a set that left a long value out
// hides a cut text whole.
func TestReplaceCut(t *testing.T) {
	const value = "ledger entry 42 for the board"
	set := NewSet()
	set.Add(value)
	set.Add("unrelated value")
	for k := 1; k < len(value); k++ {
		text := "cannot parse: " + value[:k]
		got := set.ReplaceCut(text)
		want := "cannot parse: " + cutPlaceholder(k)
		if k < MinValue {
			want = text // too short to say anything, as values that short are
		}
		if got != want {
			t.Errorf("cut after %d bytes: %q, want %q", k, got, want)
		}
	}
	for _, tc := range []struct{ text, want string }{
		{value + " and " + value[:10], "[redacted, 29 chars] and " + cutPlaceholder(10)},
		{"cannot parse: the ledg", "cannot parse: the " + cutPlaceholder(4)},
		{"cannot parse: the led", "cannot parse: the led"},
		{"nothing to hide here", "nothing to hide here"},
		{"xledger entry", "xledger entry"}, // glued: Replace would not hide the whole value either
		{"a value, unrelated val", "a value, " + cutPlaceholder(13)},
	} {
		if got := set.ReplaceCut(tc.text); got != tc.want {
			t.Errorf("ReplaceCut(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
	// A value too long to keep: the starts of its forms are kept instead.
	long := NewSet()
	long.Add(value)
	long.leaveOut(MaxValue+1, "\x01Zürich ledger, first of many pages")
	if !long.Long {
		t.Fatal("leaving a long value out did not make the set Long")
	}
	for _, tc := range []struct{ text, want string }{
		{"short", "short"},
		{"see: \x01Zürich led", "see: " + cutPlaceholder(11)},  // the value
		{`see: \u0001Zür`, `see: ` + cutPlaceholder(9)},        // its JSON form
		{`see: \x01Zürich`, `see: ` + cutPlaceholder(10)},      // its Go form
		{"see: ledger entry 42", "see: " + cutPlaceholder(15)}, // a value kept, cut
		{"see: Zürich", "see: Zürich"},                         // no value starts so
	} {
		if got := long.ReplaceCut(tc.text); got != tc.want {
			t.Errorf("ReplaceCut(%q) with a long value left out = %q, want %q", tc.text, got, tc.want)
		}
	}
	full := NewSet()
	full.longHeadsFull, full.Long = true, true
	if got := full.ReplaceCut("short"); got != cutPlaceholder(5) {
		t.Errorf("ReplaceCut of a set that left out more long values than it keeps the starts of = %q, want the whole text hidden", got)
	}
	if got := (*Set)(nil).ReplaceCut(value[:5]); got != value[:5] {
		t.Errorf("a nil set's ReplaceCut changed the text: %q", got)
	}
}

// TestLongValueHeads: a value left out as too long keeps the starts of its
// forms (the value, its JSON and Go forms) whichever way it was collected: from
// its escaped bytes without decoding them (the walk, ahead of the replay or on
// it), tolerantly, or decoded (Add); and a text cut inside an echo of it, in
// any of its forms, hides the echo's start.
func TestLongValueHeads(t *testing.T) {
	rest := strings.Repeat("page of the ledger ", MaxValue/19+1)
	for _, start := range []string{"plain start ", "\nnew line ", "\"quoted\" ", "\x01control ", "é accent ", "\U0001F600 smile ", "\u2028 separator "} {
		value := start + rest
		body := strings.Trim(jsontree.EncodeString(value), `"`)
		line := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + body + `"}]}}`
		want := NewSet()
		want.Add(value)
		if !want.Long || len(want.longHeads) == 0 {
			t.Fatalf("%q: Add of a long value kept no heads", start)
		}
		seed := want.seed
		walked, ahead, tolerant := NewSeededSet(seed), NewSeededSet(seed), NewSeededSet(seed)
		CollectFrame(frameOf(t, line), walked)
		ahead.AddCollected(NewCollector(seed).Collect(frameOf(t, line)))
		Collect([]byte(line), tolerant)
		for name, got := range map[string]*Set{"the walk": walked, "ahead": ahead, "tolerantly": tolerant} {
			if !reflect.DeepEqual(got.longHeads, want.longHeads) || !got.Long {
				t.Errorf("%q collected %s: heads %v, long %v; want %v", start, name, got.longHeads, got.Long, want.longHeads)
			}
		}
		q := strconv.Quote(value)
		for form, echo := range map[string]string{"value": value, "JSON": body, "Go": q[1 : len(q)-1]} {
			cut := "it said: " + echo[:40]
			if got := walked.ReplaceCut(cut); got != "it said: "+cutPlaceholder(utf8.RuneCountInString(echo[:40])) {
				t.Errorf("%q, its %s form cut: ReplaceCut = %q", start, form, got)
			}
		}
	}
}

// FuzzReplaceCut: a text cut inside a value of the set (after a space, so that
// the value stands alone on its left) keeps none of the value's start when 4
// bytes or more of it are left, whatever the value, the words before it and the
// place of the cut; and the words before it (small letters and spaces) stay when
// the value does not start with one.
func FuzzReplaceCut(f *testing.F) {
	f.Add("ledger entry 42 for the board, page one of many", "cannot parse:", 20)
	f.Add("ACME-7731 wire transfer to Cayman account 99812-443", "echo", 40)
	f.Add("Zürich \"quoted\"\nnew line and more text after it", "said", 9)
	f.Fuzz(func(t *testing.T, value, before string, k int) {
		if len(value) < MinValue || len(value) > 4096 || strings.HasPrefix(value, "[redacted") || !utf8.ValidString(value) || !utf8.ValidString(before) {
			return
		}
		if k < MinValue || k >= len(value) || !utf8.RuneStart(value[k]) {
			return
		}
		before = strings.Map(func(r rune) rune { // words and spaces only: no value starts in them
			if r == ' ' || r >= 'a' && r <= 'z' {
				return r
			}
			return -1
		}, before)
		set := NewSet()
		set.Add(value)
		text := before + " " + value[:k]
		got := set.ReplaceCut(text)
		if strings.HasSuffix(got, value[:k]) && !strings.HasPrefix(before+" ", value[:k]) {
			t.Fatalf("ReplaceCut(%q) = %q: the value's start shows", text, got)
		}
		if c := value[0]; c != ' ' && (c < 'a' || c > 'z') && !strings.HasPrefix(got, before+" ") {
			t.Fatalf("ReplaceCut(%q) = %q: the words before the value are gone", text, got)
		}
	})
}

// secretToken is a token of a well-known secret's shape.
const secretToken = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"

// secretInValue returns a secret-looking token, a value that starts with it,
// and a set of that value and the others given.
func secretInValue(others ...string) (token, value string, set *Set) {
	value = secretToken + " customer Jane Roe owes 4000"
	set = NewSet()
	set.Add(value)
	for _, o := range others {
		set.Add(o)
	}
	return secretToken, value, set
}

// TestSetHide: the set's values and the secrets are hidden together. A value
// that holds a secret-looking token is hidden whole where it is echoed, not the
// token alone (whose masking would leave the rest); a value that names a secret
// does not keep the secret after it from being masked; an echo of a secret alone
// keeps its secret placeholder; a cut text that ends inside such a value is
// hidden from the value's start.
func TestSetHide(t *testing.T) {
	token, value, set := secretInValue("password", secretToken, "t-77812")
	for _, c := range []struct{ name, text, want string }{
		{"a value holding a secret", "no such: " + value, "no such: [redacted, 68 chars]"},
		{"the value JSON-quoted", `{"q":"` + value + `"}`, `{"q":"[redacted, 68 chars]"}`},
		{"a value that names a secret", "login password=hunter2-very-secret failed", "login [redacted, 8 chars]=[redacted secret, 19 chars] failed"},
		{"a secret alone", "token " + token + " refused", "token [redacted secret, 40 chars] refused"},
		{"no secret", "ticket t-77812 is open", "ticket [redacted, 7 chars] is open"},
		{"a secret and a value apart", "t-77812 with " + token, "[redacted, 7 chars] with [redacted secret, 40 chars]"},
	} {
		if got := set.Hide(c.text); got != c.want {
			t.Errorf("%s: Hide(%q) = %q, want %q", c.name, c.text, got, c.want)
		}
	}
	cut := "no such: " + token + " customer Ja"
	if got, want := set.HideCut(cut), "no such: [redacted, 52+ chars, cut]"; got != want {
		t.Errorf("HideCut(%q) = %q, want %q", cut, got, want)
	}
	if got, want := (*Set)(nil).Hide("no such: "+value), "no such: [redacted secret, 40 chars] customer Jane Roe owes 4000"; got != want {
		t.Errorf("a nil set: Hide = %q, want %q (secrets only)", got, want)
	}
}

// TestSetHideWithSecrets: where a value meets a secret, every secret is hidden
// where the patterns find it in the text as captured, whatever a pattern before
// it rewrote (a private key's body, a query's value after a URL password), and
// only there (not every other occurrence of its text); a value glued to a
// secret is hidden as it is once the secret is masked; a set of long values
// alone hides a cut text from where one starts; HideAll takes several sets.
func TestSetHideWithSecrets(t *testing.T) {
	token, value, set := secretInValue("Jane")
	for _, c := range []struct {
		name, text string
		hidden     []string
		shown      []string
	}{
		{"a private key's body", "no such: " + value + "; key -----BEGIN RSA PRIVATE KEY----- MIIEowIBAAKCAQEAzQ7 password=hunter22 MIIEpAIBAAKCAQEA1234",
			[]string{"Jane", "MIIEow", "hunter22", "MIIEpA"}, []string{"no such: [redacted, 68 chars]"}},
		{"a query after a URL password", value + "?code=AbC1-https://bob:pw123@host.example/" + token + "2",
			[]string{"Jane", "AbC1", "pw123", "ghp_"}, nil},
		{"a secret's text elsewhere", value + ` "auth_token": null; nullable`,
			[]string{"Jane"}, []string{"; nullable"}},
		{"a repeated name", value + " password=d=d=d=d=", []string{"Jane", "d=d"}, []string{"password=[redacted secret"}},
		{"a value glued to a secret", value + " Jane-----BEGIN PRIVATE KEY-----abc-----END PRIVATE KEY-----", []string{"Jane", "abc"}, nil},
		{"a secret twice", value + " and " + token + " again", []string{"Jane", "ghp_"}, []string{" and [redacted secret, 40 chars] again"}},
	} {
		got := set.Hide(c.text)
		for _, h := range c.hidden {
			if strings.Contains(got, h) {
				t.Errorf("%s: Hide shows %q: %q", c.name, h, got)
			}
		}
		for _, s := range c.shown {
			if !strings.Contains(got, s) {
				t.Errorf("%s: Hide lacks %q: %q", c.name, s, got)
			}
		}
	}
	dates := NewSet()
	dates.Add("2026-12-07")
	if got, want := dates.Hide("lookup 2026-12-07 failed: page_token=2 at 2026-12-07T12:20:02"), "lookup [redacted, 10 chars] failed: page_token=[redacted secret, 1 char] at 2026-12-07T12:20:02"; got != want {
		t.Errorf("a one-character secret: Hide = %q, want %q", got, want)
	}
	long := NewSet()
	long.Add(value + strings.Repeat(" and more", MaxValue/8))
	if !long.Long {
		t.Fatal("the long value was kept: the case proves nothing")
	}
	if got := long.HideCut("no such: " + token + " customer Jane Roe ow"); strings.Contains(got, "Jane") {
		t.Errorf("a set of a long value: HideCut shows its start: %q", got)
	}
	if got, want := HideAll("no such: "+value, NewSet(), set), "no such: [redacted, 68 chars]"; got != want {
		t.Errorf("HideAll = %q, want %q", got, want)
	}
}

// FuzzHide: a text made of pieces (values of the set, secrets of several shapes,
// words and punctuation) is hidden by Hide at least as much as by masking the
// secrets first and replacing the values then (the order before Hide): no
// secret that order masked, and no value it replaced, shows in what Hide gives.
func FuzzHide(f *testing.F) {
	values := []string{
		"ghp_abcdefghijklmnopqrstuvwxyz0123456789 customer Jane Roe owes 4000",
		"password", "Jane", "acct-7781", "2026-12-07",
		"api_key=swordfish-991 for the ledger",
	}
	pieces := append([]string{
		"ghp_abcdefghijklmnopqrstuvwxyz0123456789", "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
		"password=hunter22", "?code=AbC1-", "https://bob:pw123@host.example/", "/u/9f86d081884c7d659a2feaa0c55ad015/mcp",
		"-----BEGIN RSA PRIVATE KEY----- MIIEowIBAAKCAQEAzQ7", "-----END RSA PRIVATE KEY-----", "token=", "sk-abcdefghijklmnop1234",
		" ", ": ", "=", "\"", "/", "&", "\n", "no such: ", "é", "\\u00e9",
	}, values...)
	f.Add([]byte{0, 10, 20, 21, 22})
	f.Add([]byte{20, 0, 26, 5, 24, 12})
	f.Add([]byte{16, 10, 6, 4, 19, 12, 3})
	f.Fuzz(func(t *testing.T, picks []byte) {
		if len(picks) > 24 {
			return
		}
		var b strings.Builder
		for _, p := range picks {
			b.WriteString(pieces[int(p)%len(pieces)])
		}
		text := b.String()
		set := NewSet()
		for _, v := range values {
			set.Add(v)
		}
		var secrets []string
		before := set.Replace(maskSecrets(text, func(s string) { secrets = append(secrets, s) }))
		got := set.Hide(text)
		for _, s := range append(secrets, values...) {
			if len(s) >= 8 && !strings.HasPrefix(s, "[redacted") && strings.Contains(text, s) && !strings.Contains(before, s) && strings.Contains(got, s) {
				t.Fatalf("Hide(%q) = %q shows %q, which masking first hid: %q", text, got, s, before)
			}
		}
	})
}
