// This file holds how the session reads message values (frame.Node) where the
// contract it rebuilds depends on how a JSON value is turned into text: as the
// reports have always said it (the text of a number, "" for null, the JSON of an
// object or array).

package session

import (
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
)

// member is the value of an object's member of that name (the first of the name),
// the zero Node when there is none or n is not an object.
func member(n frame.Node, name string) frame.Node {
	v, _ := n.Get(name)
	return v
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
