package schema_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/schema"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

func TestDefaultDialect(t *testing.T) {
	for rev, want := range map[spec.Revision]schema.Dialect{
		"2024-11-05": schema.Draft07, "2025-03-26": schema.Draft07, "2025-06-18": schema.Draft07,
		"2025-11-25": schema.Draft2020, "2026-07-28": schema.Draft2020, "draft": schema.Draft2020, "": schema.Draft07,
	} {
		if got := schema.DefaultDialect(rev); got != want {
			t.Errorf("DefaultDialect(%q) = %s, want %s", rev, got, want)
		}
	}
}

// Formats are asserted as strict clients assert them, in both dialects.
func TestPublishedFormatsAsserted(t *testing.T) {
	for _, rev := range []spec.Revision{spec.Rev20250618, spec.Rev20251125} {
		for _, c := range []struct {
			format, good, bad string
		}{
			{"date", `"2025-06-01"`, `"last month"`},
			{"date-time", `"2025-06-01T10:00:00Z"`, `"2025-06-01"`},
			{"email", `"ops@example.com"`, `"ops at example"`},
			{"uri", `"https://example.com/a"`, `"/a"`},
			{"uuid", `"123e4567-e89b-12d3-a456-426614174000"`, `"123"`},
		} {
			p := schema.CompilePublished([]byte(`{"type":"object","properties":{"v":{"type":"string","format":"`+c.format+`"}}}`), rev)
			if p.Err != nil {
				t.Fatalf("%s: %v", c.format, p.Err)
			}
			if vs, err := p.Validate([]byte(`{"v":` + c.good + `}`)); err != nil || len(vs) != 0 {
				t.Errorf("%s %s: %s rejected: %v %v", rev, c.format, c.good, vs, err)
			}
			vs, err := p.Validate([]byte(`{"v":` + c.bad + `}`))
			if err != nil || len(vs) != 1 || vs[0].Keyword != "format" || vs[0].Pointer != "/v" || vs[0].Message != `must match format "`+c.format+`"` {
				t.Errorf("%s %s: %s: %+v %v", rev, c.format, c.bad, vs, err)
			}
		}
	}
}

func TestPublishedDialects(t *testing.T) {
	tuple := []byte(`{"type":"object","properties":{"pair":{"type":"array","items":[{"type":"string"},{"type":"integer"}]}}}`)
	if p := schema.CompilePublished(tuple, spec.Rev20250618); p.Err != nil || p.Dialect != "draft-07" {
		t.Errorf("draft-07 tuple items: %v (%s)", p.Err, p.Dialect)
	}
	p := schema.CompilePublished(tuple, spec.Rev20251125)
	if p.Err == nil || p.Dialect != "2020-12" || !strings.Contains(p.Err.Error(), "/properties/pair/items") {
		t.Errorf("2020-12 tuple items compiled: %v (%s)", p.Err, p.Dialect)
	}
	// A declared $schema wins over the revision's default.
	declared := []byte(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"pair":{"type":"array","items":[{"type":"string"}]}}}`)
	if p := schema.CompilePublished(declared, spec.Rev20251125); p.Err != nil || p.Dialect != "draft-07" {
		t.Errorf("declared draft-07 under 2025-11-25: %v (%s)", p.Err, p.Dialect)
	}
	prefix := []byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"pair":{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}]}}}`)
	p = schema.CompilePublished(prefix, spec.Rev20250618)
	if p.Err != nil || p.Dialect != "2020-12" {
		t.Fatalf("declared 2020-12 under 2025-06-18: %v (%s)", p.Err, p.Dialect)
	}
	if vs, _ := p.Validate([]byte(`{"pair":["a","b"]}`)); len(vs) != 1 || vs[0].Pointer != "/pair/1" || vs[0].Keyword != "type" {
		t.Errorf("prefixItems not applied: %+v", vs)
	}
}

// Nothing outside the schema is loaded: neither files nor the network.
func TestPublishedLoadsNothing(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret.json")
	if err := os.WriteFile(secret, []byte(`{"type":"string"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"file://" + secret, "https://example.com/schema.json", "other.json"} {
		p := schema.CompilePublished([]byte(`{"type":"object","properties":{"a":{"$ref":"`+ref+`"}}}`), spec.Rev20250618)
		if p.Err == nil {
			t.Errorf("$ref %s compiled: something was loaded", ref)
		}
	}
	if p := schema.CompilePublished([]byte(`{"type":"object","properties":{"a":{"$ref":"#/definitions/A"}},"definitions":{"A":{"type":"string"}}}`), spec.Rev20250618); p.Err != nil {
		t.Errorf("a local $ref must compile: %v", p.Err)
	}
}

func TestPublishedBroken(t *testing.T) {
	for _, c := range []struct {
		raw, want string
	}{
		{`{"type":"object","properties":{"since":{"type":"date"}}}`, `at /properties/since/type enum`},
		{`{"type":"object","required":"since"}`, `at /required type: must be array`},
		{`{"type":"object",`, `not JSON`},
		{`{"type":"object","properties":{"a":{"pattern":"(unclosed"}}}`, `pattern`},
	} {
		p := schema.CompilePublished([]byte(c.raw), spec.Rev20250618)
		if p.Err == nil || !strings.Contains(p.Err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to mention %q", c.raw, p.Err, c.want)
		}
		if _, err := p.Validate([]byte(`{}`)); err == nil {
			t.Errorf("%s: Validate on a schema that did not compile must fail", c.raw)
		}
	}
}

// Patterns are ECMA-262: lookarounds compile (and are not asserted), broken ones do not.
func TestPublishedPatterns(t *testing.T) {
	p := schema.CompilePublished([]byte(`{"type":"object","properties":{"pw":{"type":"string","pattern":"^(?=.*[0-9]).{8,}$"},"id":{"type":"string","pattern":"^INV-[0-9]{4}$"}}}`), spec.Rev20251125)
	if p.Err != nil {
		t.Fatalf("a lookahead pattern must compile: %v", p.Err)
	}
	vs, err := p.Validate([]byte(`{"pw":"x","id":"INV-12"}`))
	if err != nil || len(vs) != 1 || vs[0].Pointer != "/id" || vs[0].Message != `must match pattern "^INV-[0-9]{4}$"` {
		t.Errorf("patterns: %+v %v", vs, err)
	}
}

func TestToolsRegistry(t *testing.T) {
	tools := schema.NewTools()
	list(tools, `{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"},"outputSchema":{"type":"object"}}]}`, 5, spec.Rev20250618, false)
	if tools.Len() != 2 || tools.Lookup("a") == nil || tools.Lookup("b").Output == nil || tools.Lookup("b").Line != 5 {
		t.Fatalf("after the first list: %d tools", tools.Len())
	}
	// A later page adds; a new listing starts again.
	list(tools, `{"tools":[{"name":"c","inputSchema":{"type":"object"}}]}`, 7, spec.Rev20250618, true)
	if tools.Len() != 3 {
		t.Errorf("a page did not add: %d tools", tools.Len())
	}
	list(tools, `{"tools":[{"name":"c","inputSchema":{"type":"object"}}]}`, 9, spec.Rev20250618, false)
	if tools.Len() != 1 || tools.Lookup("a") != nil || tools.Lookup("c").Line != 9 {
		t.Errorf("a new listing kept old tools: %d", tools.Len())
	}
	// Compiled once per content and dialect, by the run's store.
	compiled := schema.NewCompiled()
	raw := []byte(`{"type":"object"}`)
	if compiled.Compile(raw, spec.Rev20250618) != compiled.Compile([]byte(`{"type":"object"}`), spec.Rev20250618) {
		t.Error("the same schema was compiled twice")
	}
	if compiled.Compile(raw, spec.Rev20250618) == compiled.Compile(raw, spec.Rev20251125) {
		t.Error("one compilation shared by two dialects")
	}
	if compiled.Compile([]byte(`{"type":"string"}`), spec.Rev20250618) == compiled.Compile(raw, spec.Rev20250618) {
		t.Error("two schemas share one compilation")
	}
	// Bounded.
	var b strings.Builder
	b.WriteString(`{"tools":[`)
	for i := range schema.MaxTools + 10 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"name":"t` + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + itoa(i) + `","inputSchema":{"type":"object"}}`)
	}
	b.WriteString(`]}`)
	big := schema.NewTools()
	list(big, b.String(), 3, spec.Rev20250618, false)
	if big.Len() != schema.MaxTools || big.Dropped != 10 {
		t.Errorf("%d tools kept, %d dropped", big.Len(), big.Dropped)
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var d []byte
	for ; i > 0; i /= 10 {
		d = append([]byte{byte('0' + i%10)}, d...)
	}
	return string(d)
}

// A registry keeps copies: the result it listed from may be overwritten (the
// reader's buffer is reused) and every tool keeps its name and schemas.
func TestToolsKeepCopies(t *testing.T) {
	tools := schema.NewTools()
	result := []byte(`{"tools":[{"name":"add","inputSchema":{"type":"object","required":["a"]}}]}`)
	list(tools, result, 3, spec.Rev20250618, false)
	for i := range result {
		result[i] = 'x'
	}
	tool := tools.Lookup("add")
	if tool == nil || tool.Name != "add" || string(tool.Input) != `{"type":"object","required":["a"]}` {
		t.Fatalf("after the result was overwritten: %+v", tool)
	}
}

// The values a violation quotes are read where the validator read them: in an
// object that repeats a name, the last member (nested duplicates are reported below
// that one only), names unescaped, array elements by index, a value compacted; the
// violations keep copies of them. (The values gjson's reading gave before the port
// to frame.Node, unchanged.)
func TestViolationValues(t *testing.T) {
	p := schema.CompilePublished([]byte(`{"type":"object","properties":{"a":{"type":"string"},"list":{"type":"array","items":{"type":"integer"}},"deep":{"type":"object","properties":{"k":{"const":"v"}}}}}`), spec.Rev20250618)
	text := ` {"a":1,"a":{"x":1,"x":[2,{"y":1,"y":2}]},"\u0061":3,"list":[1,"two",{"z":1,"z":2}],"deep":{"k":"w","k\u0000":1,"k":"u"}} `
	raw := []byte(text)
	vs, err := p.Validate(raw)
	if err != nil {
		t.Fatal(err)
	}
	for i := range raw {
		raw[i] = 'x'
	}
	// Through the value's Node (a frame's, whose tokens are read, not scanned
	// again), with or without a memo: the same violations.
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":` + text + `}}`)
	n, err := frame.Parse(msg)
	if err != nil {
		t.Fatal(err)
	}
	args, _ := n.Path("params", "arguments")
	byNode, err := p.ValidateNode(args)
	if err != nil || !slices.Equal(byNode, vs) {
		t.Errorf("ValidateNode: %q %v\nValidate: %q", byNode, err, vs)
	}
	memo := schema.NewMemo(16)
	for range 2 {
		if byMemo, err := p.ValidateNodeWith(memo, args); err != nil || !slices.Equal(byMemo, vs) {
			t.Errorf("ValidateNodeWith: %q %v", byMemo, err)
		}
	}
	for i := range msg {
		msg[i] = 'x'
	}
	want := []schema.Violation{
		{"/a", schema.DuplicateKeyword, `"a" appears 3 times in one object: parsers disagree on which one counts (the last was checked)`, "3"},
		{"/a", "type", "must be string", "3"},
		{"/deep/k", schema.DuplicateKeyword, `"k" appears 2 times in one object: parsers disagree on which one counts (the last was checked)`, `"u"`},
		{"/deep/k", "const", `must be equal to constant ("v")`, `"u"`},
		{"/list/1", "type", "must be integer", `"two"`},
		{"/list/2", "type", "must be integer", `{"z":1,"z":2}`},
		{"/list/2/z", schema.DuplicateKeyword, `"z" appears 2 times in one object: parsers disagree on which one counts (the last was checked)`, "2"},
	}
	if len(vs) != len(want) || len(byNode) != len(want) {
		t.Fatalf("got %q", vs)
	}
	for i := range want {
		if vs[i] != want[i] || byNode[i] != want[i] {
			t.Errorf("violation %d:\n got %q\n and %q\nwant %q", i, vs[i], byNode[i], want[i])
		}
	}
	// The value itself, whitespace around it.
	s := schema.CompilePublished([]byte(`{"type":"string"}`), spec.Rev20250618)
	vs, err = s.Validate([]byte(" {\"b\": [1, 2]}\n"))
	if err != nil || len(vs) != 1 || vs[0].Pointer != "" || vs[0].Value != `{"b":[1,2]}` {
		t.Errorf("the value itself: %q %v", vs, err)
	}
}

// DeclaredDialect reads the first "$schema" member, its name and value unescaped,
// when it is a string; a text that is not JSON declares none (gjson's lenient
// reading found a member in the text before a syntax error: published schemas are
// values of scanned frames, always JSON).
func TestDeclaredDialectMembers(t *testing.T) {
	for raw, want := range map[string]string{
		`{"$schema":"http://json-schema.org/draft-07/schema#"}`:                                   "draft-07",
		`{"$sch\u0065ma":"https:\/\/json-schema.org\/draft\/2020-12\/schema"}`:                    "2020-12",
		`{"$schema":"https://example.com/x","$schema":"http://json-schema.org/draft-07/schema#"}`: "https://example.com/x",
		`{"$schema":7}`: "",
		`{"schema":"http://json-schema.org/draft-07/schema#"}`: "",
		`["$schema"]`: "",
		`{"$schema":"https://json-schema.org/draft/2020-12/schema"`: "",
	} {
		if got := schema.DeclaredDialect([]byte(raw)); got != want {
			t.Errorf("DeclaredDialect(%s) = %q, want %q", raw, got, want)
		}
	}
}

// list records the tools of a tools/list result's text as rules.PublishedTools
// records the items rules.Lists reads: each element of the "tools" array named
// by a string "name" (the odd shapes are rules.Lists' tests). A []byte result
// is read in place.
func list[T string | []byte](tools *schema.Tools, result T, line int, rev spec.Revision, paginated bool) {
	n, _ := frame.Parse([]byte(result))
	tools.Start(paginated)
	listed, _ := n.Get("tools")
	for _, item := range listed.Elements {
		name, _ := item.Get("name")
		if s, ok := name.Str(); ok {
			tools.Add(s, item, line, rev)
		}
	}
}
