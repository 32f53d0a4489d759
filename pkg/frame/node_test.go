package frame_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/schema"
)

// nodeTexts are JSON texts a Node must read as gjson and encoding/json do: nesting,
// escaped names and strings, duplicate names, numbers of every form, empty
// containers, unicode.
var nodeTexts = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `true`, `false`, `null`, ` 1 `, "\t\r\n[ ]\n",
	`{"a":1}`, `[1]`, `[[]]`, `[{}]`, `{"a":{}}`, `{"a":[]}`, `[[],[[]],{}]`,
	` { "a" : 1 , "b":[1, 2 ,{"c":"d"}], "e\"f":"g\\\"h", "\u00e9t\u00e9":true,"n":null,"x":-1.5e3 } `,
	`{"a":1,"a":2,"b":{"c":1},"b":{"c":2},"a":3}`,
	`{"":0,"":1," ":2}`,
	`{"k\u0065y":"v\u0061lue","key":"second","k\\ey":"\\","k\/":"a\/b"}`,
	`{"s":"]}\"{[","t":"\\\\","u":"\ud83d\ude00 \u00e9 \u4e2d","v":"😀 é 中","w":"\u0000\u001f","x":"\b\f\n\r\t"}`,
	`{"lone":"\ud800","pair":"\ud83d\ude00","low":"\udc00x","twohigh":"\ud800\ud800","hiascii":"\ud800\u0041"}`,
	`[0,-1,1.5,-0.0,1e3,1E+3,1e-3,-1.25e-7,123456789012345,1234567890123456789,12345678901234567890,9007199254740993,1e308,1e400,-1e400,4.2e1,42.0,0.1]`,
	`{"nested":{"deep":{"deeper":[{"k":"v"},[1,[2,[3,{"x":[]}]]]]}},"after":true}`,
	`[1,"two",{"three":3},[4],true,false,null,"` + strings.Repeat(`line\n`, 100) + `"]`,
	`{"text":"` + strings.Repeat("x", 300) + `","type":"text","empty":"","esc":"\\"}`,
	`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a\nb"}],"structuredContent":{"rows":[{"id":1},{"id":2}]},"isError":false}}`,
	`{"a":[{"b":[{"c":[{"d":{"e":"f"}}]}]}],"a.b":1,"a\\.b":2,"*":3,"#":4,"0":5}`,
	`["\u0022","\\u0041","\/"]`,
}

// gjsonKind is the Node Kind of a gjson value.
func gjsonKind(r gjson.Result) byte {
	switch r.Type {
	case gjson.String:
		return '"'
	case gjson.Number:
		return '0'
	case gjson.True:
		return 't'
	case gjson.False:
		return 'f'
	case gjson.Null:
		return 'n'
	}
	return r.Raw[0]
}

// TestNodeAsGjson: a Node reads every value of the texts as gjson does: kind, raw
// text, decoded strings, numbers, members (names, order, duplicates), elements,
// and Get (the first member of a name).
func TestNodeAsGjson(t *testing.T) {
	for _, text := range nodeTexts {
		n, err := frame.Parse([]byte(text))
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		sameAsGjson(t, text, "", n, gjson.Parse(text))
	}
}

func sameAsGjson(t *testing.T, text, at string, n frame.Node, r gjson.Result) {
	t.Helper()
	if !n.Exists() {
		t.Fatalf("%s at %q: no value, gjson has %s", text, at, r.Raw)
	}
	if got, want := n.Kind(), gjsonKind(r); got != want {
		t.Fatalf("%s at %q: kind %c, gjson %c", text, at, got, want)
	}
	if got, want := string(n.Raw()), strings.TrimSpace(r.Raw); got != want {
		t.Fatalf("%s at %q: raw %s, gjson %s", text, at, got, want)
	}
	s, isStr := n.Str()
	if isStr != (r.Type == gjson.String) || s != r.Str {
		t.Fatalf("%s at %q: Str %q %v, gjson %q", text, at, s, isStr, r.Str)
	}
	if n.EqualString(r.Str) != isStr || n.EqualString(r.Str+"x") || (r.Str != "" && n.EqualString(r.Str[1:])) {
		t.Fatalf("%s at %q: EqualString(%q) is not %v", text, at, r.Str, isStr)
	}
	if isStr && string(n.Bytes()) != string(n.Raw()[1:len(n.Raw())-1]) {
		t.Fatalf("%s at %q: Bytes %s", text, at, n.Bytes())
	}
	if isStr && n.Escaped() != strings.Contains(string(n.Bytes()), `\`) {
		t.Fatalf("%s at %q: Escaped %v", text, at, n.Escaped())
	}
	if f, ok := n.Float(); ok != (r.Type == gjson.Number) || (ok && f != r.Num && !(math.IsInf(f, 0) && math.IsInf(r.Num, 0))) {
		t.Fatalf("%s at %q: Float %v %v, gjson %v", text, at, f, ok, r.Num)
	}
	if i, ok := n.Int(); r.Type == gjson.Number {
		f, _ := strconv.ParseFloat(r.Raw, 64)
		integral := f == math.Trunc(f) && f >= -(1<<63) && f < 1<<63
		if ok != integral {
			t.Fatalf("%s at %q: Int %v %v", text, at, i, ok)
		}
		if ok && !strings.ContainsAny(r.Raw, ".eE") && strconv.FormatInt(i, 10) != strings.TrimPrefix(r.Raw, "-0") && r.Raw != "-0" {
			t.Fatalf("%s at %q: Int %v, written %s", text, at, i, r.Raw)
		}
		if ok && float64(i) != f {
			t.Fatalf("%s at %q: Int %v, value %v", text, at, i, f)
		}
	} else if ok {
		t.Fatalf("%s at %q: Int of a %c", text, at, n.Kind())
	}
	if b, ok := n.Bool(); ok != (r.Type == gjson.True || r.Type == gjson.False) || b != (r.Type == gjson.True) {
		t.Fatalf("%s at %q: Bool %v %v", text, at, b, ok)
	}
	if n.IsNull() != (r.Type == gjson.Null) || n.IsObject() != r.IsObject() || n.IsArray() != r.IsArray() {
		t.Fatalf("%s at %q: IsNull/IsObject/IsArray", text, at)
	}
	type item struct {
		key string
		r   gjson.Result
	}
	var want []item
	if r.IsObject() || r.IsArray() {
		r.ForEach(func(k, v gjson.Result) bool {
			want = append(want, item{k.Str, v})
			return true
		})
	}
	if n.Len() != len(want) {
		t.Fatalf("%s at %q: Len %d, gjson %d", text, at, n.Len(), len(want))
	}
	i := 0
	check := func(key string, v frame.Node) bool {
		if i >= len(want) {
			t.Fatalf("%s at %q: more members than gjson's %d", text, at, len(want))
		}
		if key != want[i].key {
			t.Fatalf("%s at %q: member %d is %q, gjson %q", text, at, i, key, want[i].key)
		}
		sameAsGjson(t, text, at+"/"+key, v, want[i].r)
		i++
		return true
	}
	n.Members(check)
	n.Elements(func(j int, v frame.Node) bool {
		if j != i {
			t.Fatalf("%s at %q: element %d counted %d", text, at, i, j)
		}
		if got, ok := n.Index(j); !ok || string(got.Raw()) != string(v.Raw()) {
			t.Fatalf("%s at %q: Index(%d) = %s", text, at, j, got.Raw())
		}
		return check("", v)
	})
	if i != len(want) {
		t.Fatalf("%s at %q: %d members, gjson %d", text, at, i, len(want))
	}
	if _, ok := n.Index(len(want)); ok {
		t.Fatalf("%s at %q: an element past the end", text, at)
	}
	for _, m := range want {
		if !r.IsObject() {
			break
		}
		got, ok := n.Get(m.key)
		w := r.Get(gjson.Escape(m.key))
		if !ok || string(got.Raw()) != w.Raw {
			t.Fatalf("%s at %q: Get(%q) = %s, gjson %s", text, at, m.key, got.Raw(), w.Raw)
		}
	}
	if got, ok := n.Get("no such member"); ok || got.Exists() || got.Kind() != 0 || got.Raw() != nil {
		t.Fatalf("%s at %q: Get of an absent member: %s", text, at, got.Raw())
	}
}

// Path follows names, the first member of each; the zero Node answers as absent.
func TestNodePath(t *testing.T) {
	n, err := frame.Parse([]byte(`{"params":{"_meta":{"progressToken":7},"_meta":{"progressToken":8}},"x":[1]}`))
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := n.Path("params", "_meta", "progressToken"); !ok || string(v.Raw()) != "7" {
		t.Fatalf("Path = %s %v", v.Raw(), ok)
	}
	if v, ok := n.Path(); !ok || string(v.Raw()) != string(n.Raw()) {
		t.Fatalf("Path() = %s %v", v.Raw(), ok)
	}
	for _, p := range [][]string{{"params", "nope"}, {"x", "0"}, {"nope", "params"}} {
		if v, ok := n.Path(p...); ok || v.Exists() {
			t.Fatalf("Path(%q) = %s", p, v.Raw())
		}
	}
	var zero frame.Node
	if zero.Exists() || zero.Kind() != 0 || zero.Raw() != nil || zero.Len() != 0 || zero.IsNull() {
		t.Fatal("the zero Node exists")
	}
	if _, ok := zero.Str(); ok {
		t.Fatal("the zero Node is a string")
	}
	zero.Members(func(string, frame.Node) bool { t.Fatal("a member of the zero Node"); return false })
	zero.Elements(func(int, frame.Node) bool { t.Fatal("an element of the zero Node"); return false })
}

// Parse refuses what the scan refuses, says where, and allocates only its tokens;
// Members, Get and Str of names and strings without escapes allocate nothing.
func TestParse(t *testing.T) {
	for _, bad := range []string{``, ` `, `{`, `[1,]`, `{"a"}`, `{"a":1,}`, `"\x"`, "\"\x01\"", `01`, `1.`, `tru`, `{} {}`, `[1 2]`, strings.Repeat("[", frame.MaxNesting+1) + strings.Repeat("]", frame.MaxNesting+1)} {
		var pe *frame.ParseError
		if _, err := frame.Parse([]byte(bad)); !errors.As(err, &pe) {
			t.Errorf("Parse(%.20q) = %v", bad, err)
		}
	}
	if _, err := frame.Parse([]byte(strings.Repeat("[", frame.MaxNesting) + strings.Repeat("]", frame.MaxNesting))); err != nil {
		t.Errorf("Parse at MaxNesting: %v", err)
	}
	text := []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hello"}],"isError":false}}`)
	n, err := frame.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(100, func() { _, _ = frame.Parse(text) }); a > 2 {
		t.Errorf("Parse allocates %v times", a)
	}
	if a := testing.AllocsPerRun(100, func() {
		res, _ := n.Get("result")
		c, _ := res.Get("content")
		c.Elements(func(_ int, v frame.Node) bool {
			v.Members(func(k string, m frame.Node) bool {
				if s, _ := m.Str(); s == "" && k == "" {
					t.Fatal("empty")
				}
				return true
			})
			return true
		})
		if s, ok := n.Path("result", "content"); !ok || s.Len() != 1 {
			t.Fatal("content")
		}
	}); a != 0 {
		t.Errorf("reading allocates %v times", a)
	}
}

// FuzzNode: for any input that Parse takes, encoding/json takes it too and decodes
// what Node reads: the same members (names in order, duplicates and all), elements,
// strings, numbers and literals; each value's Raw decodes to that value too; Get is
// the first member of a name. An input Parse refuses, encoding/json refuses (but
// for nesting deeper than MaxNesting).
func FuzzNode(f *testing.F) {
	for _, s := range nodeTexts {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"a":"\xff\xfe","\xc3":"\xc3\xa9"}`))
	f.Add([]byte(`[1,,2]`))
	f.Add([]byte("\xef\xbb\xbf{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := frame.Parse(data)
		if err != nil {
			if json.Valid(data) && !strings.Contains(err.Error(), "nested deeper") {
				t.Fatalf("Parse refuses what encoding/json takes: %v", err)
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("Parse takes what encoding/json refuses")
		}
		want, err := decodeJSON(data)
		if err != nil {
			t.Fatal(err)
		}
		if got := nodeValue(t, n, 0); !reflect.DeepEqual(got, want) {
			t.Fatalf("Node reads\n%#v\nencoding/json\n%#v", got, want)
		}
	})
}

// decodeJSON decodes one JSON text as encoding/json does, numbers as written.
func decodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

// nodeValue is what encoding/json decodes for the value n reads (members: the last
// of a name), checking on the way that each value's Raw decodes to the same and
// that Get finds the first member of a name.
func nodeValue(t *testing.T, n frame.Node, depth int) any {
	var v any
	switch n.Kind() {
	case '{':
		m := map[string]any{}
		first := map[string]string{}
		count := 0
		n.Members(func(k string, c frame.Node) bool {
			m[jsonDecoded(k)] = nodeValue(t, c, depth+1)
			if _, ok := first[k]; !ok {
				first[k] = string(c.Raw())
			}
			count++
			return true
		})
		for k, raw := range first {
			if got, ok := n.Get(k); !ok || string(got.Raw()) != raw {
				t.Fatalf("Get(%q) = %s, the first member is %s", k, got.Raw(), raw)
			}
		}
		if n.Len() != count {
			t.Fatalf("Len %d, %d members", n.Len(), count)
		}
		v = m
	case '[':
		a := []any{}
		n.Elements(func(i int, c frame.Node) bool {
			if i != len(a) {
				t.Fatalf("element %d counted %d", len(a), i)
			}
			a = append(a, nodeValue(t, c, depth+1))
			return true
		})
		if n.Len() != len(a) {
			t.Fatalf("Len %d, %d elements", n.Len(), len(a))
		}
		v = a
	case '"':
		s, ok := n.Str()
		if !ok || !n.EqualString(s) || n.EqualString(s+"\x00") {
			t.Fatal("a string's Str is not ok, or not EqualString's")
		}
		v = jsonDecoded(s)
	case '0':
		if _, ok := n.Float(); !ok {
			t.Fatal("a number's Float is not ok")
		}
		v = json.Number(n.Raw())
	case 't', 'f':
		b, ok := n.Bool()
		if !ok {
			t.Fatal("a literal's Bool is not ok")
		}
		v = b
	case 'n':
		v = nil
	default:
		t.Fatalf("kind %q", n.Kind())
	}
	if depth < 4 { // every value's Raw decodes to it (deeper: quadratic)
		if want, err := decodeJSON(n.Raw()); err != nil || !reflect.DeepEqual(v, want) {
			t.Fatalf("Raw %s decodes to %#v (%v), Node reads %#v", n.Raw(), want, err, v)
		}
	}
	return v
}

// jsonDecoded is s as encoding/json decodes a string: each byte that is not UTF-8
// becomes U+FFFD (a Node leaves them as they are).
func jsonDecoded(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r) // ranging yields U+FFFD for each invalid byte
	}
	return b.String()
}

// TestEveryFrameHasNode: every frame of every fixture, read with and without a
// shaper, has its Node, whose Raw is the frame's bytes, and ParamsNode and
// ResultNode are its params and result; none allocates. So do the copies Detach
// makes (the index handed over, or copied with its tokens), after the Reader read
// on.
func TestEveryFrameHasNode(t *testing.T) {
	for _, shaper := range []frame.Shaper{nil, &schema.Shaper{}} {
		files, frames := 0, 0
		err := filepath.WalkDir(filepath.Join("..", "..", "fixtures"), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasSuffix(path, ".want") || strings.HasSuffix(path, ".md") {
				return err
			}
			in, err := os.Open(path)
			if err != nil {
				return err
			}
			defer in.Close()
			rd, err := frame.NewReader(path, in, frame.Options{Shaper: shaper})
			if err != nil {
				return nil // not a capture this reader takes
			}
			defer rd.Close()
			files++
			var arena frame.Arena
			var copies []*frame.Frame
			for i := 0; ; i++ {
				rec, err := rd.Next()
				if err != nil {
					break
				}
				if rec.Kind != frame.RecordFrame {
					continue
				}
				where := fmt.Sprintf("%s:%d", path, rec.Frame.Line)
				hasNode(t, where, rec.Frame)
				c := new(frame.Frame)
				if i%2 == 0 {
					rd.Detach(rec.Frame, &arena, c, false)
				} else {
					rec.Frame.Detach(&arena, c)
				}
				copies = append(copies, c)
				frames++
			}
			for _, c := range copies {
				hasNode(t, fmt.Sprintf("%s:%d (copy)", path, c.Line), c)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if files < 50 || frames < 1000 {
			t.Fatalf("%d files, %d frames: too few to tell", files, frames)
		}
	}
}

func hasNode(t *testing.T, where string, f *frame.Frame) {
	t.Helper()
	n := f.Node()
	if f.Kind == frame.KindInvalid && f.Problem == frame.ProblemNotJSON {
		if n.Exists() {
			t.Fatalf("%s: a frame that is not JSON has a Node: %s", where, n.Raw())
		}
		return
	}
	if !n.Exists() || !bytes.Equal(n.Raw(), f.Raw) {
		t.Fatalf("%s: Node %s, frame %s", where, n.Raw(), f.Raw)
	}
	if p := f.ParamsNode(); !bytes.Equal(p.Raw(), f.Params) || p.Exists() != (f.Params != nil) {
		t.Fatalf("%s: ParamsNode %s, params %s", where, p.Raw(), f.Params)
	}
	if r := f.ResultNode(); !bytes.Equal(r.Raw(), f.Result) || r.Exists() != (f.Result != nil) {
		t.Fatalf("%s: ResultNode %s, result %s", where, r.Raw(), f.Result)
	}
	if a := testing.AllocsPerRun(10, func() { _, _, _ = f.Node(), f.ParamsNode(), f.ResultNode() }); a != 0 {
		t.Fatalf("%s: the frame's Nodes allocate %v times: no tokens of its scan", where, a)
	}
	for i := range f.Members {
		hasNode(t, fmt.Sprintf("%s member %d", where, i), &f.Members[i])
	}
}

// A large batch (when indexes kept a bounded number of members, one too large to
// index whole was read from its bytes) has its Nodes from the scan's tokens, as do
// its members, before and after Detach.
func TestHugeBatchHasNodes(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("[")
	for i := range 30000 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"t","arguments":{"i":%d}}}`, i, i)
	}
	b.WriteString("]\n")
	for _, shaper := range []frame.Shaper{nil, &schema.Shaper{}} {
		rd, err := frame.NewReader("huge", bytes.NewReader(b.Bytes()), frame.Options{Shaper: shaper})
		if err != nil {
			t.Fatal(err)
		}
		rec, err := rd.Next()
		if err != nil {
			t.Fatal(err)
		}
		f := rec.Frame
		if f.Kind != frame.KindBatch || len(f.Members) != 30000 {
			t.Fatalf("%v, %d members", f.Kind, len(f.Members))
		}
		hasNode(t, "huge", f)
		var arena frame.Arena
		var c frame.Frame
		rd.Detach(f, &arena, &c, false)
		if _, err := rd.Next(); !errors.Is(err, io.EOF) {
			t.Fatal(err)
		}
		hasNode(t, "huge (copy)", &c)
		if shaper != nil && c.Members[7].Shape() != shaper.Wire(c.Members[7].Raw) {
			t.Fatal("a member's shape is not its bytes'")
		}
	}
}
