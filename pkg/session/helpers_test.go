package session_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// msg is a copy of what a visit callback saw: the reader reuses its frames, so
// everything that aliases them is copied out inside the callback.
type msg struct {
	Line      int
	Kind      frame.Kind
	Method    string
	ID        string
	Dir       spec.Direction
	DirReason string
	StreamKey string
	ErrorCode int64
	// InBatch is set for a batch member; BatchLine is the line of its batch frame.
	InBatch   bool
	BatchLine int
	BatchKind frame.Kind
	// Members is the number of members of a batch frame.
	Members int

	// These point at the tracker's own records, which outlive the frame.
	Request  *session.Request
	Contract *session.Contract
	Session  *session.Session
	Orphan   *session.Orphan
}

func (m msg) String() string {
	s := fmt.Sprintf("line %d %s", m.Line, m.Kind)
	if m.Method != "" {
		s += " " + m.Method
	}
	if m.ID != "" {
		s += " id=" + m.ID
	}
	if m.InBatch {
		s += " (in batch)"
	}
	return s
}

// event is a session start or end, with the line of the frame being fed when it
// happened (0: during Close).
type event struct {
	kind  string // "start" or "end"
	index int
	line  int
}

func (e event) String() string { return fmt.Sprintf("%s %d @%d", e.kind, e.index, e.line) }

// trace is what one run of the tracker produced.
type trace struct {
	msgs     []msg
	started  []*session.Session
	ended    []*session.Session
	events   []event
	contexts int
}

// run feeds text through a frame.Reader into a session.Tracker and records every
// visited message and every session start and end.
func run(t *testing.T, name, text string, opt frame.Options) *trace {
	t.Helper()
	rd, err := frame.NewReader(name, strings.NewReader(text), opt)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	tr := &trace{}
	cur := 0
	tracker := session.NewTracker(name, func(s *session.Session) {
		tr.started = append(tr.started, s)
		tr.events = append(tr.events, event{"start", s.Index, cur})
	}, func(s *session.Session) {
		tr.ended = append(tr.ended, s)
		tr.events = append(tr.events, event{"end", s.Index, cur})
	})
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: reading broke off: %v", name, err)
		}
		switch rec.Kind {
		case frame.RecordFrame:
			cur = rec.Frame.Line
			tracker.Frame(rec.Frame, func(m *session.Message) {
				c := msg{
					Line: m.Line, Kind: m.Kind, Method: strings.Clone(m.Method), ID: strings.Clone(m.ID),
					Dir: m.Dir, DirReason: strings.Clone(m.DirReason), StreamKey: strings.Clone(m.StreamKey),
					ErrorCode: m.ErrorCode, Members: len(m.Members),
					Request: m.Request, Contract: m.Contract, Session: m.Session, Orphan: m.Orphan,
				}
				if m.Batch != nil {
					c.InBatch, c.BatchLine, c.BatchKind = true, m.Batch.Line, m.Batch.Kind
				}
				tr.msgs = append(tr.msgs, c)
			})
		case frame.RecordContext:
			tr.contexts++
		}
	}
	cur = 0
	tracker.Close()
	return tr
}

// runFile is run on a file under the repository's fixtures/.
func runFile(t *testing.T, rel string) *trace {
	t.Helper()
	return run(t, rel, readFixture(t, rel), frame.Options{})
}

func readFixture(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "fixtures", rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// at returns the only non-member message at line (or the member with that method
// and id when the line holds a batch), failing the test when there is none.
func (tr *trace) at(t *testing.T, line int) msg {
	t.Helper()
	var found []msg
	for _, m := range tr.msgs {
		if m.Line == line && !m.InBatch {
			found = append(found, m)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one message at line %d, got %d", line, len(found))
	}
	return found[0]
}

// member returns the batch member at line with the given id.
func (tr *trace) member(t *testing.T, line int, id string) msg {
	t.Helper()
	for _, m := range tr.msgs {
		if m.Line == line && m.InBatch && m.ID == id {
			return m
		}
	}
	t.Fatalf("no batch member id=%s at line %d", id, line)
	return msg{}
}

// requestAt returns the request record created for the request at line.
func (tr *trace) requestAt(t *testing.T, line int) *session.Request {
	t.Helper()
	m := tr.at(t, line)
	if m.Kind != frame.KindRequest {
		t.Fatalf("line %d is a %s, not a request", line, m.Kind)
	}
	if m.Request == nil {
		t.Fatalf("line %d: request without a Request record", line)
	}
	return m.Request
}

// onlySession fails unless exactly one session was started and ended.
func (tr *trace) onlySession(t *testing.T) *session.Session {
	t.Helper()
	if len(tr.started) != 1 || len(tr.ended) != 1 {
		t.Fatalf("want 1 session, got %d started, %d ended (events %v)", len(tr.started), len(tr.ended), tr.events)
	}
	return tr.started[0]
}

// bare turns envelope JSONL into bare JSON-RPC lines (the "msg" of each line),
// keeping line numbers: a line without msg becomes a blank line.
func bare(t *testing.T, envelope string) string {
	t.Helper()
	var b strings.Builder
	for i, line := range strings.Split(strings.TrimSuffix(envelope, "\n"), "\n") {
		var env struct {
			Msg json.RawMessage `json:"msg"`
		}
		if err := json.Unmarshal([]byte(line), &env); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		b.Write(env.Msg)
		b.WriteByte('\n')
	}
	return b.String()
}

// env builds one envelope line; extra holds more members such as `"session_id":"A"`.
func env(dir, payload string, extra ...string) string {
	e := ""
	for _, x := range extra {
		e += "," + x
	}
	return fmt.Sprintf(`{"ts":"2026-11-30T10:00:00Z","dir":%q%s,"msg":%s}`, dir, e, payload)
}

func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }
