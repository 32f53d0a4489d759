package frame

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// The lazy view: one validating pass over a record's JSON text both decides whether
// it is valid and records its tokens (see Token): where each value, member name and
// closing bracket lies, and for each object and array where it closes. That token
// list is the text's only index. Everything the pipeline reads from a message
// afterwards (the envelope's fields, the message's method and id, params._meta,
// result.task, a schema's walk, redaction) goes through it instead of scanning the
// bytes again: a value is named by its first token (its "entry" below), an object's
// members are found by stepping from one member's value to the next (a container is
// skipped in one step, by its recorded end), and a string's bytes are read where
// they lie.
//
// The scan is iterative, with its own stack, so that no input can exhaust the
// goroutine's stack; nesting deeper than MaxNesting is refused as invalid.

// MaxNesting is the deepest nesting of arrays and objects a frame may have. No
// message of the protocol comes near it; a deeper one is reported as MCP0001.
const MaxNesting = 1000

// maxIndexedText is the longest text an index covers: its offsets are 32 bits.
// Reader.MaxLine never allows a longer line or document entry.
const maxIndexedText = 1<<31 - 1

// index is the result of one scan: the tokens of a text.
type index struct {
	// tokens are every token of the text, which the scan records (see Token):
	// what a Node and the entry methods below read the text through, and what the
	// shaper, when set, shapes the text's messages from (see Shaper): the bytes are
	// read once, by the scan. taped says the tokens are those of the whole text,
	// which the scan validated (a text it refused, or one too long for 32-bit
	// offsets, has none).
	shaper Shaper
	tokens []Token
	taped  bool
}

// Token is one token of a JSON text, as a validating scan records it (for a Node
// and for a Shaper). Kind is '{', '}', '[', ']', 'k' (a member name: Start and End
// bracket its bytes between the quotes), 'K' (a member name with escapes), '"' (a
// string: its bytes, quotes included), '\\' (a string with escapes), '0' (a
// number), 't', 'f' or 'n' (true, false, null: their bytes). Commas and colons are
// not recorded: they follow from the others.
//
// Start is where the token's bytes start in the text and End where they end, but
// for an opening token ('{' or '['), whose byte always ends at Start+1: its End is
// the index, in the text's tokens, of its closing token ('}' or ']'). A reader
// skips an object or array in one step (Node); a Shaper reads no opening token's
// End.
type Token struct {
	Start, End int32
	Kind       byte
}

// scanProblem says why a text is not valid JSON.
type scanProblem uint8

const (
	scanOK scanProblem = iota
	scanSyntax
	scanTooDeep
	scanTooLong // a text longer than maxIndexedText, not indexed
)

// strSafe marks the bytes a string may hold without a closer look: not the quote,
// the backslash or a control character.
var strSafe = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// openValue is one open array or object during a scan.
type openValue struct {
	tok int32 // its opening token, when the scan records tokens
	obj bool
}

// scanJSON validates b as one JSON text (surrounded by optional whitespace) and
// records its tokens into ix (reset first; nil: validate only). It returns scanOK,
// or the problem and the offset where it was found.
func scanJSON(b []byte, ix *index) (scanProblem, int) {
	taping := ix != nil // the tokens are recorded in ix.tokens
	if taping {
		ix.tokens, ix.taped = ix.tokens[:0], false
		if len(b) > maxIndexedText {
			return scanTooLong, 0
		}
	}
	var stack []openValue
	var stackBuf [16]openValue
	stack = stackBuf[:0]
	i := skipSpace(b, 0)
	for {
		// Read one value starting at i.
		if i >= len(b) {
			return scanSyntax, i
		}
		c := b[i]
		start := i
		escaped := false
		switch {
		case c == '{' || c == '[':
			if len(stack) >= MaxNesting {
				return scanTooDeep, i
			}
			open := openValue{obj: c == '{'}
			if taping {
				// End is set to the closing token's index when it is read.
				open.tok = int32(len(ix.tokens))
				ix.tokens = append(ix.tokens, Token{Start: int32(i), Kind: c})
			}
			stack = append(stack, open)
			i = skipSpace(b, i+1)
			closer := byte('}')
			if c == '[' {
				closer = ']'
			}
			if i < len(b) && b[i] == closer {
				i++
				goto closed
			}
			if open.obj {
				var ok bool
				if i, ok = ix.member(b, i); !ok {
					return scanSyntax, i
				}
			}
			continue
		case c == '"':
			var ok bool
			if i, escaped, ok = scanString(b, i); !ok {
				return scanSyntax, i
			}
		case c == '-' || (c >= '0' && c <= '9'):
			var ok bool
			if i, ok = scanNumber(b, i); !ok {
				return scanSyntax, i
			}
			c = '0'
		case c == 't':
			if !bytes.HasPrefix(b[i:], []byte("true")) {
				return scanSyntax, i
			}
			i += 4
		case c == 'f':
			if !bytes.HasPrefix(b[i:], []byte("false")) {
				return scanSyntax, i
			}
			i += 5
		case c == 'n':
			if !bytes.HasPrefix(b[i:], []byte("null")) {
				return scanSyntax, i
			}
			i += 4
		default:
			return scanSyntax, i
		}
		if taping {
			kind := c
			if escaped {
				kind = '\\'
			}
			ix.tokens = append(ix.tokens, Token{Start: int32(start), End: int32(i), Kind: kind})
		}
		// After a value: a separator, a closer, or the end.
	after:
		i = skipSpace(b, i)
		if len(stack) == 0 {
			if i != len(b) {
				return scanSyntax, i
			}
			if taping {
				ix.taped = true
			}
			return scanOK, 0
		}
		if i >= len(b) {
			return scanSyntax, i
		}
		{
			top := &stack[len(stack)-1]
			switch b[i] {
			case ',':
				i = skipSpace(b, i+1)
				if top.obj {
					var ok bool
					if i, ok = ix.member(b, i); !ok {
						return scanSyntax, i
					}
				}
				continue
			case '}':
				if !top.obj {
					return scanSyntax, i
				}
				i++
			case ']':
				if top.obj {
					return scanSyntax, i
				}
				i++
			default:
				return scanSyntax, i
			}
		}
	closed:
		if taping {
			ix.tokens[stack[len(stack)-1].tok].End = int32(len(ix.tokens))
			ix.tokens = append(ix.tokens, Token{Start: int32(i - 1), End: int32(i), Kind: b[i-1]})
		}
		stack = stack[:len(stack)-1]
		goto after
	}
}

// member reads an object member's key and colon at i and records the key's token
// when the scan records them; it returns where the value starts.
func (ix *index) member(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return i, false
	}
	end, escaped, ok := scanString(b, i)
	if !ok {
		return end, false
	}
	if ix != nil {
		key := Token{Start: int32(i + 1), End: int32(end - 1), Kind: 'k'}
		if escaped {
			key.Kind = 'K'
		}
		ix.tokens = append(ix.tokens, key)
	}
	i = skipSpace(b, end)
	if i >= len(b) || b[i] != ':' {
		return i, false
	}
	return skipSpace(b, i+1), true
}

// shapeOf is the wire shape of the value of entry at, from its tokens: 0 when the
// scan did not record them, or the value has no usable shape.
func (ix *index) shapeOf(text []byte, at int32) uint64 {
	if ix.shaper == nil || !ix.taped {
		return 0
	}
	t := ix.tokens[at]
	if t.Kind != '{' && t.Kind != '[' {
		return 0
	}
	return ix.shaper.Shape(text, ix.tokens[at:t.End+1])
}

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// scanString validates the string starting at b[i] (a quote) and returns the offset
// after its closing quote and whether it holds escapes.
func scanString(b []byte, i int) (int, bool, bool) {
	i++
	escaped := false
	for {
		// Eight bytes at a time while none is a quote, a backslash or a control
		// character (most of a capture's bytes are long text), then byte by byte.
		// A run longer than two words goes on in blocks of 32, over the two-byte
		// escapes too, where the processor can (plainRun): most strings end
		// within the first words, and those that do not are long text (often
		// with escaped newlines and tabs every few dozen bytes) or base64.
		for words := 0; i+8 <= len(b); words++ {
			w := binary.LittleEndian.Uint64(b[i:])
			if m := hasZeroByte(w^quotes) | hasZeroByte(w^backslashes) | hasLessThan(w, 0x20); m != 0 {
				// The lowest flagged byte is the first that needs a look (the
				// flags above it may be false: a borrow carries upwards).
				i += bits.TrailingZeros64(m) / 8
				break
			}
			i += 8
			if words == 1 && len(b)-i >= plainRunMin {
				n, esc := plainRun(b[i:])
				i, escaped = i+n, escaped || esc
			}
		}
		for i < len(b) && strSafe[b[i]] {
			i++
		}
		if i >= len(b) {
			return i, escaped, false
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, escaped, true
		case c == '\\':
			escaped = true
			if i+1 >= len(b) {
				return i, escaped, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return i, escaped, false
				}
				i += 6
			default:
				return i, escaped, false
			}
		default: // a control character
			return i, escaped, false
		}
	}
}

// plainRunMin is the fewest bytes left in the text for which scanString asks
// plainRun: two of its blocks.
const plainRunMin = 64

const (
	lows        = 0x0101010101010101
	highs       = 0x8080808080808080
	quotes      = '"' * lows
	backslashes = '\\' * lows
)

// hasZeroByte is non-zero when some byte of w is zero.
func hasZeroByte(w uint64) uint64 { return (w - lows) &^ w & highs }

// hasLessThan is non-zero when some byte of w is below n (n <= 128).
func hasLessThan(w uint64, n uint64) uint64 { return (w - n*lows) &^ w & highs }

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// scanNumber validates the number starting at b[i] (RFC 8259 grammar).
func scanNumber(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return i, false
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return i, false
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	return i, true
}

// A value of an indexed text is named by its first token, its entry: the whole
// text is entry 0, never a member. An object member's name is the token just
// before its value's.

// kind is the kind of the value of entry at: '{', '[', '"' (a string, with escapes
// or not), '0' (a number), 't', 'f' or 'n'.
func (ix *index) kind(at int32) byte {
	if k := ix.tokens[at].Kind; k != '\\' {
		return k
	}
	return '"'
}

// span is where the value of entry at starts and ends in the text.
func (ix *index) span(at int32) (start, end int32) {
	t := &ix.tokens[at]
	if t.Kind == '{' || t.Kind == '[' {
		return t.Start, ix.tokens[t.End].End
	}
	return t.Start, t.End
}

// raw is the value of entry at's bytes.
func (ix *index) raw(text []byte, at int32) []byte {
	start, end := ix.span(at)
	return text[start:end]
}

// child is the first value inside the object or array of entry at: the value of
// its first member, or its first element; -1 when it is empty or no container.
func (ix *index) child(at int32) int32 {
	switch t := ix.tokens[at]; {
	case t.Kind == '{' && t.End != at+1:
		return at + 2
	case t.Kind == '[' && t.End != at+1:
		return at + 1
	}
	return -1
}

// sibling is the value after the member or element of entry at in its object or
// array (-1 for the last): the token after the value's last is a closer, the next
// member's name, or the next element.
func (ix *index) sibling(at int32) int32 {
	n := at + 1
	if t := ix.tokens[at]; t.Kind == '{' || t.Kind == '[' {
		n = t.End + 1
	}
	if int(n) >= len(ix.tokens) {
		return -1
	}
	switch ix.tokens[n].Kind {
	case '}', ']':
		return -1
	case 'k', 'K':
		return n + 1
	}
	return n
}

// keyToken is the name token of the object member whose value is entry at.
func (ix *index) keyToken(at int32) Token { return ix.tokens[at-1] }

// keyIs reports whether the name of the object member whose value is entry at is name.
func (ix *index) keyIs(text []byte, at int32, name string) bool {
	k := ix.tokens[at-1]
	key := text[k.Start:k.End]
	if k.Kind != 'K' {
		return string(key) == name
	}
	return gjson.Parse(`"`+string(key)+`"`).Str == name
}

// key returns the name, unescaped, of the object member whose value is entry at;
// it may alias text.
func (ix *index) key(text []byte, at int32) string {
	k := ix.tokens[at-1]
	key := text[k.Start:k.End]
	if k.Kind != 'K' {
		return view(key)
	}
	return gjson.Parse(`"` + string(key) + `"`).Str
}

// value is the value of entry c as a gjson.Result (the zero Result for c < 0: absent).
func (ix *index) value(text []byte, c int32) gjson.Result {
	if c < 0 {
		return gjson.Result{}
	}
	return ix.result(text, c)
}

// isPlainString reports whether the value of entry at is the string s, written
// without escapes.
func (ix *index) isPlainString(text []byte, at int32, s string) bool {
	t := ix.tokens[at]
	return t.Kind == '"' && string(text[t.Start+1:t.End-1]) == s
}

// result returns the value of entry at as a gjson.Result over text (aliasing it):
// the decoders and rules keep gjson's API for what they read from values.
func (ix *index) result(text []byte, at int32) gjson.Result {
	start, end := ix.span(at)
	raw := view(text[start:end])
	switch ix.tokens[at].Kind {
	case '{', '[':
		return gjson.Result{Type: gjson.JSON, Raw: raw, Index: int(start)}
	case '"':
		return gjson.Result{Type: gjson.String, Raw: raw, Str: raw[1 : len(raw)-1], Index: int(start)}
	case '\\':
		return gjson.Result{Type: gjson.String, Raw: raw, Str: gjson.Parse(raw).Str, Index: int(start)}
	case '0':
		n, ok := smallInt(raw)
		if !ok {
			n, _ = strconv.ParseFloat(raw, 64)
		}
		return gjson.Result{Type: gjson.Number, Raw: raw, Num: n, Index: int(start)}
	case 't':
		return gjson.Result{Type: gjson.True, Raw: raw, Index: int(start)}
	case 'f':
		return gjson.Result{Type: gjson.False, Raw: raw, Index: int(start)}
	case 'n':
		return gjson.Result{Type: gjson.Null, Raw: raw, Index: int(start)}
	}
	return gjson.Result{}
}

// smallInt reads a number of at most 15 digits with no fraction or exponent (an
// id, a count) exactly as ParseFloat would, without its generality.
func smallInt(raw string) (float64, bool) {
	digits, neg := raw, false
	if len(digits) > 0 && digits[0] == '-' {
		digits, neg = digits[1:], true
	}
	if len(digits) == 0 || len(digits) > 15 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		return -float64(n), true
	}
	return float64(n), true
}

// find returns the member of the object entry at o whose key is name: its value's
// entry (or -1), and whether the answer is certain (false when o is an array, where
// a gjson path may name an element: the caller then reads the bytes).
func (ix *index) find(text []byte, o int32, name string) (int32, bool) {
	if o < 0 || int(o) >= len(ix.tokens) {
		return -1, false
	}
	switch ix.tokens[o].Kind {
	case '{':
	case '[':
		return -1, false
	default:
		return -1, true
	}
	for c := ix.child(o); c >= 0; c = ix.sibling(c) {
		if ix.keyIs(text, c, name) {
			return c, true
		}
	}
	return -1, true
}

// lookup reads a gjson path (dot-separated, `\.` escapes a dot) from the value of
// entry at, through the index as far as it goes, then from the bytes.
func lookup(text []byte, ix *index, at int32, path string) gjson.Result {
	if plainPath(path) {
		var absent bool
		if at, path, absent = ix.follow(text, at, path); absent {
			return gjson.Result{}
		}
	}
	if path == "" {
		return ix.result(text, at)
	}
	start, end := ix.span(at)
	r := gjson.Get(view(text[start:end]), path)
	if r.Index > 0 {
		r.Index += int(start)
	}
	return r
}

// follow walks a plain path (names only) down the index from entry at, as far as
// the index is certain: the entry reached and the path left to read from its
// bytes; absent reports a member the index says is not there.
func (ix *index) follow(text []byte, at int32, path string) (reached int32, rest string, absent bool) {
	for path != "" {
		seg, next := nextSegment(path)
		c, certain := ix.find(text, at, unescapeSegment(seg))
		if !certain {
			return at, path, false
		}
		if c < 0 {
			return at, path, true
		}
		at, path = c, next
	}
	return at, "", false
}

// pathSyntax marks the bytes that give a gjson path more than plain member names.
var pathSyntax = func() (t [256]bool) {
	for _, c := range []byte("*?#|@!") {
		t[c] = true
	}
	return t
}()

// plainPath reports whether a gjson path is only names (with `\.` escapes): the
// index can follow it; anything else is left to gjson.
func plainPath(path string) bool {
	for i := 0; i < len(path); i++ {
		if pathSyntax[path[i]] {
			return false
		}
	}
	return true
}

// nextSegment splits the first name off a gjson path.
func nextSegment(path string) (string, string) {
	for i := 0; i < len(path); i++ {
		switch path[i] {
		case '\\':
			i++
		case '.':
			return path[:i], path[i+1:]
		}
	}
	return path, ""
}

func unescapeSegment(seg string) string {
	if strings.IndexByte(seg, '\\') < 0 {
		return seg
	}
	var b strings.Builder
	for i := 0; i < len(seg); i++ {
		if seg[i] == '\\' && i+1 < len(seg) {
			i++
		}
		b.WriteByte(seg[i])
	}
	return b.String()
}
