// Package schema checks JSON values against JSON Schemas: the official schema.json of
// each MCP revision (the wire schema every frame must follow, chosen per message by
// method, kind and sender) and the schemas tools publish in tools/list (inputSchema,
// outputSchema), validated the way strict clients validate them.
//
// Compiled schemas are immutable and safe for concurrent use. The wire schema of a
// revision is compiled once per process, the first time a frame of that revision is
// checked (For); a published tool schema is compiled once per content in a Tools
// registry, which the caller owns.
package schema

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// Wire is the official schema of one revision, compiled, with the tables that say
// which definition a message is checked against. It is built once per revision; a
// definition is compiled the first time a message is checked against it (a capture
// uses a few of a revision's hundred definitions, and compiling all of them was most
// of the start-up of a short check), then kept. Safe for concurrent use.
type Wire struct {
	Revision spec.Revision
	doc      *Doc
	url      string

	mu       sync.Mutex
	compiler *jsonschema.Compiler          // not safe for concurrent use: under mu
	compiled map[string]*jsonschema.Schema // definition name -> compiled schema, under mu
}

// Doc is the parsed official schema of one revision with its selection tables: the
// request and notification definitions by method and sender (from the ClientRequest,
// ServerRequest, ClientNotification and ServerNotification unions). It is cheap to
// build (no compilation) and immutable.
type Doc struct {
	Revision spec.Revision
	// defsKey is where the definitions are: "definitions" (draft-07, up to
	// 2025-06-18) or "$defs" (2020-12, from 2025-11-25).
	defsKey       string
	defs          map[string]any
	requests      map[string]bySender
	notifications map[string]bySender
	results       map[resultKey]Target
	root          any // the whole document, for compilation
}

// bySender holds a definition name per sending side; "" where that side does not
// send the method in this revision.
type bySender struct{ client, server string }

func (b bySender) pick(sender spec.Side) string {
	switch sender {
	case spec.Client:
		return b.client
	case spec.Server:
		return b.server
	}
	if b.client != "" {
		return b.client
	}
	return b.server
}

// The per-revision builders: package-level tables of sync.OnceValues, filled at
// start-up and never modified; each builds its value on first use and returns the
// same immutable value afterwards.
var (
	docs  = perRevision(loadDoc)
	wires = perRevision(compileWire)
)

func perRevision[T any](build func(spec.Revision) (T, error)) map[spec.Revision]func() (T, error) {
	m := map[spec.Revision]func() (T, error){}
	for _, rev := range spec.Revisions() {
		m[rev] = sync.OnceValues(func() (T, error) { return build(rev) })
	}
	return m
}

// For returns the compiled wire schema of a revision (compiled on first use, then
// shared). An unknown revision is an error.
func For(rev spec.Revision) (*Wire, error) {
	build, ok := wires[rev]
	if !ok {
		return nil, fmt.Errorf("schema: unknown revision %q", rev)
	}
	return build()
}

// DocFor returns the parsed schema of a revision, without compiling it.
func DocFor(rev spec.Revision) (*Doc, error) {
	build, ok := docs[rev]
	if !ok {
		return nil, fmt.Errorf("schema: unknown revision %q", rev)
	}
	return build()
}

func loadDoc(rev spec.Revision) (*Doc, error) {
	raw := spec.Schema(rev)
	if raw == nil {
		return nil, fmt.Errorf("schema: no embedded schema for %s", rev)
	}
	root, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("schema: %s schema.json: %w", rev, err)
	}
	top, _ := root.(map[string]any)
	d := &Doc{Revision: rev, root: root, defsKey: "definitions", requests: map[string]bySender{}, notifications: map[string]bySender{}}
	if _, ok := top["$defs"]; ok {
		d.defsKey = "$defs"
	}
	d.defs, _ = top[d.defsKey].(map[string]any)
	if len(d.defs) == 0 {
		return nil, fmt.Errorf("schema: %s schema.json has no %s", rev, d.defsKey)
	}
	for _, u := range []struct {
		union  string
		table  map[string]bySender
		sender spec.Side
	}{
		{"ClientRequest", d.requests, spec.Client},
		{"ServerRequest", d.requests, spec.Server},
		{"ClientNotification", d.notifications, spec.Client},
		{"ServerNotification", d.notifications, spec.Server},
	} {
		for _, name := range d.unionMembers(u.union) {
			method, ok := d.methodConst(name)
			if !ok {
				return nil, fmt.Errorf("schema: %s: %s member %s has no method const", rev, u.union, name)
			}
			b := u.table[method]
			if u.sender == spec.Client {
				b.client = name
			} else {
				b.server = name
			}
			u.table[method] = b
		}
	}
	if len(d.requests) == 0 || len(d.notifications) == 0 {
		return nil, fmt.Errorf("schema: %s: no request or notification unions", rev)
	}
	d.results = d.resultTargets()
	return d, nil
}

// unionMembers lists the definitions an anyOf union refers to (none when the
// revision has no such union, as 2026-07-28 has no ServerRequest). A "union" of one
// member is written as that member itself (2026-07-28's ClientNotification is the
// cancelled notification): the definition of the same method is used, by name.
func (d *Doc) unionMembers(union string) []string {
	def, _ := d.defs[union].(map[string]any)
	if method, ok := d.methodConst(union); ok && def["anyOf"] == nil {
		names := make([]string, 0, len(d.defs))
		for name := range d.defs {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			if m, ok := d.methodConst(name); ok && m == method && name != union && !strings.HasPrefix(name, "Client") && !strings.HasPrefix(name, "Server") {
				return []string{name}
			}
		}
		return []string{union}
	}
	branches, _ := def["anyOf"].([]any)
	var out []string
	for _, b := range branches {
		if name := d.refName(b); name != "" {
			out = append(out, name)
		}
	}
	return out
}

// refName is the definition a {"$ref": "#/definitions/X"} schema points at.
func (d *Doc) refName(schema any) string {
	m, _ := schema.(map[string]any)
	ref, _ := m["$ref"].(string)
	name, ok := strings.CutPrefix(ref, "#/"+d.defsKey+"/")
	if !ok {
		return ""
	}
	return name
}

// Definition returns a definition of the document (nil if absent).
func (d *Doc) Definition(name string) map[string]any {
	m, _ := d.defs[name].(map[string]any)
	return m
}

// methodConst reads properties.method.const of a request or notification definition.
func (d *Doc) methodConst(name string) (string, bool) {
	props, _ := d.Definition(name)["properties"].(map[string]any)
	method, _ := props["method"].(map[string]any)
	c, ok := method["const"].(string)
	return c, ok
}

// Target is the definition a message is checked against, and which part of the
// message it covers.
type Target struct {
	// Definition is the name in the revision's schema.json ("CallToolRequest").
	Definition string
	// Member is "result" when the definition covers the message's result member
	// (legacy results); "" when it covers the whole message.
	Member string
}

// String names the target for messages: "CallToolResult (the result member)".
func (t Target) String() string {
	if t.Member != "" {
		return t.Definition + " (the " + t.Member + " member)"
	}
	return t.Definition
}

// Request is the definition of a request sent by sender (0: either side).
func (d *Doc) Request(method string, sender spec.Side) (Target, bool) {
	name := d.requests[method].pick(sender)
	return Target{Definition: name}, name != ""
}

// Notification is the definition of a notification sent by sender (0: either side).
func (d *Doc) Notification(method string, sender spec.Side) (Target, bool) {
	name := d.notifications[method].pick(sender)
	return Target{Definition: name}, name != ""
}

// Result is the definition of the result of a request (method, sent by
// requestSender). The name is derived from the request's definition: XRequest is
// answered by XResultResponse (a whole-message definition, from 2026-07-28) or
// XResult, else by EmptyResult. task says whether the result carries a "task"
// member: a task-augmented request (its params accept "task") is answered by a
// CreateTaskResult.
func (d *Doc) Result(method string, requestSender spec.Side, task bool) (Target, bool) {
	t, ok := d.results[resultKey{method, requestSender, task}]
	return t, ok
}

// TaskMatters reports whether a "task" member in the result of a request (method,
// sent by requestSender) changes its definition (Result's task): false for a request
// the revision does not augment with tasks, whose results need not be looked into.
func (d *Doc) TaskMatters(method string, requestSender spec.Side) bool {
	k := resultKey{method, requestSender, false}
	t, ok := d.results[k]
	k.task = true
	tt, tok := d.results[k]
	return ok != tok || t != tt
}

// resultKey selects a result definition (Doc.Result), precomputed when the
// document is loaded: results are the most frequent frames.
type resultKey struct {
	method string
	sender spec.Side
	task   bool
}

// resultTargets computes every result definition of the document.
func (d *Doc) resultTargets() map[resultKey]Target {
	out := map[resultKey]Target{}
	for method := range d.requests {
		for _, sender := range []spec.Side{0, spec.Client, spec.Server} {
			for _, task := range []bool{false, true} {
				if t, ok := d.result(method, sender, task); ok {
					out[resultKey{method, sender, task}] = t
				}
			}
		}
	}
	return out
}

func (d *Doc) result(method string, requestSender spec.Side, task bool) (Target, bool) {
	req := d.requests[method].pick(requestSender)
	if req == "" {
		return Target{}, false
	}
	if task && d.Definition("CreateTaskResult") != nil && d.acceptsTask(req) {
		return Target{Definition: "CreateTaskResult", Member: "result"}, true
	}
	base := strings.TrimSuffix(req, "Request")
	if d.Definition(base+"ResultResponse") != nil {
		return Target{Definition: base + "ResultResponse"}, true
	}
	for _, name := range []string{base + "Result", "EmptyResult", "Result"} {
		if d.Definition(name) != nil {
			return Target{Definition: name, Member: "result"}, true
		}
	}
	return Target{}, false
}

// acceptsTask reports whether a request definition's params define a "task" member,
// directly or in one of their anyOf/oneOf/allOf branches (2025-11-25
// ElicitRequestParams is the union of the form and URL params, each with "task").
func (d *Doc) acceptsTask(request string) bool {
	return d.definesMember(d.property(d.Definition(request), "params"), "task", 4)
}

// definesMember reports whether an object schema, or a branch of its anyOf, oneOf
// or allOf (down to depth levels), defines the named property.
func (d *Doc) definesMember(schema map[string]any, name string, depth int) bool {
	schema = d.resolve(schema)
	props, _ := schema["properties"].(map[string]any)
	if _, ok := props[name]; ok {
		return true
	}
	if depth == 0 {
		return false
	}
	for _, key := range []string{"anyOf", "oneOf", "allOf"} {
		branches, _ := schema[key].([]any)
		for _, b := range branches {
			if m, _ := b.(map[string]any); m != nil && d.definesMember(m, name, depth-1) {
				return true
			}
		}
	}
	return false
}

// Error is the definition of an error response: JSONRPCError up to 2025-06-18,
// JSONRPCErrorResponse from 2025-11-25.
func (d *Doc) Error() Target {
	if d.Definition("JSONRPCErrorResponse") != nil {
		return Target{Definition: "JSONRPCErrorResponse"}
	}
	return Target{Definition: "JSONRPCError"}
}

// property returns the schema of a named property of an object schema.
func (d *Doc) property(schema map[string]any, name string) map[string]any {
	props, _ := schema["properties"].(map[string]any)
	m, _ := props[name].(map[string]any)
	return m
}

// resolve follows $ref chains to the referenced definition.
func (d *Doc) resolve(schema map[string]any) map[string]any {
	for range 16 {
		name := d.refName(schema)
		if name == "" {
			return schema
		}
		schema = d.Definition(name)
	}
	return schema
}

// Doc returns the parsed document the wire schema was compiled from.
func (w *Wire) Doc() *Doc { return w.doc }

func compileWire(rev spec.Revision) (*Wire, error) {
	d, err := DocFor(rev)
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noRemoteLoader{})
	// The official schemas constrain URIs with format "uri" and "uri-template":
	// asserted in every revision, as strict decoders (the Python SDK's URL types)
	// reject a relative or malformed URI. "byte" is not a format the validator
	// knows and stays an annotation.
	c.AssertFormat()
	url := wireURL(rev)
	if err := c.AddResource(url, d.root); err != nil {
		return nil, fmt.Errorf("schema: %s: %w", rev, err)
	}
	return &Wire{Revision: rev, doc: d, url: url, compiler: c, compiled: map[string]*jsonschema.Schema{}}, nil
}

// schema returns the compiled schema of a definition (a name of the document's
// definitions, or toolSchemaDefinition(member)), compiling it on first use; nil
// when the revision has no such definition.
func (w *Wire) schema(name string) (*jsonschema.Schema, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if s, ok := w.compiled[name]; ok {
		return s, nil
	}
	var pointer string
	if member, ok := strings.CutPrefix(name, toolSchemaDefinition("")); ok {
		if !slices.Contains(toolSchemaMembers[:], member) || w.doc.property(w.doc.Definition("Tool"), member) == nil {
			return nil, nil
		}
		pointer = "#/" + w.doc.defsKey + "/Tool/properties/" + member
	} else {
		if _, ok := w.doc.defs[name]; !ok {
			return nil, nil
		}
		pointer = "#/" + w.doc.defsKey + "/" + escapeToken(name)
	}
	s, err := w.compiler.Compile(w.url + pointer)
	if err != nil {
		return nil, fmt.Errorf("schema: %s: compiling %s: %w", w.Revision, name, err)
	}
	w.compiled[name] = s
	return s, nil
}

// toolSchemaMembers are the members of a Tool that hold a published schema.
var toolSchemaMembers = [...]string{"inputSchema", "outputSchema"}

func toolSchemaDefinition(member string) string { return "Tool/properties/" + member }

// ToolSchema is the target that checks a published schema (member "inputSchema" or
// "outputSchema") against what the revision's Tool definition requires of it (for
// example "type": "object" at its root); ok=false when the revision's Tool has no
// such member (outputSchema before 2025-06-18).
func (d *Doc) ToolSchema(member string) (Target, bool) {
	if d.property(d.Definition("Tool"), member) == nil {
		return Target{}, false
	}
	return Target{Definition: toolSchemaDefinition(member)}, true
}

func wireURL(rev spec.Revision) string {
	return "https://modelcontextprotocol.io/schema/" + string(rev) + "/schema.json"
}

// noRemoteLoader refuses to load anything: every schema mcpsleuth compiles is
// complete in itself (a capture must never make it read files or the network).
type noRemoteLoader struct{}

func (noRemoteLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s: external references are not loaded", url)
}

// escapeToken escapes a JSON pointer token (RFC 6901).
func escapeToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// Check validates JSON against a target: raw is the whole message, or its result
// member when t.Member is "result" (the pointers then start with /result). A
// definition the revision lacks is an error.
func (w *Wire) Check(t Target, raw []byte) ([]Violation, error) {
	s, err := w.schema(t.Definition)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, fmt.Errorf("schema: %s defines no %s", w.Revision, t.Definition)
	}
	prefix := ""
	if t.Member != "" {
		prefix = "/" + t.Member
	}
	return validate(s, raw, prefix)
}

// CheckShaped is Check with the run's verdicts by wire shape (see Shaper.Wire): a
// message whose shape validated against the same definition before is accepted
// without validating it again. shape 0 (no usable shape) or valid nil: validated in
// full.
func (w *Wire) CheckShaped(valid *ValidShapes, shape uint64, t Target, raw []byte) ([]Violation, error) {
	if shape == 0 || valid == nil {
		return w.Check(t, raw)
	}
	key := shapeKey(shape, string(w.Revision), t.Definition, t.Member)
	if valid.has(key) {
		return nil, nil
	}
	vs, err := w.Check(t, raw)
	if err == nil && len(vs) == 0 {
		valid.add(key)
	}
	return vs, err
}
