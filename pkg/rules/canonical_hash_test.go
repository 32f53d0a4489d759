package rules

import (
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
)

// A re-serialised item is the same item; any change of a value, a key or an array's
// order is a change (MCP2005 compares list items by this hash).
func TestCanonicalHash(t *testing.T) {
	same := [][2]string{
		{`{"name":"a","inputSchema":{"type":"object","required":["x"]}}`, `{ "inputSchema" : { "required" : [ "x" ], "type" : "object" }, "name" : "a" }`},
		{`{"a":{"b":1,"c":[1,{"d":2,"e":3}]}}`, "{\"a\":{\"c\":[1,{\"e\":3,\"d\":2}],\n\"b\":1}}"},
		{`[]`, `[ ]`},
		{`{}`, `{ }`},
		// A member's name counts unescaped (before frame.Node, it counted as written).
		{`{"a":1,"b\"c":2}`, `{"\u0061":1,"b\u0022c":2}`},
	}
	for _, c := range same {
		if canonicalHash(parse(t, c[0])) != canonicalHash(parse(t, c[1])) {
			t.Errorf("%s and %s hash differently", c[0], c[1])
		}
	}
	differ := [][2]string{
		{`{"name":"a","title":"A"}`, `{"name":"a","title":"B"}`},
		{`{"a":1,"b":2}`, `{"a":2,"b":1}`},
		{`{"a":1}`, `{"b":1}`},
		{`[1,2]`, `[2,1]`},
		{`{"a":[1]}`, `{"a":1}`},
		{`{"a":{"b":1}}`, `{"a":{"b":1},"c":null}`},
		{`{"a":1,"b":1}`, `{"a":2,"b":2}`},
		{`{}`, `[]`},
		{`"1"`, `1`},
		{`"a"`, `"\u0061"`}, // a string value counts as written
		{`{"a":1}`, `{"a ":1}`},
	}
	for _, c := range differ {
		if canonicalHash(parse(t, c[0])) == canonicalHash(parse(t, c[1])) {
			t.Errorf("%s and %s hash alike", c[0], c[1])
		}
	}
}

// parse is the Node of a JSON text.
func parse(t *testing.T, text string) frame.Node {
	t.Helper()
	n, err := frame.Parse([]byte(text))
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return n
}
