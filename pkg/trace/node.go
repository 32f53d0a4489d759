// This file holds how the trace reads message values and kept definitions
// (frame.Node) where the text it shows depends on how a JSON value is turned into
// text or walked: as the traces and diffs have always shown it.

package trace

import (
	"strconv"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
)

// child is the value of one member of an object, named literally (the first member
// of the name), or the element of an array that a name of digits numbers ("0");
// the zero Node otherwise. What gjson's Get of one escaped name answered.
func child(n frame.Node, name string) frame.Node {
	if n.IsArray() {
		i, err := strconv.ParseUint(name, 10, 63)
		if err != nil {
			return frame.Node{}
		}
		v, _ := n.Index(int(i))
		return v
	}
	v, _ := n.Get(name)
	return v
}

// each calls yield with each member of an object (its name), each element of an
// array (its index in decimal), or any other value once with the name ""; nothing
// for an absent value. What gjson's ForEach gave, with the key as its String.
func each(n frame.Node, yield func(key string, v frame.Node) bool) {
	switch n.Kind() {
	case 0:
	case '{':
		n.Members(yield)
	case '[':
		n.Elements(func(i int, v frame.Node) bool { return yield(strconv.Itoa(i), v) })
	default:
		yield("", n)
	}
}

// text is a value as text, aliasing its bytes when it can: a string's value
// (unescaped), a number as written when it is an integer written with digits only
// (any other number as strconv.FormatFloat(v, 'f', -1, 64) renders it), true and
// false, an object's or array's JSON text, "" for null or an absent value. What
// gjson's Result.String gave.
func text(n frame.Node) string {
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
		return string(raw)
	case 't':
		return "true"
	case 'f':
		return "false"
	case '{', '[':
		return string(n.Raw())
	}
	return ""
}

// truth is a value as a flag: true, a string that strconv.ParseBool reads as true
// in any case ("True", "1"), a number other than 0; false otherwise. What gjson's
// Result.Bool gave.
func truth(n frame.Node) bool {
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
