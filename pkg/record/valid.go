package record

// validator says whether bytes written to it in parts are one JSON value with
// only JSON's whitespace around it, exactly as encoding/json's Valid says of
// them whole (invalid UTF-8 inside strings is accepted, nesting past 10,000
// levels is not), without holding them: a line of 60 MB is judged as it
// arrives, and recorded from its parts.
type validator struct {
	state  vstate
	stack  []byte // the open containers: '{' or '['
	done   bool   // a whole value was read: only whitespace may follow
	failed bool
	// literal is the rest of true, false or null to read; hex the digits of a
	// \u escape still to come.
	literal string
	hex     int
}

// vstate is where the validator is in the grammar.
type vstate uint8

const (
	vValue           vstate = iota // a value must come (whitespace first)
	vObjectKey                     // after '{' or ',' in an object: a key ('}' too right after '{')
	vColon                         // after a key
	vAfterValue                    // after a value in a container: ',' or the closing bracket
	vString                        // in a string
	vEscape                        // after '\' in a string
	vHex                           // in a \u escape
	vLiteral                       // in true, false or null
	vNumberSign                    // after '-'
	vNumberZero                    // after a leading 0
	vNumberInt                     // in the integer digits
	vNumberDot                     // after '.'
	vNumberFrac                    // in the fraction digits
	vNumberExp                     // after 'e' or 'E'
	vNumberExpSign                 // after the exponent's sign
	vNumberExpDigits               // in the exponent's digits
)

// maxDepth is encoding/json's bound on nesting.
const maxDepth = 10000

func (v *validator) write(p []byte) {
	for i := 0; i < len(p) && !v.failed; i++ {
		v.step(p[i])
	}
}

// valid reports whether what was written is one JSON value.
func (v *validator) valid() bool {
	if v.failed {
		return false
	}
	switch v.state {
	case vNumberZero, vNumberInt, vNumberFrac, vNumberExpDigits:
		v.endValue()
	}
	return v.done && !v.failed && len(v.stack) == 0
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// endValue is the end of a value: the container it is in wants a ',' or its
// end, or the text is whole.
func (v *validator) endValue() {
	if len(v.stack) == 0 {
		v.done, v.state = true, vAfterValue
		return
	}
	v.state = vAfterValue
}

func (v *validator) step(c byte) {
	switch v.state {
	case vValue:
		if isSpace(c) {
			return
		}
		v.value(c)
	case vObjectKey:
		switch {
		case isSpace(c):
		case c == '"':
			v.state = vString
			v.stack = append(v.stack, 'k') // a key: a colon follows it
		case c == '}' && len(v.stack) > 0 && v.stack[len(v.stack)-1] == '{' && v.literal == "{":
			v.literal = ""
			v.close('{')
		default:
			v.failed = true
		}
	case vColon:
		switch {
		case isSpace(c):
		case c == ':':
			v.state = vValue
		default:
			v.failed = true
		}
	case vAfterValue:
		switch {
		case isSpace(c):
		case v.done:
			v.failed = true // something after the value
		case c == ',':
			if v.stack[len(v.stack)-1] == '{' {
				v.state = vObjectKey
			} else {
				v.state = vValue
			}
		case c == '}':
			v.close('{')
		case c == ']':
			v.close('[')
		default:
			v.failed = true
		}
	case vString:
		switch {
		case c == '"':
			if n := len(v.stack); n > 0 && v.stack[n-1] == 'k' {
				v.stack = v.stack[:n-1]
				v.state = vColon
				return
			}
			v.endValue()
		case c == '\\':
			v.state = vEscape
		case c < 0x20:
			v.failed = true
		}
	case vEscape:
		switch c {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			v.state = vString
		case 'u':
			v.state, v.hex = vHex, 4
		default:
			v.failed = true
		}
	case vHex:
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			v.failed = true
			return
		}
		if v.hex--; v.hex == 0 {
			v.state = vString
		}
	case vLiteral:
		if c != v.literal[0] {
			v.failed = true
			return
		}
		if v.literal = v.literal[1:]; v.literal == "" {
			v.endValue()
		}
	case vNumberSign:
		switch {
		case c == '0':
			v.state = vNumberZero
		case '1' <= c && c <= '9':
			v.state = vNumberInt
		default:
			v.failed = true
		}
	case vNumberZero, vNumberInt:
		switch {
		case v.state == vNumberInt && '0' <= c && c <= '9':
		case c == '.':
			v.state = vNumberDot
		case c == 'e' || c == 'E':
			v.state = vNumberExp
		default:
			v.endValue()
			v.step(c)
		}
	case vNumberDot:
		if '0' <= c && c <= '9' {
			v.state = vNumberFrac
		} else {
			v.failed = true
		}
	case vNumberFrac:
		switch {
		case '0' <= c && c <= '9':
		case c == 'e' || c == 'E':
			v.state = vNumberExp
		default:
			v.endValue()
			v.step(c)
		}
	case vNumberExp:
		switch {
		case c == '+' || c == '-':
			v.state = vNumberExpSign
		case '0' <= c && c <= '9':
			v.state = vNumberExpDigits
		default:
			v.failed = true
		}
	case vNumberExpSign:
		if '0' <= c && c <= '9' {
			v.state = vNumberExpDigits
		} else {
			v.failed = true
		}
	case vNumberExpDigits:
		if !('0' <= c && c <= '9') {
			v.endValue()
			v.step(c)
		}
	}
}

// value starts a value at c.
func (v *validator) value(c byte) {
	if v.done {
		v.failed = true
		return
	}
	switch {
	case c == '{' || c == '[':
		if len(v.stack) >= maxDepth {
			v.failed = true
			return
		}
		v.stack = append(v.stack, c)
		if c == '{' {
			v.state, v.literal = vObjectKey, "{" // "{" marks an object that may close at once
		} else {
			v.state = vValue
			v.literal = "["
		}
	case c == ']' && v.literal == "[" && len(v.stack) > 0 && v.stack[len(v.stack)-1] == '[':
		v.literal = ""
		v.close('[')
	case c == '"':
		v.literal = ""
		v.state = vString
	case c == '-':
		v.literal = ""
		v.state = vNumberSign
	case c == '0':
		v.literal = ""
		v.state = vNumberZero
	case '1' <= c && c <= '9':
		v.literal = ""
		v.state = vNumberInt
	case c == 't':
		v.state, v.literal = vLiteral, "rue"
	case c == 'f':
		v.state, v.literal = vLiteral, "alse"
	case c == 'n':
		v.state, v.literal = vLiteral, "ull"
	default:
		v.failed = true
	}
}

// close closes the innermost container, which must be open.
func (v *validator) close(open byte) {
	n := len(v.stack)
	if n == 0 || v.stack[n-1] != open {
		v.failed = true
		return
	}
	v.stack = v.stack[:n-1]
	v.endValue()
}
