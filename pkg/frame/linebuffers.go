package frame

import (
	"math/bits"
	"sync"
)

// lineBuffers are the buffers a Reader gathers lines longer than its read buffer
// into, reused from one long line to the next. A long line's frames keep its
// buffer instead of copying it (Frame.handoff); the arena they were detached into
// gives it back when it is reset (Arena.Reset), once the batch has been replayed.
// Before, each long line was gathered into fresh memory twice (parts, then the
// joined line): on captures of base64 blobs and multi-megabyte results the
// kernel's page faults, the runtime's zeroing and the collector's work on that
// memory took more CPU than reading the lines (docs/performance.md).
//
// A pool is safe for concurrent use (an arena may be reset on another goroutine
// than the one its Reader reads on).
type lineBuffers struct {
	mu   sync.Mutex
	free [][]byte
	kept int // the capacity of the free buffers, in bytes
	made int // buffers allocated (for tests: the pool serves the others)
}

// Sizes of the pool's buffers: lines are gathered in parts of linePart bytes (a
// line up to that long is never joined), and a buffer's capacity is a power of
// two, so that lines of similar sizes reuse each other's buffers. The pool keeps
// at most maxKeptLineBuffers bytes of free buffers: more goes to the collector.
const (
	linePart           = 1 << 20
	maxKeptLineBuffers = 32 << 20
)

// get returns an empty buffer of at least n bytes' capacity: the smallest free one
// that is large enough and at most twice the next power of two, or a new one of
// the next power of two. A larger free buffer is left for the line that needs it:
// a part taking a joined line's buffer made the next join allocate another (a
// payload-heavy capture's pool came to keep two 8 MiB buffers for one 5 MB line).
func (p *lineBuffers) get(n int) []byte {
	n = max(n, linePart)
	most := 2 << bits.Len(uint(n-1))
	p.mu.Lock()
	best := -1
	for i, b := range p.free {
		if cap(b) >= n && cap(b) <= most && (best < 0 || cap(b) < cap(p.free[best])) {
			best = i
		}
	}
	if best >= 0 {
		b := p.free[best]
		last := len(p.free) - 1
		p.free[best], p.free[last] = p.free[last], nil
		p.free = p.free[:last]
		p.kept -= cap(b)
		p.mu.Unlock()
		return b[:0]
	}
	p.made++
	p.mu.Unlock()
	size := n
	if n <= maxKeptLineBuffers {
		size = 1 << bits.Len(uint(n-1))
	}
	return make([]byte, 0, size)
}

// put gives a buffer back. Its bytes are cleared first, as Arena.Reset clears
// what it held: a consumer that kept a frame's bytes past their life then reads
// zeros, which tests notice, rather than a later line.
func (p *lineBuffers) put(b []byte) {
	if cap(b) == 0 {
		return
	}
	clear(b)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.kept+cap(b) > maxKeptLineBuffers {
		return
	}
	p.free = append(p.free, b[:0])
	p.kept += cap(b)
}

// putAll gives buffers back (a line's parts, dropped or failed).
func (p *lineBuffers) putAll(bufs [][]byte) {
	for _, b := range bufs {
		p.put(b)
	}
}

// heldLine is a long line's buffer an arena holds for its frames, and the pool
// it goes back to.
type heldLine struct {
	buf  []byte
	pool *lineBuffers
}
