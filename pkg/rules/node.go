package rules

import (
	"strconv"
	"unsafe"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
)

// The rules read messages through frame.Node (Message.Node, ParamsNode,
// ResultNode): nothing is parsed again, and nothing is copied but a string with
// escapes. The helpers below give the answers the rules gave when they read
// through gjson, where a Node's own methods answer otherwise (a number's text, a
// string "true" read as a flag, a value that is not a container iterated once).
// What they return aliases the frame, as the Node does: a value kept past the
// message is cloned where it is kept.

// get is the value at a path of member names below n (the first member of a name,
// as gjson reads a path); the zero Node when there is none.
func get(n frame.Node, names ...string) frame.Node {
	v, _ := n.Path(names...)
	return v
}

// numberOf is a value as a number, as gjson's Result.Float reads it: a number, a
// string that strconv.ParseFloat reads ("5"), 1 for true, 0 for anything else.
func numberOf(n frame.Node) float64 {
	switch n.Kind() {
	case '0':
		f, _ := n.Float()
		return f
	case '"':
		s, _ := n.Str()
		f, _ := strconv.ParseFloat(s, 64)
		return f
	case 't':
		return 1
	}
	return 0
}

// eachValue calls yield with what gjson's ForEach gives of n, until yield returns
// false: an object's member values, an array's elements, any other value once (a
// string, a number, null), nothing when there is no value.
func eachValue(n frame.Node, yield func(v frame.Node) bool) {
	switch n.Kind() {
	case 0:
	case '{':
		for _, v := range n.Members {
			if !yield(v) {
				return
			}
		}
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

// eachKeyed is eachValue with the key as gjson's ForEach gives it (its String): a
// member's name, an array element's index ("0", "1"), "" for a value that is not
// a container.
func eachKeyed(n frame.Node, yield func(key string, v frame.Node) bool) {
	switch n.Kind() {
	case 0:
	case '{':
		n.Members(yield)
	case '[':
		for i, v := range n.Elements {
			if !yield(strconv.Itoa(i), v) {
				return
			}
		}
	default:
		yield("", n)
	}
}

// rawText is the value's JSON text as a string that aliases the frame (no copy):
// a lookup key, or a value cloned where it is kept. "" for no value.
func rawText(n frame.Node) string {
	raw := n.Raw()
	if len(raw) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(raw), len(raw))
}
