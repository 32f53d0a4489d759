package rules

import (
	"bytes"
	"hash/maphash"
	"regexp"
	"strings"
	"sync"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
)

// StrictFieldWithoutHint reports an input field constrained by format, pattern or
// enum whose description gives the model no example or format hint.
var StrictFieldWithoutHint = &rule.Rule{
	ID:       "MCP4005",
	Name:     "strict-field-without-hint",
	Severity: rule.SeverityInfo,
	Title:    "A field constrained by format, pattern or enum whose description gives no example or format hint",
	Anchor:   "the tools/list result that publishes the schema",
	Hint:     "say the expected format in the field's description and give an example (\"ISO date, e.g. 2025-06-01\"): the description is the only instruction the model gets, and strict clients reject what it guesses",
	Doc: rule.Doc{
		Sees: "Each field of a published inputSchema (nested objects and array items included) that carries a format, a pattern or an enum, and whose description is missing or gives no hint: no example value that satisfies the constraint, no mention of the format (\"ISO 8601\", \"YYYY-MM-DD\", the format's name), no \"e.g.\" or \"for example\", and for an enum none of its values. Reported once per session and field.",
		Why:  "The model fills the arguments from the tool's and the fields' descriptions. A field typed format: date with the description \"Start of the period\" gets \"last month\" as often as \"2025-06-01\", and a strict client then refuses the call before it is sent: the user is told the filter was invalid and the server's log is empty. The stricter the schema, the more the description has to carry.",
		Fix:  "Describe the expected value concretely in the field's description, with an example that satisfies the constraint: \"ISO date (YYYY-MM-DD), e.g. 2025-06-01\", \"Invoice number like INV-0042\", \"one of: open, paid, void\". Mention the format in the tool's description too when the field matters.",
		Bad:  `s->c {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"search_invoices","inputSchema":{"type":"object","properties":{"since":{"type":"string","format":"date","description":"Start of the period"}}}}]}}`,
		Good: `s->c {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"search_invoices","inputSchema":{"type":"object","properties":{"since":{"type":"string","format":"date","description":"Start of the period, ISO date, e.g. 2025-06-01"}}}}]}}`,
		Spec: []rule.SpecRef{
			{Revision: "2025-06-18", Page: "server/tools#tool", Says: "A tool definition has a description (a human-readable description of its functionality) and an inputSchema (a JSON Schema defining the expected parameters): both are what the language model is given to call the tool."},
			{Revision: "2025-11-25", Page: "basic#json-schema-usage", Says: "Input schemas are JSON Schema 2020-12 by default, where format, pattern and enum constrain a string beyond its type."},
		},
	},
	Kinds:    rule.KindsOf(frame.KindResult),
	Requires: []*rule.Analysis{Lists},
	Shared:   func() any { return &unhintedFields{seed: maphash.MakeSeed(), verdicts: map[uint64]unhinted{}} },
	New:      func() rule.Checker { return &hintWatch{} },
	// The methods it looks at (the engine asks it about no other message).
	Methods: []string{"tools/list"},
}

type hintWatch struct {
	once seenOnce // tool, field and field schema already judged
}

func (w *hintWatch) End(*rule.Pass) {}

// Recycle forgets the session, keeping the memory of its table (rule.Recycler).
func (w *hintWatch) Recycle() { w.once.reset() }

// maxHintFields bounds the fields examined in one schema.
const maxHintFields = 512

func (w *hintWatch) Message(p *rule.Pass, m *session.Message) {
	listing := toolsListing(p, m)
	if listing == nil {
		return
	}
	known := p.Shared().(*unhintedFields)
	for _, item := range listing.Items {
		name := item.Name
		for _, f := range known.fieldsOf(get(item.Value, "inputSchema")) {
			if !w.once.first(name, f.pointer, f.raw) {
				continue
			}
			desc := rule.Text("it has no description")
			if f.description != "" {
				desc = rule.Sprintf("its description is %s", rule.Quote(rule.ValueDefinition, f.description))
			}
			p.Report(rule.At(m), rule.Sprintf("tools/list result (line %d): tool %s, field %s is constrained by %s but %s, with no example or format hint: the model has no instruction and strict clients reject the values it guesses",
				m.Line, rule.Quote(rule.ValueName, name), rule.As(rule.ValueName, f.pointer), f.constraint(), desc))
		}
	}
}

// unhintedFields are, for the whole run, the strict fields without a hint of
// each inputSchema, by its bytes: a server publishes the same tools in every
// session, and the walk and the tests of the descriptions are made once per
// schema, not once per session. Safe for concurrent use; what it keeps are copies,
// never a frame's bytes. Bounded by the bytes of the schemas it keeps.
type unhintedFields struct {
	mu       sync.Mutex
	seed     maphash.Seed
	verdicts map[uint64]unhinted
	bytes    int
}

// unhinted is one schema's verdict: its bytes (a hash is not trusted alone) and
// its fields without a hint (nil: none).
type unhinted struct {
	schema []byte
	fields []strictField
}

// maxUnhintedBytes bounds the schema bytes unhintedFields keeps.
const maxUnhintedBytes = 8 << 20

// fieldsOf returns the strict fields of an inputSchema that carry no hint.
func (u *unhintedFields) fieldsOf(inputSchema frame.Node) []strictField {
	raw := inputSchema.Raw()
	if len(raw) == 0 {
		return nil
	}
	key := maphash.Bytes(u.seed, raw)
	u.mu.Lock()
	v, ok := u.verdicts[key]
	u.mu.Unlock()
	if ok && bytes.Equal(v.schema, raw) {
		return v.fields
	}
	var all []strictField
	collectStrictFields(inputSchema, "", &all, 0)
	v = unhinted{schema: bytes.Clone(raw)}
	for _, f := range all {
		if !hasHint(f) {
			v.fields = append(v.fields, f.copied())
		}
	}
	u.mu.Lock()
	if u.bytes+len(raw) > maxUnhintedBytes {
		clear(u.verdicts)
		u.bytes = 0
	}
	u.verdicts[key] = v
	u.bytes += len(raw)
	u.mu.Unlock()
	return v.fields
}

// strictField is a field whose schema constrains its value beyond its type.
type strictField struct {
	pointer     string // in the arguments: /since, /filters/status, /ids/*
	format      string
	hasFormat   bool
	pattern     string
	hasPattern  bool
	enum        []string
	enumJSON    string // the enum as published ("" when there is none)
	description string
	raw         string // aliases the frame until copied
}

// constraint says what constrains the field: `format "date"`, `pattern "^INV-"`,
// `enum ["open","paid"]`, joined by "and".
func (f strictField) constraint() rule.Message {
	var parts []rule.Message
	if f.hasFormat {
		parts = append(parts, rule.Sprintf("format %s", rule.Quote(rule.ValueDefinition, f.format)))
	}
	if f.hasPattern {
		parts = append(parts, rule.Sprintf("pattern %s", rule.Quote(rule.ValueDefinition, f.pattern)))
	}
	if f.enumJSON != "" {
		parts = append(parts, rule.Sprintf("enum %s", rule.QuoteJSON(rule.ValueDefinition, f.enumJSON)))
	}
	return rule.Join(parts, " and ")
}

// copied is the field with its own copies of every string (it outlives the frame).
func (f strictField) copied() strictField {
	c := strictField{pointer: strings.Clone(f.pointer), format: strings.Clone(f.format), hasFormat: f.hasFormat,
		pattern: strings.Clone(f.pattern), hasPattern: f.hasPattern, enumJSON: strings.Clone(f.enumJSON),
		description: strings.Clone(f.description), raw: strings.Clone(f.raw)}
	for _, e := range f.enum {
		c.enum = append(c.enum, strings.Clone(e))
	}
	return c
}

// collectStrictFields walks an object schema's properties (and array items) for
// fields with a format, pattern or enum. A properties that is not an object is
// read as gjson read it: an array's elements are fields named by their index, another
// value one field of no name.
func collectStrictFields(s frame.Node, ptr string, out *[]strictField, depth int) {
	if !s.IsObject() || depth > 16 || len(*out) >= maxHintFields {
		return
	}
	eachKeyed(get(s, "properties"), func(k string, field frame.Node) bool {
		fieldPtr := ptr + "/" + k
		if f, ok := strictOf(field, fieldPtr); ok {
			*out = append(*out, f)
		}
		collectStrictFields(field, fieldPtr, out, depth+1)
		if items := get(field, "items"); items.IsObject() {
			if f, ok := strictOf(items, fieldPtr+"/*"); ok {
				if f.description == "" {
					f.description = get(field, "description").Text()
				}
				*out = append(*out, f)
			}
			collectStrictFields(items, fieldPtr+"/*", out, depth+1)
		}
		return true
	})
}

func strictOf(field frame.Node, ptr string) (strictField, bool) {
	f := strictField{pointer: ptr, description: strings.TrimSpace(get(field, "description").Text()), raw: rawText(field)}
	f.format, f.hasFormat = get(field, "format").Str()
	f.pattern, f.hasPattern = get(field, "pattern").Str()
	if v := get(field, "enum"); v.IsArray() {
		for _, e := range v.Elements {
			f.enum = append(f.enum, e.Text())
		}
		f.enumJSON = rawText(v)
	}
	return f, f.hasFormat || f.hasPattern || f.enumJSON != ""
}

// hintWords say "here is how the value looks" in a description.
var hintWords = []string{"e.g", "eg.", "for example", "example", "such as", "format", "iso", "rfc", "yyyy", "mm-dd", "hh:mm", "like ", "one of"}

// formatSamples recognise an example value of a format inside a description.
var formatSamples = map[string]*regexp.Regexp{
	"date":      regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}\b`),
	"date-time": regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}`),
	"time":      regexp.MustCompile(`\b\d{2}:\d{2}(:\d{2})?`),
	"email":     regexp.MustCompile(`\S+@\S+\.\S+`),
	"uri":       regexp.MustCompile(`[a-z][a-z0-9+.-]*://\S+`),
	"url":       regexp.MustCompile(`[a-z][a-z0-9+.-]*://\S+`),
	"uuid":      regexp.MustCompile(`(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`),
}

// hasHint reports whether a field's description tells the model what to send.
func hasHint(f strictField) bool {
	d := f.description
	if d == "" {
		return false
	}
	lower := strings.ToLower(d)
	for _, w := range hintWords {
		if strings.Contains(lower, w) {
			return true
		}
	}
	if f.format != "" {
		if strings.Contains(lower, strings.ToLower(f.format)) && f.format != "date" {
			return true // "an email address", "a uri": the name is the instruction
		}
		if re := formatSamples[f.format]; re != nil && re.MatchString(d) {
			return true
		}
	}
	if f.pattern != "" {
		if re, err := regexp.Compile(f.pattern); err == nil {
			for _, word := range strings.FieldsFunc(d, func(r rune) bool { return strings.ContainsRune(" \t\n,;()\"'`", r) }) {
				if re.MatchString(strings.TrimRight(word, ".:")) {
					return true
				}
			}
		}
	}
	for _, e := range f.enum {
		if e != "" && strings.Contains(d, e) {
			return true
		}
	}
	return false
}
