// This file holds how the session reads message values (frame.Node) where the
// contract it rebuilds depends on how a JSON value is turned into text: as the
// reports have always said it (the text of a number, "" for null, the JSON of an
// object or array).

package session

import (
	"strconv"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
)

// member is the value of an object's member of that name (the first of the name),
// the zero Node when there is none or n is not an object.
func member(n frame.Node, name string) frame.Node {
	v, _ := n.Get(name)
	return v
}

// text is a value as text, aliasing its message when it can: a string's value
// (unescaped), a number as written when it is an integer written with digits only
// (any other number as strconv.FormatFloat(v, 'f', -1, 64) renders it: 1.50 is
// "1.5", 1e3 is "1000"), true and false, an object's or array's JSON text, and ""
// for null or an absent value. It is what gjson's Result.String gave, which the
// session read these values with before frame.Node: kept so that a protocolVersion
// or a name that is not a string reads as it always did.
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

// values calls yield with each value a list member holds: the elements of an array,
// nothing for null or an absent member, and any other value once (a list given as
// one string is that string), as gjson's Result.Array listed them.
func values(n frame.Node, yield func(v frame.Node) bool) {
	switch n.Kind() {
	case 0, 'n':
		return
	case '[':
		for _, v := range n.Elements {
			if !yield(v) {
				return
			}
		}
	default:
		yield(n)
	}
}
