package session

import (
	"iter"
	"maps"

	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// requestTable holds requests by sender and id (requestKey): a map of ids per
// direction, so that a lookup hashes the id alone, not a struct around it (the
// outstanding table is asked several times a frame).
type requestTable struct {
	byDir [spec.S2C + 1]map[string]*Request
}

// get returns the request with key k, nil if none.
func (t *requestTable) get(k requestKey) *Request {
	if int(k.dir) >= len(t.byDir) {
		return nil
	}
	return t.byDir[k.dir][k.id]
}

// put stores r under k.
func (t *requestTable) put(k requestKey, r *Request) {
	m := t.byDir[k.dir]
	if m == nil {
		m = map[string]*Request{}
		t.byDir[k.dir] = m
	}
	m[k.id] = r
}

// remove deletes the request with key k.
func (t *requestTable) remove(k requestKey) {
	if int(k.dir) < len(t.byDir) {
		delete(t.byDir[k.dir], k.id)
	}
}

// len is the number of requests held.
func (t *requestTable) len() int {
	n := 0
	for _, m := range t.byDir {
		n += len(m)
	}
	return n
}

// all yields every request held, in no particular order.
func (t *requestTable) all() iter.Seq[*Request] {
	return func(yield func(*Request) bool) {
		for _, m := range t.byDir {
			for r := range maps.Values(m) {
				if !yield(r) {
					return
				}
			}
		}
	}
}

// clear empties the table and keeps its memory.
func (t *requestTable) clear() {
	for _, m := range t.byDir {
		clear(m)
	}
}
