package frame

import (
	"strings"
	"unsafe"
)

// Arena holds copies of frames made to outlive the Reader's buffer: the parse stage
// of an analysis reads ahead of the replay, so each frame it hands over is copied
// once, with every slice and string of it pointing into the copy. An Arena is
// reused: Reset makes its memory available again once the frames copied into it are
// no longer used.
type Arena struct {
	chunks [][]byte
	cur    int
	// views are the views (text and index) of the frames detached since the last
	// Reset; spare are views ready to be filled again (see view and lend).
	views, spare []*textView
	// indexed is the memory of the detached frames' indexes since the last Reset.
	indexed int
	// handed is the bytes of the frames detached since the last Reset that kept
	// memory handed off to them (Frame.handoff) instead of a copy.
	handed int
	// lines are the long lines' buffers those frames keep that go back to their
	// Reader's pool at Reset (see lineBuffers).
	lines []heldLine
	// reason and stream are the last copies made of a direction's reason and a
	// stream key that did not lie in their frame's bytes: the next frames, which
	// mostly have the same, share them (see rebaseRepeated). Copies are heap
	// strings, valid after Reset.
	reason, stream string
}

// arenaChunk is the size of the arena's largest blocks; a frame larger than a quarter
// of it gets a block of its own. The first block is firstArenaChunk.
const (
	arenaChunk      = 1 << 20
	firstArenaChunk = 16 << 10
)

// Reset forgets what was copied; the memory is reused by the next copies. The old
// contents are cleared first: a consumer that kept a frame's bytes past their life
// (instead of copying them) then sees zeros, which tests notice, rather than
// plausible bytes of a later frame.
func (a *Arena) Reset() {
	for i := range a.chunks {
		clear(a.chunks[i])
		a.chunks[i] = a.chunks[i][:0]
	}
	// The views keep index memory for the lines to come, at most twice what the
	// batch's indexes used: a view keeps the capacity of the largest index it ever
	// held, and without the bound the views of payload-heavy batches came to keep
	// 10 MiB an arena for 2-3 MiB of indexes (half the live heap). The small
	// indexes, which most lines need, are kept first: when the large ones came
	// first in the budget, a batch of payload-heavy left most of its views with no
	// memory, and a line scanned into one grew its tokens five or six times (an
	// allocation a line on 1 GiB, 16% of the parse stage's CPU).
	budget, kept := 2*a.indexed+spareFloor, 0
	a.cur, a.indexed, a.handed = 0, 0, 0
	a.releaseLines()
	for _, v := range a.views {
		if c := v.ix.capacity(); c <= smallIndex {
			kept += c
		}
	}
	for _, v := range a.views {
		v.text = nil
		if cap(v.ix.tokens) > maxSpareTokens {
			continue // a giant frame's index: not kept for the small ones to come
		}
		if c := v.ix.capacity(); c > smallIndex {
			if kept += c; kept > budget {
				v.ix.tokens = nil // the view is kept, its memory is not
			}
		}
		a.spare = append(a.spare, v)
	}
	clear(a.views)
	a.views = a.views[:0]
}

// Release gives the long lines' buffers the arena's frames keep back to their
// pool, for an arena that is dropped instead of reset (its frames no longer
// used): the rest of its memory goes to the collector, but a line's buffer,
// left with it, would make the pool allocate a new one for the next long line.
func (a *Arena) Release() { a.releaseLines() }

// releaseLines gives the long lines' buffers back to their pool.
func (a *Arena) releaseLines() {
	for i, l := range a.lines {
		l.pool.put(l.buf)
		a.lines[i] = heldLine{}
	}
	a.lines = a.lines[:0]
}

// Bounds of the index memory a spare view keeps, and the index memory the spare
// views of an arena keep beyond twice what its last batch used.
const (
	maxSpareTokens = 16 << 10
	spareFloor     = 256 << 10
	// smallIndex is the index memory of a typical message (a few hundred tokens).
	smallIndex = 4 << 10
)

// capacity is the memory the index's arrays hold, in bytes.
func (ix *index) capacity() int {
	return cap(ix.tokens) * int(unsafe.Sizeof(Token{}))
}

// Used is how many bytes the frames detached since the last Reset hold: the bytes
// copied into the arena's blocks or handed off to them, and their indexes.
func (a *Arena) Used() int {
	n := a.indexed + a.handed
	for _, c := range a.chunks[:min(a.cur+1, len(a.chunks))] {
		n += len(c)
	}
	return n
}

// Copy copies b into the arena.
func (a *Arena) Copy(b []byte) []byte { return a.copyBytes(b) }

// copyBytes copies b into the arena.
func (a *Arena) copyBytes(b []byte) []byte {
	if len(b) == 0 {
		return b
	}
	if len(b) > arenaChunk/4 {
		return append([]byte(nil), b...)
	}
	for a.cur < len(a.chunks) && cap(a.chunks[a.cur])-len(a.chunks[a.cur]) < len(b) {
		a.cur++
	}
	if a.cur == len(a.chunks) {
		// Blocks double from firstArenaChunk up to arenaChunk: a small capture
		// (most of an archive) never allocates and clears a whole arenaChunk.
		size := min(firstArenaChunk<<len(a.chunks), arenaChunk)
		a.chunks = append(a.chunks, make([]byte, 0, max(size, len(b))))
	}
	c := a.chunks[a.cur]
	start := len(c)
	c = append(c, b...)
	a.chunks[a.cur] = c
	return c[start:len(c):len(c)]
}

// Detach copies a frame (and its batch members) into the arena: the copy shares no
// memory with the Reader, so it stays valid after the next call to Next, until the
// arena is reset. The frame's view (its text and index) is copied with it. HTTP
// exchanges are allocated per entry by the readers and are kept.
func (f *Frame) Detach(a *Arena, into *Frame) { f.detach(a, into, false) }

// detach is Detach; with take, f's view (its index) is handed over to the copy
// instead of being copied, and detach reports whether it was: the caller sees to it
// that no other frame uses the view (see Reader.Detach).
func (f *Frame) detach(a *Arena, into *Frame, take bool) (took bool) {
	old := f.Raw
	if f.view != nil && within(f.view.text, unsafe.Pointer(unsafe.SliceData(f.Raw)), len(f.Raw)) >= 0 {
		old = f.view.text
	}
	if !take || f.view == nil || len(old) != len(f.view.text) {
		f.ShapeNow() // from the tokens of a view the copy does not take along
	}
	*into = *f
	c := old
	if !f.handoff {
		c = a.copyBytes(old)
	} else {
		a.handed += len(old)
	}
	into.Raw = rebaseBytes(old, c, f.Raw)
	into.rebase(old, c, a)
	if f.view != nil && len(old) == len(f.view.text) {
		var v *textView
		if take {
			v, took = f.view, true
			a.views = append(a.views, v)
		} else {
			v = a.view()
			// The tokens go along: the copy's Node reads them (its shape is
			// computed already: the copy's index has no shaper).
			v.ix.tokens, v.ix.taped = append(v.ix.tokens[:0], f.view.ix.tokens...), f.view.ix.taped
		}
		v.text = c
		into.view = v
		a.indexed += len(v.ix.tokens) * int(unsafe.Sizeof(Token{}))
	} else {
		into.view, into.root = nil, -1
	}
	if len(f.Members) > 0 {
		into.Members = make([]Frame, len(f.Members))
		for i := range f.Members {
			m := &into.Members[i]
			*m = f.Members[i]
			m.Members = nil
			m.Raw = rebaseBytes(old, c, m.Raw)
			m.rebase(old, c, a)
			if m.view != nil {
				m.view = into.view
			}
			if m.view == nil {
				m.root = -1
			}
		}
	}
	return took
}

// view returns a text view to fill, one of the arena's frames until the next Reset.
func (a *Arena) view() *textView {
	v := a.lend(nil)
	a.views = append(a.views, v)
	return v
}

// lend returns a spare text view that the arena no longer holds (a new one when it
// has none), its index set to shape with shaper: the Reader scans the next line into
// it, and a Detach that takes it gives it back.
func (a *Arena) lend(shaper Shaper) *textView {
	var v *textView
	if n := len(a.spare); n > 0 {
		v, a.spare[n-1] = a.spare[n-1], nil
		a.spare = a.spare[:n-1]
	} else {
		v = &textView{}
	}
	v.ix.shaper = shaper
	return v
}

// rebase points the frame's sub-slices and strings, which were taken from old, at the
// same bytes of c (a copy of old); what does not lie in old is copied (once for
// the arena a, for a string that repeats).
func (f *Frame) rebase(old, c []byte, a *Arena) {
	f.Params = rebaseBytes(old, c, f.Params)
	f.Result = rebaseBytes(old, c, f.Result)
	f.Method = rebaseString(old, c, f.Method)
	f.ID = rebaseString(old, c, f.ID)
	f.ErrorMessage = rebaseString(old, c, f.ErrorMessage)
	f.Detail = rebaseString(old, c, f.Detail)
	f.DirReason = rebaseRepeated(old, c, f.DirReason, &a.reason)
	f.StreamKey = rebaseRepeated(old, c, f.StreamKey, &a.stream)
}

// within returns the offset of p in old, or -1.
func within(old []byte, p unsafe.Pointer, n int) int {
	if len(old) == 0 || p == nil {
		return -1
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(old)))
	at := uintptr(p)
	if at < base || at+uintptr(n) > base+uintptr(len(old)) {
		return -1
	}
	return int(at - base)
}

func rebaseBytes(old, c, b []byte) []byte {
	if b == nil {
		return nil
	}
	if len(b) == 0 {
		return b[:0:0]
	}
	if off := within(old, unsafe.Pointer(unsafe.SliceData(b)), len(b)); off >= 0 {
		return c[off : off+len(b) : off+len(b)]
	}
	return append([]byte(nil), b...)
}

// rebaseRepeated is rebaseString for a string that repeats from frame to frame (a
// bare line's direction reason, a constant; a stream key): one that does not lie
// in old and equals *last, the copy made for an earlier frame, is that copy.
func rebaseRepeated(old, c []byte, s string, last *string) string {
	if s == "" {
		return ""
	}
	if off := within(old, unsafe.Pointer(unsafe.StringData(s)), len(s)); off >= 0 {
		return unsafe.String(&c[off], len(s))
	}
	if s != *last {
		*last = strings.Clone(s)
	}
	return *last
}

func rebaseString(old, c []byte, s string) string {
	if s == "" {
		return ""
	}
	if off := within(old, unsafe.Pointer(unsafe.StringData(s)), len(s)); off >= 0 {
		return unsafe.String(&c[off], len(s))
	}
	return strings.Clone(s)
}
