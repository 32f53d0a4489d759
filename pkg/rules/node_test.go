//go:build gjsonref

// This file compares the port from gjson to frame.Node with the gjson code it
// replaced (issue 26): run it with `go test -tags gjsonref`. It is left out of the
// default build so that no package but pkg/frame imports gjson
// (pkg/frame/imports_test.go); the fixtures' .want files and golden reports pin the
// behaviour in every run.

package rules

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
)

// gjsonTexts are values whose reading gjson and the helpers must agree on beyond
// what the fixtures hold: numbers of every form, strings gjson reads as flags or
// numbers, containers where a scalar is expected and the reverse, escapes,
// duplicate names.
var gjsonTexts = []string{
	`[0,-0,1,-1,42,42.0,1.50,1e3,1E+3,-1.25e-7,123456789012345678901234567890,1e400,-1e400,0.1]`,
	`["true","TRUE","True","t","T","1","0","false","f","yes","","5","-2.5","1e2","0x10"," 1","inf","NaN"]`,
	`{"a":true,"b":false,"c":null,"d":{},"e":[],"f":"x","g":1}`,
	`{"uri":"file:///a","uri":"file:///b","name":{"x":1},"tools":"str","contents":7,"roots":null}`,
	`{"k\u0065y":"v\u0061lue","key":"second","e\"sc":"\"q\"","":"empty","u":"\ud83d\ude00"}`,
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/subscriptionId":7,"io.modelcontextprotocol/related-task":{"taskId":"t1"}}}`,
	`[{"uri":"file:///x"},"file:///y",[{"uri":"z"}],null,{"text":"a\nb","blob":"QUJD"}]`,
	`{"properties":[{"format":"date"},{"pattern":"^a"}],"items":{"enum":[1,"a",null,{"b":2}]}}`,
}

// rulePaths are the member paths the rules read, as gjson paths.
var rulePaths = []string{
	"uri", "name", "_meta", "notifications", "requestId", "progressToken", "progress", "taskId", "status",
	"task", "tools", "contents", "roots", "capabilities", "inputResponses", "requestState", "resultType",
	"inputRequests", "nextCursor", "method", "params", "mode", "includeContext", "toolChoice", "isError",
	"structuredContent", "arguments", "inputSchema", "outputSchema", "properties", "items", "description",
	"format", "pattern", "enum", "toolsListChanged", "promptsListChanged", "resourcesListChanged",
	"resourceSubscriptions", "mimeType", "text", "blob", "resources", "prompts", "key", "",
	"task.taskId", `_meta.io\.modelcontextprotocol/protocolVersion`, `_meta.io\.modelcontextprotocol/subscriptionId`,
	`_meta.io\.modelcontextprotocol/related-task.taskId`, `io\.modelcontextprotocol/clientCapabilities`,
}

// names splits a gjson path of plain and escaped-dot names into member names.
func names(path string) []string {
	var out []string
	var b strings.Builder
	for i := 0; i < len(path); i++ {
		switch c := path[i]; {
		case c == '\\' && i+1 < len(path):
			i++
			b.WriteByte(path[i])
		case c == '.':
			out = append(out, b.String())
			b.Reset()
		default:
			b.WriteByte(c)
		}
	}
	return append(out, b.String())
}

// TestHelpersAsGjson: on every value of every fixture line that is JSON (and of
// gjsonTexts), the helpers and Node's Get/Path read what gjson read: String, Bool,
// Float, ForEach (keys and values), Raw, Exists, and every path the rules follow.
func TestHelpersAsGjson(t *testing.T) {
	texts := append([]string(nil), gjsonTexts...)
	err := filepath.WalkDir("../../fixtures", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch filepath.Ext(path) {
		case ".jsonl", ".ndjson", ".json", ".har", ".log":
		default:
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		texts = append(texts, string(data))
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			texts = append(texts, sc.Text())
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	values := 0
	for _, text := range texts {
		n, err := frame.Parse([]byte(text))
		if err != nil || !gjson.Valid(text) {
			continue
		}
		// gjson's root is the whole text, spaces around it and all.
		r := gjson.Parse(strings.TrimSpace(text))
		values += helpersAsGjson(t, text, "", n, r)
	}
	if values < 10000 {
		t.Fatalf("only %d values compared", values)
	}
}

func helpersAsGjson(t *testing.T, text, at string, n frame.Node, r gjson.Result) int {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%.200s at %q: "+format, append([]any{text, at}, args...)...)
	}
	if n.Exists() != r.Exists() {
		fail("Exists %v, gjson %v", n.Exists(), r.Exists())
	}
	if string(n.Raw()) != r.Raw {
		fail("Raw %.200s, gjson %.200s", n.Raw(), r.Raw)
	}
	if rawText(n) != string(n.Raw()) {
		fail("rawText %.200s", rawText(n))
	}
	if got, want := n.Text(), r.String(); got != want {
		fail("textOf %.200q, gjson String %.200q", got, want)
	}
	if got, want := n.Truthy(), r.Bool(); got != want {
		fail("truthy %v, gjson Bool %v", got, want)
	}
	if got, want := numberOf(n), r.Float(); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
		fail("numberOf %v, gjson Float %v", got, want)
	}
	if (n.Kind() == '"') != (r.Type == gjson.String) || n.IsObject() != r.IsObject() || n.IsArray() != r.IsArray() || n.IsNull() != (r.Type == gjson.Null && r.Exists()) {
		fail("kind %c, gjson type %v", n.Kind(), r.Type)
	}
	type item struct{ key, raw string }
	var want, got, vals []item
	r.ForEach(func(k, v gjson.Result) bool {
		want = append(want, item{k.String(), v.Raw})
		return true
	})
	eachKeyed(n, func(k string, v frame.Node) bool {
		got = append(got, item{k, string(v.Raw())})
		return true
	})
	eachValue(n, func(v frame.Node) bool {
		vals = append(vals, item{"", string(v.Raw())})
		return true
	})
	if len(got) != len(want) || len(vals) != len(want) {
		fail("eachKeyed %d, eachValue %d, gjson ForEach %d", len(got), len(vals), len(want))
	}
	for i := range want {
		if got[i].key != want[i].key || got[i].raw != want[i].raw || vals[i].raw != got[i].raw {
			fail("each %d: %q %.200s, gjson %q %.200s", i, got[i].key, got[i].raw, want[i].key, want[i].raw)
		}
	}
	for _, p := range rulePaths {
		v, ok := n.Path(names(p)...)
		w := r.Get(p)
		if ok != w.Exists() || string(v.Raw()) != w.Raw || get(n, names(p)...).Raw() == nil != !w.Exists() {
			fail("path %q: %.200s %v, gjson %.200s", p, v.Raw(), ok, w.Raw)
		}
	}
	// canonicalHash (MCP2005) is the hash gjson's walk gave, but for a member name
	// with escapes (hashed unescaped now, as written then).
	if got, want := canonicalHash(n), gjsonCanonicalHash(r); got != want && !strings.Contains(r.Raw, `\`) {
		fail("canonicalHash %x, gjson's %x", got, want)
	}
	count := 1
	if n.IsObject() || n.IsArray() {
		i := 0
		r.ForEach(func(k, v gjson.Result) bool {
			var child frame.Node
			if n.IsObject() {
				child, _ = n.Get(k.Str)
				// Get is the first member of a name: follow duplicates by position.
				j := 0
				for _, c := range n.Members {
					if j == i {
						child = c
					}
					j++
				}
			} else {
				child, _ = n.Index(i)
			}
			count += helpersAsGjson(t, text, at+"/"+k.String(), child, v)
			i++
			return true
		})
	}
	return count
}

// gjsonCanonicalHash is canonicalHash as it was written on gjson.
func gjsonCanonicalHash(v gjson.Result) uint64 {
	switch {
	case v.IsObject():
		sum := uint64(0x9e3779b97f4a7c15)
		v.ForEach(func(k, member gjson.Result) bool {
			sum += mix64(fnv64(k.Raw) ^ mix64(gjsonCanonicalHash(member)))
			return true
		})
		return mix64(sum)
	case v.IsArray():
		h := uint64(0xc2b2ae3d27d4eb4f)
		v.ForEach(func(_, element gjson.Result) bool {
			h = mix64(h ^ gjsonCanonicalHash(element))
			return true
		})
		return h
	default:
		return fnv64(v.Raw)
	}
}
