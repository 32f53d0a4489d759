package frame

import "sync"

// aheadBudget bounds what a goroutine reading ahead of a Reader holds that the
// Reader has not taken yet (the line blocks of scanAhead, the entries of
// entriesAhead): the reading waits while it is at the bound, so that one more
// block or entry is read only below it (one alone may take it past).
type aheadBudget struct {
	mu       sync.Mutex
	room     sync.Cond
	inFlight int
	max      int
	closed   bool
}

func newAheadBudget(max int) *aheadBudget {
	b := &aheadBudget{max: max}
	b.room.L = &b.mu
	return b
}

// wait waits until what is in flight is below the bound; false once closed.
func (b *aheadBudget) wait() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.inFlight >= b.max && !b.closed {
		b.room.Wait()
	}
	return !b.closed
}

// account adds n to what is in flight (n < 0: the Reader took it).
func (b *aheadBudget) account(n int) {
	b.mu.Lock()
	b.inFlight += n
	if n < 0 {
		b.room.Signal()
	}
	b.mu.Unlock()
}

// close ends the waiting: wait returns false from then on.
func (b *aheadBudget) close() {
	b.mu.Lock()
	b.closed = true
	b.room.Broadcast()
	b.mu.Unlock()
}
