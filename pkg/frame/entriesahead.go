package frame

import (
	"errors"
	"sync"
)

// Reading a document's entries ahead: a HAR capture is one JSON document, which
// regions cannot cut and whose entries' scan cannot be handed to the workers that
// scan lines ahead (scanAhead), so its parse stage did everything on one core:
// finding where each entry ends, its validating scan, reading the members the
// decoder keeps, then turning the entry into frames (its bodies' own scans, the
// events of an event stream). The first three depend on nothing but the entry, and
// were most of that stage's time (a HAR of Streamable HTTP sessions judged on two
// cores waited on its parse stage, while the replay had time to spare).
//
// entriesAhead does them on a goroutine of its own, a few blocks of entries ahead
// of the decoder, which takes them in document order: what the Reader returns is
// what it returns reading them itself, errors included, at the same entry. It is
// started once the document is positioned in its array of entries (the decoder's
// first call), and owns the document's reading from then on.

// Bounds of a block of entries handed over: entries, and their size as the
// decoder counts it (harEntry.size). Blocks in flight: aheadEntryBlocks waiting,
// one being read, one being taken; and the entries read and not yet taken at most
// maxAheadEntryBytes, but for one entry read when none was (an entry of tens of
// megabytes is read ahead alone).
const (
	aheadEntries       = 128
	aheadEntryBytes    = 512 << 10
	aheadEntryBlocks   = 2
	maxAheadEntryBytes = 4 * aheadEntryBytes
)

// entriesAhead reads entries of a document ahead of its decoder (see above).
type entriesAhead[T any] struct {
	order   chan *entryBlock[T]
	free    chan *entryBlock[T]
	stop    chan struct{}
	stopped sync.Once
	cur     *entryBlock[T]
	next    int
	// budget holds the size of the entries read and not yet taken (their
	// blocks not left by entry).
	budget *aheadBudget
}

// entryBlock is a run of entries read in document order; err, when set, is what
// ended the reading after them (io.EOF at the end of the array).
type entryBlock[T any] struct {
	entries []aheadEntry[T]
	bytes   int // their size (read's)
	err     error
}

// aheadEntry is one entry as read (read's result), and its index in the
// document's array (1-based, as jsonDoc counts them).
type aheadEntry[T any] struct {
	index int
	value T
}

// newEntriesAhead starts reading doc's entries with read, which must keep nothing
// of the Node it is given (it is gone at the next entry) and returns the size of
// what it kept (for the block's bound). The caller's goroutine must not touch doc
// again.
func newEntriesAhead[T any](doc *jsonDoc, read func(n Node, line int) (T, int)) *entriesAhead[T] {
	a := &entriesAhead[T]{
		order:  make(chan *entryBlock[T], aheadEntryBlocks),
		free:   make(chan *entryBlock[T], aheadEntryBlocks+2),
		stop:   make(chan struct{}),
		budget: newAheadBudget(maxAheadEntryBytes),
	}
	go a.run(doc, read)
	return a
}

func (a *entriesAhead[T]) run(doc *jsonDoc, read func(Node, int) (T, int)) {
	defer close(a.order) // after the last block: entry reports a reading stopped by Close
	for {
		var b *entryBlock[T]
		select {
		case b = <-a.free:
			clear(b.entries) // what the decoder took is its own now
			b.entries = b.entries[:0]
		default:
			b = &entryBlock[T]{entries: make([]aheadEntry[T], 0, aheadEntries)}
		}
		b.bytes = 0
		for len(b.entries) < aheadEntries && b.bytes < aheadEntryBytes {
			if !a.budget.wait() {
				return
			}
			n, line, err := doc.entry()
			if err != nil {
				b.err = err
				break
			}
			v, size := read(n, line)
			b.entries = append(b.entries, aheadEntry[T]{index: doc.entries, value: v})
			b.bytes += size
			a.budget.account(size)
		}
		select {
		case a.order <- b:
		case <-a.stop:
			return
		}
		if b.err != nil {
			return
		}
	}
}

// errEntriesStopped is what entry returns once Close stopped the reading before
// the entries ended.
var errEntriesStopped = errors.New("reading stopped (the Reader was closed)")

// entry returns the next entry and its index, or what ended the entries (then
// again on every later call).
func (a *entriesAhead[T]) entry() (v T, index int, err error) {
	for a.cur == nil || a.next == len(a.cur.entries) {
		if a.cur != nil {
			if a.cur.err != nil {
				return v, 0, a.cur.err
			}
			a.budget.account(-a.cur.bytes)
			select {
			case a.free <- a.cur:
			default:
			}
		}
		b, ok := <-a.order
		if !ok {
			a.cur = &entryBlock[T]{err: errEntriesStopped}
			return v, 0, a.cur.err
		}
		a.cur, a.next = b, 0
	}
	e := &a.cur.entries[a.next]
	a.next++
	return e.value, e.index, nil
}

// Close stops the reading (it may be called more than once).
func (a *entriesAhead[T]) Close() {
	a.stopped.Do(func() {
		a.budget.close()
		close(a.stop)
	})
}

// closeFunc is a Close that cannot fail, as an io.Closer (Reader.closers).
type closeFunc func()

func (f closeFunc) Close() error {
	f()
	return nil
}
