package frame

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// Node is a cursor over one JSON value of a text that a validating scan read: the
// text, the tokens the scan recorded (see Token), and the value's first token. It is
// how a message is read after the scan, by every package: members, array elements,
// a string's bytes where they lie, an object or array skipped in one step by its
// recorded closing token. Nothing in a Node scans the bytes again but to unescape
// a string or a member name that has escapes, or to read a number.
//
// A Node aliases its text and tokens (a frame's, see Frame.Node, or Parse's): it is
// valid as long as they are, and the strings it returns alias the text when they
// have no escapes. The zero Node is a value that does not exist: every method
// answers as for an absent value (Kind 0, Raw nil, no members).
type Node struct {
	text []byte
	toks []Token
	at   int32 // the value's first token in toks
}

// Parse validates b as one JSON text (surrounded by optional whitespace) and
// records its tokens, in one scan: a Node over bytes that are not a frame (a
// tool's schema, a document). The Node aliases b. A text nested deeper than
// MaxNesting, or longer than 2 GiB, is refused.
func Parse(b []byte) (Node, error) {
	// A JSON text has a token for every 4 to 8 bytes but for its long strings:
	// room for a small document's tokens at once, more as the scan finds them.
	return parseInto(b, make([]Token, 0, min(len(b)/4, 1024)+8))
}

// Valid reports whether b is what Parse accepts (one JSON text, surrounded by
// optional whitespace, nested no deeper than MaxNesting), without recording its
// tokens: it allocates nothing.
func Valid(b []byte) bool {
	p, _ := scanJSON(b, nil)
	return p == scanOK
}

// parseInto is Parse recording the tokens into toks (reused from its start): a
// reader that parses one text after another keeps one token slice. The Node holds
// the slice the scan grew toks into.
func parseInto(b []byte, toks []Token) (Node, error) {
	ix := index{tokens: toks[:0]}
	switch p, at := scanJSON(b, &ix); p {
	case scanOK:
		return Node{text: b, toks: ix.tokens}, nil
	case scanTooDeep:
		return Node{}, &ParseError{Offset: at, Problem: fmt.Sprintf("nested deeper than %d levels of arrays and objects", MaxNesting)}
	case scanTooLong:
		return Node{}, &ParseError{Offset: 0, Problem: "longer than " + Size(maxIndexedText)}
	default:
		return Node{}, &ParseError{Offset: at, Problem: "not valid JSON"}
	}
}

// ParseError is why Parse refused a text.
type ParseError struct {
	Offset  int // the byte where the problem was found
	Problem string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("%s (byte %d)", e.Problem, e.Offset)
}

// node is the Node of the value of entry at of the view's index; the zero Node
// when the view has no tokens (see index.taped).
func (v *textView) node(at int32) Node {
	if v == nil || !v.ix.taped || at < 0 || int(at) >= len(v.ix.tokens) {
		return Node{}
	}
	return Node{text: v.text, toks: v.ix.tokens, at: at}
}

// nodeOf is the Node of the value whose bytes are raw, a slice of the view's text
// that the frame does not name by its entry (root -1).
func (v *textView) nodeOf(raw []byte) (Node, bool) {
	if v == nil || !v.ix.taped || len(raw) == 0 {
		return Node{}, false
	}
	off := within(v.text, unsafe.Pointer(unsafe.SliceData(raw)), len(raw))
	if off < 0 {
		return Node{}, false
	}
	toks := v.ix.tokens
	// Tokens are in document order; no two start at the same byte (a member
	// name's token starts after its quote, inside the name).
	i := sort.Search(len(toks), func(i int) bool { return int(toks[i].Start) >= off })
	if i == len(toks) || int(toks[i].Start) != off {
		return Node{}, false
	}
	switch toks[i].Kind {
	case '}', ']', 'k', 'K':
		return Node{}, false
	}
	n := Node{text: v.text, toks: toks, at: int32(i)}
	if len(n.Raw()) != len(raw) {
		return Node{}, false
	}
	return n, true
}

// Node is the message's value: its whole text (an object, or a batch's array).
// Every frame the Reader decodes from JSON has the tokens of its scan, for its whole
// life (Detach keeps them): Node reads them, without allocating. A frame that has
// none (one built from bytes otherwise) is parsed from Raw on each call; one whose
// bytes are not JSON has the zero Node.
func (f *Frame) Node() Node {
	if f.view != nil && f.view.ix.taped {
		if f.root >= 0 && int(f.root) < len(f.view.ix.tokens) {
			return f.view.node(f.root)
		}
		if n, ok := f.view.nodeOf(f.Raw); ok {
			return n
		}
	}
	if f.Kind == KindInvalid && f.Problem == ProblemNotJSON {
		return Node{}
	}
	return parsed(f.Raw)
}

// ParamsNode is the value of the message's params member (the zero Node when it has
// none), as Frame.Params: the last member of that name.
func (f *Frame) ParamsNode() Node { return f.memberNode(f.paramsAt, f.Params) }

// ResultNode is the value of the message's result member (the zero Node when it has
// none), as Frame.Result: the last member of that name.
func (f *Frame) ResultNode() Node { return f.memberNode(f.resultAt, f.Result) }

// memberNode is the Node of a member of the message at entry at (0: not indexed)
// whose bytes are raw.
func (f *Frame) memberNode(at int32, raw []byte) Node {
	if raw == nil {
		return Node{}
	}
	if f.view != nil && f.view.ix.taped {
		if at > 0 && f.root >= 0 && int(at) < len(f.view.ix.tokens) {
			return f.view.node(at)
		}
		if n, ok := f.view.nodeOf(raw); ok {
			return n
		}
	}
	return parsed(raw)
}

// parsed is Parse's Node of b, the zero Node when b is not JSON.
func parsed(b []byte) Node {
	if len(b) == 0 {
		return Node{}
	}
	n, _ := Parse(b)
	return n
}

// Exists reports whether the Node is a value (the zero Node is not).
func (n Node) Exists() bool { return int(n.at) < len(n.toks) }

// Kind is the value's JSON type: '{' (object), '[' (array), '"' (string, with
// escapes or not), '0' (number), 't' (true), 'f' (false), 'n' (null); 0 when
// the value does not exist.
func (n Node) Kind() byte {
	if !n.Exists() {
		return 0
	}
	if k := n.toks[n.at].Kind; k != '\\' {
		return k
	}
	return '"'
}

// IsObject reports whether the value is an object.
func (n Node) IsObject() bool { return n.Kind() == '{' }

// IsArray reports whether the value is an array.
func (n Node) IsArray() bool { return n.Kind() == '[' }

// IsNull reports whether the value is null.
func (n Node) IsNull() bool { return n.Kind() == 'n' }

// Raw is the value's JSON text as it lies in the text: an object or array from its
// opening to its closing byte, a string with its quotes and escapes. nil when the
// value does not exist. It aliases the text: read it, never write to it.
func (n Node) Raw() []byte {
	if !n.Exists() {
		return nil
	}
	t := n.toks[n.at]
	end := t.End
	if t.Kind == '{' || t.Kind == '[' {
		end = n.toks[t.End].End
	}
	return n.text[t.Start:end:end]
}

// Span is where the value's bytes (Raw) start and end in its text: for a Node of
// Parse(b), offsets into b. 0, 0 when the value does not exist.
func (n Node) Span() (start, end int) {
	if !n.Exists() {
		return 0, 0
	}
	t := n.toks[n.at]
	e := t.End
	if t.Kind == '{' || t.Kind == '[' {
		e = n.toks[t.End].End
	}
	return int(t.Start), int(e)
}

// Text is the value as text, as the packages read values before Node (gjson's
// Result.String): a string unescaped, a number as written when it is written in
// digits only (any other number as strconv.FormatFloat(v, 'f', -1, 64) renders it:
// 1.50 is "1.5", 1e3 "1000"), "true" and "false", an object or array as its JSON
// text, "" for null and for no value. It aliases the text but for an unescaped
// string or a reformatted number: clone what is kept past the text's life.
func (n Node) Text() string {
	switch n.Kind() {
	case '"':
		s, _ := n.Str()
		return s
	case '0':
		raw := n.Raw()
		digits := raw
		if len(digits) > 0 && digits[0] == '-' {
			digits = digits[1:]
		}
		for _, c := range digits {
			if c < '0' || c > '9' {
				f, _ := n.Float()
				return strconv.FormatFloat(f, 'f', -1, 64)
			}
		}
		return view(raw)
	case 't':
		return "true"
	case 'f':
		return "false"
	case '{', '[':
		return view(n.Raw())
	}
	return ""
}

// Truthy is the value as a flag, as the packages read flags before Node (gjson's
// Result.Bool): true, a string that strconv.ParseBool reads as true in any case
// ("True", "1"), a number other than 0; false otherwise.
func (n Node) Truthy() bool {
	switch n.Kind() {
	case 't':
		return true
	case '"':
		s, _ := n.Str()
		b, _ := strconv.ParseBool(strings.ToLower(s))
		return b
	case '0':
		f, _ := n.Float()
		return f != 0
	}
	return false
}

// Str is a string value, unescaped: it aliases the text when the string has no
// escapes, and is a new string otherwise. ok is false for a value that is not a
// string. Escapes decode as encoding/json decodes them (a \u escape of half a
// surrogate pair is U+FFFD); bytes that are not UTF-8 are left as they are.
func (n Node) Str() (s string, ok bool) {
	if !n.Exists() {
		return "", false
	}
	switch t := n.toks[n.at]; t.Kind {
	case '"':
		return view(n.text[t.Start+1 : t.End-1]), true
	case '\\':
		return unescape(n.text[t.Start+1 : t.End-1]), true
	}
	return "", false
}

// EqualString reports whether the value is a string that unescapes to s, without
// allocating when it has no escapes (and without unescaping a string too long to
// be s).
func (n Node) EqualString(s string) bool {
	if !n.Exists() {
		return false
	}
	return stringIs(n.text, n.toks[n.at], s)
}

// stringIs reports whether a string or member name token unescapes to s.
func stringIs(text []byte, t Token, s string) bool {
	switch t.Kind {
	case '"':
		return string(text[t.Start+1:t.End-1]) == s
	case 'k':
		return string(text[t.Start:t.End]) == s
	case '\\', 'K':
		raw := text[t.Start:t.End]
		if t.Kind == '\\' {
			raw = raw[1 : len(raw)-1]
		}
		// An escape is at most 6 bytes for at least one byte it stands for.
		return len(raw) <= 6*len(s) && unescape(raw) == s
	}
	return false
}

// Bytes is a string value's bytes between its quotes, escapes as written (nil for
// a value that is not a string). It aliases the text: read it, never write to it.
func (n Node) Bytes() []byte {
	if !n.Exists() {
		return nil
	}
	switch t := n.toks[n.at]; t.Kind {
	case '"', '\\':
		return n.text[t.Start+1 : t.End-1 : t.End-1]
	}
	return nil
}

// Escaped reports whether a string value has escapes (Str then decodes them).
func (n Node) Escaped() bool { return n.Exists() && n.toks[n.at].Kind == '\\' }

// Float is a number value as the nearest float64 (±Inf beyond its range, as
// strconv.ParseFloat gives); ok is false for a value that is not a number.
func (n Node) Float() (float64, bool) {
	if n.Kind() != '0' {
		return 0, false
	}
	raw := n.Raw()
	if v, ok := smallInt(view(raw)); ok {
		return v, true
	}
	v, _ := strconv.ParseFloat(view(raw), 64)
	return v, true
}

// Int is a number value that is an integer int64 holds: written as one (42), or
// with a fraction or exponent of an integral value (42.0, 4.2e1), as JSON Schema's
// "integer" counts them. ok is false for any other value.
func (n Node) Int() (int64, bool) {
	if n.Kind() != '0' {
		return 0, false
	}
	raw := view(n.Raw())
	if v, err := strconv.ParseInt(raw, 10, 64); err == nil {
		return v, true
	}
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil || f != math.Trunc(f) || f < -(1<<63) || f >= 1<<63 {
		return 0, false
	}
	return int64(f), true
}

// Bool is a true or false value; ok is false for any other value.
func (n Node) Bool() (v, ok bool) {
	switch n.Kind() {
	case 't':
		return true, true
	case 'f':
		return false, true
	}
	return false, false
}

// next is the index of the token after the value.
func (n Node) next() int32 {
	if t := n.toks[n.at]; t.Kind == '{' || t.Kind == '[' {
		return t.End + 1
	}
	return n.at + 1
}

// key is a member name's token as a string, unescaped (aliasing the text when it
// has no escapes).
func (n Node) key(t Token) string {
	if t.Kind == 'K' {
		return unescape(n.text[t.Start:t.End])
	}
	return view(n.text[t.Start:t.End])
}

// Members calls yield with the name (unescaped) and value of each member of an
// object, in document order, duplicates included, until yield returns false;
// nothing for a value that is not an object. It is an iter.Seq2: for k, v := range
// n.Members. Names without escapes alias the text: no allocation.
func (n Node) Members(yield func(name string, v Node) bool) {
	if n.Kind() != '{' {
		return
	}
	for i, end := n.at+1, n.toks[n.at].End; i < end; {
		v := Node{text: n.text, toks: n.toks, at: i + 1}
		if !yield(n.key(n.toks[i]), v) {
			return
		}
		i = v.next()
	}
}

// Elements calls yield with the index and value of each element of an array, in
// order, until yield returns false; nothing for a value that is not an array. It is
// an iter.Seq2: for i, v := range n.Elements.
func (n Node) Elements(yield func(i int, v Node) bool) {
	if n.Kind() != '[' {
		return
	}
	for i, j, end := 0, n.at+1, n.toks[n.at].End; j < end; i++ {
		v := Node{text: n.text, toks: n.toks, at: j}
		if !yield(i, v) {
			return
		}
		j = v.next()
	}
}

// Len is the number of members of an object or elements of an array (duplicate
// names counted each time), 0 for any other value.
func (n Node) Len() int {
	k := n.Kind()
	if k != '{' && k != '[' {
		return 0
	}
	count := 0
	for j, end := n.at+1, n.toks[n.at].End; j < end; count++ {
		if k == '{' {
			j++ // the name
		}
		j = Node{toks: n.toks, at: j}.next()
	}
	return count
}

// Get is the value of an object's member of that name (unescaped): the FIRST member
// of that name when the object has several, as gjson's Get and Frame.Get answer
// (encoding/json keeps the last; Frame.Params and Frame.Result are the last, as
// JSON-RPC decoders read a message). ok is false when the value is not an object or
// has no such member; the Node is then the zero Node.
func (n Node) Get(name string) (Node, bool) {
	if n.Kind() != '{' {
		return Node{}, false
	}
	for i, end := n.at+1, n.toks[n.at].End; i < end; {
		v := Node{text: n.text, toks: n.toks, at: i + 1}
		if stringIs(n.text, n.toks[i], name) {
			return v, true
		}
		i = v.next()
	}
	return Node{}, false
}

// Path follows member names down from the value (Get for each, first member of a
// name): Path("params", "_meta", "progressToken"). No names: the value itself.
func (n Node) Path(names ...string) (Node, bool) {
	for _, name := range names {
		var ok bool
		if n, ok = n.Get(name); !ok {
			return Node{}, false
		}
	}
	return n, n.Exists()
}

// Index is the i-th element (from 0) of an array; ok is false when the value is not
// an array or has no such element.
func (n Node) Index(i int) (Node, bool) {
	if i >= 0 {
		for j, v := range n.Elements {
			if j == i {
				return v, true
			}
		}
	}
	return Node{}, false
}

// unescape decodes the escapes of a string's bytes (between its quotes), as
// encoding/json does; other bytes are copied as they are.
func unescape(s []byte) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			out = append(out, c)
			i++
			continue
		}
		switch e := s[i+1]; e {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(view(s[i+2:]))
			if !ok {
				out = append(out, s[i:i+2]...) // never in a scanned text
				i += 2
				continue
			}
			i += 6
			if utf16.IsSurrogate(r) {
				r2, ok := rune(-1), false
				if i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
					r2, ok = hex4(view(s[i+2:]))
				}
				if d := utf16.DecodeRune(r, r2); ok && d != utf8.RuneError {
					r = d
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
			continue
		default: // '"', '\\', '/'
			out = append(out, e)
		}
		i += 2
	}
	return unsafe.String(unsafe.SliceData(out), len(out))
}
