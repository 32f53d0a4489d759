// Package replay plays a captured client's side of a session against a live
// server (mcpsleuth replay) and compares each answer with the captured one:
// the same result, a different one, an error now, no answer. The captured
// client's messages are sent in their order with ids of their own; the
// server's requests to the client (sampling, roots, elicitation) are answered
// with what the captured client answered.
package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/script"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// Server is a live server's transport: messages sent, messages received.
type Server interface {
	// Send sends one message.
	Send(ctx context.Context, msg []byte) error
	// Received delivers the server's messages; it is closed when the server
	// is gone.
	Received() <-chan []byte
}

// Options configure Play.
type Options struct {
	// Timeout is how long a request waits for its answer.
	Timeout time.Duration
	// Crossed, when set, is told each message that crossed (a recording of
	// the live session).
	Crossed func(dir spec.Direction, msg []byte)
}

// Verdict is what became of a captured request.
type Verdict string

const (
	Same        Verdict = "same"         // the same result (or error code)
	Different   Verdict = "different"    // another result
	ErrorNow    Verdict = "error now"    // an error (or an isError result) where the capture has a result
	NoAnswer    Verdict = "no answer"    // no answer within the timeout, where the capture has one
	Fixed       Verdict = "fixed"        // a result where the capture has an error
	AnsweredNow Verdict = "answered now" // an answer where the capture has none
	Unanswered  Verdict = "unanswered"   // no answer, as in the capture
)

// Breaks reports whether a verdict breaks what the capture shows working.
func (v Verdict) Breaks() bool { return v == ErrorNow || v == NoAnswer }

// Request is one captured request replayed.
type Request struct {
	Line    int     `json:"line"` // where the capture has it
	Method  string  `json:"method"`
	Subject string  `json:"subject,omitempty"` // the tool or prompt, the URI
	ID      string  `json:"id"`                // the captured id
	LiveID  string  `json:"liveId"`
	Verdict Verdict `json:"verdict"`
	// Changes say how the answer differs (paths and values, names listed or
	// gone), at most maxChanges.
	Changes []string `json:"changes,omitempty"`
	// Breaking is set when the verdict breaks what the capture shows
	// working, or a list lost an item the capture listed.
	Breaking bool `json:"breaking"`

	captured []byte // the captured answer (nil: none)
	live     []byte
	answered bool
}

// Result is a replay's outcome.
type Result struct {
	Requests []*Request `json:"requests"`
	// ServerRequests counts the server's requests answered with what the
	// captured client answered; Unscripted those the capture had no answer for.
	ServerRequests int `json:"serverRequests"`
	Unscripted     int `json:"unscripted"`
	// Gone is set when the server went away before the replay ended; Failed
	// counts the messages that could not be sent.
	Gone   bool `json:"gone"`
	Failed int  `json:"failed"`
}

// Breaking counts the requests whose verdict breaks the capture.
func (r *Result) Breaking() int {
	n := 0
	for _, q := range r.Requests {
		if q.Breaking {
			n++
		}
	}
	return n
}

// Play plays the captured client's messages of s against srv.
func Play(ctx context.Context, s *script.Script, srv Server, opt Options) *Result {
	if opt.Timeout <= 0 {
		opt.Timeout = 10 * time.Second
	}
	p := &player{s: s, srv: srv, opt: opt, res: &Result{}, byLive: map[string]*Request{}, byCaptured: map[string]string{},
		answeredServer: make([]bool, len(s.Messages))}
	for i := range s.Messages {
		msg := &s.Messages[i]
		if msg.Dir != spec.C2S || msg.IsResponse() {
			continue // the client's answers go out when the live server asks
		}
		if msg.IsNotification() {
			p.send(ctx, p.notification(msg))
			continue
		}
		q := p.request(ctx, i)
		switch a := s.Answer(i); {
		case a >= 0 && !p.clientSpeaksBefore(i, a):
			p.wait(ctx, opt.Timeout, func() bool { return q.answered })
		case a < 0:
			// The capture has no answer (a hang, or a capture of the client's
			// side alone): a moment for one, not the whole timeout.
			p.wait(ctx, min(opt.Timeout, unansweredGrace), func() bool { return q.answered })
		}
	}
	p.wait(ctx, opt.Timeout, func() bool {
		for _, q := range p.res.Requests {
			if !q.answered && q.captured != nil {
				return false
			}
		}
		return true
	})
	for _, q := range p.res.Requests {
		judge(q)
	}
	return p.res
}

type player struct {
	s   *script.Script
	srv Server
	opt Options
	res *Result
	// byLive are the requests by their live id; byCaptured the live id of a
	// captured request id (for notifications/cancelled).
	byLive     map[string]*Request
	byCaptured map[string]string
	next       int
	// answeredServer marks the captured server requests whose captured answer
	// went out already.
	answeredServer []bool
}

func (p *player) send(ctx context.Context, msg []byte) {
	if err := p.srv.Send(ctx, p.crossed(msg)); err != nil {
		p.res.Failed++
	}
}

// crossed tells Crossed of a message the client sends.
func (p *player) crossed(msg []byte) []byte {
	if p.opt.Crossed != nil {
		p.opt.Crossed(spec.C2S, msg)
	}
	return msg
}

// request sends the captured request at i with a live id.
func (p *player) request(ctx context.Context, i int) *Request {
	msg := &p.s.Messages[i]
	p.next++
	live := strconv.Itoa(p.next)
	q := &Request{Line: msg.Line, Method: msg.Method, Subject: subject(msg.Raw), ID: msg.ID, LiveID: live}
	if a := p.s.Answer(i); a >= 0 {
		q.captured = p.s.Messages[a].Raw
	}
	p.res.Requests = append(p.res.Requests, q)
	p.byLive[live] = q
	p.byCaptured[msg.ID] = live
	if err := p.srv.Send(ctx, p.crossed(script.With(msg.Raw, live, "id"))); err != nil {
		// Not even sent (an HTTP error status): an error now.
		q.answered = true
		q.live, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(live),
			"error": map[string]any{"code": 0, "message": "not delivered: " + err.Error()}})
	}
	return q
}

// notification is a captured notification as the live session needs it: a
// cancellation names the live id.
func (p *player) notification(msg *script.Message) []byte {
	if msg.Method != "notifications/cancelled" {
		return msg.Raw
	}
	var c struct {
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(msg.Raw, &c) != nil {
		return msg.Raw
	}
	live, ok := p.byCaptured[string(c.Params.RequestID)]
	if !ok {
		return msg.Raw
	}
	return script.With(msg.Raw, live, "params", "requestId")
}

// clientSpeaksBefore reports whether the captured client sent a message
// between its request at i and the answer at a: it did not wait for it.
func (p *player) clientSpeaksBefore(i, a int) bool {
	for j := i + 1; j < a; j++ {
		if m := &p.s.Messages[j]; m.Dir == spec.C2S && !m.IsResponse() {
			return true
		}
	}
	return false
}

// unansweredGrace is how long a request the capture has no answer for waits.
const unansweredGrace = time.Second

// wait reads the server's messages until done says so, or the timeout.
func (p *player) wait(ctx context.Context, timeout time.Duration, done func() bool) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for !done() {
		select {
		case msg, ok := <-p.srv.Received():
			if !ok {
				p.res.Gone = true
				return
			}
			p.received(ctx, msg)
		case <-timer.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// received handles one message of the server.
func (p *player) received(ctx context.Context, raw []byte) {
	if p.opt.Crossed != nil {
		p.opt.Crossed(spec.S2C, raw)
	}
	kind, method, id, _ := script.Read(raw)
	switch kind {
	case frame.KindRequest:
		p.answerServer(ctx, method, id)
	case frame.KindResult:
		if q := p.byLive[id]; q != nil && !q.answered {
			q.answered, q.live = true, append([]byte(nil), raw...)
		}
	}
}

// answerServer answers a request of the live server with what the captured
// client answered the first captured request of that method not answered yet.
func (p *player) answerServer(ctx context.Context, method, id string) {
	for j := range p.s.Messages {
		m := &p.s.Messages[j]
		if m.Dir != spec.S2C || !m.IsRequest() || m.Method != method || p.answeredServer[j] {
			continue
		}
		p.answeredServer[j] = true
		if a := p.s.Answer(j); a >= 0 {
			p.res.ServerRequests++
			p.send(ctx, script.With(p.s.Messages[a].Raw, id, "id"))
			return
		}
	}
	p.res.Unscripted++
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id),
		"error": map[string]any{"code": -32601, "message": "mcpsleuth replay: the captured client never answered " + method}})
	p.send(ctx, b)
}

// judge gives a request its verdict.
func judge(q *Request) {
	switch {
	case q.captured == nil && !q.answered:
		q.Verdict = Unanswered
	case q.captured == nil:
		q.Verdict = AnsweredNow
	case !q.answered:
		q.Verdict = NoAnswer
	default:
		q.Verdict, q.Changes = compare(q.Method, q.captured, q.live)
	}
	q.Breaking = q.Verdict.Breaks()
	for _, c := range q.Changes {
		if strings.HasPrefix(c, "gone: ") {
			q.Breaking = true
		}
	}
}

// maxChanges bounds the changes listed per request.
const maxChanges = 8

// compare compares a captured answer with the live one.
func compare(method string, captured, live []byte) (Verdict, []string) {
	var c, l struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	json.Unmarshal(captured, &c)
	json.Unmarshal(live, &l)
	switch {
	case c.Error != nil && l.Error != nil:
		if c.Error.Code == l.Error.Code {
			return Same, nil
		}
		return Different, []string{fmt.Sprintf("error %d now, %d in the capture: %s", l.Error.Code, c.Error.Code, quote.String(l.Error.Message, 120))}
	case c.Error != nil:
		return Fixed, []string{fmt.Sprintf("a result now; the capture has error %d %s", c.Error.Code, quote.String(c.Error.Message, 120))}
	case l.Error != nil:
		return ErrorNow, []string{fmt.Sprintf("error %d %s", l.Error.Code, quote.String(l.Error.Message, 120))}
	}
	if isError(l.Result) && !isError(c.Result) {
		what := "a result with isError true"
		if text := firstText(l.Result); text != "" {
			what += ": " + quote.String(text, 120)
		}
		return ErrorNow, []string{what}
	}
	var cv, lv any
	json.Unmarshal(c.Result, &cv)
	json.Unmarshal(l.Result, &lv)
	var changes []string
	listDiff(cv, lv, &changes)
	diffValues("", cv, lv, &changes)
	sort.SliceStable(changes, func(i, j int) bool { // items gone or new first
		return listChange(changes[i]) && !listChange(changes[j])
	})
	if len(changes) == 0 {
		return Same, nil
	}
	if len(changes) > maxChanges {
		changes = append(changes[:maxChanges], fmt.Sprintf("and %d more", len(changes)-maxChanges))
	}
	return Different, changes
}

// listDiff lists the items of a list result (tools, prompts, resources,
// resource templates) gone or new, by name (or URI).
func listDiff(c, l any, changes *[]string) {
	cm, ok1 := c.(map[string]any)
	lm, ok2 := l.(map[string]any)
	if !ok1 || !ok2 {
		return
	}
	for _, lr := range spec.ListResults() {
		ci, ok := cm[lr.Member].([]any)
		if !ok {
			continue
		}
		li, _ := lm[lr.Member].([]any)
		had, has := names(ci), names(li)
		// Items of both lists compare by name, not by place: the members'
		// changes, then the list member leaves the positional diff.
		byName := func(items []any) map[string]any {
			out := map[string]any{}
			for _, it := range items {
				if n := nameOf(it); n != "" {
					out[n] = it
				}
			}
			return out
		}
		cn, ln := byName(ci), byName(li)
		for _, n := range slices.Sorted(maps.Keys(had)) {
			if has[n] {
				diffValues("/"+lr.Member+"/"+n, cn[n], ln[n], changes)
			}
		}
		delete(cm, lr.Member)
		delete(lm, lr.Member)
		for _, n := range slices.Sorted(maps.Keys(had)) {
			if !has[n] {
				*changes = append(*changes, "gone: "+lr.Member+" "+quote.String(n, 80))
			}
		}
		for _, n := range slices.Sorted(maps.Keys(has)) {
			if !had[n] {
				*changes = append(*changes, "new: "+lr.Member+" "+quote.String(n, 80))
			}
		}
	}
}

func names(items []any) map[string]bool {
	out := map[string]bool{}
	for _, it := range items {
		if n := nameOf(it); n != "" {
			out[n] = true
		}
	}
	return out
}

// nameOf is a listed item's name (its URI for a resource, its template for a
// resource template).
func nameOf(item any) string {
	if m, ok := item.(map[string]any); ok {
		for _, k := range []string{"name", "uri", "uriTemplate"} {
			if s, ok := m[k].(string); ok {
				return s
			}
		}
	}
	return ""
}

func listChange(c string) bool {
	return strings.HasPrefix(c, "gone: ") || strings.HasPrefix(c, "new: ")
}

// diffValues lists the JSON pointers where two values differ, with both
// values.
func diffValues(path string, c, l any, changes *[]string) {
	if len(*changes) > maxChanges {
		return
	}
	switch cv := c.(type) {
	case map[string]any:
		lv, ok := l.(map[string]any)
		if !ok {
			break
		}
		keys := map[string]bool{}
		for k := range cv {
			keys[k] = true
		}
		for k := range lv {
			keys[k] = true
		}
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			diffValues(path+"/"+k, cv[k], lv[k], changes)
		}
		return
	case []any:
		lv, ok := l.([]any)
		if !ok {
			break
		}
		for i := 0; i < max(len(cv), len(lv)); i++ {
			var a, b any
			if i < len(cv) {
				a = cv[i]
			}
			if i < len(lv) {
				b = lv[i]
			}
			diffValues(path+"/"+strconv.Itoa(i), a, b, changes)
		}
		return
	}
	ca, _ := json.Marshal(c)
	la, _ := json.Marshal(l)
	if string(ca) != string(la) {
		if path == "" {
			path = "/"
		}
		*changes = append(*changes, fmt.Sprintf("%s: %s in the capture, %s now", path, quote.JSON(string(ca), 60), quote.JSON(string(la), 60)))
	}
}

func isError(result json.RawMessage) bool {
	var r struct {
		IsError bool `json:"isError"`
	}
	return json.Unmarshal(result, &r) == nil && r.IsError
}

func firstText(result json.RawMessage) string {
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(result, &r) == nil && len(r.Content) > 0 {
		return r.Content[0].Text
	}
	return ""
}

// subject is what a request is about: the tool or prompt, the URI.
func subject(raw []byte) string {
	var m struct {
		Params struct {
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"params"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	if m.Params.Name != "" {
		return m.Params.Name
	}
	return m.Params.URI
}
