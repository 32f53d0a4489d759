package schema

import (
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
)

// Violation is one way a value breaks a schema, in the terms client validators
// (Ajv, used by the TypeScript SDK) print: instancePath, keyword, message, data.
type Violation struct {
	// Pointer is the JSON pointer of the offending value ("" for the value itself).
	Pointer string
	// Keyword is the schema keyword that failed: "type", "required", "format", ...
	Keyword string
	// Message says what the keyword requires, Ajv style: `must match format "date"`.
	Message string
	// Value is the offending value as compact JSON, shortened to MaxValue bytes.
	Value string
}

// MaxValue bounds the offending value quoted in a violation.
const MaxValue = 80

// Absent is a violation's Value when the offending value does not exist (a
// missing member): no captured value.
const Absent = "(absent)"

// ClientStyle renders the violation on one line the way a client validator logs it:
// `instancePath: /since  keyword: format  message: must match format "date"  data: "last month"`.
func (v Violation) ClientStyle() string {
	return "instancePath: " + v.Pointer + "  keyword: " + v.Keyword + "  message: " + v.Message + "  data: " + v.Value
}

// ClientLines renders the violation as the four lines of a client log.
func (v Violation) ClientLines() []string {
	return []string{"instancePath: " + v.Pointer, "keyword: " + v.Keyword, "message: " + v.Message, "data: " + v.Value}
}

// validate checks raw JSON against a compiled schema. Violations are sorted by
// pointer; prefix is prepended to every pointer (the place of raw in a message).
func validate(s *jsonschema.Schema, raw []byte, prefix string) ([]Violation, error) {
	return validateNode(s, raw, frame.Node{}, prefix)
}

// validateNode is validate with raw's Node when the caller has it (a value of a
// frame, whose scan recorded its tokens): the values violations quote are read
// through it. With the zero Node, raw is parsed once a violation needs its values.
func validateNode(s *jsonschema.Schema, raw []byte, root frame.Node, prefix string) (vs []Violation, err error) {
	// The validator is a library: whatever a capture makes it do (a number it cannot
	// compare, such as 1e1000001 against a minimum), it must not end the report. The
	// value is then not judged, and the rule says so.
	defer func() {
		if r := recover(); r != nil {
			vs, err = nil, fmt.Errorf("the validator failed on this value (%v): it could not be compared", r)
		}
	}()
	inst, duplicates, err := decode(raw)
	if err != nil {
		return nil, err
	}
	err = s.Validate(inst)
	if err == nil && !duplicates {
		return nil, nil
	}
	var leaves []*jsonschema.ValidationError
	if err != nil {
		verr, ok := err.(*jsonschema.ValidationError)
		if !ok {
			return nil, err
		}
		collect(verr, &leaves)
	}
	if !root.Exists() {
		// raw decoded: it parses (a text the decoder refuses never gets here). The
		// Node aliases raw: what a Violation keeps is copied (shortValue, and names
		// quoted).
		root, _ = frame.Parse(raw)
	}
	out := make([]Violation, 0, len(leaves))
	if duplicates {
		out = duplicateMembers(root, prefix, out)
	}
	seen := map[string]bool{}
	for _, leaf := range leaves {
		for _, v := range describe(leaf, root) {
			v.Pointer = prefix + v.Pointer
			key := v.Pointer + "\x00" + v.Keyword + "\x00" + v.Message
			if !seen[key] {
				seen[key] = true
				out = append(out, v)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pointer < out[j].Pointer })
	return out, nil
}

// collect gathers the errors worth reporting: the leaves of the error tree. A
// failed anyOf/oneOf is resolved to the one branch the value was evidently meant to
// match (its discriminating const, enum or type agrees), else reported itself.
func collect(e *jsonschema.ValidationError, out *[]*jsonschema.ValidationError) {
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				collect(c, out)
			}
			return
		}
	case *kind.AnyOf:
		if b := intendedBranch(e); b != nil {
			collect(b, out)
			return
		}
	case *kind.OneOf:
		if k.Subschemas == nil {
			if b := intendedBranch(e); b != nil {
				collect(b, out)
				return
			}
		}
	}
	*out = append(*out, e)
}

// intendedBranch picks, among the failed branches of an anyOf/oneOf, the single one
// the value was evidently meant to match, in three tiers: no discriminator failed
// (no const, enum or type failure at the value itself, no const/enum failure at one
// of its members such as a "type": "text" tag) and no required member is missing;
// else no discriminator failed; else the value at least has the branch's type (an
// enum failed, not the type). nil when no tier singles one out.
func intendedBranch(e *jsonschema.ValidationError) *jsonschema.ValidationError {
	depth := len(e.InstanceLocation)
	var clean, plausible, typed []*jsonschema.ValidationError
	for _, branch := range e.Causes {
		var leaves []*jsonschema.ValidationError
		collect(branch, &leaves)
		miss, missRequired, wrongType := false, false, false
		for _, l := range leaves {
			at := len(l.InstanceLocation) - depth
			switch l.ErrorKind.(type) {
			case *kind.Const, *kind.Enum:
				miss = miss || at <= 1
			case *kind.Type:
				miss = miss || at == 0
				wrongType = wrongType || at == 0
			case *kind.Required:
				missRequired = missRequired || at == 0
			case *kind.AnyOf, *kind.OneOf:
				miss = miss || at == 0
			}
		}
		if !miss {
			plausible = append(plausible, branch)
			if !missRequired {
				clean = append(clean, branch)
			}
		}
		if !wrongType {
			typed = append(typed, branch)
		}
	}
	for _, tier := range [][]*jsonschema.ValidationError{clean, plausible, typed} {
		if len(tier) == 1 {
			return tier[0]
		}
		if len(tier) > 1 {
			return nil
		}
	}
	return nil
}

// describe turns one leaf error into violations (one per missing or additional
// property, as Ajv reports them).
func describe(e *jsonschema.ValidationError, root frame.Node) []Violation {
	ptr := pointer(e.InstanceLocation)
	value := shortValue(valueAt(root, e.InstanceLocation))
	one := func(keyword, message string) []Violation {
		return []Violation{{Pointer: ptr, Keyword: keyword, Message: message, Value: value}}
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Type:
		return one("type", "must be "+strings.Join(k.Want, ","))
	case *kind.Required:
		out := make([]Violation, 0, len(k.Missing))
		for _, m := range k.Missing {
			out = append(out, Violation{Pointer: ptr, Keyword: "required", Message: "must have required property '" + m + "'", Value: value})
		}
		return out
	case *kind.AdditionalProperties:
		out := make([]Violation, 0, len(k.Properties))
		for _, p := range k.Properties {
			out = append(out, Violation{Pointer: ptr, Keyword: "additionalProperties", Message: "must NOT have additional properties (additionalProperty: " + quote.String(p, MaxValue) + ")", Value: value})
		}
		return out
	case *kind.Format:
		return one("format", "must match format "+strconv.Quote(k.Want))
	case *kind.Enum:
		return one("enum", "must be equal to one of the allowed values ("+allowed(k.Want)+")")
	case *kind.Const:
		return one("const", "must be equal to constant ("+shortValue(jsonText(k.Want))+")")
	case *kind.Pattern:
		return one("pattern", "must match pattern "+strconv.Quote(k.Want))
	case *kind.MinLength:
		return one("minLength", fmt.Sprintf("must NOT have fewer than %d characters", k.Want))
	case *kind.MaxLength:
		return one("maxLength", fmt.Sprintf("must NOT have more than %d characters", k.Want))
	case *kind.Minimum:
		return one("minimum", "must be >= "+ratText(k.Want))
	case *kind.Maximum:
		return one("maximum", "must be <= "+ratText(k.Want))
	case *kind.ExclusiveMinimum:
		return one("exclusiveMinimum", "must be > "+ratText(k.Want))
	case *kind.ExclusiveMaximum:
		return one("exclusiveMaximum", "must be < "+ratText(k.Want))
	case *kind.MultipleOf:
		return one("multipleOf", "must be multiple of "+ratText(k.Want))
	case *kind.MinItems:
		return one("minItems", fmt.Sprintf("must NOT have fewer than %d items", k.Want))
	case *kind.MaxItems:
		return one("maxItems", fmt.Sprintf("must NOT have more than %d items", k.Want))
	case *kind.AdditionalItems:
		return one("additionalItems", fmt.Sprintf("must NOT have %d more items", k.Count))
	case *kind.UniqueItems:
		return one("uniqueItems", fmt.Sprintf("must NOT have duplicate items (items ## %d and %d are identical)", k.Duplicates[1], k.Duplicates[0]))
	case *kind.MinProperties:
		return one("minProperties", fmt.Sprintf("must NOT have fewer than %d properties", k.Want))
	case *kind.MaxProperties:
		return one("maxProperties", fmt.Sprintf("must NOT have more than %d properties", k.Want))
	case *kind.DependentRequired:
		return one("dependentRequired", fmt.Sprintf("must have property %s when property %s is present", strings.Join(quoteAll(k.Missing), ", "), strconv.Quote(k.Prop)))
	case *kind.Dependency:
		return one("dependencies", fmt.Sprintf("must have property %s when property %s is present", strings.Join(quoteAll(k.Missing), ", "), strconv.Quote(k.Prop)))
	case *kind.PropertyNames:
		return one("propertyNames", "property name "+quote.String(k.Property, MaxValue)+" is invalid")
	case *kind.Contains, *kind.MinContains:
		return one("contains", "must contain at least 1 valid item(s)")
	case *kind.MaxContains:
		return one("maxContains", fmt.Sprintf("must contain at most %d valid item(s)", k.Want))
	case *kind.AnyOf:
		return one("anyOf", "must match a schema in anyOf")
	case *kind.OneOf:
		return one("oneOf", "must match exactly one schema in oneOf")
	case *kind.Not:
		return one("not", "must NOT be valid")
	case *kind.FalseSchema:
		return one("false schema", "boolean schema is false")
	}
	kw := e.ErrorKind.KeywordPath()
	keyword := "schema"
	if len(kw) > 0 {
		keyword = kw[0]
	}
	return one(keyword, e.Error())
}

// pointer renders instance location tokens as a JSON pointer (RFC 6901).
func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escapeToken(t))
	}
	return b.String()
}

// valueAt finds the raw value at an instance location: in an object that repeats
// a member name, the last one, which is the one decode kept and the validator saw;
// in an array, the element of that index (a location's tokens are what the
// validator met: the index of an array's element is written in decimal digits).
// "" when there is no such value. The text aliases root's.
func valueAt(root frame.Node, tokens []string) string {
	v := root
	for _, t := range tokens {
		switch {
		case v.IsObject():
			v = lastMember(v, t)
		case v.IsArray():
			v = elementAt(v, t)
		default:
			return ""
		}
		if !v.Exists() {
			return ""
		}
	}
	return viewString(v.Raw())
}

// lastMember is the value of the last member of an object with this name.
func lastMember(obj frame.Node, name string) frame.Node {
	var last frame.Node
	for k, v := range obj.Members {
		if k == name {
			last = v
		}
	}
	return last
}

// elementAt is the element of an array at the index a token writes in decimal
// digits (gjson's reading of such a token, which valueAt followed before): the
// zero Node for any other token or an index past the end.
func elementAt(arr frame.Node, token string) frame.Node {
	if token == "" {
		return frame.Node{}
	}
	for i := 0; i < len(token); i++ {
		if token[i] < '0' || token[i] > '9' {
			return frame.Node{}
		}
	}
	i, err := strconv.ParseUint(token, 10, 31)
	if err != nil {
		return frame.Node{}
	}
	v, _ := arr.Index(int(i))
	return v
}

// DuplicateKeyword is the Keyword of a violation that reports a member name an
// object holds more than once. No schema keyword says it, but the message is
// ambiguous: RFC 8259 leaves the outcome to each parser, and they disagree (most
// keep the last value, which is what was validated; some keep the first, strict
// ones reject the message).
const DuplicateKeyword = "duplicate member"

// duplicateMembers appends a violation for each member name repeated in an object
// of v (at any depth, below the values that were validated: the last of each name),
// quoting the value that was validated.
func duplicateMembers(v frame.Node, ptr string, out []Violation) []Violation {
	switch {
	case v.IsObject():
		type use struct {
			n    int
			last frame.Node
		}
		var names []string
		uses := map[string]*use{}
		for k, val := range v.Members {
			u := uses[k]
			if u == nil {
				u = &use{}
				uses[k] = u
				names = append(names, k)
			}
			u.n++
			u.last = val
		}
		for _, name := range names {
			u := uses[name]
			at := ptr + "/" + escapeToken(name)
			if u.n > 1 {
				out = append(out, Violation{Pointer: at, Keyword: DuplicateKeyword,
					Message: fmt.Sprintf("%s appears %d times in one object: parsers disagree on which one counts (the last was checked)", quote.String(name, MaxValue), u.n),
					Value:   shortValue(viewString(u.last.Raw()))})
			}
			out = duplicateMembers(u.last, at, out)
		}
	case v.IsArray():
		for i, val := range v.Elements {
			out = duplicateMembers(val, ptr+"/"+strconv.Itoa(i), out)
		}
	}
	return out
}

// shortValue quotes a value for a violation: a copy, since the value validated may
// alias a buffer that is reused once validation returns (a frame's bytes).
func shortValue(raw string) string {
	if raw == "" {
		return Absent
	}
	return strings.Clone(quote.JSON(raw, MaxValue))
}

func allowed(values []any) string {
	parts := make([]string, 0, len(values))
	for _, v := range values {
		parts = append(parts, jsonText(v))
	}
	return quote.JSON(strings.Join(parts, ", "), MaxValue)
}

// jsonText renders a schema value (const, enum member) as JSON text.
func jsonText(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case nil:
		return "null"
	case []any, map[string]any:
		b, err := json.Marshal(v)
		if err != nil {
			return "(a JSON value)"
		}
		return string(b)
	}
	return fmt.Sprint(v)
}

func ratText(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}
