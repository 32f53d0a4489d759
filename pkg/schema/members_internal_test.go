package schema

// The reference the field walk on frame.Node is held to: LaterFields as it was on
// gjson (the walk of before, unchanged but for its names), its values read with
// encoding/json instead of gjson with gjson's meaning kept (refValue: the FIRST
// member of a name, a value's text as written), so that no package but pkg/frame
// imports gjson. TestLaterFieldsAsGjson and FuzzLaterFieldsAsGjson require the same
// LaterFields, in the same order, from both.

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// refLaterFields is LaterFields as it was on gjson: it lists the members of a message that rev does not define and a later
// revision does. A message of a method rev does not define yields nothing (that is
// a method, not a field, out of its revision).
func refLaterFields(rev spec.Revision, m Message) []LaterField {
	gov, err := DocFor(rev)
	if err != nil {
		return nil
	}
	root := refParse(string(m.Raw))
	prefix := ""
	if m.Kind == frame.KindResult {
		root, prefix = root.Get("result"), "/result"
		if !root.IsObject() {
			return nil
		}
	}
	start := gov.refStartSchemas(m, root)
	if len(start) == 0 {
		return nil
	}
	var later []refView
	for _, r := range spec.Revisions() {
		if !rev.Before(r) {
			continue
		}
		d, err := DocFor(r)
		if err != nil {
			continue
		}
		if s := d.refStartSchemas(m, root); len(s) > 0 {
			later = append(later, refView{doc: d, schemas: s})
		}
	}
	if len(later) == 0 {
		return nil
	}
	w := refFieldWalk{}
	w.walk(refView{doc: gov, schemas: start}, later, root, prefix, prefix, 0)
	return w.found
}

// view is a set of schemas of one revision that apply to one value together.
type refView struct {
	doc     *Doc
	schemas []map[string]any
	// unfit: no branch of some anyOf/oneOf fitted the value (a variant this
	// revision does not define).
	unfit bool
}

// refStartSchemas are the definitions that apply to a message (its result member for
// a result): the method's definition and, for whole messages, the JSON-RPC envelope
// definition (up to 2025-06-18 a method's definition leaves jsonrpc and id to it).
func (d *Doc) refStartSchemas(m Message, value refValue) []map[string]any {
	var t Target
	var ok bool
	var envelope []string
	switch m.Kind {
	case frame.KindRequest:
		t, ok = d.Request(m.Method, m.Sender)
		envelope = []string{"JSONRPCRequest"}
	case frame.KindNotification:
		t, ok = d.Notification(m.Method, m.Sender)
		envelope = []string{"JSONRPCNotification"}
	case frame.KindError:
		t, ok = d.Error(), true
	case frame.KindResult:
		t, ok = d.Result(m.Method, m.Sender, value.Get("task").IsObject())
	}
	if !ok {
		return nil
	}
	def := d.Definition(t.Definition)
	if def == nil {
		return nil
	}
	if m.Kind == frame.KindResult && t.Member == "" {
		// A whole-response definition (from 2026-07-28): its result member.
		def = d.resolve(d.property(d.resolve(def), "result"))
		if def == nil {
			return nil
		}
	}
	out := d.refExpand(def, value, nil, nil, 0)
	for _, name := range envelope {
		if env := d.Definition(name); env != nil {
			out = d.refExpand(env, value, out, nil, 0)
		}
	}
	return out
}

// expand resolves a schema for a value: $ref followed, allOf merged, anyOf/oneOf
// narrowed to the branches the value can belong to (by their const members), all of
// it flattened to the schemas that apply. unfit (when not nil) is set when no branch
// of some anyOf/oneOf fits the value: every branch is then kept.
func (d *Doc) refExpand(schema map[string]any, value refValue, out []map[string]any, unfit *bool, depth int) []map[string]any {
	if schema == nil || depth > 32 {
		return out
	}
	if name := d.refName(schema); name != "" {
		return d.refExpand(d.Definition(name), value, out, unfit, depth+1)
	}
	out = append(out, schema)
	if all, ok := schema["allOf"].([]any); ok {
		for _, b := range all {
			sub, _ := b.(map[string]any)
			out = d.refExpand(sub, value, out, unfit, depth+1)
		}
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		branches, ok := schema[kw].([]any)
		if !ok {
			continue
		}
		var fitting []map[string]any
		for _, b := range branches {
			sub := d.resolve(asMap(b))
			if sub != nil && d.refFits(sub, value) {
				fitting = append(fitting, sub)
			}
		}
		if len(fitting) == 0 {
			if unfit != nil {
				*unfit = true
			}
			for _, b := range branches {
				fitting = append(fitting, d.resolve(asMap(b)))
			}
		}
		for _, sub := range fitting {
			out = d.refExpand(sub, value, out, unfit, depth+1)
		}
	}
	return out
}

// fits reports whether a branch can describe the value: its declared type allows
// the value's JSON type, and every member it pins with a const has that value.
func (d *Doc) refFits(branch map[string]any, value refValue) bool {
	if t, ok := branch["type"].(string); ok && !refTypeFits(t, value) {
		return false
	}
	props, _ := branch["properties"].(map[string]any)
	for name, p := range props {
		c, ok := asMap(p)["const"]
		if !ok {
			continue
		}
		got := value.Get(name)
		if !got.Exists() {
			continue
		}
		if want, ok := c.(string); ok {
			if s, isString := got.str(); !isString || s != want {
				return false
			}
		}
	}
	return true
}

func refTypeFits(t string, v refValue) bool {
	switch t {
	case "object":
		return v.IsObject()
	case "array":
		return v.IsArray()
	case "string":
		return v.kind() == '"'
	case "number", "integer":
		return v.kind() == '0'
	case "boolean":
		return v.kind() == 't' || v.kind() == 'f'
	case "null":
		return v.kind() == 'n'
	}
	return true
}

type refFieldWalk struct {
	found []LaterField
}

func (w *refFieldWalk) walk(gov refView, later []refView, value refValue, ptr, pattern string, depth int) {
	if depth > maxFieldDepth {
		return
	}
	switch {
	case value.IsObject():
		if gov.unfit {
			// A variant the revision does not define: report its discriminating value
			// when a later revision defines the variant.
			for _, l := range later {
				if l.unfit {
					continue
				}
				if name, raw, ok := l.discriminator(value); ok {
					w.found = append(w.found, LaterField{Pointer: ptr + "/" + escapeToken(name), Pattern: pattern + "/" + escapeToken(name), Since: l.doc.Revision, Value: raw})
					return
				}
			}
			return
		}
		if !gov.hasProperties() {
			return // a free-form object (arguments, structuredContent, experimental)
		}
		// An object the spec declares open (additionalProperties other than false) in
		// the governing revision, or in the newest revision that describes it (the
		// spec's latest word on what the object is: a tool's inputSchema is a JSON
		// Schema, any keyword of which may appear), admits the members it does not
		// name: they are not fields the revision lacks.
		open := gov.admitsUnnamed() || (len(later) > 0 && later[len(later)-1].admitsUnnamed())
		refEachMember(value, func(name string, v refValue) bool {
			childPtr := ptr + "/" + escapeToken(name)
			childPattern := pattern + "/" + escapeToken(name)
			govChild := gov.child(name, v)
			if len(govChild.schemas) == 0 {
				if open {
					return true
				}
				for _, l := range later {
					if l.defines(name) {
						w.found = append(w.found, LaterField{Pointer: childPtr, Pattern: childPattern, Since: l.doc.Revision})
						break
					}
				}
				return true
			}
			var laterChildren []refView
			for _, l := range later {
				if c := l.child(name, v); len(c.schemas) > 0 {
					laterChildren = append(laterChildren, c)
				}
			}
			if len(laterChildren) > 0 {
				w.walk(govChild, laterChildren, v, childPtr, childPattern, depth+1)
			}
			return true
		})
	case value.IsArray():
		govItems := gov.items()
		if len(govItems.schemas) == 0 {
			return
		}
		laterItems := make([]refView, 0, len(later))
		for _, l := range later {
			if it := l.items(); len(it.schemas) > 0 {
				laterItems = append(laterItems, it)
			}
		}
		if len(laterItems) == 0 {
			return
		}
		i := 0
		refEachItem(value, func(v refValue) bool {
			w.walk(govItems.narrow(v), refNarrowAll(laterItems, v), v, ptr+"/"+strconv.Itoa(i), pattern+"/*", depth+1)
			i++
			return true
		})
	}
}

// hasProperties reports whether any schema of the view lists its members.
func (v refView) hasProperties() bool {
	for _, s := range v.schemas {
		if _, ok := s["properties"]; ok {
			return true
		}
	}
	return false
}

// admitsUnnamed reports whether every schema of the view that lists members also
// says, with additionalProperties, that other members may appear: a value must
// satisfy all of them.
func (v refView) admitsUnnamed() bool {
	listing := 0
	for _, s := range v.schemas {
		if _, ok := s["properties"]; !ok {
			continue
		}
		listing++
		extra, ok := s["additionalProperties"]
		if !ok || extra == false {
			return false
		}
	}
	return listing > 0
}

// defines reports whether the view lists a member of that name.
func (v refView) defines(name string) bool {
	for _, s := range v.schemas {
		if props, ok := s["properties"].(map[string]any); ok {
			if _, ok := props[name]; ok {
				return true
			}
		}
	}
	return false
}

// child is the view of a member's value.
func (v refView) child(name string, value refValue) refView {
	out := refView{doc: v.doc}
	for _, s := range v.schemas {
		props, _ := s["properties"].(map[string]any)
		if sub := asMap(props[name]); sub != nil {
			out.schemas = v.doc.refExpand(sub, value, out.schemas, &out.unfit, 0)
		}
	}
	return out
}

// items is the view of an array's items (not yet narrowed to one item).
func (v refView) items() refView {
	out := refView{doc: v.doc}
	for _, s := range v.schemas {
		if sub := asMap(s["items"]); sub != nil {
			out.schemas = append(out.schemas, sub)
		}
	}
	return out
}

// narrow expands the item schemas for one item.
func (v refView) narrow(item refValue) refView {
	out := refView{doc: v.doc}
	for _, s := range v.schemas {
		out.schemas = v.doc.refExpand(s, item, out.schemas, &out.unfit, 0)
	}
	return out
}

// discriminator finds the member of an object value that a fitting schema of the
// view pins with a const equal to the value's (the "type": "audio" of a variant).
func (v refView) discriminator(value refValue) (string, string, bool) {
	for _, s := range v.schemas {
		props, _ := s["properties"].(map[string]any)
		for name, p := range props {
			c, ok := asMap(p)["const"].(string)
			if !ok {
				continue
			}
			if got := value.Get(name); got.kind() == '"' {
				if s, _ := got.str(); s == c {
					return name, got.raw, true
				}
			}
		}
	}
	return "", "", false
}

func refNarrowAll(views []refView, item refValue) []refView {
	out := make([]refView, len(views))
	for i, v := range views {
		out[i] = v.narrow(item)
	}
	return out
}

// refValue is one JSON value of the reference: its text exactly as written (no
// whitespace around it), read with encoding/json when asked, with the meaning the
// walk's gjson values had; the zero refValue is a value that does not exist.
type refValue struct{ raw string }

// refParse is the value of a JSON text (whitespace around it ignored).
func refParse(s string) refValue { return refValue{strings.Trim(s, " \t\n\r")} }

// Exists reports whether the value exists.
func (v refValue) Exists() bool { return v.raw != "" }

// kind is the value's JSON type, by its first byte: '{', '[', '"', 't', 'f', 'n',
// '0' for a number; 0 when it does not exist.
func (v refValue) kind() byte {
	if v.raw == "" {
		return 0
	}
	switch c := v.raw[0]; c {
	case '{', '[', '"', 't', 'f', 'n':
		return c
	}
	return '0'
}

func (v refValue) IsObject() bool { return v.kind() == '{' }
func (v refValue) IsArray() bool  { return v.kind() == '[' }

// str is a string value, unescaped (encoding/json's reading); ok is false for a
// value that is not a string.
func (v refValue) str() (s string, ok bool) {
	if v.kind() != '"' {
		return "", false
	}
	if err := json.Unmarshal([]byte(v.raw), &s); err != nil {
		return "", false
	}
	return s, true
}

// Get is the value of the object's FIRST member of that name (as gjson's Get): the
// zero refValue when the value is no object or has no such member.
func (v refValue) Get(name string) refValue {
	var found refValue
	refEachMember(v, func(key string, m refValue) bool {
		if key == name {
			found = m
			return false
		}
		return true
	})
	return found
}

// refEachMember calls fn with every member of an object value (name unescaped,
// value as written), in order, duplicates included, until fn returns false.
func refEachMember(obj refValue, fn func(key string, v refValue) bool) {
	if !obj.IsObject() {
		return
	}
	dec := json.NewDecoder(strings.NewReader(obj.raw))
	if _, err := dec.Token(); err != nil { // {
		return
	}
	for dec.More() {
		tok, err := dec.Token()
		key, ok := tok.(string)
		if err != nil || !ok {
			return
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return
		}
		if !fn(key, refValue{string(raw)}) {
			return
		}
	}
}

// refEachItem calls fn with every item of an array value, in order, until fn
// returns false.
func refEachItem(arr refValue, fn func(v refValue) bool) {
	if !arr.IsArray() {
		return
	}
	dec := json.NewDecoder(strings.NewReader(arr.raw))
	if _, err := dec.Token(); err != nil { // [
		return
	}
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return
		}
		if !fn(refValue{string(raw)}) {
			return
		}
	}
}

// laterCases are messages whose walk tells the reference and the Node walk
// apart if anything does: duplicate members (the first of a name decides, as
// gjson's Get), escaped names and discriminators (the Value is the raw text),
// numbers of every form, values of the wrong type where objects are expected.
var laterCases = []struct {
	kind   frame.Kind
	method string
	sender spec.Side
	raw    string
}{
	{frame.KindResult, "tools/call", spec.Client, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"audio","type":"text","data":"AA==","mimeType":"audio/wav"}]}}`},
	{frame.KindResult, "tools/call", spec.Client, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","type":"audio","data":"AA==","mimeType":"audio/wav"}]}}`},
	{frame.KindResult, "tools/call", spec.Client, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"\u0061udio","data":"AA==","mimeType":"audio/wav"},{"t\u0079pe":"resource_link","uri":"file:///a","name":"a"}]}}`},
	{frame.KindResult, "tools/call", spec.Client, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"x","annotations":{"priority":1.0,"audience":["user"]}}],"structuredContent":{"a":1}},"result":{"content":[]}}`},
	{frame.KindResult, "tools/call", spec.Client, `{"jsonrpc":"2.0","id":2,"result":{"content":[]},"result":{"content":[],"structuredContent":{"a":1}}}`},
	{frame.KindResult, "tools/call", spec.Client, `{"jsonrpc":"2.0","id":2,"result":{"content":"x","structuredContent":[1,2]}}`},
	{frame.KindResult, "tools/call", spec.Client, `{"jsonrpc":"2.0","id":2,"result":{"content":[1,"a",null,true,[],{}],"isError":0}}`},
	{frame.KindResult, "tools/call", spec.Client, `{"jsonrpc":"2.0","id":2,"result":{"task":{"taskId":"t","status":"working"},"content":[]}}`},
	{frame.KindResult, "tools/call", spec.Client, `{"jsonrpc":"2.0","id":2,"result":{"task":[],"content":[{"type":"image","data":"AA==","mimeType":"image/png","_meta":{"x":1}}]}}`},
	{frame.KindResult, "tools/list", spec.Client, `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","t\u0069tle":"A","inputSchema":{"type":"object"},"outputSchema":{"type":"object"},"icons":[{"src":"x","sizes":["1x1"]}]},{"name":"b","inputSchema":{"type":"object"},"icons":[],"icons":{}}],"ttlMs":1e3,"cacheScope":"public","nextCursor":null}}`},
	{frame.KindResult, "tools/list", spec.Client, `{"jsonrpc":"2.0","id":1,"result":{"tools":{"name":"a"},"tools":[{"name":"a","annotations":{"title":"t","readOnlyHint":true},"execution":{"taskSupport":"optional"}}]}}`},
	{frame.KindResult, "initialize", spec.Client, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true},"tasks":{"list":{}},"completions":{},"extensions":{"x":{}}},"serverInfo":{"name":"s","version":"1","title":"S","icons":[],"websiteUrl":"u"},"instructions":"i"}}`},
	{frame.KindResult, "resources/read", spec.Client, `{"jsonrpc":"2.0","id":5,"result":{"contents":[{"uri":"a","text":"x","_meta":{}},{"uri":"b","blob":"AA==","mimeType":"m"}]}}`},
	{frame.KindResult, "prompts/get", spec.Client, `{"jsonrpc":"2.0","id":5,"result":{"messages":[{"role":"user","content":{"type":"audio","data":"AA==","mimeType":"a"}},{"role":"assistant","content":{"type":"resource_link","uri":"u","name":"n"}}]}}`},
	{frame.KindResult, "sampling/createMessage", spec.Server, `{"jsonrpc":"2.0","id":5,"result":{"role":"assistant","content":[{"type":"text","text":"x"},{"type":"tool_use","id":"1","name":"n","input":{}}],"model":"m","stopReason":"toolUse"}}`},
	{frame.KindResult, "elicitation/create", spec.Server, `{"jsonrpc":"2.0","id":5,"result":{"action":"accept","content":{"a":1,"b":["x"]}}}`},
	{frame.KindRequest, "tools/call", spec.Client, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"a","arguments":{"anything":1},"_meta":{"progressToken":1},"task":{"ttl":1000}}}`},
	{frame.KindRequest, "initialize", spec.Client, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{"elicitation":{"form":{}},"sampling":{"tools":{}},"roots":{"listChanged":true}},"clientInfo":{"name":"c","version":"1","title":"C","icons":[{"src":"s"}]}}}`},
	{frame.KindRequest, "sampling/createMessage", spec.Server, `{"jsonrpc":"2.0","id":4,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"audio","data":"AA==","mimeType":"a"}},{"role":"user","content":[{"type":"tool_result","toolUseId":"1","content":[]}]}],"maxTokens":100,"tools":[{"name":"t","inputSchema":{"type":"object"}}],"toolChoice":{"mode":"auto"}}}`},
	{frame.KindRequest, "elicitation/create", spec.Server, `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"mode":"url","message":"m","url":"https://x","elicitationId":"e","requestedSchema":{"type":"object","properties":{"a":{"type":"string","format":"email","default":"x"}}}}}`},
	{frame.KindNotification, "notifications/progress", spec.Server, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":0.5,"total":1,"message":"half"}}`},
	{frame.KindNotification, "notifications/message", spec.Server, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":{"a":[1,2]},"_meta":{"x":1}}}`},
	{frame.KindNotification, "notifications/elicitation/complete", spec.Server, `{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"e"}}`},
	{frame.KindError, "", 0, `{"jsonrpc":"2.0","id":9,"error":{"code":-32602,"message":"bad","data":{"x":1}}}`},
	{frame.KindError, "", 0, `{"jsonrpc":"2.0","id":9,"error":{"code":-32042,"message":"url","data":{"elicitations":[{"mode":"url","url":"u","elicitationId":"e","message":"m"}]}}}`},
}

// sameLaterFields requires LaterFields of m (read through its Value, and through
// its Raw) to be the reference's, and returns how many there are.
func sameLaterFields(t *testing.T, where string, rev spec.Revision, m Message) int {
	t.Helper()
	want := refLaterFields(rev, m)
	for _, through := range []string{"Raw", "Value"} {
		mm := m
		if through == "Raw" {
			mm.Value = frame.Node{}
		} else if !mm.Value.Exists() {
			var err error
			if mm.Value, err = frame.Parse(m.Raw); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
		}
		got := LaterFields(rev, mm)
		if len(got) != len(want) {
			t.Fatalf("%s under %s through %s:\n got %+v\nwant %+v", where, rev, through, got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s under %s through %s: field %d\n got %+v\nwant %+v", where, rev, through, i, got[i], want[i])
			}
		}
	}
	return len(want)
}

// resultMethod guesses the method a result answers from its members (the fixtures'
// frames are read without their sessions): every guess is as good a test.
func resultMethod(result frame.Node) string {
	for _, c := range []struct{ member, method string }{
		{"tools", "tools/list"}, {"content", "tools/call"}, {"protocolVersion", "initialize"}, {"contents", "resources/read"},
		{"messages", "prompts/get"}, {"resources", "resources/list"}, {"resourceTemplates", "resources/templates/list"},
		{"prompts", "prompts/list"}, {"completion", "completion/complete"}, {"roots", "roots/list"}, {"model", "sampling/createMessage"},
		{"action", "elicitation/create"}, {"tasks", "tasks/list"}, {"taskId", "tasks/get"},
	} {
		if _, ok := result.Get(c.member); ok {
			return c.method
		}
	}
	return "ping"
}

// TestLaterFieldsAsGjson: the walk on frame.Node finds the LaterFields the gjson
// walk found, in the same order, under every revision: on the cases above, on
// large tool results, and on every message of every fixture (each distinct text
// once), read through the frame's Node and through its bytes.
func TestLaterFieldsAsGjson(t *testing.T) {
	revs := spec.Revisions()
	found, values := 0, 0 // fields found, of which variants (a Value)
	for i, c := range laterCases {
		if _, err := frame.Parse([]byte(c.raw)); err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		for _, rev := range revs {
			found += sameLaterFields(t, "case "+strconv.Itoa(i), rev, Message{Kind: c.kind, Method: c.method, Sender: c.sender, Raw: []byte(c.raw)})
		}
	}
	for _, r := range largeResultsForTest() {
		for _, rev := range revs {
			found += sameLaterFields(t, r.name, rev, Message{Kind: frame.KindResult, Method: "tools/call", Sender: spec.Client, Raw: r.raw})
		}
	}
	seen := map[string]bool{}
	messages := 0
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
			if err != nil {
				if !errors.Is(err, io.EOF) {
					return nil
				}
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
				if seen[string(f.Raw)] {
					continue
				}
				seen[string(f.Raw)] = true
				m := Message{Sender: spec.Sender(f.Dir), Method: f.Method, Raw: bytes.Clone(f.Raw), Value: f.Node()}
				switch f.Kind {
				case frame.KindRequest:
					m.Kind = frame.KindRequest
				case frame.KindNotification:
					m.Kind = frame.KindNotification
				case frame.KindError:
					m.Kind = frame.KindError
				case frame.KindResult:
					m.Kind, m.Method, m.Sender = frame.KindResult, resultMethod(f.ResultNode()), spec.Sender(f.Dir.Opposite())
				default:
					continue
				}
				messages++
				for _, rev := range revs {
					for _, l := range refLaterFields(rev, m) {
						if l.Value != "" {
							values++
						}
					}
					found += sameLaterFields(t, path+":"+strconv.Itoa(f.Line), rev, m)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if messages < 500 || found < 500 || values < 2 {
		t.Fatalf("only %d distinct messages in the fixtures, %d later fields, %d variants: too few to tell", messages, found, values)
	}
	t.Logf("%d distinct messages, %d later fields (%d variants) under %d revisions", messages, found, values, len(revs))
}

// largeResultsForTest are large tool results with long escaped strings, a
// structuredContent array and a base64 blob (as BenchmarkLaterFieldsLarge's).
func largeResultsForTest() []struct {
	name string
	raw  []byte
} {
	text := strings.Repeat(`a \"quoted\" line\twith\\escapes\u00e9\n`, 2000)
	var rows strings.Builder
	for i := range 300 {
		if i > 0 {
			rows.WriteByte(',')
		}
		rows.WriteString(`{"id":` + strconv.Itoa(i) + `,"n\u0061me":"item","price":1.5e1,"tags":["a"],"nested":{"type":"audio"}}`)
	}
	return []struct {
		name string
		raw  []byte
	}{
		{"text", []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"text":"` + text + `","type":"text"},{"type":"text","text":"` + text + `","annotations":{"lastModified":"x"}}],"isError":false}}`)},
		{"structured", []byte(`{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"{}"}],"structuredContent":{"rows":[` + rows.String() + `]},"rows":[` + rows.String() + `]}}`)},
		{"blob", []byte(`{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"image","data":"` + strings.Repeat("QUJD", 20000) + `","mimeType":"image/png"},{"type":"audio","data":"AA==","mimeType":"a"}]}}`)},
	}
}

// FuzzLaterFieldsAsGjson: for any JSON text, taken as a message of any kind and
// method (the first two bytes pick them and the revision), the walk on frame.Node
// finds what the gjson walk found.
func FuzzLaterFieldsAsGjson(f *testing.F) {
	for i, c := range laterCases {
		f.Add(byte(i), byte(c.kind), []byte(c.raw))
	}
	methods := []string{"tools/call", "tools/list", "initialize", "resources/read", "prompts/get", "sampling/createMessage", "elicitation/create",
		"notifications/progress", "notifications/message", "resources/list", "completion/complete", "tasks/get", "roots/list"}
	revs := spec.Revisions()
	f.Fuzz(func(t *testing.T, pick, kind byte, raw []byte) {
		if _, err := frame.Parse(raw); err != nil {
			return
		}
		m := Message{Kind: frame.Kind(kind%4) + 1, Method: methods[int(pick)%len(methods)], Sender: spec.Side(pick/64%2) + 1, Raw: raw}
		_ = sameLaterFields(t, "fuzz", revs[int(pick)%len(revs)], m)
	})
}
