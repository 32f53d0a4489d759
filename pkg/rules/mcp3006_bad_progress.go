package rules

import (
	"sort"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// BadProgress reports progress notifications that break the progress contract.
var BadProgress = &rule.Rule{
	ID:       "MCP3006",
	Name:     "bad-progress",
	Severity: rule.SeverityError,
	Title:    "Progress for an unknown token, not increasing, or after the response",
	Anchor:   "the progress notification",
	Hint:     "send progress only for the progressToken of a request you received and are still working on, with a value that increases each time, and never after its response",
	Doc: rule.Doc{
		Sees: `A notifications/progress that breaks the progress contract in one of three ways: its progressToken was carried in params._meta.progressToken by no request from the side that receives the progress (tokens are compared by value, as ids are: 4 and 4.0 match, "4" and 4 differ); it arrives after the response to the request that carried the token (for a task-augmented request answered with a CreateTaskResult, 2025-11-25: after the task reached a terminal status, as notifications/tasks/status, a tasks/get or tasks/cancel result, or the tasks/result response said); or its progress value is not greater than the previous notification's value for the same token. Progress whose direction is unknown is not judged. Progress read from a stream whose events the capture does not time (a HAR's standalone GET stream, recorded as one exchange when it opened; the whole 2024-11-05 HTTP+SSE transport) is judged only for its token, against every request of the session, at the end.`,
		Why:  "The requester matches progress to its request by the token. Progress with an unknown token is dropped or, worse, moves another operation's progress bar. Progress after the response reaches a requester that has already torn the request down: some SDKs log an error or throw, and a UI may show a finished task as running again. A value that stalls or goes back makes progress bars jump backwards, and clients that extend a request's timeout on each progress notification are kept waiting by notifications that report nothing new.",
		Fix:  "On the side doing the work (the receiver of the request): echo the exact token from the request's params._meta.progressToken, same JSON type; send progress only while that request is in flight, and write the last one before the response (with concurrent workers, make sure nothing is still queued when the response goes out); make progress strictly increase, for example units done rather than a percentage recomputed against a changing total.",
		Bad: `c->s {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"reindex","arguments":{},"_meta":{"progressToken":"p4"}}}
s->c {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p4","progress":50,"total":100}}
s->c {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p4","progress":50,"total":100}}
s->c {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"reindexed"}]}}
s->c {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p4","progress":100,"total":100}}`,
		Good: `c->s {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"reindex","arguments":{},"_meta":{"progressToken":"p4"}}}
s->c {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p4","progress":50,"total":100}}
s->c {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p4","progress":100,"total":100}}
s->c {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"reindexed"}]}}`,
		Spec: []rule.SpecRef{
			{Revision: "2025-06-18", Page: "basic/utilities/progress#progress-flow", Says: "The progress value MUST increase with each notification, even if the total is unknown."},
			{Revision: "2025-06-18", Page: "basic/utilities/progress#behavior-requirements", Says: "Progress notifications MUST only reference tokens that were provided in an active request and are associated with an in-progress operation."},
			{Revision: "2025-06-18", Page: "basic/utilities/progress#implementation-notes", Says: "Progress notifications MUST stop after completion."},
			{Revision: "2025-11-25", Page: "basic/utilities/progress#behavior-requirements", Says: "For task-augmented requests, the progressToken of the original request MUST continue to be used for progress notifications throughout the task's lifetime, even after the CreateTaskResult has been returned; progress notifications for tasks MUST stop after the task reaches a terminal status (completed, failed or cancelled)."},
			{Revision: "2026-07-28", Page: "basic/patterns/progress", Says: "The same requirements; only the server sends progress, for requests the client issued."},
		},
	},
	New: func() rule.Checker {
		return &progressWatch{}
	},
}

type progressKey struct {
	dir   spec.Direction // direction of the request that carried the token
	token string         // the token's frame.IDKey: tokens equal in value match
}

type progressState struct {
	req      *session.Request
	last     float64
	lastLine int
	// task is the taskId of the CreateTaskResult that answered the request: the token
	// stays valid until the task is terminal (endLine, and its status in endStatus).
	task      string
	endLine   int
	endStatus string
}

// maxDoneTokens bounds how many finished requests' tokens are remembered to
// recognise progress that arrives after the response.
const maxDoneTokens = 4096

// maxTokens bounds the tokens remembered at all (in flight or finished): as many
// requests in flight as the session follows, and the finished ones. Each keeps its
// request (and its bytes) alive: 100,000 of them took 75 MB.
const maxTokens = session.MaxOutstanding + maxDoneTokens

type progressWatch struct {
	// tokens holds the state of each token (by value: a request costs no allocation
	// of its own); done the tokens of finished requests, a ring whose oldest is at
	// doneHead once it holds maxDoneTokens.
	tokens   map[progressKey]progressState
	done     []progressKey
	doneHead int
	tasks    map[string]progressKey // taskId -> the token of the request that created it
	// unplaced holds progress read from a stream whose place among the frames is
	// unknown (an HTTP GET stream, recorded at the time it opened) for a token no
	// request had carried yet: a request read later may carry it. Judged at the end.
	unplaced  map[progressKey]*unplacedProgress
	unplacedN int
	// forgot is set once the tokens were forgotten (more than maxTokens): progress
	// for a token not known since may be for one of them, and is not judged.
	forgot bool
}

// Recycle forgets the session, keeping the memory of the token tables (rule.Recycler):
// they grow with every request that carries a token.
func (w *progressWatch) Recycle() {
	clear(w.tokens)
	clear(w.done)
	clear(w.tasks)
	*w = progressWatch{tokens: w.tokens, done: w.done[:0], tasks: w.tasks}
}

// unplacedProgress is the progress for one token read from a stream without a place.
type unplacedProgress struct {
	token string // as the first of them carried it
	at    []rule.Anchor
}

// maxUnplacedProgress bounds the unplaced progress notifications kept for the end.
const maxUnplacedProgress = 1024

func (w *progressWatch) Message(p *rule.Pass, m *session.Message) {
	switch {
	case m.Kind == frame.KindRequest && m.Request != nil && m.Request.ProgressToken != "" && m.Dir != spec.DirUnknown:
		if len(w.tokens) >= maxTokens {
			// Never-answered requests keep their tokens: bound the memory they take.
			p.CannotJudge(because(reasonTooManyTokensf, maxTokens))
			clear(w.tokens)
			w.done, w.doneHead = w.done[:0], 0
			w.forgot = true
		}
		key := progressKey{m.Dir, m.Request.ProgressKey}
		if w.tokens == nil {
			w.tokens = map[progressKey]progressState{} // made on first use: most sessions never need it
		}
		w.tokens[key] = progressState{req: m.Request}
		if pending, ok := w.unplaced[key]; ok {
			w.unplacedN -= len(pending.at)
			delete(w.unplaced, key)
		}
	case m.Kind.IsResponse() && m.Request != nil && m.Request.ProgressToken != "":
		key := progressKey{m.Request.Dir, m.Request.ProgressKey}
		if id := createdTask(m); id != "" {
			// A CreateTaskResult: the work goes on as a task, and so may its progress.
			if st, ok := w.tokens[key]; ok {
				st.task = id
				w.tokens[key] = st
				w.rememberTask(id, key)
				return
			}
		}
		w.finish(key)
	case m.Kind == frame.KindNotification && m.Method == "notifications/progress":
		w.progress(p, m)
	}
	if len(w.tasks) > 0 {
		w.taskStatus(m)
	}
}

// finish remembers a token whose request completed, forgetting the oldest ones.
func (w *progressWatch) finish(key progressKey) {
	if len(w.done) < maxDoneTokens {
		w.done = append(w.done, key)
		return
	}
	delete(w.tokens, w.done[w.doneHead])
	w.done[w.doneHead] = key
	w.doneHead = (w.doneHead + 1) % maxDoneTokens
}

func (w *progressWatch) rememberTask(id string, key progressKey) {
	if w.tasks == nil {
		w.tasks = map[string]progressKey{}
	}
	if len(w.tasks) >= maxTokens {
		clear(w.tasks)
	}
	w.tasks[strings.Clone(id)] = key
}

// createdTask is the taskId of a CreateTaskResult ("" for any other response).
func createdTask(m *session.Message) string {
	// Task results exist in 2025-11-25 (core tasks) and from 2026-07-28 (extension).
	if rev := m.Revision(); m.Kind != frame.KindResult || rev != "" && !rev.Has(spec.FeatureTaskResults) {
		return ""
	}
	if id := get(m.ResultNode(), "task", "taskId").Text(); id != "" {
		return strings.Clone(id) // kept with the token's state
	}
	return ""
}

// terminalTaskStatus: a task in one of these states sends no more progress.
var terminalTaskStatus = map[string]bool{"completed": true, "failed": true, "cancelled": true}

// taskStatus ends the progress of a task when a message shows it terminal:
// notifications/tasks/status, a tasks/get or tasks/cancel result, or the tasks/result
// response (which carries the task in _meta io.modelcontextprotocol/related-task).
func (w *progressWatch) taskStatus(m *session.Message) {
	var id, status string
	switch {
	case m.Kind == frame.KindNotification && m.Method == "notifications/tasks/status":
		params := m.ParamsNode()
		id, status = get(params, "taskId").Text(), get(params, "status").Text()
	case m.Kind.IsResponse() && m.Request != nil && (m.Request.Method == "tasks/get" || m.Request.Method == "tasks/cancel"):
		res := m.ResultNode()
		id, status = get(res, "taskId").Text(), get(res, "status").Text()
	case m.Kind.IsResponse() && m.Request != nil && m.Request.Method == "tasks/result":
		id, status = get(m.ResultNode(), "_meta", "io.modelcontextprotocol/related-task", "taskId").Text(), "completed"
		if m.Kind == frame.KindError {
			status = "failed"
		}
	default:
		return
	}
	if !terminalTaskStatus[status] {
		return
	}
	key, ok := w.tasks[id]
	if !ok {
		return
	}
	delete(w.tasks, id)
	if st, ok := w.tokens[key]; ok && st.endLine == 0 {
		st.endLine, st.endStatus = m.Line, status
		w.tokens[key] = st
	}
	w.finish(key)
}

func (w *progressWatch) progress(p *rule.Pass, m *session.Message) {
	if m.Dir == spec.DirUnknown {
		p.CannotJudge(reasonDirectionUnknown)
		return
	}
	params := m.ParamsNode()
	token := m.ProgressToken() // a lookup key: cloned where it is kept
	value := numberOf(get(params, "progress"))
	key := progressKey{m.Dir.Opposite(), frame.IDKey(token)}
	state, known := w.tokens[key]
	st := &state
	if !known {
		st = nil
	}
	sender, receiver := spec.Sender(m.Dir), spec.Sender(m.Dir.Opposite())
	if m.Unplaced() {
		// Its time is unknown: only whether some request of the session carried the
		// token can be judged, at the end.
		if st == nil && w.unplacedN < maxUnplacedProgress {
			if w.unplaced == nil {
				w.unplaced = map[progressKey]*unplacedProgress{}
			}
			key := progressKey{m.Dir.Opposite(), strings.Clone(frame.IDKey(token))}
			u := w.unplaced[key]
			if u == nil {
				u = &unplacedProgress{token: strings.Clone(token)}
				w.unplaced[key] = u
			}
			u.at = append(u.at, kept(rule.At(m)))
			w.unplacedN++
		} else if st != nil {
			p.CannotJudge(reasonProgressOnGet)
		}
		return
	}
	switch {
	case st == nil && w.forgot:
		p.CannotJudge(because(reasonTooManyTokensf, maxTokens))
	case st == nil:
		p.Report(rule.At(m), rule.Sprintf("%s sent progress for token %s, but no request sent by the %s carried that _meta.progressToken",
			sender, rule.QuoteJSON(rule.ValueID, token), receiver))
	case st.task != "":
		if st.endLine > 0 && st.endLine < m.Line {
			p.Report(rule.At(m), rule.Sprintf("%s sent progress for token %s after task %s of %s id=%s reached status %s (line %d): progress must stop when the task is terminal",
				sender, rule.QuoteJSON(rule.ValueID, token), rule.Quote(rule.ValueID, st.task), st.req.Method, st.req.ID, st.endStatus, st.endLine), rule.Related{Line: st.endLine, Note: "the task's terminal status"})
		} else if st.lastLine > 0 && value <= st.last {
			p.Report(rule.At(m), rule.Sprintf("%s sent progress for token %s that went from %v (line %d) to %v: the value must increase with each notification",
				sender, rule.QuoteJSON(rule.ValueID, token), st.last, st.lastLine, value), rule.Related{Line: st.lastLine, Note: "the previous progress"})
		}
	case st.req.Answered() && st.req.ResponseLine < m.Line:
		p.Report(rule.At(m), rule.Sprintf("%s sent progress for token %s after the response to %s id=%s (line %d): progress must stop when the request completes",
			sender, rule.QuoteJSON(rule.ValueID, token), st.req.Method, st.req.ID, st.req.ResponseLine), rule.Related{Line: st.req.ResponseLine, Note: "the response"})
	case st.lastLine > 0 && value <= st.last:
		p.Report(rule.At(m), rule.Sprintf("%s sent progress for token %s that went from %v (line %d) to %v: the value must increase with each notification",
			sender, rule.QuoteJSON(rule.ValueID, token), st.last, st.lastLine, value), rule.Related{Line: st.lastLine, Note: "the previous progress"})
	}
	if st != nil {
		st.last, st.lastLine = value, m.Line
		// Stored under the request's copy of the token: an assignment replaces the
		// map's key too, and key's token aliases the frame.
		w.tokens[progressKey{key.dir, st.req.ProgressKey}] = state
	}
}

// End reports the unplaced progress whose token no request of the session carried.
func (w *progressWatch) End(p *rule.Pass) {
	keys := make([]progressKey, 0, len(w.unplaced))
	for key := range w.unplaced {
		keys = append(keys, key)
	}
	sort.Slice(keys, func(i, j int) bool { return w.unplaced[keys[i]].at[0].Line < w.unplaced[keys[j]].at[0].Line })
	for _, key := range keys {
		sender, receiver := spec.Sender(key.dir.Opposite()), spec.Sender(key.dir)
		u := w.unplaced[key]
		for _, a := range u.at {
			p.Report(a, rule.Sprintf("%s sent progress for token %s on the HTTP GET stream, but no request sent by the %s during the session carried that _meta.progressToken",
				sender, rule.QuoteJSON(rule.ValueID, u.token), receiver))
		}
	}
}
