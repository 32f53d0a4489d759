package schema

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/maphash"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// Shapes: the verdict of validating a frame against an official definition depends
// on the frame's values only through a few properties, because the official schemas
// use few value-sensitive keywords (checked when the vocabulary is built): const and
// enum compare strings with a handful of literals, "format" (uri, uri-template) looks
// at the strings of a few named members, minimum/maximum compare numbers with a few
// bounds, minItems/maxItems compare an array's length with a few bounds, and
// "integer" looks at integrality. Everything else (types, member names, required
// members, anyOf branches) is structure. A frame's shape keeps the structure and
// exactly those properties of the values, and drops the rest: frames of the same
// shape have the same verdict, so a frame whose shape already validated need not be
// validated again. This keeps validation cheap on long captures, where most frames
// repeat a few shapes with different ids, tokens and text.
//
// Arrays: no official schema looks at an element's position (no prefixItems,
// contains or tuple items: checked when the vocabulary is built), so an array's
// verdict is that of the set of its elements' shapes, and of its length's place
// among the item bounds. A shape writes each distinct element shape once (an element
// whose shape an earlier element of the same array already wrote is left out) and
// the length's place: a result of 300 rows of one shape has the shape of a result
// of one row, and shares its verdict.

// vocabulary is what a set of schemas can observe of values.
type vocabulary struct {
	// usable is false when a schema uses a keyword the shape does not preserve
	// (pattern, lengths, uniqueItems, multipleOf, object-valued const/enum, a format
	// outside a named member, a $ref into the middle of a schema): shapes are then
	// not used at all.
	usable   bool
	literals map[string]bool // every string const and enum member
	// longest is the length of the longest literal: longer strings are no literal.
	longest int
	// starts marks, per length, the first bytes literals of that length start
	// with: most strings of a frame are told apart from every literal by these two
	// facts alone, without hashing them.
	starts [][256]bool
	// formatLongest and formatStarts filter member names the same way before
	// formatMembers is asked.
	formatLongest int
	formatStarts  [][256]bool
	// formatMembers are the member names whose schema carries a format, with
	// whether a plain string's verdict is known for every format they carry.
	formatMembers map[string]formatVerdict
	bounds        []float64 // every minimum/maximum/exclusive bound and numeric literal, sorted
	// itemBounds are every minItems and maxItems, sorted: an array's shape keeps its
	// length's place among them.
	itemBounds []int
}

// formatVerdict says whether the formats of a member decide a plain string alike.
type formatVerdict uint8

const (
	plainDecided formatVerdict = iota + 1 // only URI formats (and unknown ones)
	valueDecided                          // some format looks at the value itself
)

// plainFormats are the formats whose verdict on a plain string (see classifyString) is
// the same for every plain string: never an absolute URI, always a valid relative
// reference and URI template.
var plainFormats = map[string]bool{"uri": true, "iri": true, "uri-reference": true, "iri-reference": true, "uri-template": true}

// silentFormats are formats the validator does not know, which assert nothing: a
// member whose only format is one of them (the base64 "byte" of blob and data)
// has no value the schema looks at, so its strings stay out of the shape (a log
// notification's data, text with a colon in it, made every shape unique when
// they were kept).
var silentFormats = map[string]bool{"byte": true}

// The vocabulary of the official schemas, all revisions together, from the table
// generated from them (vocabulary_table.go; TestVocabularyTableIsCurrent rebuilds it
// from the embedded schemas and fails when they drift): reading six schema
// documents to build it took a third of the start-up of a short check.
var shapeVocabulary = sync.OnceValue(func() *vocabulary { return officialVocabulary.vocabulary() })

// vocabularyTable is a vocabulary as data: what vocabulary_table.go holds.
type vocabularyTable struct {
	usable        bool
	literals      []string
	formatMembers map[string]formatVerdict
	bounds        []float64
	itemBounds    []int
}

func (t vocabularyTable) vocabulary() *vocabulary {
	v := newVocabulary()
	v.usable = t.usable
	for _, l := range t.literals {
		v.literals[l] = true
	}
	maps.Copy(v.formatMembers, t.formatMembers)
	v.bounds = slices.Clone(t.bounds)
	v.itemBounds = slices.Clone(t.itemBounds)
	v.finish()
	return v
}

// table is the vocabulary as data, in a stable order.
func (v *vocabulary) table() vocabularyTable {
	t := vocabularyTable{usable: v.usable, formatMembers: maps.Clone(v.formatMembers), bounds: slices.Clone(v.bounds), itemBounds: slices.Clone(v.itemBounds)}
	t.literals = slices.Sorted(maps.Keys(v.literals))
	slices.Sort(t.bounds)
	slices.Sort(t.itemBounds)
	return t
}

func buildVocabulary() *vocabulary {
	v := newVocabulary()
	for _, rev := range spec.Revisions() {
		d, err := DocFor(rev)
		if err != nil {
			v.usable = false
			return v
		}
		for _, def := range d.defs {
			v.scan(def, "")
		}
	}
	v.finish()
	return v
}

func newVocabulary() *vocabulary {
	return &vocabulary{usable: true, literals: map[string]bool{}, formatMembers: map[string]formatVerdict{}}
}

// vocabularyOf builds the vocabulary of one schema document (a published schema).
func vocabularyOf(doc any) *vocabulary {
	v := newVocabulary()
	v.scan(doc, "")
	v.finish()
	return v
}

func (v *vocabulary) finish() {
	slices.Sort(v.bounds)
	slices.Sort(v.itemBounds)
	for l := range v.literals {
		v.longest = max(v.longest, len(l))
	}
	for m := range v.formatMembers {
		v.formatLongest = max(v.formatLongest, len(m))
	}
	v.formatStarts = make([][256]bool, v.formatLongest+1)
	for m := range v.formatMembers {
		if m != "" {
			v.formatStarts[len(m)][m[0]] = true
		}
	}
	v.starts = make([][256]bool, v.longest+1)
	for l := range v.literals {
		if l != "" {
			v.starts[len(l)][l[0]] = true
		}
	}
}

// scan walks one schema. member is the property name the schema is the value of
// ("" when it is not directly a member: a definition, an item, the root...).
func (v *vocabulary) scan(schema any, member string) {
	s, ok := schema.(map[string]any)
	if !ok {
		return // boolean schema
	}
	for kw, val := range s {
		switch kw {
		case "const":
			v.literal(val)
		case "enum":
			list, _ := val.([]any)
			for _, item := range list {
				v.literal(item)
			}
		case "format":
			f, _ := val.(string)
			if silentFormats[f] {
				break
			}
			if member == "" {
				v.usable = false
			}
			verdict := plainDecided
			if !plainFormats[f] {
				verdict = valueDecided
			}
			v.formatMembers[member] = max(v.formatMembers[member], verdict)
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
			v.bound(val)
		case "minItems", "maxItems":
			v.itemBound(val)
		case "$ref":
			// Only whole definitions: a definition is scanned with no member name, so a
			// format in it makes the vocabulary unusable. A reference into a member's
			// schema would apply its format to a member of another name.
			ref, _ := val.(string)
			if ref != "#" && !strings.HasPrefix(ref, "#/$defs/") && !strings.HasPrefix(ref, "#/definitions/") {
				v.usable = false
			} else if rest := strings.TrimPrefix(strings.TrimPrefix(ref, "#/$defs/"), "#/definitions/"); strings.Contains(rest, "/") {
				v.usable = false
			}
		case "prefixItems", "additionalItems", "contains", "minContains", "maxContains":
			// An element's position or a count of matching elements: an array's shape
			// keeps neither (see Arrays above).
			v.usable = false
		case "pattern", "minLength", "maxLength", "uniqueItems", "multipleOf", "contentEncoding", "contentMediaType", "contentSchema",
			"$dynamicRef", "$recursiveRef", "$id", "id", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$vocabulary":
			v.usable = false
		case "properties":
			props, _ := val.(map[string]any)
			for name, sub := range props {
				v.scan(sub, name)
			}
		case "patternProperties", "dependentSchemas", "dependencies", "$defs", "definitions":
			subs, _ := val.(map[string]any)
			for _, sub := range subs {
				v.scan(sub, "")
			}
		case "items":
			if _, tuple := val.([]any); tuple {
				v.usable = false // items as a list: one schema per position
				break
			}
			v.scan(val, "")
		case "additionalProperties", "propertyNames", "not", "if", "then", "else", "unevaluatedProperties", "unevaluatedItems":
			if list, ok := val.([]any); ok {
				for _, sub := range list {
					v.scan(sub, "")
				}
			} else {
				v.scan(val, "")
			}
		case "anyOf", "allOf", "oneOf":
			// A branch of a member's schema applies to the same member.
			list, _ := val.([]any)
			for _, sub := range list {
				v.scan(sub, member)
			}
		}
	}
}

func (v *vocabulary) literal(val any) {
	switch x := val.(type) {
	case string:
		v.literals[x] = true
	case bool, nil:
		// compared exactly: booleans and null are kept in every shape
	case json.Number:
		// A number is kept as its place among the bounds: equality with the literal
		// included.
		v.bound(x)
	default:
		v.usable = false // composite values are not kept
	}
}

// itemBound records a minItems or maxItems.
func (v *vocabulary) itemBound(n any) {
	num, ok := n.(json.Number)
	if !ok {
		v.usable = false
		return
	}
	i, err := num.Int64()
	if err != nil || i < 0 || i > 1<<31 {
		v.usable = false
		return
	}
	if !slices.Contains(v.itemBounds, int(i)) {
		v.itemBounds = append(v.itemBounds, int(i))
	}
}

func (v *vocabulary) bound(n any) {
	num, ok := n.(json.Number)
	if !ok {
		v.usable = false
		return
	}
	f, err := num.Float64()
	if err != nil || len(num) > 15 {
		v.usable = false
		return
	}
	if !slices.Contains(v.bounds, f) {
		v.bounds = append(v.bounds, f)
	}
}

// shapeHash hashes the shape of raw JSON (see above) together with its context
// (revision, definition...); scratch is reused between calls. ok=false when shapes
// cannot be used.
func shapeHash(voc *vocabulary, seed maphash.Seed, scratch *[]byte, uris *uriCache, raw []byte, context ...string) (uint64, bool) {
	if !voc.usable {
		return 0, false
	}
	out := (*scratch)[:0]
	for _, c := range context {
		out = append(out, c...)
		out = append(out, 0)
	}
	s := shaper{voc: voc, buf: raw, out: out}
	if uris != nil {
		s.uris = *uris
		defer func() { *uris = s.uris }()
	}
	s.space()
	ok := s.value(nil, 0)
	*scratch = s.out
	if !ok {
		return 0, false
	}
	return maphash.Bytes(seed, s.out), true
}

// shaper writes the shape of a JSON value as a compact byte string, walking its
// bytes (see below for the encoding, which Shaper.Shape writes from a scan's
// tokens): the shape of values no scan recorded (a schema's memo, a frame the
// reader could not shape) and the reference Shape is tested against.
type shaper struct {
	voc  *vocabulary
	buf  []byte
	pos  int
	out  []byte
	uris uriCache
}

func (s *shaper) space() {
	for s.pos < len(s.buf) {
		switch s.buf[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *shaper) put(c byte) { s.out = append(s.out, c) }

// value hashes one value; member is the name it is the value of (nil otherwise).
func (s *shaper) value(member []byte, depth int) bool {
	if s.pos >= len(s.buf) || depth > maxDepth {
		return false
	}
	switch c := s.buf[s.pos]; {
	case c == '{':
		s.pos++
		s.put('{')
		s.space()
		if s.pos < len(s.buf) && s.buf[s.pos] == '}' {
			s.pos++
			s.put('}')
			return true
		}
		for {
			s.space()
			start := s.pos
			if !s.str() {
				return false
			}
			key := s.buf[start+1 : s.pos-1]
			if bytes.IndexByte(key, '\\') >= 0 {
				return false // an escaped member name could hide a format member
			}
			s.out = appendName(s.out, key)
			s.space()
			if s.pos >= len(s.buf) || s.buf[s.pos] != ':' {
				return false
			}
			s.pos++
			s.space()
			if !s.value(key, depth+1) {
				return false
			}
			s.space()
			if s.pos >= len(s.buf) {
				return false
			}
			s.pos++
			switch s.buf[s.pos-1] {
			case ',':
			case '}':
				s.put('}')
				return true
			default:
				return false
			}
		}
	case c == '[':
		s.pos++
		s.put('[')
		s.space()
		if s.pos < len(s.buf) && s.buf[s.pos] == ']' {
			s.pos++
			s.out = s.voc.appendLength(s.out, 0)
			s.put(']')
			return true
		}
		elements := openArray{next: len(s.out)}
		for {
			s.space()
			if !s.value(nil, depth+1) {
				return false
			}
			s.put(',')
			s.out = elements.element(s.out)
			s.space()
			if s.pos >= len(s.buf) {
				return false
			}
			s.pos++
			switch s.buf[s.pos-1] {
			case ',':
			case ']':
				s.out = s.voc.appendLength(s.out, elements.length)
				s.put(']')
				return true
			default:
				return false
			}
		}
	case c == '"':
		start := s.pos
		if !s.str() {
			return false
		}
		quoted := s.buf[start:s.pos]
		s.out = s.voc.appendString(s.out, quoted, member, bytes.IndexByte(quoted, '\\') >= 0, &s.uris)
		return true
	case c == 't' || c == 'f' || c == 'n':
		start := s.pos
		for s.pos < len(s.buf) && s.buf[s.pos] >= 'a' && s.buf[s.pos] <= 'z' {
			s.pos++
		}
		s.out = append(s.out, s.buf[start:s.pos]...)
		return true
	case c == '-' || (c >= '0' && c <= '9'):
		start := s.pos
		for s.pos < len(s.buf) && strings.IndexByte("+-.eE0123456789", s.buf[s.pos]) >= 0 {
			s.pos++
		}
		s.out = s.voc.appendNumber(s.out, s.buf[start:s.pos])
		return true
	}
	return false
}

// str reads a string, quotes included (escapes left as they are).
func (s *shaper) str() bool {
	if s.pos >= len(s.buf) || s.buf[s.pos] != '"' {
		return false
	}
	s.pos++
	start := s.pos
	for {
		i := bytes.IndexByte(s.buf[s.pos:], '"')
		if i < 0 {
			return false
		}
		end := s.pos + i
		backslashes := 0
		for j := end - 1; j >= start && s.buf[j] == '\\'; j-- {
			backslashes++
		}
		s.pos = end + 1
		if backslashes%2 == 0 {
			return true
		}
	}
}

// openArray merges the repeated element shapes of one array while its shape is
// written: each element's shape that an earlier element of the array already wrote
// is taken back out (see Arrays above). It compares with the first maxDistinct
// distinct element shapes only: an array of more kinds of element keeps the others
// as they come (a longer shape, the same verdict).
type openArray struct {
	next   int // where the next element's shape starts in the shape
	length int // the elements so far
	kept   int // distinct element shapes in distinct
	// distinct are the spans of the distinct element shapes written so far.
	distinct [maxDistinct][2]int32
}

const maxDistinct = 8

// element ends the shape of the array's next element, which out holds from a.next
// on (its ',' included), and returns out without it when an earlier element wrote
// the same shape.
func (a *openArray) element(out []byte) []byte {
	a.length++
	start := a.next
	elem := out[start:]
	for _, d := range a.distinct[:a.kept] {
		if bytes.Equal(out[d[0]:d[1]], elem) {
			return out[:start]
		}
	}
	if a.kept < maxDistinct {
		a.distinct[a.kept] = [2]int32{int32(start), int32(len(out))}
		a.kept++
	}
	a.next = len(out)
	return out
}

// appendLength appends an array's length's place among the item bounds (nothing
// when no schema bounds lengths).
func (v *vocabulary) appendLength(out []byte, n int) []byte {
	if len(v.itemBounds) == 0 {
		return out
	}
	i, eq := slices.BinarySearch(v.itemBounds, n)
	out = append(out, 'L')
	out = binary.AppendUvarint(out, uint64(i))
	if eq {
		return append(out, '=')
	}
	return append(out, '~')
}

// The shape of a value is written token by token, in document order: '{', '}',
// '[' and ']' as they are, each distinct array element followed by ',' (see
// openArray) and the array's length's place before ']' (see appendLength), a member name as
// 'k', the name, 0 (a name with escapes makes the object holding it, and every
// value holding that, unshaped: an escaped name could hide a format member), true,
// false and null as they are, a string by appendString and a number by
// appendNumber. Two walks write it: shaper.value over a value's bytes (Wire, Memo)
// and Shaper.Shape over the tokens a frame reader's scan recorded.

// appendString appends the shape of a string as written (quotes included), the
// value of member (nil: none); escaped says it holds escapes.
func (v *vocabulary) appendString(out, quoted, member []byte, escaped bool, uris *uriCache) []byte {
	switch class, verdicts := v.classifyString(quoted, member, escaped, uris); class {
	case stringKept:
		return append(append(out, '"'), quoted[1:]...)
	case stringURI:
		return append(out, 'u', verdicts)
	}
	return append(out, 's')
}

// plain is a quick classifyString(quoted, member, false) == stringPlain for the
// common string: one no literal can be by its length and first byte, not in a
// format member. false: ask classifyString.
func (v *vocabulary) plain(quoted, member []byte) bool {
	n := len(quoted) - 2
	if n <= 0 || (n <= v.longest && v.starts[n][quoted[1]]) {
		return false
	}
	return len(member) > v.formatLongest || (len(member) > 0 && !v.formatStarts[len(member)][member[0]])
}

// appendName appends the shape of a member name without escapes.
func appendName(out, name []byte) []byte {
	return append(append(append(out, 'k'), name...), 0)
}

// What of a string a shape keeps (classifyString).
const (
	stringPlain = iota // nothing: 's'
	stringKept         // its value as written
	stringURI          // the verdict of every URI format on it (uriVerdicts)
)

// classifyString says what of a string belongs to the shape. A literal some const
// or enum compares with is kept as written, and so is the value of a member whose
// format looks at the value itself (valueDecided). The value of a member whose
// formats are all URI formats (plainDecided) is either plain (with no ':', '%',
// braces, brackets, backslash or control character and not starting with "//", a
// string is never an absolute URI, and always a valid relative reference and URI
// template: every plain string gets the same verdict) or reduced to the verdict
// each URI format gives it, which is all the validator looks at (a capture that
// reads a thousand resources has a thousand URIs and one shape). Any other string
// is plain. A string with escapes is judged by what it decodes to: text with a "\n"
// in it is no literal and stays out of the shape (most frames of a capture carry
// some), while one that decodes to a literal is kept as written. quoted is the
// string as written, quotes included; escaped says whether it holds escapes.
func (v *vocabulary) classifyString(quoted, member []byte, escaped bool, uris *uriCache) (class int, verdicts byte) {
	raw := quoted[1 : len(quoted)-1]
	format := v.formatOf(member)
	if escaped {
		// A decoded string is at most as long as its escaped form and at least a
		// sixth of it (\uXXXX): one that long cannot decode to a literal.
		if format == 0 && len(raw) > 6*v.longest {
			return stringPlain, 0
		}
		if format == valueDecided {
			return stringKept, 0
		}
		// Decoded as the validator's decoder decodes it (U+FFFD for invalid UTF-8
		// and lone surrogates): the verdict is about that value.
		d := decoder{buf: quoted, pos: 1}
		decoded, err := d.escaped(1)
		if err != nil {
			return stringKept, 0
		}
		if v.isLiteral(unsafe.Slice(unsafe.StringData(decoded), len(decoded))) {
			return stringKept, 0
		}
		if format == 0 {
			return stringPlain, 0
		}
		if plainURI(decoded) {
			return stringPlain, 0
		}
		return stringURI, uris.verdicts(decoded)
	}
	if v.isLiteral(raw) {
		return stringKept, 0
	}
	switch format {
	case 0:
		return stringPlain, 0
	case valueDecided:
		return stringKept, 0
	}
	if s := viewString(raw); !plainURI(s) {
		return stringURI, uris.verdicts(s)
	}
	return stringPlain, 0
}

// plainURI reports whether every URI format gives s the verdict it gives every
// such string (see classifyString).
func plainURI(s string) bool {
	if len(s) >= 2 && s[0] == '/' && s[1] == '/' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || strings.IndexByte(`:%{}[]\`, c) >= 0 {
			return false
		}
	}
	return true
}

// uriFormats are the checks of the URI formats plainDecided members carry, in the
// order of uriVerdicts' bits: the validator's own (the Format of a schema of that
// format alone, compiled as the wire and published schemas are), so that a verdict
// by shape is the validator's. Formats the validator checks with one function (uri
// and iri, uri-reference and iri-reference) share their verdict: same is the index
// of the first with the same function.
type uriFormat struct {
	check func(any) error
	same  int
}

var uriFormats = sync.OnceValue(func() []uriFormat {
	names := slices.Sorted(maps.Keys(plainFormats))
	out := make([]uriFormat, len(names))
	for i, name := range names {
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		url := "urn:mcpsleuth:format:" + name
		if err := c.AddResource(url, map[string]any{"format": name}); err != nil {
			panic(err)
		}
		f := c.MustCompile(url).Format
		if f == nil {
			panic("schema: the validator does not know format " + name)
		}
		out[i] = uriFormat{check: f.Validate, same: i}
		for j := range i {
			if reflect.ValueOf(out[j].check).Pointer() == reflect.ValueOf(f.Validate).Pointer() {
				out[i].same = j
				break
			}
		}
	}
	return out
})

// uriCache remembers the verdicts of the URIs a walker met (a capture reads the same
// resources again and again): bounded, it starts again empty when full. A walker
// has its own; nil is an empty one.
type uriCache map[string]byte

const maxCachedURIs = 1024

// verdicts is uriVerdicts(s), remembered.
func (c *uriCache) verdicts(s string) byte {
	if b, ok := (*c)[s]; ok {
		return b
	}
	b := uriVerdicts(s)
	if *c == nil || len(*c) >= maxCachedURIs {
		*c = make(uriCache)
	}
	(*c)[strings.Clone(s)] = b
	return b
}

// uriVerdicts is the verdict of each URI format on s, a bit each (set: valid).
func uriVerdicts(s string) byte {
	var bits byte
	var v any = s
	for i, f := range uriFormats() {
		switch {
		case f.same != i:
			bits |= (bits >> f.same & 1) << i
		case f.check(v) == nil:
			bits |= 1 << i
		}
	}
	return bits
}

// formatOf is formatMembers[member], asked only of names that can be in it.
func (v *vocabulary) formatOf(member []byte) formatVerdict {
	if len(member) > v.formatLongest || (len(member) > 0 && !v.formatStarts[len(member)][member[0]]) {
		return 0
	}
	return v.formatMembers[viewString(member)]
}

// isLiteral reports whether s is one of the vocabulary's string literals.
func (v *vocabulary) isLiteral(s []byte) bool {
	if len(s) > v.longest {
		return false
	}
	if len(s) > 0 && !v.starts[len(s)][s[0]] {
		return false
	}
	return v.literals[viewString(s)]
}

// appendNumber appends a number's class: integral or not, and its place among the
// bounds (how many are below it, and whether it equals the next). Numbers too long
// to classify exactly are kept as they are.
func (v *vocabulary) appendNumber(out, lit []byte) []byte {
	f, isInt := smallInteger(lit)
	var err error
	if !isInt {
		f, err = strconv.ParseFloat(viewString(lit), 64)
	}
	if len(lit) > 15 || err != nil {
		return append(append(out, '#'), lit...)
	}
	if f == math.Trunc(f) {
		out = append(out, 'i')
	} else {
		out = append(out, 'n')
	}
	i, eq := slices.BinarySearch(v.bounds, f)
	out = binary.AppendUvarint(out, uint64(i))
	if eq {
		return append(out, '=')
	}
	return append(out, '~')
}

// smallInteger reads a number literal of at most 15 digits with no fraction or
// exponent (ids, counts), exactly as ParseFloat would; ok=false otherwise.
func smallInteger(lit []byte) (float64, bool) {
	digits, neg := lit, false
	if len(digits) > 0 && digits[0] == '-' {
		digits, neg = digits[1:], true
	}
	if len(digits) == 0 || len(digits) > 15 {
		return 0, false
	}
	var n int64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	f := float64(n) // exact: below 2^53
	if neg {
		f = -f
	}
	return f, true
}

// Memo remembers the shapes of values that validated against a definition, so that
// a value of a known-good shape is not validated again. A memo belongs to one
// user (its scratch space is not safe for concurrent use); the verdicts it keeps
// are a ValidShapes, which may be shared (NewSharedMemo). Bounded: when full, the
// verdicts start again empty.
type Memo struct {
	seed    maphash.Seed
	scratch []byte
	uris    uriCache
	valid   *ValidShapes
}

// NewMemo returns a memo with verdicts of its own, at most max.
func NewMemo(max int) *Memo { return NewSharedMemo(NewValidShapes(max)) }

// NewSharedMemo returns a memo whose verdicts are the run-wide set valid: a shape
// that validated in one session is known in every other session and input of the
// run. Its shapes are hashed with the process's seed, so that every memo of the
// set agrees. A verdict's context (the schema's key: its dialect and bytes) is
// part of the shape, so sessions that published different schemas under one tool
// name never share a verdict.
func NewSharedMemo(valid *ValidShapes) *Memo {
	return &Memo{seed: wireSeed, valid: valid}
}

// Shape is a value's shape in a context, as a memo keys it.
type Shape struct {
	hash uint64
	ok   bool // false: the value has no usable shape, it is never known
}

// Shape computes the shape of raw JSON in a context (the strings name what the
// verdict is about: revision, definition, rule...).
func (m *Memo) Shape(raw []byte, context ...string) Shape {
	return m.shapeWith(shapeVocabulary(), raw, context...)
}

func (m *Memo) shapeWith(voc *vocabulary, raw []byte, context ...string) Shape {
	h, ok := shapeHash(voc, m.seed, &m.scratch, &m.uris, raw, context...)
	return Shape{hash: h, ok: ok}
}

// Known reports whether a value of this shape was remembered.
func (m *Memo) Known(s Shape) bool { return s.ok && m.valid.has(s.hash) }

// Remember records a shape (ignored when it is not usable).
func (m *Memo) Remember(s Shape) {
	if s.ok {
		m.valid.add(s.hash)
	}
}

// wireSeed keys every wire shape of the process: shapes computed by different
// goroutines (the parse stage, several inputs at once) must compare equal. It is set
// once and never changes.
var wireSeed = maphash.MakeSeed()

// Shaper computes wire shapes; it holds scratch space for Wire, so each goroutine
// that calls Wire needs its own (Shape may be called from any). The zero value is
// ready to use. It is what the frame reader shapes messages
// with (frame.Options.Shaper): the reader's validating scan records the tokens of
// each text it reads and Shape shapes a message from them, so a frame's bytes are
// read once, not once to validate it and again to shape it; Wire shapes the frames
// the scan did not, and is the reference Shape is tested against.
type Shaper struct {
	voc  *vocabulary
	out  []byte
	uris uriCache // Wire's
	// scratch holds the memory Shape builds shapes in (a *shapeScratch each): Shape runs
	// on either stage of the pipeline, and a shape is often longer than a buffer on
	// the stack (allocating one a frame made the parse stage 12% slower).
	scratch sync.Pool
}

func (s *Shaper) vocabulary() *vocabulary {
	if s.voc == nil {
		s.voc = shapeVocabulary()
	}
	return s.voc
}

// Wire returns the shape of a whole message (raw JSON) under the vocabulary of every
// revision's official schema: two messages with the same wire shape get the same
// verdict from any official definition, in any revision, for the message or any of
// its members. It is computed once per frame, by the parse stage, and is the key
// under which MCP4001's validation and MCP1010's later fields are shared across
// sessions and inputs. 0 means the message has no usable shape: judge it in full.
func (s *Shaper) Wire(raw []byte) uint64 {
	voc := s.vocabulary()
	if !voc.usable {
		return 0
	}
	sh := shaper{voc: voc, buf: raw, out: s.out[:0], uris: s.uris}
	sh.space()
	ok := sh.value(nil, 0)
	s.out, s.uris = sh.out, sh.uris
	if !ok {
		return 0
	}
	return wireHash(sh.out)
}

// Shape is the wire shape (see Wire) of the value of text whose tokens a frame
// reader's validating scan recorded, from its opening token to its closing one: the
// same shape Wire computes from the value's bytes, without reading them again but
// for the strings, names and numbers the shape looks at.
//
// Unlike Wire, Shape is safe for concurrent use: a frame's shape is computed by
// whichever stage of the pipeline asks for it first (frame.Frame.ShapeNow).
func (s *Shaper) Shape(text []byte, tokens []frame.Token) uint64 {
	voc := shapeVocabulary()
	if !voc.usable {
		return 0
	}
	sc, _ := s.scratch.Get().(*shapeScratch)
	if sc == nil {
		sc = new(shapeScratch)
	}
	h, ok := sc.shape(voc, text, tokens)
	s.scratch.Put(sc)
	if !ok {
		return 0
	}
	return h
}

// shapeScratch is the memory Shaper.Shape builds a shape in: the shape's bytes and
// the open arrays around the value being read.
type shapeScratch struct {
	out    []byte
	arrays []openArray
	uris   uriCache
}

// shape is Shape's walk over the tokens.
func (sc *shapeScratch) shape(voc *vocabulary, text []byte, tokens []frame.Token) (uint64, bool) {
	out, arrays := sc.out[:0], sc.arrays[:0]
	// inArray has a bit per open value around the innermost one, set for an
	// array, and array says whether the innermost is one (arrays' last entry is
	// then its element merger). depth is the number of open values; a value nested
	// deeper than maxDepth has no shape, as in Wire.
	var inArray [maxDepth/64 + 1]uint64
	depth, array := 0, false
	var member []byte
	for _, t := range tokens {
		if depth > maxDepth && t.Kind != '}' && t.Kind != ']' {
			sc.out, sc.arrays = out, arrays
			return 0, false // a value nested deeper than maxDepth
		}
		switch t.Kind {
		case 'k':
			member = text[t.Start:t.End]
			out = appendName(out, member) // the scan saw it has no escapes
			continue
		case '"', '\\':
			if quoted := text[t.Start:t.End]; t.Kind == '"' && voc.plain(quoted, member) {
				out = append(out, 's')
			} else {
				out = voc.appendString(out, quoted, member, t.Kind == '\\', &sc.uris)
			}
		case '{', '[':
			out = append(out, t.Kind)
			if array {
				inArray[depth/64] |= 1 << (depth % 64)
			} else {
				inArray[depth/64] &^= 1 << (depth % 64)
			}
			depth++
			array = t.Kind == '['
			if array {
				arrays = append(arrays, openArray{next: len(out)})
			}
			member = nil
			continue
		case '}', ']':
			if t.Kind == ']' {
				out = voc.appendLength(out, arrays[len(arrays)-1].length)
				arrays = arrays[:len(arrays)-1]
			}
			out = append(out, t.Kind)
			depth--
			array = depth > 0 && inArray[depth/64]&(1<<(depth%64)) != 0
		case 'K':
			sc.out, sc.arrays = out, arrays
			return 0, false // an escaped member name
		case 't', 'f', 'n':
			out = append(out, text[t.Start:t.End]...) // true, false, null
		default:
			out = voc.appendNumber(out, text[t.Start:t.End])
		}
		member = nil
		if array {
			out = append(out, ',')
			out = arrays[len(arrays)-1].element(out)
		}
	}
	sc.out, sc.arrays = out, arrays
	return wireHash(out), true
}

// wireHash is the wire shape of a shape's bytes.
func wireHash(shape []byte) uint64 {
	if h := maphash.Bytes(wireSeed, shape); h != 0 {
		return h
	}
	return 1
}

// shapeKey combines a wire shape with the context of a verdict (revision,
// definition, ...): each context string's hash is mixed in turn into the shape.
func shapeKey(shape uint64, context ...string) uint64 {
	h := shape
	for _, c := range context {
		h = (h ^ maphash.String(wireSeed, c)) * 0x9e3779b97f4a7c15
		h ^= h >> 29
	}
	return h
}

// ValidShapes remembers which wire shapes validated against which definition, for
// a whole run: every session and input of the run shares it, so a shape is
// validated once, not once per session. Safe for concurrent use. Bounded: when full
// it starts again empty.
type ValidShapes struct {
	mu    sync.Mutex
	valid map[uint64]struct{}
	max   int
}

// NewValidShapes returns a set that holds at most max verdicts.
func NewValidShapes(max int) *ValidShapes {
	return &ValidShapes{valid: map[uint64]struct{}{}, max: max}
}

func (v *ValidShapes) has(key uint64) bool {
	v.mu.Lock()
	_, ok := v.valid[key]
	v.mu.Unlock()
	return ok
}

func (v *ValidShapes) add(key uint64) {
	v.mu.Lock()
	if len(v.valid) >= v.max {
		clear(v.valid)
	}
	v.valid[key] = struct{}{}
	v.mu.Unlock()
}

// LaterFieldsOf caches LaterFields by wire shape for a whole run (see ValidShapes):
// the places (Pattern, Since, Value) of the fields a message carries that its
// revision lacks depend on its shape only. Their Pointers are those of the first
// message of the shape: an array's repeated elements share one shape, so another
// message of the shape may carry a field at another index (ask LaterFields for its
// own). Safe for concurrent use; bounded.
type LaterFieldsOf struct {
	mu     sync.Mutex
	fields map[uint64][]LaterField
	max    int
}

// NewLaterFieldsOf returns a cache of at most max shapes.
func NewLaterFieldsOf(max int) *LaterFieldsOf {
	return &LaterFieldsOf{fields: map[uint64][]LaterField{}, max: max}
}

// Fields is LaterFields(rev, m), computed once per wire shape (shape 0: every time).
// The returned slice is shared: callers must not modify it.
func (c *LaterFieldsOf) Fields(shape uint64, rev spec.Revision, m Message) []LaterField {
	if shape == 0 {
		return LaterFields(rev, m)
	}
	key := shapeKey(shape, string(rev), strconv.Itoa(int(m.Kind)), m.Method, m.Sender.String())
	c.mu.Lock()
	fields, ok := c.fields[key]
	c.mu.Unlock()
	if ok {
		return fields
	}
	fields = LaterFields(rev, m)
	c.mu.Lock()
	if len(c.fields) >= c.max {
		clear(c.fields)
	}
	c.fields[key] = fields
	c.mu.Unlock()
	return fields
}

// IsLiteral reports whether s is a string const or enum member of an official
// schema of some revision ("completed", "assistant", "text"): a protocol value,
// never a session's data, whatever member holds it.
func IsLiteral(s string) bool { return shapeVocabulary().isLiteral([]byte(s)) }
