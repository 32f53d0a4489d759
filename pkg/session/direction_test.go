package session_test

import (
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// wantFrame is what a line of the ts-client-go-server-sampling-undeclared session is:
// its direction, and for a response the request it answers.
type wantFrame struct {
	line    int
	kind    frame.Kind
	method  string // request or notification
	dir     spec.Direction
	answers string // response: the method of the request it answers
	reqLine int    // response: that request's line
}

var samplingUndeclared = []wantFrame{
	{1, frame.KindRequest, "initialize", spec.C2S, "", 0},
	{2, frame.KindResult, "", spec.S2C, "initialize", 1},
	{3, frame.KindNotification, "notifications/initialized", spec.C2S, "", 0},
	{4, frame.KindRequest, "tools/list", spec.C2S, "", 0},
	{5, frame.KindResult, "", spec.S2C, "tools/list", 4},
	{6, frame.KindRequest, "tools/call", spec.C2S, "", 0},
	{7, frame.KindRequest, "sampling/createMessage", spec.S2C, "", 0},
	{8, frame.KindError, "", spec.C2S, "sampling/createMessage", 7},
	{9, frame.KindResult, "", spec.S2C, "tools/call", 6},
	{10, frame.KindRequest, "ping", spec.C2S, "", 0},
	{11, frame.KindResult, "", spec.S2C, "ping", 10},
}

func checkFrames(t *testing.T, tr *trace, want []wantFrame, inferred bool) {
	t.Helper()
	if len(tr.msgs) != len(want) {
		t.Fatalf("visited %d messages, want %d: %v", len(tr.msgs), len(want), tr.msgs)
	}
	for _, w := range want {
		m := tr.at(t, w.line)
		if m.Kind != w.kind || m.Method != w.method {
			t.Errorf("line %d: %s %q, want %s %q", w.line, m.Kind, m.Method, w.kind, w.method)
		}
		if m.Dir != w.dir {
			t.Errorf("line %d (%s): direction %s (%s), want %s", w.line, m, m.Dir, m.DirReason, w.dir)
		}
		if inferred && !strings.HasPrefix(m.DirReason, "inferred") {
			t.Errorf("line %d: DirReason %q, want an inferred direction's reason", w.line, m.DirReason)
		}
		if w.kind.IsResponse() {
			switch {
			case m.Request == nil:
				t.Errorf("line %d: response paired with no request, want %s at line %d", w.line, w.answers, w.reqLine)
			case m.Request.Method != w.answers || m.Request.Line != w.reqLine:
				t.Errorf("line %d: answers %s at line %d, want %s at line %d", w.line, m.Request.Method, m.Request.Line, w.answers, w.reqLine)
			case m.Request.ResponseLine != w.line:
				t.Errorf("line %d: request at line %d has ResponseLine %d", w.line, w.reqLine, m.Request.ResponseLine)
			}
			if m.Orphan != nil {
				t.Errorf("line %d: paired response also marked as an orphan", w.line)
			}
		}
		if w.kind == frame.KindRequest && (m.Request == nil || m.Request.Dir != w.dir || m.Request.Line != w.line) {
			t.Errorf("line %d: request record %+v does not match the request", w.line, m.Request)
		}
	}
	s := tr.onlySession(t)
	if out := s.Outstanding(); len(out) != 0 {
		t.Errorf("outstanding at the end: %+v", out)
	}
	if s.Requests != 5 || s.Responses != 5 || s.Notifications != 1 || s.Frames != 11 {
		t.Errorf("counts: %d requests, %d responses, %d notifications, %d frames; want 5, 5, 1, 11",
			s.Requests, s.Responses, s.Notifications, s.Frames)
	}
}

// Bare JSON-RPC lines say nothing about direction: the tracker infers it from the
// method table, from the outstanding requests and from the id sequences.
func TestBareDirectionInference(t *testing.T) {
	tr := runFile(t, "real/bare/ts-client-go-server-sampling-undeclared.jsonl")
	checkFrames(t, tr, samplingUndeclared, true)
}

// The same session recorded as envelopes (explicit dir) and as a Go SDK
// LoggingTransport log (read/write seen from the server) gives the same directions
// and the same pairings as the bare lines.
func TestSameSessionInEveryFormat(t *testing.T) {
	for _, tc := range []struct{ name, path string }{
		{"envelope", "real/ts-client-go-server-sampling-undeclared.jsonl"},
		{"gosdk-log", "real/gosdk-log/ts-client-go-server-sampling-undeclared.log"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := runFile(t, tc.path)
			checkFrames(t, tr, samplingUndeclared, false)
		})
	}
}

// Stripping the envelopes of every real capture must not change what the tracker
// concludes: the inferred direction of each message equals the recorded one (or is
// unknown with a reason), and responses pair with the same requests.
func TestBareAgreesWithEnvelope(t *testing.T) {
	for _, name := range []string{
		"ts-everything-healthy",
		"ts-client-go-server-sampling-undeclared",
		"ts-client-mcpgo-server-tools-silent-change",
		"ts-client-mcpgo-server-tools-change-undeclared",
		"ts-client-mcpgo053-subscribe-not-implemented",
		"raw-go-server-batch-2025-03-26",
		"raw-everything-batch-2025-06-18",
		"ts-everything-cancel",
		"ts-everything-killed-midcall",
		"go-client-go-server-2026-07-28-discover",
	} {
		t.Run(name, func(t *testing.T) {
			text := readFixture(t, "real/"+name+".jsonl")
			envTr := run(t, name, text, frame.Options{})
			bareTr := run(t, name, bare(t, text), frame.Options{})
			if len(envTr.msgs) != len(bareTr.msgs) {
				t.Fatalf("envelope: %d messages, bare: %d", len(envTr.msgs), len(bareTr.msgs))
			}
			for i, e := range envTr.msgs {
				b := bareTr.msgs[i]
				if b.Dir != e.Dir {
					if b.Dir == spec.DirUnknown && b.DirReason != "" {
						t.Logf("%s: bare direction unknown (%s), recorded %s", b, b.DirReason, e.Dir)
						continue
					}
					t.Errorf("%s: bare direction %s (%s), recorded %s", b, b.Dir, b.DirReason, e.Dir)
					continue
				}
				if (e.Request == nil) != (b.Request == nil) || (e.Request != nil && (e.Request.Line != b.Request.Line || e.Request.Method != b.Request.Method)) {
					t.Errorf("%s: bare pairs with %+v, envelope with %+v", b, b.Request, e.Request)
				}
			}
		})
	}
}

// Ids of the two sides are separate spaces: a client request id 1 and a server
// request id 1 may be outstanding at the same time, and each response pairs with the
// request of the other side.
func TestSeparateIDSpaces(t *testing.T) {
	const (
		initReq   = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"c","version":"1"}}}`
		initRes   = `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`
		initd     = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
		toolsCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ls","arguments":{}}}`
		rootsList = `{"jsonrpc":"2.0","id":1,"method":"roots/list"}`
		toolsRes  = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a b"}],"isError":false}}`
		rootsRes  = `{"jsonrpc":"2.0","id":1,"result":{"roots":[{"uri":"file:///w"}]}}`
	)
	type pair struct{ respLine, reqLine int }
	for _, tc := range []struct {
		name  string
		text  string
		pairs []pair
		dirs  map[int]spec.Direction
	}{
		{
			name: "envelope, server answered first",
			text: lines(env("c->s", initReq), env("s->c", initRes), env("c->s", initd),
				env("c->s", toolsCall), env("s->c", rootsList), env("c->s", rootsRes), env("s->c", toolsRes)),
			pairs: []pair{{6, 5}, {7, 4}},
		},
		{
			name: "envelope, client answered last",
			text: lines(env("c->s", initReq), env("s->c", initRes), env("c->s", initd),
				env("c->s", toolsCall), env("s->c", rootsList), env("s->c", toolsRes), env("c->s", rootsRes)),
			pairs: []pair{{6, 4}, {7, 5}},
		},
		{
			// Both sides have id 1 outstanding when line 6 comes: the result's shape
			// (isError: a tool result) says the server sent it.
			name:  "bare, tool result first",
			text:  lines(initReq, initRes, initd, toolsCall, rootsList, toolsRes, rootsRes),
			pairs: []pair{{6, 4}, {7, 5}},
			dirs:  map[int]spec.Direction{4: spec.C2S, 5: spec.S2C, 6: spec.S2C, 7: spec.C2S},
		},
		{
			// roots: only a client answers roots/list.
			name:  "bare, roots result first",
			text:  lines(initReq, initRes, initd, toolsCall, rootsList, rootsRes, toolsRes),
			pairs: []pair{{6, 5}, {7, 4}},
			dirs:  map[int]spec.Direction{4: spec.C2S, 5: spec.S2C, 6: spec.C2S, 7: spec.S2C},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := run(t, "ids.jsonl", tc.text, frame.Options{})
			for _, p := range tc.pairs {
				m := tr.at(t, p.respLine)
				if m.Request == nil {
					t.Errorf("line %d: not paired, want the request at line %d", p.respLine, p.reqLine)
					continue
				}
				if m.Request.Line != p.reqLine {
					t.Errorf("line %d: paired with %s at line %d, want line %d", p.respLine, m.Request.Method, m.Request.Line, p.reqLine)
				}
				if m.Dir != m.Request.Dir.Opposite() {
					t.Errorf("line %d: direction %s answers a request sent %s", p.respLine, m.Dir, m.Request.Dir)
				}
			}
			for line, d := range tc.dirs {
				if m := tr.at(t, line); m.Dir != d {
					t.Errorf("line %d: direction %s (%s), want %s", line, m.Dir, m.DirReason, d)
				}
			}
			if out := tr.onlySession(t).Outstanding(); len(out) != 0 {
				t.Errorf("outstanding: %+v", out)
			}
		})
	}
}

// When both sides have the id outstanding and the response's shape says nothing
// (an empty result, an error), the direction is unknown and nothing is paired.
func TestAmbiguousResponseStaysUnknown(t *testing.T) {
	const (
		initReq = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"c","version":"1"}}}`
		initRes = `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`
	)
	for _, resp := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom"}}`,
	} {
		text := lines(initReq, initRes,
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`,
			`{"jsonrpc":"2.0","id":1,"method":"roots/list"}`,
			resp)
		tr := run(t, "ambiguous.jsonl", text, frame.Options{})
		m := tr.at(t, 5)
		if m.Dir != spec.DirUnknown || m.DirReason == "" {
			t.Errorf("%s: direction %s (%q), want unknown with a reason", resp, m.Dir, m.DirReason)
		}
		if m.Request != nil {
			t.Errorf("%s: paired with %s at line %d although the direction is unknown", resp, m.Request.Method, m.Request.Line)
		}
		if n := len(tr.onlySession(t).Outstanding()); n != 2 {
			t.Errorf("%s: %d outstanding, want both requests", resp, n)
		}
	}
}

// Progress and cancellation follow the request they refer to (DESIGN.md section 3).
func TestProgressAndCancelDirection(t *testing.T) {
	const (
		initReq = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"c","version":"1"}}}`
		initRes = `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`
		initd   = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	)
	for _, tc := range []struct {
		name string
		body []string // lines 4..
		want map[int]spec.Direction
	}{
		{
			name: "client request: server progress, client cancel",
			body: []string{
				`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":"t1"}}}`,
				`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":1}}`,
				`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"user"}}`,
				`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":2}}`,
			},
			want: map[int]spec.Direction{4: spec.C2S, 5: spec.S2C, 6: spec.C2S, 7: spec.S2C},
		},
		{
			name: "server request: client progress, server cancel",
			body: []string{
				`{"jsonrpc":"2.0","id":"s-1","method":"sampling/createMessage","params":{"maxTokens":5,"messages":[],"_meta":{"progressToken":7}}}`,
				`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":0.5}}`,
				`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s-1"}}`,
			},
			want: map[int]spec.Direction{4: spec.S2C, 5: spec.C2S, 6: spec.S2C},
		},
		{
			// A numeric token 7 is not the string token "7".
			name: "progress for a token nobody issued",
			body: []string{
				`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":"7"}}}`,
				`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1}}`,
				`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`,
			},
			want: map[int]spec.Direction{4: spec.C2S, 5: spec.DirUnknown, 6: spec.DirUnknown},
		},
		{
			// The counts of outstanding tokens are made when the first progress
			// asks for them (from the requests already in flight), then kept.
			name: "a token both sides have outstanding, then one side's",
			body: []string{
				`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":"t"}}}`,
				`{"jsonrpc":"2.0","id":"s-1","method":"sampling/createMessage","params":{"maxTokens":5,"messages":[],"_meta":{"progressToken":"t"}}}`,
				`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`,
				`{"jsonrpc":"2.0","id":"s-1","result":{"role":"assistant","content":{"type":"text","text":"ok"},"model":"m"}}`,
				`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":2}}`,
				`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":"u"}}}`,
				`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"u","progress":1}}`,
			},
			want: map[int]spec.Direction{4: spec.C2S, 5: spec.S2C, 6: spec.DirUnknown, 8: spec.S2C, 9: spec.C2S, 10: spec.S2C},
		},
		{
			name: "cancel for an id both sides have outstanding",
			body: []string{
				`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`,
				`{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"maxTokens":5,"messages":[]}}`,
				`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
				`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`,
			},
			want: map[int]spec.Direction{4: spec.C2S, 5: spec.S2C, 6: spec.DirUnknown, 7: spec.DirUnknown},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := run(t, "progress.jsonl", lines(append([]string{initReq, initRes, initd}, tc.body...)...), frame.Options{})
			for line, d := range tc.want {
				m := tr.at(t, line)
				if m.Dir != d {
					t.Errorf("line %d %s: direction %s (%s), want %s", line, m.Method, m.Dir, m.DirReason, d)
				}
				if m.DirReason == "" {
					t.Errorf("line %d: no DirReason for an inferred or unknown direction", line)
				}
			}
			// A cancel with a known direction marks the request it names.
			for line, d := range tc.want {
				m := tr.at(t, line)
				if m.Method != "notifications/cancelled" || d == spec.DirUnknown {
					continue
				}
				var target = tr.requestAt(t, 4)
				if !target.Cancelled || target.CancelLine != line {
					t.Errorf("cancel at line %d: request at line 4 Cancelled=%v CancelLine=%d", line, target.Cancelled, target.CancelLine)
				}
			}
			if tc.name == "cancel for an id both sides have outstanding" {
				for _, l := range []int{4, 5} {
					if r := tr.requestAt(t, l); r.Cancelled {
						t.Errorf("request at line %d marked cancelled by a cancel of unknown direction", l)
					}
				}
			}
		})
	}
}

// The TypeScript SDK uses the request id as progress token on both sides, so a client
// request and a server request can carry the same token at the same time. Progress for
// that token is then ambiguous, like a response to an id both sides have outstanding:
// the answer must not depend on map iteration order (same input, same output), and
// it is unknown (DESIGN.md section 3).
func TestProgressTokenOnBothSides(t *testing.T) {
	text := lines(
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"c","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","_meta":{"progressToken":1}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"maxTokens":5,"messages":[],"_meta":{"progressToken":1}}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`,
	)
	seen := map[spec.Direction]int{}
	for i := 0; i < 64; i++ {
		seen[run(t, "tokens.jsonl", text, frame.Options{}).at(t, 6).Dir]++
	}
	if len(seen) != 1 {
		t.Errorf("the same input gave different directions over 64 runs: %v", seen)
	}
	if seen[spec.DirUnknown] != 64 {
		t.Errorf("directions %v, want unknown: both sides have progress token 1 outstanding", seen)
	}
}
