//go:build gjsonref

// This file compares the port from gjson to frame.Node with the gjson code it
// replaced (issue 26): run it with `go test -tags gjsonref`. It is left out of the
// default build so that no package but pkg/frame imports gjson
// (pkg/frame/imports_test.go); the fixtures' .want files and golden reports pin the
// behaviour in every run.

package session

// The session read message values with gjson before frame.Node: these tests keep
// that reading as the reference. text, values and member answer what gjson's
// String, Array and Get answered on every value of edge-case texts; Declares and
// CapabilitySummary answer what gjson's path lookup answered on capability
// objects of every form, for paths of names, digits and path syntax.

import (
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

var nodeTexts = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `true`, `false`, `null`, `"x"`, `1.50`, `1e3`, `-2.5E-3`, `12345678901234567890`, `1e400`, `42.0`, `2025`,
	`{"protocolVersion":"2025-06-18","protocolVersion":"2024-11-05","name":{"a":1},"version":1.0,"x":null}`,
	`{"supportedVersions":["2026-07-28",2025,1.5,null,true,{"v":1},["a"]],"instructions":"line\nline \u00e9"}`,
	`{"supportedVersions":"2025-06-18"}`, `{"supportedVersions":{"a":"b"}}`, `{"supportedVersions":null}`, `{"supportedVersions":[]}`,
	`{"name":"n\"\\\u0041","version":"v"}`, `[{"name":"a"}]`,
}

func TestHelpersAsGjson(t *testing.T) {
	for _, src := range nodeTexts {
		n, err := frame.Parse([]byte(src))
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		helpersAsGjson(t, src, "", n, gjson.Parse(src))
	}
	helpersAsGjson(t, "(absent)", "", frame.Node{}, gjson.Result{})
}

func helpersAsGjson(t *testing.T, src, at string, n frame.Node, r gjson.Result) {
	t.Helper()
	if got, want := n.Text(), r.String(); got != want {
		t.Errorf("%s at %q: text %q, gjson String %q", src, at, got, want)
	}
	var got []string
	values(n, func(v frame.Node) bool { got = append(got, v.Text()); return true })
	var want []string
	for _, v := range r.Array() {
		want = append(want, v.String())
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s at %q: values %q, gjson Array %q", src, at, got, want)
	}
	if impl, old := implementation(n), (Implementation{Name: r.Get("name").String(), Version: r.Get("version").String()}); impl != old {
		t.Errorf("%s at %q: implementation %+v, gjson %+v", src, at, impl, old)
	}
	for _, name := range []string{"protocolVersion", "supportedVersions", "name", "nope", "0", ""} {
		v, w := member(n, name), r.Get(gjson.Escape(name))
		if string(v.Raw()) != w.Raw || v.Exists() != w.Exists() || v.Text() != w.String() {
			if !(r.IsArray() && name == "0") { // gjson's Get picks an element; member never does, and no caller asks an array
				t.Errorf("%s at %q: member %q %s, gjson %s", src, at, name, v.Raw(), w.Raw)
			}
		}
	}
	for k, v := range n.Members {
		helpersAsGjson(t, src, at+"/"+k, v, gjson.Parse(string(v.Raw())))
	}
	for j, v := range n.Elements {
		helpersAsGjson(t, src, at+"/"+strings.Repeat("#", j+1), v, gjson.Parse(string(v.Raw())))
	}
}

// escapePathGjson is how Declares made a gjson path of a capability path.
func escapePathGjson(path string) string {
	if !strings.ContainsAny(path, "*?|#@\\!") {
		return path
	}
	var b strings.Builder
	for _, r := range path {
		if strings.ContainsRune("*?|#@\\!", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func TestDeclaresAsGjson(t *testing.T) {
	caps := []string{
		`{}`, `null`, `[]`, `"x"`, `true`, `12`,
		`{"roots":{"listChanged":true},"sampling":{},"elicitation":{"form":{},"url":null},"experimental":null,"tools":false}`,
		`{"tools":{"listChanged":false},"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":"true"},"logging":{},"completions":false}`,
		`{"tasks":{"requests":{"tools":{"call":{}},"sampling":{"createMessage":1}}},"x":{"a*b":true,"a?c":true,"abc":true,"a.b":true,"#":true,"a\\b":true,"":{"":true}}}`,
		`{"list":[true,{"a":true},[false,true]],"0":{"1":true},"n":[1,2,3]}`,
		`{"experimental":{"say":"a \" b c","long":"` + strings.Repeat("é", 100) + `"}}`,
	}
	paths := []string{"roots", "roots.listChanged", "sampling", "sampling.tools", "elicitation", "elicitation.form", "elicitation.url", "experimental", "tools", "tools.listChanged",
		"resources", "resources.subscribe", "resources.listChanged", "logging", "completions", "tasks.requests.tools.call", "tasks.requests.sampling.createMessage", "tasks.requests.sampling.nope",
		"x.a*b", "x.a?c", "x.ab*", "x.a*", "x.#", "x.a\\b", "x.a|b", "x.@this", "x.!x", "x..", "x.", "", ".", "list", "list.0", "list.1", "list.1.a", "list.2.1", "list.3", "list.01", "list.-1", "list.+1", "list.#", "0.1", "n.2", "n.99999999999999999999", "experimental.say"}
	for _, capsText := range caps {
		for _, side := range []spec.Side{spec.Client, spec.Server} {
			c := &Contract{}
			if side == spec.Server {
				c.ServerCaps = []byte(capsText)
			} else {
				c.ClientCaps = []byte(capsText)
			}
			for _, path := range paths {
				v := gjson.GetBytes([]byte(capsText), escapePathGjson(path))
				for _, boolean := range []bool{true, false} {
					want := v.Type == gjson.True
					if !boolean {
						want = v.Exists() && v.Type != gjson.Null && v.Type != gjson.False
					}
					if got, ok := c.Declares(side, path, boolean); got != want || !ok {
						t.Errorf("%s: Declares(%q, %v) = %v, %v; gjson %v", capsText, path, boolean, got, ok, want)
					}
				}
				if strings.Contains(path, ".") {
					continue // CapabilitySummary is asked about a top-level capability
				}
				want := "no " + path
				if v.Exists() {
					want = path + ": " + quote.JSON(v.Raw, quote.MaxJSON)
				}
				if got := c.CapabilitySummary(side, path); got != want {
					t.Errorf("%s: CapabilitySummary(%q) = %q; gjson %q", capsText, path, got, want)
				}
			}
		}
	}
}
