package schema

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"regexp"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// Dialect is the JSON Schema draft a published schema is read in.
type Dialect string

const (
	Draft07   Dialect = "draft-07"
	Draft2020 Dialect = "2020-12"
)

// DefaultDialect is the dialect of a published schema without "$schema" under a
// revision: 2020-12 from 2025-11-25 (the revision that made it the default),
// draft-07 before, as the schema.json of those revisions is written in it.
func DefaultDialect(rev spec.Revision) Dialect {
	if rev.Has(spec.FeatureDefaultDialect2020) {
		return Draft2020
	}
	return Draft07
}

// DeclaredDialect names the dialect a schema declares with "$schema" ("" when it
// declares none, the URL itself when it is not draft-07 or 2020-12). A text that
// is not JSON declares none.
func DeclaredDialect(raw []byte) string {
	doc, _ := frame.Parse(raw)
	return declaredDialect(doc)
}

// declaredDialect is DeclaredDialect of a parsed schema: its (first) "$schema"
// member, when it is a string. The name returned is a copy.
func declaredDialect(doc frame.Node) string {
	v, _ := doc.Get("$schema")
	s, ok := v.Str()
	if !ok {
		return ""
	}
	switch strings.TrimSuffix(strings.TrimSuffix(s, "#"), "/") {
	case "http://json-schema.org/draft-07/schema", "https://json-schema.org/draft-07/schema":
		return string(Draft07)
	case "https://json-schema.org/draft/2020-12/schema", "http://json-schema.org/draft/2020-12/schema":
		return string(Draft2020)
	}
	return strings.Clone(s)
}

// Published is a schema a tool published (inputSchema or outputSchema), compiled the
// way a strict client compiles it: the declared "$schema" or the revision's default
// dialect, formats asserted (date, date-time, email, uri, ...), nothing loaded from
// outside (a $ref to another document does not resolve).
type Published struct {
	// Dialect is the dialect the schema was read in (declared or default).
	Dialect string
	// Err says why the schema does not compile (nil when it does): a strict client
	// rejects every call to the tool.
	Err    error
	schema *jsonschema.Schema
	// voc and key let a Memo skip values of a shape that already validated.
	voc *vocabulary
	key string
}

// CompilePublished compiles a published schema. raw is copied; it may alias a frame.
func CompilePublished(raw []byte, rev spec.Revision) *Published {
	// One scan reads the declared dialect and, when the schema breaks the
	// metaschema, the values the problem quotes.
	text, _ := frame.Parse(raw)
	p := &Published{Dialect: declaredDialect(text)}
	def := DefaultDialect(rev)
	if p.Dialect == "" {
		p.Dialect = string(def)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		p.Err = fmt.Errorf("not JSON: %w", err)
		return p
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noRemoteLoader{})
	c.UseRegexpEngine(ecmaRegexp)
	c.AssertFormat()
	if def == Draft2020 {
		c.DefaultDraft(jsonschema.Draft2020)
	} else {
		c.DefaultDraft(jsonschema.Draft7)
	}
	const url = publishedBase + "schema.json"
	if err := c.AddResource(url, doc); err != nil {
		p.Err = err
		return p
	}
	s, err := c.Compile(url)
	if err != nil {
		p.Err = compileProblem(err, text)
		return p
	}
	p.schema = s
	p.voc = vocabularyOf(doc)
	sum := fnv.New128a()
	sum.Write([]byte(p.Dialect))
	sum.Write([]byte{0})
	sum.Write(raw)
	p.key = string(sum.Sum(nil))
	return p
}

// publishedBase is the address a published schema is compiled at: relative
// references resolve under it, and nothing under it is ever loaded.
const publishedBase = "https://mcpsleuth.invalid/published/"

// compileProblem rewrites a compilation error for a reader: a schema that breaks its
// metaschema is described like a validation failure (pointer, keyword, value).
func compileProblem(err error, doc frame.Node) error {
	var sv *jsonschema.SchemaValidationError
	if errors.As(err, &sv) {
		var ve *jsonschema.ValidationError
		if errors.As(sv.Err, &ve) {
			var leaves []*jsonschema.ValidationError
			collect(ve, &leaves)
			var parts []string
			for _, l := range leaves {
				for _, v := range describe(l, doc) {
					ptr := v.Pointer
					if ptr == "" {
						ptr = "(the schema)"
					}
					parts = append(parts, fmt.Sprintf("at %s %s: %s (got %s)", ptr, v.Keyword, v.Message, v.Value))
				}
			}
			if len(parts) > 0 {
				if len(parts) > 3 {
					parts = append(parts[:3], fmt.Sprintf("and %d more", len(parts)-3))
				}
				return errors.New("it breaks the JSON Schema metaschema: " + strings.Join(parts, "; "))
			}
		}
	}
	var load *jsonschema.LoadURLError
	if errors.As(err, &load) {
		ref := strings.TrimPrefix(load.URL, publishedBase)
		member, _ := doc.Get("$schema")
		if declared := member.Text(); declared != "" && strings.TrimSuffix(declared, "#") == strings.TrimSuffix(load.URL, "#") {
			return fmt.Errorf("it declares $schema %q, a dialect clients do not know", declared)
		}
		return fmt.Errorf("it refers to %q, which is not part of the schema (clients do not fetch it)", ref)
	}
	msg := err.Error()
	msg = strings.ReplaceAll(msg, publishedBase, "")
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return errors.New(msg)
}

// Validate checks a value (raw JSON) against the compiled schema, as a client
// validator would. It must not be called on a schema that did not compile. Nothing
// it returns aliases raw, which may be a frame's bytes, reused after the call.
func (p *Published) Validate(raw []byte) ([]Violation, error) {
	if p.schema == nil {
		return nil, fmt.Errorf("schema: the published schema does not compile: %w", p.Err)
	}
	return validate(p.schema, raw, "")
}

// ValidateWith is Validate with a memo of the shapes of values that validated
// before against this schema (see shape.go): they are accepted without validating
// them again. Schemas whose keywords shapes cannot follow are always validated.
func (p *Published) ValidateWith(memo *Memo, raw []byte) ([]Violation, error) {
	if p.schema == nil {
		return p.Validate(raw)
	}
	shape := memo.shapeWith(p.voc, raw, "published", p.key)
	if memo.Known(shape) {
		return nil, nil
	}
	vs, err := p.Validate(raw)
	if err == nil && len(vs) == 0 {
		memo.Remember(shape)
	}
	return vs, err
}

// ValidateNode is Validate of a value the caller has as a Node (a frame's: its
// scan recorded the tokens violations are read through, not scanned again).
func (p *Published) ValidateNode(v frame.Node) ([]Violation, error) {
	if p.schema == nil {
		return nil, fmt.Errorf("schema: the published schema does not compile: %w", p.Err)
	}
	return validateNode(p.schema, v.Raw(), v, "")
}

// ValidateNodeWith is ValidateWith of a value the caller has as a Node.
func (p *Published) ValidateNodeWith(memo *Memo, v frame.Node) ([]Violation, error) {
	if p.schema == nil {
		return p.ValidateNode(v)
	}
	raw := v.Raw()
	shape := memo.shapeWith(p.voc, raw, "published", p.key)
	if memo.Known(shape) {
		return nil, nil
	}
	vs, err := p.ValidateNode(v)
	if err == nil && len(vs) == 0 {
		memo.Remember(shape)
	}
	return vs, err
}

// ecmaRegexp compiles a pattern as clients do: patterns are ECMA-262 regular
// expressions, which Go's RE2 mostly shares. Lookarounds and backreferences are
// ECMA-only: such a pattern compiles in a client and is not asserted here (it
// matches everything) rather than reported as broken. Other patterns RE2 refuses
// are invalid in ECMA-262 too.
func ecmaRegexp(s string) (jsonschema.Regexp, error) {
	re, err := regexp.Compile(s)
	if err == nil {
		return re, nil
	}
	if ecmaOnly.MatchString(s) {
		return unchecked(s), nil
	}
	return nil, err
}

// ecmaOnly finds ECMA-262 syntax RE2 lacks: lookahead, lookbehind, backreference.
var ecmaOnly = regexp.MustCompile(`\(\?<?[=!]|\\[1-9]|\\k<`)

// unchecked is a pattern that cannot be evaluated here: it accepts every string.
type unchecked string

func (u unchecked) String() string          { return string(u) }
func (u unchecked) MatchString(string) bool { return true }
