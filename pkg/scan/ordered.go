package scan

import "sync"

// Window bounds the work Ordered has done or under way and not yet emitted. A
// result waits for every result before it, so one long piece of work (a big file
// among small ones) holds back the results done after it: a window of a few
// results then leaves the other jobs idle until it ends. The window is counted in
// results (Most) and in the weight of their work (Weight, Budget: for files, their
// size, which bounds what their results hold). Work is always started while fewer
// results than jobs are held, so that every job has work.
type Window struct {
	Most   int               // results held at most; 0: twice the jobs
	Weight func(i int) int64 // the weight of work i; nil: no weight
	Budget int64             // the weight held at most (beyond the jobs' own work)
}

// Ordered runs work for the indexes 0..n-1 on at most jobs goroutines and hands
// each result to emit in index order, on the calling goroutine, as soon as it and
// every result before it are done, whatever order the work finishes in. What is
// done or under way and not yet emitted is bounded by the window, so memory is
// bounded by it, not by n.
func Ordered[T any](n, jobs int, win Window, work func(i int) T, emit func(i int, v T)) {
	if n <= 0 {
		return
	}
	jobs = max(1, min(jobs, n))
	most := win.Most
	if most <= 0 {
		most = 2 * jobs
	}
	most = max(most, jobs)
	weight := func(i int) int64 {
		if win.Weight == nil {
			return 0
		}
		return win.Weight(i)
	}
	type done struct {
		i int
		v T
	}
	// held and heldWeight count the work started and not yet emitted.
	var (
		mu         sync.Mutex
		freed      = sync.NewCond(&mu)
		held       int
		heldWeight int64
	)
	todo := make(chan int)
	results := make(chan done, most)
	go func() {
		defer close(todo)
		for i := range n {
			w := weight(i)
			mu.Lock()
			for held >= jobs && (held >= most || heldWeight+w > win.Budget) {
				freed.Wait()
			}
			held++
			heldWeight += w
			mu.Unlock()
			todo <- i
		}
	}()
	var wg sync.WaitGroup
	for range jobs {
		wg.Go(func() {
			for i := range todo {
				results <- done{i, work(i)}
			}
		})
	}
	go func() {
		wg.Wait()
		close(results)
	}()
	pending := make(map[int]T, most)
	next := 0
	for d := range results {
		pending[d.i] = d.v
		for {
			v, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			emit(next, v)
			mu.Lock()
			held--
			heldWeight -= weight(next)
			freed.Signal()
			mu.Unlock()
			next++
		}
	}
}
