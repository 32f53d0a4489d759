package redact

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/jsontree"
	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
)

// setDiff says how two sets of one seed (sameSeed) differ: their values, the
// lengths by prefix in the order they were added, their sizes and whether they
// are full; "" when they do not.
func setDiff(got, want *Set) string {
	switch {
	case !reflect.DeepEqual(got.values, want.values):
		return fmt.Sprintf("values differ: %d against %d", len(got.values), len(want.values))
	case !reflect.DeepEqual(got.lengths, want.lengths):
		return "values differ in order"
	case !reflect.DeepEqual(got.starts, want.starts):
		return fmt.Sprintf("starts of values differ: %d against %d", len(got.starts), len(want.starts))
	case !reflect.DeepEqual(got.longHeads, want.longHeads) || got.longHeadsFull != want.longHeadsFull:
		return fmt.Sprintf("heads of long values differ: %d against %d", len(got.longHeads), len(want.longHeads))
	case got.bytes != want.bytes || got.Full != want.Full || got.Long != want.Long:
		return fmt.Sprintf("bytes %d, full %v, long %v against %d, %v, %v", got.bytes, got.Full, got.Long, want.bytes, want.Full, want.Long)
	}
	return ""
}

// eachCapture calls read with a Reader of each capture under fixtures/ (a file
// that is not one is skipped), and returns how many it read.
func eachCapture(t *testing.T, read func(path string, rd *frame.Reader)) int {
	t.Helper()
	return eachCaptureWith(t, frame.Options{}, read)
}

// eachCaptureWith is eachCapture with the Readers' options (a Shaper).
func eachCaptureWith(t *testing.T, opt frame.Options, read func(path string, rd *frame.Reader)) int {
	t.Helper()
	files := 0
	err := filepath.WalkDir(filepath.Join("..", "..", "fixtures"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".want") || strings.HasSuffix(path, ".md") {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		rd, err := frame.NewReader(path, f, opt)
		if err != nil {
			return nil // not a capture
		}
		defer rd.Close()
		files++
		read(path, rd)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// eachFrame calls read with each frame record of rd, to the end of its input.
func eachFrame(rd *frame.Reader, read func(rec *frame.Record)) {
	for {
		rec, err := rd.Next()
		if err != nil {
			return
		}
		if rec.Kind == frame.RecordFrame {
			read(rec)
		}
	}
}

// sameSeed gives the sets the first one's seed, so that setDiff can compare what
// they keep of their values.
func sameSeed(sets ...*Set) {
	for _, s := range sets[1:] {
		s.seed = sets[0].seed
	}
}

// sameAsReference requires Frame, Collect, Kept and jsonValue of raw to be what
// they were (reference_test.go), without a set and with set (a session's set, as
// the reference collected it).
func sameAsReference(t *testing.T, where string, raw []byte, set *Set) {
	t.Helper()
	for _, s := range []*Set{nil, set} {
		if got, want := Frame(raw, s), refFrame(raw, s); !bytes.Equal(got, want) {
			t.Errorf("%s: Frame(%q)\n got %s\nwant %s", where, raw, got, want)
		}
		if got, want := Kept(raw, s), refKept(raw, s); !bytes.Equal(got, want) {
			t.Errorf("%s: Kept(%q)\n got %s\nwant %s", where, raw, got, want)
		}
		for _, shown := range []string{string(raw), string(raw) + quote.Ellipsis} {
			if got, want := jsonValue(shown, s), refJSONValue(shown, s); got != want {
				t.Errorf("%s: jsonValue(%q)\n got %s\nwant %s", where, shown, got, want)
			}
		}
	}
	got, want := NewSet(), NewSet()
	sameSeed(got, want)
	Collect(raw, got)
	refCollect(raw, want)
	if d := setDiff(got, want); d != "" {
		t.Errorf("%s: Collect(%q): %s", where, raw, d)
	}
}

// cuts are the lengths a frame of n bytes is cut at to test it: every one of a
// short frame, about 40 spread over a longer one.
func cuts(n int) []int {
	if n <= 160 {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	var out []int
	for i := 0; i < n; i += n/40 + 1 {
		out = append(out, i)
	}
	return append(out, n-1, n-2, n-3)
}

// TestMatchesReferenceOnFixtures: on every frame of every capture under fixtures/,
// the set a session collects from its frames' tokens (CollectFrame) and from their
// bytes (Collect) is the one the jsontree walk collected, value for value and in
// the same order; Frame, Kept and jsonValue of each frame, of each batch member
// and of each frame cut short write what it wrote, with and without the set.
func TestMatchesReferenceOnFixtures(t *testing.T) {
	frames := 0
	files := eachCapture(t, func(path string, rd *frame.Reader) {
		fromNodes, fromBytes, want := NewSet(), NewSet(), NewSet()
		sameSeed(fromNodes, fromBytes, want)
		var raws [][]byte
		eachFrame(rd, func(rec *frame.Record) {
			fr := rec.Frame
			frames++
			CollectFrame(fr, fromNodes)
			Collect(fr.Raw, fromBytes)
			refCollect(fr.Raw, want)
			if n := fr.Node(); n.Exists() && !bytes.Equal(n.Raw(), bytes.TrimSpace(fr.Raw)) {
				t.Errorf("%s:%d: the frame's Node is %q, its bytes %q", path, rec.Line, n.Raw(), fr.Raw)
			}
			raws = append(raws, bytes.Clone(fr.Raw))
			for i := range fr.Members {
				raws = append(raws, bytes.Clone(fr.Members[i].Raw))
			}
		})
		if d := setDiff(fromNodes, want); d != "" {
			t.Errorf("%s: CollectFrame: %s", path, d)
		}
		if d := setDiff(fromBytes, want); d != "" {
			t.Errorf("%s: Collect: %s", path, d)
		}
		for _, raw := range raws {
			sameAsReference(t, path, raw, want)
			for _, n := range cuts(len(raw)) {
				if got, want := Frame(raw[:n], want), refFrame(raw[:n], want); !bytes.Equal(got, want) {
					t.Errorf("%s: Frame of %q cut at %d\n got %s\nwant %s", path, raw, n, got, want)
				}
			}
		}
	})
	if files < 100 || frames < 1000 {
		t.Fatalf("only %d frames of %d captures read", frames, files)
	}
}

// referenceTexts are texts made to reach the corners of the walk: nesting deeper
// than the tolerant reader reads (jsontree.MaxDepth) wherever a value may stand, member
// names with escapes and bytes that are not UTF-8, duplicates, secrets in kept
// values and under credential names, a _meta that is not an object, batches,
// trailing bytes, texts cut inside strings and escapes.
func referenceTexts() []string {
	nest := func(depth int, inner string) string {
		return strings.Repeat(`{"a":`, depth) + inner + strings.Repeat("}", depth)
	}
	arr := func(depth int, inner string) string {
		return strings.Repeat("[", depth) + inner + strings.Repeat("]", depth)
	}
	texts := []string{
		`{}`, `[]`, `""`, `0`, `null`, ` {"jsonrpc":"2.0"} `, `[{"id":1},{"id":2}]`, `[1,"two"]`,
		`{"jsonrpc":"2.0","id":"tok-123456","method":"tools/call","params":{"name":"search","arguments":{"q":"secret value","n":-1.5e3}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","description":"Authorization: Bearer abcdefgh12345678","inputSchema":{"type":"object"}}],"nextCursor":"c-9999"}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"bad apiKey=sk-abcdefghijklmnop1234","data":{"x":"quota-77"}}}`,
		`{"jsonrpc":"2.0","id":1,"error":"just text here"}`, `{"jsonrpc":"2.0","id":1,"error":[1,"x"]}`,
		`{"params":{"_meta":{"progressToken":"p-1234","clientInfo":{"name":"c","token":"t0k3n-abc"},"other":"o-9999"}}}`,
		`{"params":{"_meta":["aaaa","bbbb",{"c":"cccc"}]}}`, `{"params":{"_meta":"text-1234"}}`, `{"params":{"_meta":12345}}`,
		`{"params":{"apiKey":"k-1234567","password":12345678,"token":{"nested":"n-12345"},"x-api-key":["l-12345"]}}`,
		`{"params":{"capabilities":{"experimental":{"authToken":"t-123456","n":99999,"url":"https://u:pw-12345@host/x"}}}}`,
		`{"params":{"k\u0065y":"v\u0061lue-1","a\"b":"c-123\n4","caf\u00e9":"\u00e9t\u00e9-9","\u2028":"\u2029-1234"}}`,
		"{\"params\":{\"bad\xffkey\":\"bad\xffvalue\",\"ok\":\"\xe2\x82 cut rune\",\"e\":\"\\u00e9\xff\"}}",
		`{"a":1,"a":2,"params":{"name":"n1","name":"n2"},"params":{"q":"qqqq"}}`,
		`{"result":{"contents":[{"uri":"file:///a/9f86d081884c7d659a2feaa0c55ad015/x","text":"t-1234","blob":"YWJjZA=="}]}}`,
		`{"params":{"uri":{"x":"yyyy"},"cursor":["c-123"]}}`,
		`{"result":{"tools":{"a":"bbbb"},"prompts":[{"name":"p","arguments":[{"name":"arg1"}]}]}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m"} trailing bytes`, `{"a":"b"} {"c":"d"}`, `not json at all: password=hunter2`,
		`{"params":{"q":"cut \u00`, `{"params":{"q":"cut \`, `{"params":{"q":"cut`, `{"params":{"q":`, `{"params":{"q"`,
		`{"params":{"q":1,,,"r":2}}`, `{"params":{"q":1 "r":2}}`, `{"params":{"q":tru}}`, `{"params":{"q":nullx}}`,
		`{"params":{"q":1.2.3,"r":"rrrr"}}`, `{"params":{"q":-}}`, `[1,2`, `{"a":[`, `   `, "\ufeff{}",
		`{"id":{"a":[{"b":"cccc"}]},"method":["m"],"jsonrpc":{"x":1}}`,
		`{"params":{"arguments":{"s":"` + strings.Repeat("long text ", 200) + `"}}}`,
	}
	for _, depth := range []int{62, 63, 64, 65, 66, 70} {
		texts = append(texts,
			nest(depth, `"deep-1234"`),
			nest(depth, `{"k":"v-12345","n":123456}`)+` `,
			`{"params":{"arguments":`+nest(depth, `"deep-1234"`)+`,"after":"after-1234"}}`,
			`{"params":{"_meta":`+arr(depth, `"m-1234"`)+`},"result":{"x":"after-1234"}}`,
			`{"id":`+arr(depth, `1`)+`,"params":{"x":"after-1234"}}`,
			`{"params":{"capabilities":`+nest(depth, `{"token":"t-12345"}`)+`,"q":"after-1234"}}`,
			`{"error":{"code":1,"data":`+nest(depth, `"d-12345"`)+`},"result":"r-12345"}`,
			`[`+nest(depth, `"b-12345"`)+`,{"params":{"q":"after-1234"}}]`,
			`{"params":{"arguments":`+arr(depth, `"deep-1234"`)+`}}`,
			`{"params":{"name":`+arr(depth, `"n-1234"`)+`}}`,
			`{"params":{"token":`+arr(depth, `"t-1234"`)+`},"x":{"apiKey":"k-1234"}}`,
		)
	}
	return texts
}

// TestMatchesReferenceOnCorners: Frame, Collect, Kept and jsonValue of the corner
// texts and of each of them cut at every length are what they were.
func TestMatchesReferenceOnCorners(t *testing.T) {
	set := NewSet()
	for _, text := range referenceTexts() {
		refCollect([]byte(text), set)
	}
	for _, text := range referenceTexts() {
		sameAsReference(t, "corner", []byte(text), set)
		for _, n := range cuts(len(text)) {
			sameAsReference(t, "corner cut", []byte(text[:n]), set)
		}
	}
}

// TestSetAddMatchesReference: Set.Add keeps the values, forms, sizes and Full
// that it did with encoding/json's encoder and no shortcut, up to both bounds.
func TestSetAddMatchesReference(t *testing.T) {
	for _, bound := range []string{"values", "bytes"} {
		got, want := NewSet(), NewSet()
		sameSeed(got, want)
		for i := 0; i < MaxValues+200; i++ {
			v := fmt.Sprintf("v%05d", i)
			switch {
			case bound == "bytes":
				v = strings.Repeat("b", i%3000) + v
			case i%5 == 1:
				v += "é\"\n\xff\u2028"
			case i%5 == 3:
				v = `"` + v + "\n\t\\\b\f\r\""
			case i%5 == 4:
				v += "\x7f\x01"
			case i%7 == 2:
				v = fmt.Sprintf("v%05d", i/3)
			}
			got.Add(v)
			refAdd(want, v)
			if i%997 == 0 || i > MaxValues-5 {
				if d := setDiff(got, want); d != "" {
					t.Fatalf("%s bound, after %d values: %s", bound, i+1, d)
				}
			}
		}
		if d := setDiff(got, want); d != "" || !got.Full {
			t.Fatalf("%s bound: %s (full %v)", bound, d, got.Full)
		}
	}
}

// TestMaskSecretsMatchesReference: MaskSecrets (which searches with the
// expressions only text that may match them) masks what the expressions alone
// masked, and finds the same secrets, on every string and member name of the
// fixtures, on the secrets' own test texts and on them changed here and there.
func TestMaskSecretsMatchesReference(t *testing.T) {
	texts := []string{"Authorization: Bearer abc.def.ghi", "Cookie: sid=abc", "to\u212aen=abcdef", "ſecret=abcdefgh", "aPiKeY = 123456",
		"proxy-authorization=xyz", "BEARER   abcdefgh", "xoxb-1234567890ab", "AKIAABCDEFGHIJKLMNOP", "AIza" + strings.Repeat("x", 31),
		"npm_" + strings.Repeat("a", 30), "eyJhbGciOiJIUzI1.eyJzdWIiOiIx.c2lnbmF0dXJl", "-----BEGIN RSA PRIVATE KEY-----\nabc",
		"ghs_" + strings.Repeat("a", 20), "github_pat_" + strings.Repeat("a", 22), "glpat-" + strings.Repeat("a", 20), "pk_test_abcdefghijk",
		"https://user:pass@host", "/u/9f86d081884c7d659a2feaa0c55ad015/mcp", "a session id: 12345", "signature=abc", "credential:x", "/b?sv=1&SIG=abc", "?code=xyz&state=1", "&Code_Verifier=q", "code=1",
		"passphrase=correct horse", "private-key: abc", "x-api-key: k"}
	err := filepath.WalkDir(filepath.Join("..", "..", "fixtures"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, line := range bytes.Split(b, []byte("\n")) {
			texts = append(texts, string(line))
			n, err := frame.Parse(line)
			if err != nil {
				continue
			}
			var visit func(n frame.Node)
			visit = func(n frame.Node) {
				if s, ok := n.Str(); ok {
					texts = append(texts, s)
				}
				for k, v := range n.Members {
					texts = append(texts, k)
					visit(v)
				}
				for _, v := range n.Elements {
					visit(v)
				}
			}
			visit(n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, s := range texts {
		if seen[s] {
			continue
		}
		seen[s] = true
		sameMasking(t, s)
		if len(s) > 1000 {
			continue
		}
		for _, c := range []string{"=", ":", " ", "ſ", "K"} {
			sameMasking(t, c+s)
			sameMasking(t, s+c)
		}
	}
}

func sameMasking(t *testing.T, s string) {
	t.Helper()
	var got, want []string
	g := maskSecrets(s, func(secret string) { got = append(got, secret) })
	w := refMaskSecrets(s, func(secret string) { want = append(want, secret) })
	if g != w || !reflect.DeepEqual(got, want) {
		t.Errorf("maskSecrets(%q) = %q %q, the expressions alone %q %q", s, g, got, w, want)
	}
}

// TestJSONStringsMatchEncodingJSON: encodeString writes what jsontree (with
// encoding/json's encoder) wrote, decodeString reads what it read, and a string
// Node read with str is what decodeString reads of its token.
func TestJSONStringsMatchEncodingJSON(t *testing.T) {
	strs := []string{"", "plain", `q"uote`, `back\slash`, "ctl\x00\x01\x1f\x7f", "\b\f\n\r\t", "é中😀", "\u2028\u2029", "bad\xff\xfe", "\xe2\x82", "\xed\xa0\x80", "<&>", "\ufffd"}
	for _, s := range strs {
		if got, want := encodeString(s), jsontree.EncodeString(s); got != want {
			t.Errorf("encodeString(%q) = %s, want %s", s, got, want)
		}
	}
	tokens := []string{`"plain"`, `""`, `"caf\u00e9"`, `"café"`, `"a\"b"`, `"tab\tx"`, "\"bad\xffutf8\"", "\"esc\\n\xff\"", `"\ud83d\ude00"`,
		`"\ud800"`, `"\ud800\u0041"`, `"\udc00x"`, `"cut \u00`, `"cut`, `"`, `"a\`, `"\x"`, "\"ctl\x01\"", `"a" `, `null`, `12`, `"\/"`, "\"\xe2\x82\\u20ac\""}
	for _, raw := range tokens {
		if got, want := decodeString(raw), jsontree.DecodeString(raw); got != want {
			t.Errorf("decodeString(%q) = %q, want %q", raw, got, want)
		}
		if n, err := frame.Parse([]byte(raw)); err == nil && n.Kind() == '"' {
			if got, want := str(n), jsontree.DecodeString(raw); got != want {
				t.Errorf("str(%q) = %q, want %q", raw, got, want)
			}
			if got, want := stringChars(n), utf8.RuneCountInString(jsontree.DecodeString(raw)); got != want {
				t.Errorf("stringChars(%q) = %d, want %d", raw, got, want)
			}
		}
	}
}

// FuzzMatchesReference: for any bytes, Frame, Collect, Kept, jsonValue and
// MaskSecrets give what they gave.
func FuzzMatchesReference(f *testing.F) {
	for _, text := range referenceTexts() {
		f.Add([]byte(text))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		set := NewSet()
		refCollect([]byte(`{"params":{"arguments":{"a":"quota-77","b":"hunter2-x","c":"secret value"}}}`), set)
		sameAsReference(t, "fuzz", b, set)
		sameMasking(t, string(b))
		if got, want := encodeString(string(b)), jsontree.EncodeString(string(b)); got != want {
			t.Errorf("encodeString(%q) = %s, want %s", b, got, want)
		}
		if got, want := decodeString(string(b)), jsontree.DecodeString(string(b)); got != want {
			t.Errorf("decodeString(%q) = %q, want %q", b, got, want)
		}
	})
}

// TestKeyClasses: keyClass says which tables hold a name, for every name of the
// tables and names close to them.
func TestKeyClasses(t *testing.T) {
	names := []string{"", "name", "_meta", "Type", "ids", "message", "tool", "io.modelcontextprotocol/protocolversion"}
	for _, table := range []map[string]bool{keptKeys, keptScalars, definitionLists, dataKeys} {
		for name := range table {
			names = append(names, name, name+"s", strings.ToUpper(name), name[:len(name)-1])
		}
	}
	for _, name := range names {
		var want uint8
		for class, table := range map[uint8]map[string]bool{classKept: keptKeys, classScalar: keptScalars, classDefinitions: definitionLists, classData: dataKeys} {
			if table[name] {
				want |= class
			}
		}
		if got := keyClass(name); got != want {
			t.Errorf("keyClass(%q) = %b, the tables say %b", name, got, want)
		}
	}
}

// formTexts are strings made to reach every branch of jsonBody and decodeJSON:
// each escape encoding/json writes and the ones it does not, characters Go
// quotes otherwise, bytes that are not UTF-8.
var formTexts = []string{"", "plain", `q"uote"`, `"lead`, `back\slash`, "ctl\x00\x01\x1f\x7f", "\b\f\n\r\t\a\v", "é中😀", "\u2028\u2029",
	"bad\xff\xfe", "\xe2\x82", "\xed\xa0\x80", "<&>/", "\ufffd", "nb\u00a0sp", "zw\u200bj", "\U000e0001tag", "Müller & Söhne 67146,84 €\n",
	strings.Repeat("eight ch", 5) + "\n" + strings.Repeat("x", 17) + "é"}

// TestFormsMatchQuoting: jsonBody writes what encodeString writes, counts what
// utf8 counts, and says Go quotes alike exactly when strconv.Quote writes the
// same; decodeJSON reads exactly the bodies encodeString writes, as Str does.
func TestFormsMatchQuoting(t *testing.T) {
	for _, s := range formTexts {
		sameForms(t, s)
		sameForms(t, s+s)
	}
}

func sameForms(t *testing.T, s string) {
	t.Helper()
	enc := encodeString(s)
	body, chars, goAlike := jsonBody(s, plainPrefix(s))
	q := strconv.Quote(s)
	if body != enc[1:len(enc)-1] || chars != utf8.RuneCountInString(s) || goAlike != (q == enc) {
		t.Errorf("jsonBody(%q) = %q %d %v; encodeString %s, Quote %s", s, body, chars, goAlike, enc, q)
	}
	for _, token := range []string{enc, strconv.Quote(s), `"` + strings.ReplaceAll(enc[1:len(enc)-1], `\n`, `\u000a`) + `"`, `"` + strings.ReplaceAll(enc[1:len(enc)-1], `\u`, `\u00`) + `"`} {
		n, err := frame.Parse([]byte(token))
		if err != nil || n.Kind() != '"' {
			continue
		}
		v, vchars, vgoAlike, ok := decodeJSON(nil, n.Bytes())
		canonical := token == encodeString(str(n))
		if ok != canonical {
			t.Errorf("decodeJSON(%s) ok = %v, but encodeString of the string is %s", token, ok, encodeString(str(n)))
			continue
		}
		if ok && (string(v) != str(n) || vchars != utf8.RuneCount(v) || vgoAlike != (strconv.Quote(string(v)) == token)) {
			t.Errorf("decodeJSON(%s) = %q %d %v, Str %q", token, v, vchars, vgoAlike, str(n))
		}
	}
}

// FuzzForms: jsonBody and decodeJSON agree with encoding/json and strconv on any
// string.
func FuzzForms(f *testing.F) {
	for _, s := range formTexts {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sameForms(t, s)
		if n, err := frame.Parse([]byte(s)); err == nil && n.Kind() == '"' {
			v, chars, goAlike, ok := decodeJSON(nil, n.Bytes())
			token := string(n.Raw()) // the string as written, without the whitespace around it
			if canonical := token == encodeString(str(n)); ok != canonical {
				t.Errorf("decodeJSON(%s) ok = %v, encodeString %s", token, ok, encodeString(str(n)))
			} else if ok && (string(v) != str(n) || chars != utf8.RuneCount(v) || goAlike != (strconv.Quote(string(v)) == token)) {
				t.Errorf("decodeJSON(%s) = %q %d %v, Str %q", s, v, chars, goAlike, str(n))
			}
		}
	})
}
