package scan

import "sync"

// Ordered runs work for the indexes 0..n-1 on at most jobs goroutines and hands
// each result to emit in index order, on the calling goroutine, as soon as it and
// every result before it are done, whatever order the work finishes in. At most
// 2*jobs results are done or under way and not yet emitted, so memory is bounded
// by the jobs, not by n.
func Ordered[T any](n, jobs int, work func(i int) T, emit func(i int, v T)) {
	if n <= 0 {
		return
	}
	jobs = max(1, min(jobs, n))
	window := 2 * jobs
	type done struct {
		i int
		v T
	}
	todo := make(chan int)
	results := make(chan done, window)
	slots := make(chan struct{}, window) // a slot is taken when work starts, freed when emitted
	go func() {
		defer close(todo)
		for i := range n {
			slots <- struct{}{}
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
	pending := make(map[int]T, window)
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
			next++
			<-slots
		}
	}
}
