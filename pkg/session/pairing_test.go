package session_test

import (
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// A client batch of two requests answered by a response batch (2025-03-26, where
// batching is legal): the batch frame is visited first, then each member with
// m.Batch set; requests remember they travelled in a batch; responses pair.
func TestBatchPairing(t *testing.T) {
	text := readFixture(t, "real/raw-go-server-batch-2025-03-26.jsonl")
	for _, tc := range []struct {
		name string
		text string
	}{
		{"envelope", text},
		{"bare", bare(t, text)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := run(t, tc.name, tc.text, frame.Options{})
			// Visit order at lines 6 and 7: batch, then its members in order.
			var order []string
			for _, m := range tr.msgs {
				if m.Line == 6 || m.Line == 7 {
					order = append(order, m.String())
				}
			}
			wantOrder := []string{
				"line 6 batch", "line 6 request ping id=3 (in batch)", "line 6 request tools/list id=4 (in batch)",
				"line 7 batch", "line 7 result id=3 (in batch)", "line 7 result id=4 (in batch)",
			}
			if len(order) != len(wantOrder) {
				t.Fatalf("visits at lines 6-7: %q, want %q", order, wantOrder)
			}
			for i := range order {
				if order[i] != wantOrder[i] {
					t.Errorf("visit %d: %q, want %q", i, order[i], wantOrder[i])
				}
			}
			for _, b := range []struct {
				line int
				dir  spec.Direction
			}{{6, spec.C2S}, {7, spec.S2C}} {
				m := tr.at(t, b.line)
				if m.Kind != frame.KindBatch || m.Members != 2 || m.InBatch {
					t.Errorf("line %d: %s with %d members, InBatch=%v; want a batch of 2, not itself in a batch", b.line, m.Kind, m.Members, m.InBatch)
				}
				if m.Dir != b.dir {
					t.Errorf("line %d: batch direction %s (%s), want %s", b.line, m.Dir, m.DirReason, b.dir)
				}
				if m.Request != nil {
					t.Errorf("line %d: a batch frame has a Request", b.line)
				}
			}
			for _, id := range []string{"3", "4"} {
				req := tr.member(t, 6, id)
				if req.BatchLine != 6 || req.BatchKind != frame.KindBatch || req.Dir != spec.C2S {
					t.Errorf("request member id=%s: batch line %d kind %s dir %s", id, req.BatchLine, req.BatchKind, req.Dir)
				}
				if req.Request == nil || !req.Request.Batch {
					t.Fatalf("request member id=%s: Request %+v, want Batch set", id, req.Request)
				}
				resp := tr.member(t, 7, id)
				if resp.BatchLine != 7 || resp.Dir != spec.S2C {
					t.Errorf("response member id=%s: batch line %d dir %s", id, resp.BatchLine, resp.Dir)
				}
				if resp.Request != req.Request {
					t.Errorf("response member id=%s paired with %+v, want the request member", id, resp.Request)
				}
				if req.Request.ResponseLine != 7 {
					t.Errorf("request member id=%s: ResponseLine %d, want 7", id, req.Request.ResponseLine)
				}
			}
			if m := tr.member(t, 6, "3"); m.Request.Method != "ping" {
				t.Errorf("id 3 is %s, want ping", m.Request.Method)
			}
			if tr.requestAt(t, 4).Batch {
				t.Error("the plain ping at line 4 is marked as travelling in a batch")
			}
			s := tr.onlySession(t)
			if out := s.Outstanding(); len(out) != 0 {
				t.Errorf("outstanding: %+v", out)
			}
			if s.Frames != 9 {
				t.Errorf("Frames = %d, want 9 (a batch is one frame)", s.Frames)
			}
		})
	}
}

// A batch is written by one side: once its direction is known (recorded, or inferred
// from the members that could be inferred), every member travels that way too.
func TestBatchMembersShareTheBatchDirection(t *testing.T) {
	text := bare(t, readFixture(t, "real/raw-everything-batch-2025-06-18.jsonl"))
	tr := run(t, "bare", text, frame.Options{})
	b := tr.at(t, 7)
	if b.Kind != frame.KindBatch || b.Dir != spec.C2S {
		t.Fatalf("line 7: %s direction %s (%s), want a c2s batch", b.Kind, b.Dir, b.DirReason)
	}
	for _, m := range tr.msgs {
		if m.InBatch && m.BatchLine == 7 && m.Dir != b.Dir {
			t.Errorf("%s: direction %s (%s), but its batch travelled %s", m, m.Dir, m.DirReason, b.Dir)
		}
	}
}

// notifications/cancelled marks the request cancelled; it stays outstanding (no
// response came) with Cancelled set, so rules can tell it from an unanswered one.
func TestCancellationMarksRequest(t *testing.T) {
	text := readFixture(t, "real/ts-everything-cancel.jsonl")
	for _, tc := range []struct{ name, text string }{
		{"envelope", text},
		{"bare", bare(t, text)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := run(t, tc.name, tc.text, frame.Options{})
			if m := tr.at(t, 7); m.Method != "notifications/cancelled" || m.Dir != spec.C2S {
				t.Errorf("line 7: %s direction %s (%s), want a c2s cancel", m, m.Dir, m.DirReason)
			}
			for _, line := range []int{6, 8, 9, 10} {
				if m := tr.at(t, line); m.Method != "notifications/progress" || m.Dir != spec.S2C {
					t.Errorf("line %d: %s direction %s (%s), want s2c progress", line, m, m.Dir, m.DirReason)
				}
			}
			call := tr.requestAt(t, 4)
			if !call.Cancelled || call.CancelLine != 7 {
				t.Errorf("tools/call: Cancelled=%v CancelLine=%d, want true, 7", call.Cancelled, call.CancelLine)
			}
			if call.ProgressToken != "1" {
				t.Errorf("tools/call: ProgressToken %q, want the raw token 1", call.ProgressToken)
			}
			if call.Answered() {
				t.Errorf("tools/call answered at line %d", call.ResponseLine)
			}
			s := tr.onlySession(t)
			out := s.Outstanding()
			if len(out) != 1 || out[0] != call || !out[0].Cancelled {
				t.Errorf("outstanding %+v, want only the cancelled tools/call", out)
			}
			if s.Pending(spec.C2S, "1") != call {
				t.Errorf("Pending(c2s, 1) = %+v", s.Pending(spec.C2S, "1"))
			}
			if s.Pending(spec.S2C, "1") != nil {
				t.Errorf("Pending(s2c, 1) = %+v, want nil: the server sent no request 1", s.Pending(spec.S2C, "1"))
			}
			if ping := tr.requestAt(t, 11); !ping.Answered() || ping.Cancelled {
				t.Errorf("ping: answered=%v cancelled=%v", ping.Answered(), ping.Cancelled)
			}
		})
	}
}

// A cancel only names requests of its own direction: a client cancel of id 5 does
// not touch the server's request 5, and a second cancel does not move CancelLine.
func TestCancelTouchesOnlyItsDirection(t *testing.T) {
	text := lines(
		env("c->s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"sampling":{}},"clientInfo":{"name":"c","version":"1"}}}`),
		env("s->c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`),
		env("c->s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`),
		env("c->s", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"x"}}`),
		env("s->c", `{"jsonrpc":"2.0","id":5,"method":"sampling/createMessage","params":{"maxTokens":1,"messages":[]}}`),
		env("c->s", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`),
		env("c->s", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`),
		env("c->s", `{"jsonrpc":"2.0","id":5,"result":{"role":"assistant","content":{"type":"text","text":"x"},"model":"m"}}`),
	)
	tr := run(t, "cancel.jsonl", text, frame.Options{})
	call, sampling := tr.requestAt(t, 4), tr.requestAt(t, 5)
	if !call.Cancelled || call.CancelLine != 6 {
		t.Errorf("tools/call: Cancelled=%v CancelLine=%d, want true, 6 (the first cancel)", call.Cancelled, call.CancelLine)
	}
	if sampling.Cancelled {
		t.Error("the server's sampling/createMessage id 5 was marked cancelled by the client's cancel")
	}
	if sampling.ResponseLine != 8 || call.Answered() {
		t.Errorf("sampling ResponseLine %d, tools/call answered=%v", sampling.ResponseLine, call.Answered())
	}
}

// The Go SDK LoggingTransport can log a response before the request it answers
// (fixtures/formats/gosdk-log-response-before-request.log): the response is an orphan
// until the request comes, then both are paired.
func TestOrphanPairedWithLaterRequest(t *testing.T) {
	tr := runFile(t, "formats/gosdk-log-response-before-request.log")
	resp := tr.at(t, 7)
	if resp.Kind != frame.KindError || resp.Dir != spec.C2S {
		t.Fatalf("line 7: %s %s, want the client's c2s error", resp.Kind, resp.Dir)
	}
	if resp.Orphan == nil {
		t.Fatal("line 7: no Orphan on a response logged before its request")
	}
	o := resp.Orphan
	if !o.Paired || o.RequestLine != 8 || o.Line != 7 || o.ID != "1" || !o.IsError || o.Dir != spec.C2S {
		t.Errorf("orphan %+v, want paired with the request at line 8", *o)
	}
	req := tr.requestAt(t, 8)
	if req.Method != "sampling/createMessage" || req.Dir != spec.S2C {
		t.Errorf("line 8: %s %s", req.Method, req.Dir)
	}
	if req.ResponseLine != 7 || !req.ResponseErr || !req.Answered() {
		t.Errorf("request: ResponseLine %d ResponseErr %v, want 7, true", req.ResponseLine, req.ResponseErr)
	}
	if out := tr.onlySession(t).Outstanding(); len(out) != 0 {
		t.Errorf("outstanding: %+v", out)
	}
	// The neighbours are paired as usual.
	if m := tr.at(t, 9); m.Request == nil || m.Request.Line != 6 || m.Orphan != nil {
		t.Errorf("line 9: %+v, want the tools/call result", m)
	}
}

// A response for a request that never comes stays an unpaired orphan; a request
// that comes far later than the orphan window does not claim it.
func TestOrphanWithoutRequest(t *testing.T) {
	head := []string{
		env("c->s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`),
		env("s->c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`),
		env("c->s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`),
		env("s->c", `{"jsonrpc":"2.0","id":42,"result":{"tools":[]}}`), // line 4: nobody asked
	}
	t.Run("never", func(t *testing.T) {
		tr := run(t, "orphan.jsonl", lines(head...), frame.Options{})
		m := tr.at(t, 4)
		if m.Request != nil || m.Orphan == nil {
			t.Fatalf("line 4: Request %+v Orphan %+v, want an orphan", m.Request, m.Orphan)
		}
		if m.Orphan.Paired || m.Orphan.RequestLine != 0 || m.Orphan.ID != "42" || m.Orphan.Dir != spec.S2C || m.Orphan.IsError {
			t.Errorf("orphan %+v", *m.Orphan)
		}
	})
	t.Run("same id from the same side does not claim it", func(t *testing.T) {
		// A server response id 42 can only answer a client request 42.
		tr := run(t, "orphan.jsonl", lines(append(head,
			env("s->c", `{"jsonrpc":"2.0","id":42,"method":"ping"}`))...), frame.Options{})
		if o := tr.at(t, 4).Orphan; o == nil || o.Paired {
			t.Errorf("orphan %+v was claimed by the server's own request", o)
		}
		if r := tr.requestAt(t, 5); r.Answered() {
			t.Errorf("server ping answered by its own side's response (line %d)", r.ResponseLine)
		}
	})
	t.Run("too late", func(t *testing.T) {
		ls := append([]string{}, head...)
		for i := 0; i < 100; i++ {
			ls = append(ls, env("s->c", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`))
		}
		ls = append(ls, env("c->s", `{"jsonrpc":"2.0","id":42,"method":"tools/list"}`))
		tr := run(t, "orphan.jsonl", lines(ls...), frame.Options{})
		if o := tr.at(t, 4).Orphan; o == nil || o.Paired {
			t.Errorf("orphan %+v was claimed by a request 100 lines later", o)
		}
		last := len(ls)
		r := tr.requestAt(t, last)
		if r.Answered() {
			t.Errorf("tools/list at line %d answered by the orphan at line %d", last, r.ResponseLine)
		}
		if out := tr.onlySession(t).Outstanding(); len(out) != 1 || out[0] != r {
			t.Errorf("outstanding %+v, want the late tools/list", out)
		}
	})
}

// The Go SDK's own documented client-side LoggingTransport output
// (the formats reference, section 3a) logs the initialize result before
// the initialize request. Paired late, the result must still make the contract:
// one session, the answered revision, the server's capabilities, nothing outstanding.
func TestOrphanInitializeResultBeforeRequest(t *testing.T) {
	text := lines(
		`read: {"jsonrpc":"2.0","id":1,"result":{"capabilities":{"logging":{}},"protocolVersion":"2025-11-25","serverInfo":{"name":"server","version":"v0.0.1"}}}`,
		`write: {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"client","version":"v0.0.1"},"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}}}}`,
		`write: {"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`,
	)
	tr := run(t, "client.log", text, frame.Options{})
	if m := tr.at(t, 1); m.Dir != spec.S2C {
		t.Fatalf("line 1: direction %s (%s), want s2c (client-side log)", m.Dir, m.DirReason)
	}
	if len(tr.started) != 1 {
		t.Fatalf("%d sessions (events %v), want 1: the initialize request whose result was logged first opens no new session", len(tr.started), tr.events)
	}
	s := tr.started[0]
	if out := s.Outstanding(); len(out) != 0 {
		t.Errorf("outstanding: %+v", out)
	}
	c := s.Legacy
	if c == nil {
		t.Fatal("no legacy contract")
	}
	if c.Answered != "2025-11-25" || c.Verdict != session.VerdictEchoed || c.Revision != spec.Rev20251125 {
		t.Errorf("contract: answered %q verdict %s revision %q, want 2025-11-25 echoed", c.Answered, c.Verdict, c.Revision)
	}
	if string(c.ServerCaps) != `{"logging":{}}` || c.ResultLine != 1 || c.Server.Name != "server" {
		t.Errorf("contract: ServerCaps %s ResultLine %d Server %+v, want the result at line 1", c.ServerCaps, c.ResultLine, c.Server)
	}
}

// The modern equivalent (formats.md section 3a): the server/discover result logged
// before the request still gives the session its Discover contract.
func TestOrphanDiscoverResultBeforeRequest(t *testing.T) {
	text := lines(
		`read: {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"server","version":"v0.0.1"}},"ttlMs":0,"cacheScope":"public","supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{"logging":{}}}}`,
		`write: {"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}},"io.modelcontextprotocol/clientInfo":{"name":"client","version":"v0.0.1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
	)
	tr := run(t, "client.log", text, frame.Options{})
	s := tr.onlySession(t)
	if s.Era != session.EraModern {
		t.Errorf("era %s, want modern", s.Era)
	}
	if tr.requestAt(t, 2).ResponseLine != 1 {
		t.Errorf("server/discover not paired with its result at line 1")
	}
	if s.Discover == nil {
		t.Fatal("Discover is nil: the server/discover result logged first was never read")
	}
	if string(s.Discover.ServerCaps) != `{"logging":{}}` || s.Discover.Server.Name != "server" || s.Discover.ServerCapsLine != 1 {
		t.Errorf("Discover %+v", *s.Discover)
	}
}

// A request's params are read member by member: cursor, task and every _meta (a
// duplicate _meta too, as a JSON decoder that keeps the last member reads it).
func TestRequestParamsRead(t *testing.T) {
	text := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"tasks":{}},"serverInfo":{"name":"s","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"c1","_meta":{"progressToken":"a"}}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x","task":{"ttl":5},"_meta":{"other":1},"_meta":{"progressToken":4}}}
{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"cursor":null,"_m\u0065ta":{"progressToken":"e"}}}
`
	tr := run(t, "params", text, frame.Options{})
	for _, c := range []struct {
		line              int
		token             string
		paginated, tasked bool
	}{{4, `"a"`, true, false}, {5, `4`, false, true}, {6, `"e"`, false, false}} {
		r := tr.requestAt(t, c.line)
		if r.ProgressToken != c.token || r.Paginated != c.paginated || r.TaskAugmented != c.tasked {
			t.Errorf("line %d: token %q paginated %v task %v; want %q %v %v", c.line, r.ProgressToken, r.Paginated, r.TaskAugmented, c.token, c.paginated, c.tasked)
		}
	}
}
