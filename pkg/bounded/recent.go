// Package bounded holds the memories a long capture must not let grow: tables of
// the most recent keys that forget the oldest, at a bounded cost.
package bounded

// Recent remembers values by key, the most recently added first, and forgets the
// oldest once more than limit keys were added (limit is given with each Put): it
// remembers at least the last limit/2 keys added and never more than limit. Keys
// are kept in two generations of limit/2: a new key goes into the current one, and
// when that is full the previous generation is forgotten as a whole and the
// current one becomes the previous. No key is ever deleted one by one, so a table
// that turns over keeps its memory (cleared, not reallocated) and a lookup costs
// at most two probes: a sliding window of exact size deleted and added a key for
// every request, which rebuilt the maps again and again (they keep the slots of
// deleted keys until they grow). The zero value is empty and ready.
type Recent[K comparable, V any] struct {
	cur, prev map[K]V
}

// Get returns the value of k and whether k is remembered.
func (r *Recent[K, V]) Get(k K) (V, bool) {
	if v, ok := r.cur[k]; ok {
		return v, true
	}
	v, ok := r.prev[k]
	return v, ok
}

// Put sets the value of k. A remembered key keeps its place (its age is that of
// its first Put); a new key is the newest. It returns how many keys it forgot to
// make room (0 or a whole generation).
func (r *Recent[K, V]) Put(k K, v V, limit int) (forgot int) {
	if _, ok := r.prev[k]; ok {
		r.prev[k] = v
		return 0
	}
	if r.cur == nil {
		r.cur = map[K]V{}
	}
	// One assignment both updates a key of the current generation and adds a new
	// one: the length tells which (a key is never in both generations).
	n := len(r.cur)
	r.cur[k] = v
	if len(r.cur) == n || n < max(1, limit/2) {
		return 0
	}
	// A new key, and the generation was full: the key starts the next one.
	delete(r.cur, k)
	forgot = len(r.prev)
	old := r.prev
	clear(old)
	if old == nil {
		old = map[K]V{}
	}
	r.prev, r.cur = r.cur, old
	r.cur[k] = v
	return forgot
}

// Len is how many keys are remembered.
func (r *Recent[K, V]) Len() int { return len(r.cur) + len(r.prev) }

// Clear forgets every key (keeping the memory for the next ones).
func (r *Recent[K, V]) Clear() {
	clear(r.cur)
	clear(r.prev)
}
