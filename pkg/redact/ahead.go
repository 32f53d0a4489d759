package redact

import (
	"hash/maphash"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
)

// Collecting ahead: CollectFrame walks every value of a frame, decodes its strings
// and hashes each form of them, which is most of what redaction costs, on the
// replay, where the session's set is. The walk needs nothing of the set but its
// seed and its bounds, so it can run earlier, on the parse stage, while that
// stage waits for the replay (driver.RunOptions.Prepare): a Collector records
// what the walk would add, hashes included, and the replay adds the record to the
// session's set (AddCollected), which decides then, as Add would have, what its
// bounds still admit. The set is the same either way (TestCollectAheadIsCollect).

// A Collection is what CollectFrame would add to a set of its seed, in order.
type Collection struct {
	seed  maphash.Seed
	forms []collected
}

// collected is one entry of a Collection: a value whose forms follow (value
// set: what Add admits, by the value's length in n), or one form of the value
// before it (its hash, length, characters and first bytes), or, with n 0, a
// head of the value before, when that value is too long to keep (recordHeads).
type collected struct {
	hash   uint64
	start  uint64 // the hash of a form's first startBytes bytes (startOf)
	n      int32
	chars  int32
	prefix uint32
	value  bool
}

// A Collector records what CollectFrame adds to a set of its seed that is neither
// full nor saturated (Collect); AddCollected adds the record to such a set. One
// goroutine uses a Collector at a time.
type Collector struct {
	rec Set // the recorder: a Set with ahead set, and its scratch
	// forms is where a frame's entries are recorded (reused): a collection
	// gets a copy of exactly their size, one allocation however many there are.
	forms Collection
	// memo holds the kept values that added nothing, across the frames and
	// sessions the Collector sees (walk.keepWhole).
	memo keptMemo
	// Collections are handed out of chunks, a frame's entries and its
	// Collection (a frame's walk made two allocations, 4% of a --redact run's
	// CPU with the collector's share): a chunk lives as long as the last
	// collection in it. empty is the collection of every frame that adds
	// nothing (AddCollected only reads collections).
	entries     []collected
	collections []Collection
	empty       *Collection
}

// Sizes of the chunks a Collector hands collections out of.
const (
	entriesChunk     = 4096
	collectionsChunk = 256
)

// NewCollector returns a Collector for the sets that hash with seed
// (NewSeededSet).
func NewCollector(seed maphash.Seed) *Collector {
	return &Collector{rec: Set{seed: seed}, memo: keptMemo{seed: maphash.MakeSeed()}, empty: &Collection{seed: seed}}
}

// Collect records what CollectFrame(f, set) would add. It reads f and nothing
// else: it may run on any goroutine while no other writes f.
func (c *Collector) Collect(f *frame.Frame) *Collection {
	c.forms.forms = c.forms.forms[:0]
	c.rec.ahead = &c.forms
	collectFrame(f, &c.rec, &c.memo)
	c.rec.ahead = nil
	n := len(c.forms.forms)
	if n == 0 {
		return c.empty
	}
	if n > cap(c.entries)-len(c.entries) {
		c.entries = make([]collected, 0, max(entriesChunk, n))
	}
	at := len(c.entries)
	c.entries = append(c.entries, c.forms.forms...)
	if len(c.collections) == cap(c.collections) {
		c.collections = make([]Collection, 0, collectionsChunk)
	}
	c.collections = append(c.collections, Collection{seed: c.rec.seed, forms: c.entries[at : at+n : at+n]})
	return &c.collections[len(c.collections)-1]
}

// CollectInto is CollectFrame(f, set), with the Collector's memo of the kept
// values that added nothing (it records nothing: the values go to set).
func (c *Collector) CollectInto(f *frame.Frame, set *Set) { collectFrame(f, set, &c.memo) }

// Bounds of a keptMemo: values shorter than minMemoBytes are walked again
// (hashing them would cost about what walking them does); past maxMemoValues
// the memo starts again empty.
const (
	minMemoBytes  = 32
	maxMemoValues = 4096
)

// keptMemo remembers kept values whose walk, collecting, added nothing to a set:
// no secret in their strings, no credential's member in their objects. A value
// is known by its bytes' hash and length, and the depth it was walked at (how
// deep a value may go depends on it).
type keptMemo struct {
	seed  maphash.Seed
	clean map[keptKey]struct{}
	// inertShapes are the wire shapes of frames whose walk read no value
	// (collectFrame), at most maxMemoValues.
	inertShapes map[uint64]struct{}
}

// inert reports whether frames of the wire shape read no value.
func (m *keptMemo) inert(shape uint64) bool {
	_, ok := m.inertShapes[shape]
	return ok
}

// rememberInert remembers a wire shape whose frame's walk read no value.
func (m *keptMemo) rememberInert(shape uint64) {
	if m.inertShapes == nil || len(m.inertShapes) >= maxMemoValues {
		m.inertShapes = make(map[uint64]struct{}, 64)
	}
	m.inertShapes[shape] = struct{}{}
}

type keptKey struct {
	hash     uint64
	n, depth int32
}

func (m *keptMemo) key(raw []byte, depth int) keptKey {
	return keptKey{hash: maphash.Bytes(m.seed, raw), n: int32(len(raw)), depth: int32(depth)}
}

func (m *keptMemo) remember(k keptKey) {
	if m.clean == nil || len(m.clean) >= maxMemoValues {
		m.clean = make(map[keptKey]struct{}, 64)
	}
	m.clean[k] = struct{}{}
}

// record is Set.add and Set.admits of a recorder: a form, or a value whose forms
// follow.
func (c *Collection) record(k valueKey, chars int, prefix uint32, start uint64, value bool) {
	c.forms = append(c.forms, collected{hash: k.hash, start: start, n: int32(k.n), chars: int32(chars), prefix: prefix, value: value})
}

// AddCollected adds what Collect recorded, as CollectFrame would have added it
// to s: each value's forms when s still admits the value (its bounds are as the
// values added before left them). It reports false, adding nothing, when s
// hashes with another seed than the collection's: the caller collects the frame
// itself then.
func (s *Set) AddCollected(c *Collection) bool {
	if s == nil || c == nil {
		return s == nil
	}
	if c.seed != s.seed {
		return false
	}
	admitted, long := false, false
	for _, e := range c.forms {
		switch {
		case e.value:
			// As admits decides: room first, then the length a set keeps.
			admitted = !s.saturated() && !s.tooLong(int(e.n))
			long = admitted && e.n > MaxValue
			if long {
				s.Long, admitted = true, false
			}
		case e.n == 0:
			// A head of the value before, left out (recordHeads).
			if long {
				s.addHead(e.prefix, e.start)
			}
		case admitted:
			s.insert(valueKey{hash: e.hash, n: int(e.n)}, int(e.chars), e.prefix, e.start)
		}
	}
	return true
}
