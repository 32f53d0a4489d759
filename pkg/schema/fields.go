package schema

import (
	"strconv"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// LaterField is a member a message carries that the revision governing it does not
// define, while a later revision's definition of the same message does, at the same
// place. The list of such fields is derived from the schemas: nothing is kept by hand.
type LaterField struct {
	// Pointer is the member's JSON pointer in the message: /result/tools/0/outputSchema.
	Pointer string
	// Pattern is the pointer with array indexes replaced by "*" (one entry per place,
	// however many items carry it): /result/tools/*/outputSchema.
	Pattern string
	// Since is the first later revision whose schema defines it there.
	Since spec.Revision
	// Value is set when what the revision lacks is not a member but a kind of value:
	// the discriminating value (raw JSON) of a variant a later revision added, such
	// as "audio" at /result/content/0/type before 2025-03-26.
	Value string
}

// Message describes a message for LaterFields.
type Message struct {
	// Kind selects how the message's definition is found: a request, a
	// notification, a result or an error (frame.Kind; another kind has none).
	Kind frame.Kind
	// Method is the request's or notification's method; for a result, the method of
	// the request it answers.
	Method string
	// Sender sent the message (a result: the side that sent the request); 0 = unknown.
	Sender spec.Side
	// Value is the whole message as the frame reader's scan read it
	// (frame.Frame.Node): LaterFields walks its tokens. When it is the zero Node,
	// LaterFields parses Raw (frame.Parse) instead.
	Value frame.Node
	// Raw is the whole message.
	Raw []byte
}

// node is the message's value: Value, or Raw parsed (the zero Node when Raw is not
// JSON).
func (m Message) node() frame.Node {
	if m.Value.Exists() {
		return m.Value
	}
	n, _ := frame.Parse(m.Raw)
	return n
}

// LaterFields lists the members of a message that rev does not define and a later
// revision does. A message of a method rev does not define yields nothing (that is
// a method, not a field, out of its revision).
func LaterFields(rev spec.Revision, m Message) []LaterField {
	gov, err := DocFor(rev)
	if err != nil {
		return nil
	}
	root := m.node() // aliases the message: what a LaterField keeps is cloned
	prefix := ""
	if m.Kind == frame.KindResult {
		root, _ = root.Get("result") // the first member of the name, as gjson's
		prefix = "/result"
		if !root.IsObject() {
			return nil
		}
	}
	start := gov.startSchemas(m, root)
	if len(start) == 0 {
		return nil
	}
	var later []view
	for _, r := range spec.Revisions() {
		if !rev.Before(r) {
			continue
		}
		d, err := DocFor(r)
		if err != nil {
			continue
		}
		if s := d.startSchemas(m, root); len(s) > 0 {
			later = append(later, view{doc: d, schemas: s})
		}
	}
	if len(later) == 0 {
		return nil
	}
	w := fieldWalk{}
	w.walk(view{doc: gov, schemas: start}, later, root, prefix, prefix, 0)
	return w.found
}

// view is a set of schemas of one revision that apply to one value together.
type view struct {
	doc     *Doc
	schemas []map[string]any
	// unfit: no branch of some anyOf/oneOf fitted the value (a variant this
	// revision does not define).
	unfit bool
}

// startSchemas are the definitions that apply to a message (its result member for
// a result): the method's definition and, for whole messages, the JSON-RPC envelope
// definition (up to 2025-06-18 a method's definition leaves jsonrpc and id to it).
func (d *Doc) startSchemas(m Message, value frame.Node) []map[string]any {
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
		task, _ := value.Get("task")
		t, ok = d.Result(m.Method, m.Sender, task.IsObject())
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
	out := d.expand(def, value, nil, nil, 0)
	for _, name := range envelope {
		if env := d.Definition(name); env != nil {
			out = d.expand(env, value, out, nil, 0)
		}
	}
	return out
}

// expand resolves a schema for a value: $ref followed, allOf merged, anyOf/oneOf
// narrowed to the branches the value can belong to (by their const members), all of
// it flattened to the schemas that apply. unfit (when not nil) is set when no branch
// of some anyOf/oneOf fits the value: every branch is then kept.
func (d *Doc) expand(schema map[string]any, value frame.Node, out []map[string]any, unfit *bool, depth int) []map[string]any {
	if schema == nil || depth > 32 {
		return out
	}
	if name := d.refName(schema); name != "" {
		return d.expand(d.Definition(name), value, out, unfit, depth+1)
	}
	out = append(out, schema)
	if all, ok := schema["allOf"].([]any); ok {
		for _, b := range all {
			sub, _ := b.(map[string]any)
			out = d.expand(sub, value, out, unfit, depth+1)
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
			if sub != nil && d.fits(sub, value) {
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
			out = d.expand(sub, value, out, unfit, depth+1)
		}
	}
	return out
}

// fits reports whether a branch can describe the value: its declared type allows
// the value's JSON type, and every member it pins with a const has that value.
func (d *Doc) fits(branch map[string]any, value frame.Node) bool {
	if t, ok := branch["type"].(string); ok && !typeFits(t, value) {
		return false
	}
	props, _ := branch["properties"].(map[string]any)
	for name, p := range props {
		c, ok := asMap(p)["const"]
		if !ok {
			continue
		}
		got, ok := value.Get(name)
		if !ok {
			continue
		}
		if want, ok := c.(string); ok && !got.EqualString(want) {
			return false
		}
	}
	return true
}

// typeFits reports whether a value has a JSON Schema type, as far as the branch
// narrowing asks: "integer" admits any number, as "number" does.
func typeFits(t string, v frame.Node) bool {
	switch t {
	case "object":
		return v.Kind() == '{'
	case "array":
		return v.Kind() == '['
	case "string":
		return v.Kind() == '"'
	case "number", "integer":
		return v.Kind() == '0'
	case "boolean":
		return v.Kind() == 't' || v.Kind() == 'f'
	case "null":
		return v.Kind() == 'n'
	}
	return true
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// maxFieldDepth bounds how deep the walk goes into a message.
const maxFieldDepth = 24

type fieldWalk struct {
	found []LaterField
}

func (w *fieldWalk) walk(gov view, later []view, value frame.Node, ptr, pattern string, depth int) {
	if depth > maxFieldDepth {
		return
	}
	switch value.Kind() {
	case '{':
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
		value.Members(func(name string, v frame.Node) bool {
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
			var laterChildren []view
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
	case '[':
		govItems := gov.items()
		if len(govItems.schemas) == 0 {
			return
		}
		laterItems := make([]view, 0, len(later))
		for _, l := range later {
			if it := l.items(); len(it.schemas) > 0 {
				laterItems = append(laterItems, it)
			}
		}
		if len(laterItems) == 0 {
			return
		}
		value.Elements(func(i int, v frame.Node) bool {
			w.walk(govItems.narrow(v), narrowAll(laterItems, v), v, ptr+"/"+strconv.Itoa(i), pattern+"/*", depth+1)
			return true
		})
	}
}

// hasProperties reports whether any schema of the view lists its members.
func (v view) hasProperties() bool {
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
func (v view) admitsUnnamed() bool {
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
func (v view) defines(name string) bool {
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
func (v view) child(name string, value frame.Node) view {
	out := view{doc: v.doc}
	for _, s := range v.schemas {
		props, _ := s["properties"].(map[string]any)
		if sub := asMap(props[name]); sub != nil {
			out.schemas = v.doc.expand(sub, value, out.schemas, &out.unfit, 0)
		}
	}
	return out
}

// items is the view of an array's items (not yet narrowed to one item).
func (v view) items() view {
	out := view{doc: v.doc}
	for _, s := range v.schemas {
		if sub := asMap(s["items"]); sub != nil {
			out.schemas = append(out.schemas, sub)
		}
	}
	return out
}

// narrow expands the item schemas for one item.
func (v view) narrow(item frame.Node) view {
	out := view{doc: v.doc}
	for _, s := range v.schemas {
		out.schemas = v.doc.expand(s, item, out.schemas, &out.unfit, 0)
	}
	return out
}

// discriminator finds the member of an object value that a fitting schema of the
// view pins with a const equal to the value's (the "type": "audio" of a variant).
func (v view) discriminator(value frame.Node) (string, string, bool) {
	for _, s := range v.schemas {
		props, _ := s["properties"].(map[string]any)
		for name, p := range props {
			c, ok := asMap(p)["const"].(string)
			if !ok {
				continue
			}
			if got, _ := value.Get(name); got.EqualString(c) {
				return name, string(got.Raw()), true // the value as written, escapes and all
			}
		}
	}
	return "", "", false
}

func narrowAll(views []view, item frame.Node) []view {
	out := make([]view, len(views))
	for i, v := range views {
		out[i] = v.narrow(item)
	}
	return out
}

// FieldList renders later fields for a message: "/result/ttlMs (from 2026-07-28), ...".
func FieldList(fields []LaterField, max int) string {
	parts := make([]string, 0, len(fields))
	for i, f := range fields {
		if i == max {
			parts = append(parts, "and "+strconv.Itoa(len(fields)-max)+" more")
			break
		}
		if f.Value != "" {
			parts = append(parts, f.Pointer+" "+f.Value+" (defined from "+string(f.Since)+")")
			continue
		}
		parts = append(parts, f.Pointer+" (defined from "+string(f.Since)+")")
	}
	return strings.Join(parts, ", ")
}
