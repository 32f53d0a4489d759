package frame

import "github.com/tidwall/gjson"

// Value is one member's value as ParamMembers yields it: read through the frame's
// index, or from its bytes for a frame that has none. An iteration that looks
// at a few members of many converts only those it asks for (Result); the others
// cost a key comparison. A Value aliases the frame, and is valid as long as the
// frame is.
type Value struct {
	view *textView
	at   int32  // the value's entry in view's index (view != nil)
	raw  string // the value's bytes, when there is no index (view == nil)
}

// Result is the value as gjson reads it.
func (v Value) Result() gjson.Result {
	if v.view != nil {
		return v.view.ix.result(v.view.text, v.at)
	}
	return gjson.Parse(v.raw)
}

// Raw is the value's JSON text.
func (v Value) Raw() string {
	if v.view != nil {
		return view(v.view.ix.raw(v.view.text, v.at))
	}
	return v.raw
}

// IsNull reports whether the value is JSON null.
func (v Value) IsNull() bool {
	if v.view != nil {
		return v.view.ix.tokens[v.at].Kind == 'n'
	}
	return gjson.Parse(v.raw).Type == gjson.Null
}

// Members calls yield with the key and value of each member of the value, in
// document order, until yield returns false: what gjson's ForEach gives on Result
// (for a value that is not an object or array, the value once, with an empty key).
func (v Value) Members(yield func(key string, value Value) bool) {
	if v.view != nil {
		switch v.view.ix.tokens[v.at].Kind {
		case '{':
			indexedMembers(v.view, v.at, yield)
			return
		case '[':
			ix := &v.view.ix
			for c := ix.child(v.at); c >= 0; c = ix.sibling(c) {
				if !yield("", Value{view: v.view, at: c}) {
					return
				}
			}
			return
		}
	}
	forEachMember(v.Result(), yield)
}

// ParamMembers calls yield with the key (unescaped) and value of each member of the
// object at path below params ("" for params itself), in document order, until
// yield returns false: what gjson's ForEach gives on f.Param(path), read from the
// frame's index (gjson would scan the bytes of each value to find where it ends,
// arguments and all), from the bytes for a frame that has none. Keys and values
// alias the frame.
func (f *Frame) ParamMembers(path string, yield func(key string, value Value) bool) {
	if o, ok := f.indexedObject(f.paramsAt, f.Params, path); ok {
		indexedMembers(f.view, o, yield)
		return
	}
	forEachMember(f.Param(path), yield)
}

// indexedMembers yields the members of the indexed object at o.
func indexedMembers(v *textView, o int32, yield func(key string, value Value) bool) {
	ix, text := &v.ix, v.text
	for c := ix.child(o); c >= 0; c = ix.sibling(c) {
		if !yield(ix.key(text, c), Value{view: v, at: c}) {
			return
		}
	}
}

// forEachMember yields the members of a value read from its bytes, as gjson's
// ForEach visits them.
func forEachMember(r gjson.Result, yield func(key string, value Value) bool) {
	r.ForEach(func(k, v gjson.Result) bool {
		return yield(k.Str, Value{raw: v.Raw})
	})
}

// indexedObject finds the object at path below the entry at (whose bytes are raw)
// through the index; ok=false otherwise (no index, not an object, not there).
func (f *Frame) indexedObject(at int32, raw []byte, path string) (int32, bool) {
	if raw == nil || at <= 0 || f.view == nil || f.root < 0 || int(at) >= len(f.view.ix.tokens) || !plainPath(path) {
		return 0, false
	}
	ix := &f.view.ix
	at, rest, absent := ix.follow(f.view.text, at, path)
	if absent || rest != "" {
		return 0, false
	}
	return at, ix.tokens[at].Kind == '{'
}
