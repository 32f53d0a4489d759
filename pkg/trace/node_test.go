//go:build gjsonref

// This file compares the port from gjson to frame.Node with the gjson code it
// replaced (issue 26): run it with `go test -tags gjsonref`. It is left out of the
// default build so that no package but pkg/frame imports gjson
// (pkg/frame/imports_test.go); the fixtures' .want files and golden reports pin the
// behaviour in every run.

package trace

// The trace read message values and kept definitions with gjson before frame.Node.
// These tests keep that reading as the reference: the Node helpers (child, each,
// text, truth) answer what gjson's Get, ForEach, String and Bool answered on every
// value of edge-case texts, and the diff's capabilityPaths and definitionChanges
// give what the gjson code gave on every definition and capability object of the
// fixtures, and on edits of them.

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
)

// nodeTexts are texts whose every value the helpers must read as gjson did:
// duplicates, escaped names, numbers of every form, arrays where objects are
// expected, scalars, names of digits and of path syntax.
var nodeTexts = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `true`, `false`, `null`, `"x"`, `1.50`, `1e3`, `-2.5E-3`, `12345678901234567890`, `1e400`, `-1e400`, `42.0`,
	`{"a":1,"a":2,"b":{"c":1},"b":{"c":2}}`,
	`{"":0,"":1," ":2,"0":"zero","01":"one","a.b":3,"a*b":4,"a?c":5,"#":6,"@this":7,"!x":8,"a\\b":9,"k\u0065y":10,"\u00e9":11}`,
	`[1,"two",{"three":3},[4],true,false,null,1.5,"TRUE","t","0","no",0,-0.0,2]`,
	`{"required":["a","a",1,1.5,true,null,{"x":1},["y"]],"name":"n","properties":{"p":{"type":"string"},"q":[1,2]}}`,
	`{"required":"one","properties":[{"type":"string"},{"type":"integer"}]}`,
	`{"s":"a\"b\\c\u0000\ud83d\ude00","t":"True","u":"1","v":"yes","w":"f","x":1e-9,"y":0.0}`,
	`[[1,[2,[3]]],{"a":[{"b":{"c":[]}}]}]`,
}

// eachGjson is what gjson's ForEach gave, the key as its String.
func eachGjson(r gjson.Result) (keys []string, vals []gjson.Result) {
	r.ForEach(func(k, v gjson.Result) bool {
		keys = append(keys, k.String())
		vals = append(vals, v)
		return true
	})
	return keys, vals
}

func TestHelpersAsGjson(t *testing.T) {
	for _, src := range nodeTexts {
		n, err := frame.Parse([]byte(src))
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		helpersAsGjson(t, src, "", n, gjson.Parse(src))
	}
	var zero frame.Node
	helpersAsGjson(t, "(absent)", "", zero, gjson.Result{})
}

func helpersAsGjson(t *testing.T, src, at string, n frame.Node, r gjson.Result) {
	t.Helper()
	if got, want := n.Text(), r.String(); got != want {
		t.Errorf("%s at %q: text %q, gjson String %q", src, at, got, want)
	}
	if got, want := n.Truthy(), r.Bool(); got != want {
		t.Errorf("%s at %q: truth %v, gjson Bool %v", src, at, got, want)
	}
	if got, want := string(n.Raw()), r.Raw; got != want || n.Exists() != r.Exists() {
		t.Errorf("%s at %q: raw %s (%v), gjson %s (%v)", src, at, got, n.Exists(), want, r.Exists())
	}
	wantKeys, wantVals := eachGjson(r)
	var keys []string
	var vals []frame.Node
	each(n, func(k string, v frame.Node) bool {
		keys = append(keys, k)
		vals = append(vals, v)
		return true
	})
	if !slices.Equal(keys, wantKeys) {
		t.Fatalf("%s at %q: each keys %q, gjson %q", src, at, keys, wantKeys)
	}
	names := append(slices.Clone(keys), "nope", "", "0", "1", "99", "01", "-1", "+1", "1.0", "99999999999999999999", "properties", "required", "name", "#", "a.b", "a*b", "a?b", "a\\b")
	for _, k := range names {
		helpersLeaf(t, src, at+"/"+k+"?", child(n, k), r.Get(gjson.Escape(k)))
	}
	if r.Type != gjson.JSON {
		return // each yields the value itself, with the name ""
	}
	for i := range keys {
		helpersAsGjson(t, src, at+"/"+keys[i], vals[i], wantVals[i])
	}
}

func helpersLeaf(t *testing.T, src, at string, n frame.Node, r gjson.Result) {
	t.Helper()
	if got, want := string(n.Raw()), r.Raw; got != want || n.Exists() != r.Exists() {
		t.Errorf("%s at %q: child %s (%v), gjson %s (%v)", src, at, got, n.Exists(), want, r.Exists())
	}
	if got, want := n.Text(), r.String(); got != want {
		t.Errorf("%s at %q: text %q, gjson String %q", src, at, got, want)
	}
}

// fixtureValues gathers from every fixture the listed items (definitions) and
// the capability objects of initialize and server/discover messages.
func fixtureValues(t *testing.T) (defs, caps [][]byte) {
	seen := map[string]bool{}
	add := func(to *[][]byte, b []byte) {
		if len(b) > 0 && !seen[string(b)] {
			seen[string(b)] = true
			*to = append(*to, []byte(string(b)))
		}
	}
	err := filepath.WalkDir(filepath.Join("..", "..", "fixtures"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".want") || strings.HasSuffix(path, ".md") {
			return err
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		rd, err := frame.NewReader(path, in, frame.Options{})
		if err != nil {
			return nil
		}
		defer rd.Close()
		for {
			rec, err := rd.Next()
			if err == io.EOF || err != nil {
				break
			}
			if rec.Kind != frame.RecordFrame {
				continue
			}
			frames := []*frame.Frame{rec.Frame}
			for i := range rec.Frame.Members {
				frames = append(frames, &rec.Frame.Members[i])
			}
			for _, f := range frames {
				for _, member := range []string{"tools", "prompts", "resources", "resourceTemplates"} {
					list, _ := f.ResultNode().Get(member)
					for _, item := range list.Elements {
						add(&defs, item.Raw())
					}
				}
				for _, v := range []frame.Node{f.ParamsNode(), f.ResultNode()} {
					c, _ := v.Get("capabilities")
					add(&caps, c.Raw())
					c, _ = v.Path("_meta", "io.modelcontextprotocol/clientCapabilities")
					add(&caps, c.Raw())
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(defs) < 20 || len(caps) < 20 {
		t.Fatalf("%d definitions, %d capability objects: too few to tell", len(defs), len(caps))
	}
	return defs, caps
}

// edits are definitions changed as a server changes them: a property's type, a
// property added, removed, required, an argument made required, a member dropped.
func edits(def []byte) [][]byte {
	var v map[string]any
	if json.Unmarshal(def, &v) != nil {
		return nil
	}
	var out [][]byte
	edit := func(f func(m map[string]any)) {
		var c map[string]any
		_ = json.Unmarshal(def, &c)
		f(c)
		b, _ := json.Marshal(c)
		out = append(out, b)
	}
	for _, s := range []string{"inputSchema", "outputSchema"} {
		edit(func(m map[string]any) {
			sch, _ := m[s].(map[string]any)
			if sch == nil {
				m[s] = map[string]any{"type": "object"}
				return
			}
			props, _ := sch["properties"].(map[string]any)
			if props == nil {
				props = map[string]any{}
				sch["properties"] = props
			}
			for k, p := range props {
				if pm, ok := p.(map[string]any); ok {
					pm["type"], pm["format"] = "integer", "int64"
					pm["properties"] = map[string]any{"deep": map[string]any{"type": "string", "enum": []any{"a", 1.5}}}
				}
				sch["required"] = []any{k, "added", 1, true}
				break
			}
			props["added"] = map[string]any{"type": "string", "description": strings.Repeat("long ", 30)}
		})
		edit(func(m map[string]any) {
			if sch, _ := m[s].(map[string]any); sch != nil {
				delete(sch, "properties")
				sch["required"] = "one"
			}
		})
	}
	edit(func(m map[string]any) {
		args, _ := m["arguments"].([]any)
		for _, a := range args {
			if am, ok := a.(map[string]any); ok {
				am["required"] = "TRUE"
			}
		}
		m["arguments"] = append(args, map[string]any{"name": "extra", "required": 1})
	})
	edit(func(m map[string]any) {
		m["description"] = "changed"
		delete(m, "title")
		m["annotations"] = []any{1, 2}
	})
	return out
}

func TestDiffAsGjson(t *testing.T) {
	defs, caps := fixtureValues(t)
	odd := [][]byte{
		[]byte(`{"name":"x","inputSchema":{"properties":{"a":{"type":"string"}}},"inputSchema":{"properties":{}}}`),
		[]byte(`{"name":"x","inputSchema":{"properties":[{"type":"string"},{"type":"integer"}],"required":["a",2.50]}}`),
		[]byte(`{"name":"x","inputSchema":[1,2],"arguments":{"a":{"name":"a","required":"yes"}}}`),
		[]byte(`{"name":"x","arguments":[{"name":"a","required":1},{"name":"a","required":0},{"required":true},"str"]}`),
		[]byte(`{"name":"x","arguments":"none","outputSchema":null}`),
		[]byte(`["a",{"name":"x"}]`), []byte(`"just a string"`), []byte(`null`), []byte(`12.50`),
		[]byte(`{"a.b":1,"a*b":2,"#":3,"":4,"\u00e9":5}`), []byte(`{"a.b":2,"a*b":2,"#":4,"":4,"é":6}`),
	}
	all := append(slices.Clone(defs), odd...)
	for _, d := range defs {
		all = append(all, edits(d)...)
	}
	pairs, schemaPairs := 0, 0
	for i, a := range all {
		for _, j := range []int{i + 1, i + 7, len(all) - 1 - i} {
			if j < 0 || j >= len(all) {
				continue
			}
			for _, p := range [][2][]byte{{a, all[j]}, {all[j], a}} {
				got, want := definitionChanges(p[0], p[1]), definitionChangesGjson(p[0], p[1])
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("definitionChanges\n%s\n%s\n= %q\ngjson %q", p[0], p[1], got, want)
				}
				pairs++
				if slices.ContainsFunc(want, func(s string) bool { return strings.Contains(s, " property ") }) {
					schemaPairs++
				}
			}
		}
	}
	for _, c := range append(caps, []byte(`[{"a":true},{"b":{}}]`), []byte(`"x"`), []byte(`12`), []byte(`{"a":[true],"b":{"c":true,"d":false,"e":{},"f":null,"g":"true","c":false},"a":{}}`)) {
		if got, want := capabilityPaths(c), capabilityPathsGjson(c); !reflect.DeepEqual(got, want) {
			t.Fatalf("capabilityPaths(%s) = %v, gjson %v", c, got, want)
		}
	}
	if schemaPairs < 100 {
		t.Fatalf("%d of %d pairs differ by a schema property: too few to tell", schemaPairs, pairs)
	}
	t.Logf("%d definitions, %d pairs (%d differ by a schema property), %d capability objects", len(all), pairs, schemaPairs, len(caps))
}

// The diff's gjson code before frame.Node, kept as the reference.

func capabilityPathsGjson(raw json.RawMessage) map[string]bool {
	if len(raw) == 0 || string(raw) == "null" || !json.Valid(raw) {
		return nil
	}
	out := map[string]bool{}
	gjson.ParseBytes(raw).ForEach(func(k, v gjson.Result) bool {
		out[k.String()] = true
		if v.IsObject() {
			v.ForEach(func(sk, sv gjson.Result) bool {
				if sv.Type == gjson.True || sv.IsObject() {
					out[k.String()+"."+sk.String()] = true
				}
				return true
			})
		}
		return true
	})
	return out
}

func definitionChangesGjson(a, b []byte) []string {
	ga, gb := gjson.ParseBytes(a), gjson.ParseBytes(b)
	var out []string
	members := map[string]bool{}
	ga.ForEach(func(k, _ gjson.Result) bool { members[k.String()] = true; return true })
	gb.ForEach(func(k, _ gjson.Result) bool { members[k.String()] = true; return true })
	for _, m := range sortedKeys(members) {
		x, y := ga.Get(gjson.Escape(m)), gb.Get(gjson.Escape(m))
		if sameJSON([]byte(x.Raw), []byte(y.Raw)) && x.Exists() == y.Exists() {
			continue
		}
		switch {
		case !x.Exists():
			out = append(out, m+" added")
		case !y.Exists():
			out = append(out, m+" removed")
		case m == "inputSchema" || m == "outputSchema":
			out = append(out, schemaChangesGjson(m, x, y, 0)...)
		case m == "arguments":
			out = append(out, argumentChangesGjson(x, y)...)
		default:
			out = append(out, m+" changed")
		}
	}
	return out
}

// schemaChanges compares two JSON schemas: properties added, removed or changed
// (by keyword), required members added or removed.
func schemaChangesGjson(path string, a, b gjson.Result, depth int) []string {
	var out []string
	pa, pb := a.Get("properties"), b.Get("properties")
	names := map[string]bool{}
	pa.ForEach(func(k, _ gjson.Result) bool { names[k.String()] = true; return true })
	pb.ForEach(func(k, _ gjson.Result) bool { names[k.String()] = true; return true })
	for _, n := range sortedKeys(names) {
		x, y := pa.Get(gjson.Escape(n)), pb.Get(gjson.Escape(n))
		where := fmt.Sprintf("%s property %q", path, n)
		switch {
		case !x.Exists():
			out = append(out, where+" added")
		case !y.Exists():
			out = append(out, where+" removed")
		case !sameJSON([]byte(x.Raw), []byte(y.Raw)):
			for _, kw := range schemaKeywords {
				kx, ky := x.Get(kw), y.Get(kw)
				if kx.Exists() == ky.Exists() && sameJSON([]byte(kx.Raw), []byte(ky.Raw)) {
					continue
				}
				out = append(out, fmt.Sprintf("%s %s %s → %s", where, kw, rawOrGjson(kx), rawOrGjson(ky)))
			}
			if depth < maxSchemaDepth {
				out = append(out, schemaChangesGjson(path+"."+n, x, y, depth+1)...)
			}
		}
	}
	ra, rb := stringSetGjson(a.Get("required")), stringSetGjson(b.Get("required"))
	for _, n := range sortedKeys(rb) {
		if !ra[n] {
			out = append(out, fmt.Sprintf("%s requires %q now", path, n))
		}
	}
	for _, n := range sortedKeys(ra) {
		if !rb[n] {
			out = append(out, fmt.Sprintf("%s no longer requires %q", path, n))
		}
	}
	if depth == 0 && len(out) == 0 {
		out = append(out, path+" changed")
	}
	return out
}

func rawOrGjson(r gjson.Result) string {
	if !r.Exists() {
		return "(none)"
	}
	s := r.Raw
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

func stringSetGjson(r gjson.Result) map[string]bool {
	out := map[string]bool{}
	r.ForEach(func(_, v gjson.Result) bool { out[v.String()] = true; return true })
	return out
}

// argumentChanges compares a prompt's arguments by name.
func argumentChangesGjson(a, b gjson.Result) []string {
	byName := func(r gjson.Result) map[string]gjson.Result {
		out := map[string]gjson.Result{}
		r.ForEach(func(_, v gjson.Result) bool { out[v.Get("name").String()] = v; return true })
		return out
	}
	ma, mb := byName(a), byName(b)
	var out []string
	names := map[string]bool{}
	for n := range ma {
		names[n] = true
	}
	for n := range mb {
		names[n] = true
	}
	for _, n := range sortedKeys(names) {
		x, okx := ma[n]
		y, oky := mb[n]
		switch {
		case !okx:
			out = append(out, fmt.Sprintf("argument %q added", n))
		case !oky:
			out = append(out, fmt.Sprintf("argument %q removed", n))
		case x.Get("required").Bool() != y.Get("required").Bool():
			out = append(out, fmt.Sprintf("argument %q required %v → %v", n, x.Get("required").Bool(), y.Get("required").Bool()))
		case !sameJSON([]byte(x.Raw), []byte(y.Raw)):
			out = append(out, fmt.Sprintf("argument %q changed", n))
		}
	}
	return out
}
