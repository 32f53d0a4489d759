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
// it is valid and records where the members of its objects are, down to
// indexedLevels levels of nesting. Everything the pipeline reads from a message
// afterwards (the envelope's fields, the message's method and id, params._meta,
// result.task ...) is found through that index instead of scanning the bytes again;
// payloads below the indexed levels (arguments, contents, schemas) are validated
// and skipped, never decoded.
//
// The scan is iterative, with its own stack, so that no input can exhaust the
// goroutine's stack; nesting deeper than MaxNesting is refused as invalid.

// MaxNesting is the deepest nesting of arrays and objects a frame may have. No
// message of the protocol comes near it; a deeper one is reported as MCP0001.
const MaxNesting = 1000

// indexedLevels is how deep members are recorded: an envelope (1), its message (2),
// params or result (3), and their members' members such as params._meta (4).
const indexedLevels = 4

// maxIndexedText is the longest text an index covers: its offsets are 32 bits.
// Reader.MaxLine never allows a longer line or document entry.
const maxIndexedText = 1<<31 - 1

// maxIndexed caps the entries of one index: a giant flat object is validated in
// full but only its first members are indexed; lookups past them read the bytes.
const maxIndexed = 1 << 16

// entry is one indexed value: the root (entry 0), a member of an object or an
// element of an array, with where its key and value are in the text.
type entry struct {
	next     int32 // the next entry of the same parent; -1 for the last
	child    int32 // the first entry inside this value; -1 when none was indexed
	keyStart int32 // the key's bytes, without quotes (escapes left as written); 0,0 for elements
	keyEnd   int32
	valStart int32 // the value's bytes (a text is at most maxIndexedText long)
	valEnd   int32
	// tokStart is the value's first token in the index's tokens (see Token); for
	// an object or array, tokEnd is past its closing token.
	tokStart, tokEnd int32
	kind             byte // '{', '[', '"', '0' (number), 't', 'f', 'n'
	keyEscaped       bool
	valEscaped       bool // a string value with escapes
	complete         bool // every member of this object or array was indexed
}

// index is the result of one scan: the entries of a text, in document order, and
// its tokens.
type index struct {
	entries []entry
	// tokens are every token of the text, which the scan records (see Token):
	// what a Node reads the text through, and what the shaper, when set, shapes
	// the text's messages from (see Shaper): the bytes are read once, by the
	// scan. taped says the tokens are those of the whole text, which the scan
	// validated (a text it refused, or one too long for 32-bit offsets, has none).
	shaper Shaper
	tokens []Token
	taped  bool
	// tokensOnly has the scan record the tokens without indexing members (Parse).
	tokensOnly bool
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
	entry int32 // the indexed entry of this value, or -1
	last  int32 // the last indexed entry inside it, or -1
	tok   int32 // its opening token, when the scan records tokens
	obj   bool
}

// scanJSON validates b as one JSON text (surrounded by optional whitespace),
// records its tokens and indexes its members into ix (reset first; nil: validate
// only). It returns scanOK, or the problem and the offset where it was found.
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
	cur := int32(-1) // the entry of the value about to be read, or -1
	if ix != nil && !ix.tokensOnly {
		ix.entries = append(ix.entries[:0], entry{next: -1, child: -1, valStart: int32(i)})
		cur = 0
	}
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
			open := openValue{entry: cur, last: -1, obj: c == '{'}
			if cur >= 0 {
				e := &ix.entries[cur]
				e.kind, e.valStart, e.complete = c, int32(i), len(stack) < indexedLevels
				e.tokStart = int32(len(ix.tokens))
			}
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
			var ok bool
			if i, cur, ok = ix.next(b, i, stack); !ok {
				return scanSyntax, i
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
		if cur >= 0 {
			e := &ix.entries[cur]
			e.kind, e.valStart, e.valEnd, e.valEscaped = c, int32(start), int32(i), escaped
			e.tokStart = int32(len(ix.tokens))
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
				var ok bool
				if i, cur, ok = ix.next(b, skipSpace(b, i+1), stack); !ok {
					return scanSyntax, i
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
		if top := stack[len(stack)-1]; top.entry >= 0 {
			ix.entries[top.entry].valEnd = int32(i)
			ix.entries[top.entry].tokEnd = int32(len(ix.tokens))
		}
		stack = stack[:len(stack)-1]
		goto after
	}
}

// next starts the next item of the innermost open value at i: a member of an
// object (its key and colon), or an element of an array.
func (ix *index) next(b []byte, i int, stack []openValue) (int, int32, bool) {
	if stack[len(stack)-1].obj {
		return ix.member(b, i, stack)
	}
	return i, ix.element(i, stack), true
}

// member reads an object member's key and colon at i, records the key's token when
// the scan records them, and indexes it when its object is indexed; it returns
// where the value starts and the value's entry (-1 if none).
func (ix *index) member(b []byte, i int, stack []openValue) (int, int32, bool) {
	if i >= len(b) || b[i] != '"' {
		return i, -1, false
	}
	end, escaped, ok := scanString(b, i)
	if !ok {
		return end, -1, false
	}
	keyStart, keyEnd := i+1, end-1
	if ix != nil {
		key := Token{Start: int32(keyStart), End: int32(keyEnd), Kind: 'k'}
		if escaped {
			key.Kind = 'K'
		}
		ix.tokens = append(ix.tokens, key)
	}
	i = skipSpace(b, end)
	if i >= len(b) || b[i] != ':' {
		return i, -1, false
	}
	i = skipSpace(b, i+1)
	top := &stack[len(stack)-1]
	if top.entry < 0 || len(stack) > indexedLevels {
		return i, -1, true
	}
	n := ix.add(top, entry{keyStart: int32(keyStart), keyEnd: int32(keyEnd), keyEscaped: escaped})
	return i, n, true
}

// shapeOf is the wire shape of the value of entry at, from its tokens: 0 when the
// scan did not record them, or the value has no usable shape.
func (ix *index) shapeOf(text []byte, at int32) uint64 {
	e := &ix.entries[at]
	if ix.shaper == nil || !ix.taped || (e.kind != '{' && e.kind != '[') {
		return 0
	}
	return ix.shaper.Shape(text, ix.tokens[e.tokStart:e.tokEnd])
}

// element indexes an array element at i when its array is indexed.
func (ix *index) element(i int, stack []openValue) int32 {
	top := &stack[len(stack)-1]
	if top.entry < 0 || len(stack) > indexedLevels {
		return -1
	}
	return ix.add(top, entry{})
}

// add appends an entry under the open value top, linking it as top's last child.
func (ix *index) add(top *openValue, e entry) int32 {
	if len(ix.entries) >= maxIndexed {
		ix.entries[top.entry].complete = false
		return -1
	}
	n := int32(len(ix.entries))
	e.next, e.child = -1, -1
	ix.entries = append(ix.entries, e)
	if top.last >= 0 {
		ix.entries[top.last].next = n
	} else {
		ix.entries[top.entry].child = n
	}
	top.last = n
	return n
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

// keyIs reports whether an object member's key is name.
func (e *entry) keyIs(text []byte, name string) bool {
	key := text[e.keyStart:e.keyEnd]
	if !e.keyEscaped {
		return string(key) == name
	}
	return gjson.Parse(`"`+string(key)+`"`).Str == name
}

// value is the value of entry c as a gjson.Result (the zero Result for c < 0: absent).
func (ix *index) value(text []byte, c int32) gjson.Result {
	if c < 0 {
		return gjson.Result{}
	}
	return ix.entries[c].result(text)
}

// isPlainString reports whether the value is the string s, written without escapes.
func (e *entry) isPlainString(text []byte, s string) bool {
	return e.kind == '"' && !e.valEscaped && string(text[e.valStart+1:e.valEnd-1]) == s
}

// key returns an object member's key, unescaped; it may alias text.
func (e *entry) key(text []byte) string {
	key := text[e.keyStart:e.keyEnd]
	if !e.keyEscaped {
		return view(key)
	}
	return gjson.Parse(`"` + string(key) + `"`).Str
}

// result returns the value as a gjson.Result over text (aliasing it): the decoders
// and rules keep gjson's API for what they read from values.
func (e *entry) result(text []byte) gjson.Result {
	raw := view(text[e.valStart:e.valEnd])
	switch e.kind {
	case '{', '[':
		return gjson.Result{Type: gjson.JSON, Raw: raw, Index: int(e.valStart)}
	case '"':
		r := gjson.Result{Type: gjson.String, Raw: raw, Index: int(e.valStart)}
		if !e.valEscaped {
			r.Str = raw[1 : len(raw)-1]
		} else {
			r.Str = gjson.Parse(raw).Str
		}
		return r
	case '0':
		n, ok := smallInt(raw)
		if !ok {
			n, _ = strconv.ParseFloat(raw, 64)
		}
		return gjson.Result{Type: gjson.Number, Raw: raw, Num: n, Index: int(e.valStart)}
	case 't':
		return gjson.Result{Type: gjson.True, Raw: raw, Index: int(e.valStart)}
	case 'f':
		return gjson.Result{Type: gjson.False, Raw: raw, Index: int(e.valStart)}
	case 'n':
		return gjson.Result{Type: gjson.Null, Raw: raw, Index: int(e.valStart)}
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

// find returns the member of the object entry at o whose key is name: the entry
// (or -1), and whether the answer is certain (false when o's members were not all
// indexed: the caller then reads the bytes).
func (ix *index) find(text []byte, o int32, name string) (int32, bool) {
	if o < 0 || int(o) >= len(ix.entries) {
		return -1, false
	}
	e := &ix.entries[o]
	if e.kind != '{' {
		return -1, true
	}
	if e.child < 0 && !e.complete {
		return -1, false
	}
	for c := e.child; c >= 0; c = ix.entries[c].next {
		if ix.entries[c].keyIs(text, name) {
			return c, true
		}
	}
	return -1, e.complete
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
	e := &ix.entries[at]
	if path == "" {
		return e.result(text)
	}
	r := gjson.Get(view(text[e.valStart:e.valEnd]), path)
	if r.Index > 0 {
		r.Index += int(e.valStart)
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
