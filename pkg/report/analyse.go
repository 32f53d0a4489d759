package report

import (
	"errors"
	"io"
	"slices"
	"sort"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
)

// AnalyseOptions configure Analyse.
type AnalyseOptions struct {
	Run rule.RunOptions
	// Observer runs with the rules (nil: none is kept for the caller).
	Observer *Observer
	// OnSession receives each session's result as soon as the session ends (in the
	// order sessions end), with what the observer kept of it.
	OnSession func(*rule.SessionResult, *Trace)
	// Stream drops each session's result after OnSession: the returned input
	// result then holds no sessions, and memory stays bounded by one session.
	Stream bool
}

// Analyse reads one input to its end and analyses it with the given rules, like
// rule.Run, but hands each session over as soon as it ends, so that what is kept
// per session (frame summaries) can be reduced or written out then. Sessions in
// the returned result are in order of appearance, numbered as rule.Run numbers them.
//
// rule.Analyzer returns results only when closed; to learn a session's findings
// when it ends, Analyse keeps one analyzer per stream and closes it when the
// observer sees that stream's session end (a new initialize), then feeds the frame
// that began the new session to a fresh analyzer.
func Analyse(name string, r io.Reader, rules []*rule.Rule, opt AnalyseOptions) (*rule.InputResult, error) {
	rd, err := frame.NewReader(name, r, opt.Run.Frame)
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	obs := opt.Observer
	if obs == nil {
		obs = NewObserver(ObserveOptions{})
	}
	d := &driver{name: name, rules: append(slices.Clip(rules), obs.Rule()), limit: opt.Run.FindingLimit,
		obs: obs, opt: opt, streams: map[string]*rule.Analyzer{}, res: &rule.InputResult{Name: name}, base: obs.order}
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			d.res.Broken = err
			break
		}
		switch rec.Kind {
		case frame.RecordFrame:
			d.frame(rec.Frame)
		case frame.RecordContext:
			if opt.Run.OnContext != nil {
				opt.Run.OnContext(rec.Line, rec.Text)
			}
			obs.context(rec.Line, rec.Text)
		}
	}
	d.closeAll()
	d.res.Stats = rd.Stats()
	sort.SliceStable(d.res.Sessions, func(i, j int) bool { return d.res.Sessions[i].Session.Index < d.res.Sessions[j].Session.Index })
	return d.res, nil
}

type driver struct {
	name    string
	rules   []*rule.Rule
	limit   int
	obs     *Observer
	opt     AnalyseOptions
	streams map[string]*rule.Analyzer
	order   []string
	res     *rule.InputResult
	// base is the observer's count of sessions before this input: sessions are
	// numbered per input, as rule.Run numbers them.
	base int
}

func (d *driver) analyzer(key string) *rule.Analyzer {
	a := d.streams[key]
	if a == nil {
		a = rule.NewAnalyzer(d.name, d.rules, d.limit)
		if _, seen := d.streams[key]; !seen {
			d.order = append(d.order, key)
		}
		d.streams[key] = a
	}
	return a
}

func (d *driver) frame(f *frame.Frame) {
	a := d.analyzer(f.StreamKey)
	d.obs.ended = d.obs.ended[:0]
	a.Frame(f)
	if len(d.obs.ended) == 0 {
		return
	}
	// f began a new session on its stream and the old one ended: close the
	// analyzer to get the old session's result, forget the new session it had
	// begun, and let a fresh analyzer begin it again from f.
	ended := slices.Clone(d.obs.ended)
	for _, sr := range a.Close() {
		if slices.Contains(ended, sr.Session) {
			d.emit(sr)
			continue
		}
		d.obs.forget(sr.Session)
		d.obs.order--
	}
	d.streams[f.StreamKey] = nil
	d.analyzer(f.StreamKey).Frame(f)
}

// closeAll ends the open sessions, in order of appearance.
func (d *driver) closeAll() {
	var open []*rule.SessionResult
	for _, key := range d.order {
		if a := d.streams[key]; a != nil {
			open = append(open, a.Close()...)
		}
	}
	sort.SliceStable(open, func(i, j int) bool { return d.index(open[i].Session) < d.index(open[j].Session) })
	for _, sr := range open {
		d.emit(sr)
	}
}

func (d *driver) index(s *session.Session) int {
	if t := d.obs.Trace(s); t != nil {
		return t.Index - d.base
	}
	return s.Index
}

func (d *driver) emit(sr *rule.SessionResult) {
	sr.Session.Index = d.index(sr.Session)
	d.obs.finish(sr)
	trace := d.obs.Trace(sr.Session)
	if d.opt.OnSession != nil {
		d.opt.OnSession(sr, trace)
	}
	if d.opt.Stream {
		d.obs.forget(sr.Session)
		return
	}
	if d.opt.Observer == nil {
		d.obs.forget(sr.Session)
	}
	d.res.Sessions = append(d.res.Sessions, sr)
}
