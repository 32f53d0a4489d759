package frame

import "github.com/tidwall/gjson"

// ParamMembers calls yield with the key and value of each member of the object at
// path below params ("" for params itself), in document order, until yield returns
// false: what gjson's ForEach gives on f.Param(path), read from the frame's index
// where it holds every member (gjson scans the bytes of each value to find where
// it ends, arguments and all), from the bytes otherwise. Values alias the frame.
func (f *Frame) ParamMembers(path string, yield func(key, value gjson.Result) bool) {
	if o, ok := f.indexedObject(f.paramsAt, f.Params, path); ok {
		ix, text := &f.view.ix, f.view.text
		for c := ix.entries[o].child; c >= 0; c = ix.entries[c].next {
			e := &ix.entries[c]
			key := gjson.Result{Type: gjson.String, Str: e.key(text), Raw: view(text[e.keyStart-1 : e.keyEnd+1]), Index: int(e.keyStart - 1)}
			if !yield(key, e.result(text)) {
				return
			}
		}
		return
	}
	f.Param(path).ForEach(yield)
}

// indexedObject finds the object at path below the entry at (whose bytes are raw)
// when the index holds all of its members; ok=false otherwise (not indexed, not
// all indexed, not an object, not there).
func (f *Frame) indexedObject(at int32, raw []byte, path string) (int32, bool) {
	if raw == nil || at <= 0 || f.view == nil || f.root < 0 || int(at) >= len(f.view.ix.entries) || !plainPath(path) {
		return 0, false
	}
	ix := &f.view.ix
	at, rest, absent := ix.follow(f.view.text, at, path)
	if absent || rest != "" {
		return 0, false
	}
	e := &ix.entries[at]
	return at, e.kind == '{' && e.complete
}
