package schema

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"hash/maphash"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

func TestVocabularyUsable(t *testing.T) {
	v := shapeVocabulary()
	if !v.usable {
		t.Fatal("the official schemas use a keyword shapes do not preserve")
	}
	if !v.literals["tools/call"] || !v.literals["text"] || v.formatMembers["uri"] != plainDecided {
		t.Errorf("vocabulary misses literals or format members: %v", v.formatMembers)
	}
	for _, c := range []struct {
		schema string
		usable bool
	}{
		{`{"type":"object","properties":{"a":{"type":"string","format":"date"}}}`, true},
		{`{"type":"object","properties":{"a":{"type":"string","pattern":"^x"}}}`, false},
		{`{"type":"array","items":{"type":"string","format":"date"}}`, false},
		{`{"type":"object","properties":{"a":{"$ref":"#/properties/b"},"b":{"format":"date"}}}`, false},
		{`{"type":"object","properties":{"a":{"$ref":"#/$defs/D"}},"$defs":{"D":{"type":"string"}}}`, true},
		{`{"type":"object","properties":{"a":{"enum":[{"x":1}]}}}`, false},
		{`{"type":"object","properties":{"n":{"type":"integer","minimum":1,"maximum":5}}}`, true},
		{`{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":3}`, true},
		// Positions and counts of matching elements: an array's shape keeps neither.
		{`{"type":"array","prefixItems":[{"type":"string"}]}`, false},
		{`{"type":"array","items":[{"type":"string"}]}`, false},
		{`{"type":"array","contains":{"type":"string"}}`, false},
		{`{"type":"array","contains":{"type":"string"},"maxContains":1}`, false},
	} {
		var doc any
		if err := json.Unmarshal([]byte(c.schema), &doc); err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(strings.NewReader(c.schema))
		dec.UseNumber()
		_ = dec.Decode(&doc)
		if got := vocabularyOf(doc).usable; got != c.usable {
			t.Errorf("%s: usable %v, want %v", c.schema, got, c.usable)
		}
	}
}

func TestShapeHash(t *testing.T) {
	seed := maphash.MakeSeed()
	h := func(raw string) uint64 {
		var scratch []byte
		x, ok := shapeHash(shapeVocabulary(), seed, &scratch, nil, []byte(raw), "rev", "def")
		if !ok {
			t.Fatalf("no shape for %s", raw)
		}
		return x
	}
	same := [][2]string{
		{`{"id":101,"method":"tools/call","params":{"name":"a","arguments":{"x":"y"}}}`, `{"id":202,"method":"tools/call","params":{"name":"bbb","arguments":{"x":"zzz"}}}`},
		{`{"progress":0.5,"progressToken":"p1"}`, `{"progress":0.75,"progressToken":"p2"}`},
		{`{"content":[{"type":"text","text":"a: b"}]}`, `{"content":[{"type":"text","text":"c: d"}]}`},
		{`{"uri":"relative-name"}`, `{"uri":"other"}`},
		// "byte" (blob, data) asserts nothing: their text, colons and all, is no part.
		{`{"level":"info","data":"cache refreshed at 2026-11-30T02:24:20Z"}`, `{"level":"info","data":"cache refreshed at 2026-11-30T02:24:21Z"}`},
		{`{"blob":"a:b"}`, `{"blob":"{c}"}`},
		// Escaped text is judged by what it decodes to: no literal, no format member.
		{`{"text":"a\"b"}`, `{"text":"a\"c"}`},
		{`{"content":[{"type":"text","text":"line 1\nline 2"}]}`, `{"content":[{"type":"text","text":"other\ttext"}]}`},
		// An array's shape is the set of its elements' shapes, and its length's place
		// among the item bounds (maxItems 100 in 2026-07-28's completion values).
		{`{"a":["x"]}`, `{"a":["x","y"]}`},
		{`{"rows":[{"id":5,"name":"a"}]}`, `{"rows":[{"id":2,"name":"b"},{"id":3,"name":"c"},{"id":4,"name":"d"}]}`},
		{`{"content":[{"type":"text","text":"a"},{"type":"image","data":"x","mimeType":"image/png"},{"type":"text","text":"b"}]}`, `{"content":[{"type":"text","text":"c"},{"type":"image","data":"y","mimeType":"image/png"}]}`},
		{`{"values":[` + strings.Repeat(`"v",`, 98) + `"v"]}`, `{"values":["w"]}`},
		// A URI member's value is reduced to what each URI format says of it.
		{`{"uri":"file:///a"}`, `{"uri":"file:///b"}`},
		{`{"uri":"//host"}`, `{"uri":"//other"}`},
		{`{"uri":"a\/b"}`, `{"uri":"a\/c"}`},
		{`{"uri":"https://example.com/x?q=1"}`, `{"uri":"mailto:ops@example.com"}`},
	}
	for _, p := range same {
		if h(p[0]) != h(p[1]) {
			t.Errorf("shapes differ:\n%s\n%s", p[0], p[1])
		}
	}
	differ := [][2]string{
		{`{"method":"tools/call"}`, `{"method":"tools/list"}`},
		{`{"progress":1}`, `{"progress":0.5}`},
		{`{"priority":0.5}`, `{"priority":1.5}`},
		{`{"uri":"file:///a"}`, `{"uri":"%zz"}`},
		{`{"uri":"file:///a"}`, `{"uri":"/a/{id}"}`},
		{`{"uri":"//host"}`, `{"uri":"other"}`},
		{`{"a":"x"}`, `{"b":"x"}`},
		{`{"a":[]}`, `{"a":["x"]}`},
		{`{"a":["x"]}`, `{"a":[1]}`},
		{`{"a":["x"]}`, `{"a":["x",1]}`},
		{`{"content":[{"type":"text","text":"a"}]}`, `{"content":[{"type":"text","text":"a"},{"type":"image","data":"x","mimeType":"image/png"}]}`},
		{`{"values":[` + strings.Repeat(`"v",`, 99) + `"v"]}`, `{"values":["w"]}`},
		{`{"values":[` + strings.Repeat(`"v",`, 100) + `"v"]}`, `{"values":[` + strings.Repeat(`"v",`, 99) + `"v"]}`},
		{`{"a":true}`, `{"a":false}`},
		{`{"a":"x"}`, `{"a":1}`},
		{`{"type":"text"}`, `{"type":"image"}`},
		// An escaped string that decodes to a literal, or sits in a format member,
		// keeps its value.
		{`{"type":"t\u0065xt"}`, `{"type":"t\u0065xx"}`},
		{`{"type":"t\u0065xt"}`, `{"type":"image"}`},
		{`{"uri":"a\/b"}`, `{"uri":"%zz"}`},
	}
	for _, p := range differ {
		if h(p[0]) == h(p[1]) {
			t.Errorf("same shape:\n%s\n%s", p[0], p[1])
		}
	}
	var scratch []byte
	if _, ok := shapeHash(shapeVocabulary(), seed, &scratch, nil, []byte(`{"u\u0072i":"x"}`), "rev", "def"); ok {
		t.Error("an escaped member name must not have a shape")
	}
}

// The verdicts by wire shape must never accept what full validation rejects. Every
// frame of every fixture, and random variants of them (strings and numbers swapped
// for literals, URIs, bounds and plain values), are checked against every message
// definition of every revision, keyed as MCP4001 keys them (the whole message's
// wire shape, whatever part the definition covers), with one set shared by all: the
// verdicts must agree.
func TestMemoAgreesWithFullValidation(t *testing.T) {
	frames := fixtureMessages(t)
	rng := rand.New(rand.NewPCG(1, 2))
	checked, skipped := 0, 0
	for _, rev := range spec.Revisions() {
		w, err := For(rev)
		if err != nil {
			t.Fatal(err)
		}
		valid := NewValidShapes(1 << 16)
		var shaper Shaper
		for _, f := range frames {
			variants := [][]byte{f}
			for range 4 {
				variants = append(variants, mutate(t, f, rng))
			}
			for _, v := range variants {
				shape := shaper.Wire(v)
				for _, c := range candidates(w, v) {
					full, err := w.Check(c.target, c.raw)
					if err != nil {
						t.Fatal(err)
					}
					memoed, err := w.CheckShaped(valid, shape, c.target, c.raw)
					if err != nil {
						t.Fatal(err)
					}
					if (len(full) == 0) != (len(memoed) == 0) {
						t.Fatalf("%s %s: full validation says %v, the verdict by shape %v, for\n%s", rev, c.target.Definition, full, memoed, c.raw)
					}
					if len(full) == 0 {
						checked++
					} else {
						skipped++
					}
				}
			}
		}
	}
	t.Logf("%d valid and %d invalid (value, definition) pairs agree", checked, skipped)
}

type candidate struct {
	target Target
	raw    []byte
}

// candidates are the definitions a message could be checked against: those of its
// method, or every result (on its result member) and response definition, or the
// error definitions.
func candidates(w *Wire, msg []byte) []candidate {
	m, _ := frame.Parse(msg)
	method, hasMethod := m.Get("method")
	result, _ := m.Get("result")
	_, hasError := m.Get("error")
	var out []candidate
	for name := range w.doc.defs {
		switch {
		case hasMethod:
			if c, ok := w.doc.methodConst(name); ok && c == method.Text() {
				out = append(out, candidate{Target{Definition: name}, msg})
			}
		case result.IsObject():
			if strings.HasSuffix(name, "Result") {
				out = append(out, candidate{Target{Definition: name, Member: "result"}, bytes.Clone(result.Raw())})
			}
			if strings.HasSuffix(name, "ResultResponse") {
				out = append(out, candidate{Target{Definition: name}, msg})
			}
		case hasError:
			if strings.HasPrefix(name, "JSONRPCError") || strings.HasSuffix(name, "Error") {
				out = append(out, candidate{Target{Definition: name}, msg})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].target.Definition < out[j].target.Definition })
	return out
}

// fixtureMessages reads the JSON-RPC messages of the envelope fixtures.
func fixtureMessages(t *testing.T) [][]byte {
	t.Helper()
	var out [][]byte
	seen := map[string]bool{}
	files, _ := filepath.Glob("../../fixtures/*/*.jsonl")
	more, _ := filepath.Glob("../../fixtures/real/*/*.jsonl")
	for _, name := range append(files, more...) {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			line := sc.Bytes()
			// A line that is an envelope: its (first) msg member when that is an
			// object; any other line: itself. Only JSON objects are messages.
			raw := line
			if l, err := frame.Parse(line); err == nil {
				if msg, _ := l.Get("msg"); msg.IsObject() {
					raw = msg.Raw()
				}
			}
			if m, err := frame.Parse(raw); err != nil || !m.IsObject() || seen[string(raw)] {
				continue
			}
			if _, _, err := decode(raw); errors.Is(err, errTooDeep) {
				continue // not checked at all (fixtures/hostile)
			}
			seen[string(raw)] = true
			out = append(out, bytes.Clone(raw))
		}
	}
	if len(out) < 100 {
		t.Fatalf("only %d fixture messages", len(out))
	}
	return out
}

var (
	someStrings = []string{"text", "image", "audio", "resource_link", "tools/call", "2.0", "info", "verbose", "object", "user",
		"file:///a", "https://example.com/x", "notes.txt", "//host/a", "a:b", "{x}", "/a/{id}", "%zz", "a b", "", "x\u0001y", "[::1]", "ü"}
	someNumbers = []string{"-1", "0", "0.5", "1", "1.5", "2", "3.0", "100", "101", "-32601", "-32602", "1e400", "12345678901234567890"}
)

// mutate swaps a few leaves of a message for values that test the shape's rules.
func mutate(t *testing.T, raw []byte, rng *rand.Rand) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	var walk func(any) any
	walk = func(x any) any {
		switch x := x.(type) {
		case map[string]any:
			for k, e := range x {
				x[k] = walk(e)
			}
			return x
		case []any:
			for i, e := range x {
				x[i] = walk(e)
			}
			// Arrays' shapes merge repeated elements: repeat, drop and reorder
			// elements, and reach the item bounds (maxItems 100).
			if len(x) > 0 {
				switch rng.IntN(8) {
				case 0:
					x = append(x, x[rng.IntN(len(x))])
				case 1:
					x = x[:len(x)-1]
				case 2:
					x[0], x[len(x)-1] = x[len(x)-1], x[0]
				case 3:
					for len(x) < 99+rng.IntN(3) {
						x = append(x, x[rng.IntN(len(x))])
					}
				}
			}
			return x
		case string:
			if rng.IntN(3) == 0 {
				return someStrings[rng.IntN(len(someStrings))]
			}
		case json.Number:
			if rng.IntN(2) == 0 {
				return json.Number(someNumbers[rng.IntN(len(someNumbers))])
			}
		}
		return x
	}
	out, err := json.Marshal(walk(v))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The same guarantee for published schemas, whose vocabulary is their own.
func TestPublishedMemoAgreesWithFullValidation(t *testing.T) {
	schemas := []string{
		`{"type":"object","properties":{"since":{"type":"string","format":"date"},"customer":{"type":"string"}},"required":["customer"]}`,
		`{"type":"object","properties":{"status":{"enum":["open","paid"]},"n":{"type":"integer","minimum":1,"maximum":100},"tags":{"type":"array","items":{"type":"string"},"maxItems":2}}}`,
		`{"type":"object","properties":{"site":{"type":"string","format":"uri"},"mail":{"type":"string","format":"email"},"nested":{"type":"object","properties":{"when":{"type":"string","format":"date-time"}},"additionalProperties":false}}}`,
		`{"type":"object","properties":{"kind":{"const":"a"},"x":{"type":"number","exclusiveMinimum":0}},"oneOf":[{"required":["kind"]},{"required":["x"]}]}`,
		`{"type":"object","properties":{"tags":{"type":"array","items":{"enum":["a","b"]},"minItems":2,"maxItems":3},"other":{"type":"array","items":{"type":"object","properties":{"when":{"type":"string","format":"date-time"}}}}}}`,
	}
	values := []string{`"2025-06-01"`, `"last month"`, `"ACME"`, `"open"`, `"void"`, `"a"`, `"https://x.test/a"`, `"x.test"`, `"ops@example.com"`, `"2025-06-01T10:00:00Z"`,
		`1`, `0`, `0.5`, `100`, `101`, `-3`, `true`, `null`, `["a"]`, `["a","b","c"]`, `{}`, `{"when":"2025-06-01T10:00:00Z"}`, `{"when":"soon"}`, `{"other":1}`,
		`["a","a"]`, `["b","a","b"]`, `["a","a","a","a"]`, `["a","c","a"]`, `[{"when":"soon"},{"when":"2025-06-01T10:00:00Z"}]`, `[{"when":"2025-06-01T10:00:00Z"},{"when":"2025-06-01T10:00:00Z"}]`}
	members := []string{"since", "customer", "status", "n", "tags", "site", "mail", "nested", "kind", "x", "other"}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, src := range schemas {
		for _, rev := range []spec.Revision{spec.Rev20250618, spec.Rev20251125} {
			p := CompilePublished([]byte(src), rev)
			if p.Err != nil {
				t.Fatal(p.Err)
			}
			memo := NewMemo(1 << 12)
			for range 3000 {
				var b strings.Builder
				b.WriteByte('{')
				for i, m := range rng.Perm(len(members))[:rng.IntN(4)] {
					if i > 0 {
						b.WriteByte(',')
					}
					b.WriteString(`"` + members[m] + `":` + values[rng.IntN(len(values))])
				}
				b.WriteByte('}')
				raw := []byte(b.String())
				full, err := p.Validate(raw)
				if err != nil {
					t.Fatal(err)
				}
				memoed, err := p.ValidateWith(memo, raw)
				if err != nil {
					t.Fatal(err)
				}
				if (len(full) == 0) != (len(memoed) == 0) {
					t.Fatalf("%s under %s: full validation says %v, the memo %v, for %s", src, rev, full, memoed, raw)
				}
			}
		}
	}
}
