// This file holds how the trace reads message values and kept definitions
// (frame.Node) where the text it shows depends on how a JSON value is turned into
// text or walked: as the traces and diffs have always shown it.

package trace

import (
	"strconv"

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
