package report

import (
	"io"
	"sync"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// PipelinedStream does the work of a Stream (building each session's report view,
// redacting and encoding it, spooling it) on a goroutine of its own, in the order
// the calls came, so that writing the report of a capture of many sessions runs
// beside its analysis instead of after each session on the analysis' goroutine. A
// session's result is final once it is handed over (driver.RunOptions.OnSession), so
// the two goroutines share nothing that changes.
//
// The calls are handed over in groups (groupSize, and the rest when an input
// ends): a capture of many short sessions ends one every few lines, and handing
// each over alone woke the stream's goroutine each time (on 512 MiB of
// tiny-sessions, 20,000 context switches and 5% of the CPU; 6,000 in groups).
// Nothing is written before Finish, so a group's wait delays no output.
type PipelinedStream struct {
	inner Stream
	work  chan []func() error
	// group is the calls not yet handed over (the caller's goroutine only).
	group []func() error
	done  chan struct{}
	mu    sync.Mutex
	err   error
	once  sync.Once
}

// pipelineDepth bounds the calls waiting for the stream's goroutine (handed over
// or gathering, in groups of groupSize): memory stays bounded by a few sessions'
// results.
const (
	pipelineDepth = 64
	groupSize     = 16
)

// Pipelined starts the goroutine that does inner's work. Wait (or Finish) ends it.
func Pipelined(inner Stream) *PipelinedStream {
	p := &PipelinedStream{inner: inner, work: make(chan []func() error, pipelineDepth/groupSize-1), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for g := range p.work {
			for _, w := range g {
				if err := w(); err != nil {
					p.mu.Lock()
					if p.err == nil {
						p.err = err
					}
					p.mu.Unlock()
				}
			}
		}
	}()
	return p
}

// Session hands the session over; it returns the first error of the work done so
// far (a later one is returned by Wait).
func (p *PipelinedStream) Session(sr *rule.SessionResult, tr *trace.Trace) error {
	p.hand(func() error { return p.inner.Session(sr, tr) })
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Prepare is the inner stream's, on the calling goroutine.
func (p *PipelinedStream) Prepare(sr *rule.SessionResult, tr *trace.Trace) (*Prepared, error) {
	return p.inner.Prepare(sr, tr)
}

// Add hands a prepared session over, as Session does.
func (p *PipelinedStream) Add(prepared *Prepared) error {
	p.hand(func() error { return p.inner.Add(prepared) })
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Input hands the input over, after its sessions.
func (p *PipelinedStream) Input(in *driver.InputResult) {
	p.hand(func() error { p.inner.Input(in); return nil })
	p.flush()
}

// hand adds a call to the group, which goes over once full.
func (p *PipelinedStream) hand(w func() error) {
	p.group = append(p.group, w)
	if len(p.group) >= groupSize {
		p.flush()
	}
}

// flush hands the group over (blocking while the stream's goroutine is a
// pipeline's depth behind).
func (p *PipelinedStream) flush() {
	if len(p.group) > 0 {
		p.work <- p.group
		p.group = make([]func() error, 0, groupSize)
	}
}

// Wait lets the stream's goroutine finish what it was given, ends it, and returns
// the first error of that work. Only Finish and worst may follow it.
func (p *PipelinedStream) Wait() error {
	p.once.Do(func() { p.flush(); close(p.work) })
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Errors takes the inputs that could not be read or judged (after Wait).
func (p *PipelinedStream) Errors(errs []InputError) {
	p.Wait()
	p.inner.Errors(errs)
}

// Finish writes the whole report, once every session given has been spooled.
func (p *PipelinedStream) Finish(w io.Writer, spool io.ReaderAt) error {
	if err := p.Wait(); err != nil {
		return err
	}
	return p.inner.Finish(w, spool)
}
