package session_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

func initReq(id int, version string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`, id, version)
}

func initRes(id int, version, server string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":%q,"version":"1"}}}`, id, version, server)
}

const initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`

// Two initialize exchanges on one stream are two sessions; the first ends when the
// second initialize arrives (before the second starts), and ids restart without
// pairing across the boundary.
func TestTwoInitializeExchanges(t *testing.T) {
	text := lines(
		env("c->s", initReq(0, "2025-06-18")),                                               // 1
		env("s->c", initRes(0, "2025-06-18", "s1")),                                         // 2
		env("c->s", initialized),                                                            // 3
		env("c->s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`), // 4: never answered
		env("c->s", initReq(0, "2025-11-25")),                                               // 5
		env("s->c", initRes(0, "2025-11-25", "s2")),                                         // 6
		env("c->s", initialized),                                                            // 7
		env("s->c", `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`),                     // 8: session 2 never sent id 1
	)
	tr := run(t, "restart.jsonl", text, frame.Options{})
	wantEvents := []event{{"start", 0, 1}, {"end", 0, 5}, {"start", 1, 5}, {"end", 1, 0}}
	if !slices.Equal(tr.events, wantEvents) {
		t.Fatalf("events %v, want %v", tr.events, wantEvents)
	}
	s0, s1 := tr.started[0], tr.started[1]
	for _, c := range []struct {
		s                  *session.Session
		index, first, last int
		server             string
		rev                spec.Revision
	}{
		{s0, 0, 1, 4, "s1", spec.Rev20250618},
		{s1, 1, 5, 8, "s2", spec.Rev20251125},
	} {
		if c.s.Index != c.index || c.s.FirstLine != c.first || c.s.LastLine != c.last {
			t.Errorf("session %d: index %d lines %d-%d, want %d-%d", c.index, c.s.Index, c.s.FirstLine, c.s.LastLine, c.first, c.last)
		}
		if c.s.Era != session.EraLegacy || c.s.Legacy == nil || c.s.Legacy.Server.Name != c.server || c.s.Legacy.Revision != c.rev {
			t.Errorf("session %d: era %s contract %+v", c.index, c.s.Era, c.s.Legacy)
		}
		if c.s.Input != "restart.jsonl" || c.s.StreamKey != "" {
			t.Errorf("session %d: input %q stream %q", c.index, c.s.Input, c.s.StreamKey)
		}
	}
	if s0.Legacy.RequestLine != 1 || s1.Legacy.RequestLine != 5 || s1.Legacy.ResultLine != 6 || s1.InitializedLine != 7 {
		t.Errorf("contract lines: %d, %d/%d, initialized %d", s0.Legacy.RequestLine, s1.Legacy.RequestLine, s1.Legacy.ResultLine, s1.InitializedLine)
	}
	// The result at line 6 answers the second initialize, not the first.
	if m := tr.at(t, 6); m.Session != s1 || m.Request == nil || m.Request.Line != 5 {
		t.Errorf("line 6: session %v request %+v", m.Session == s1, m.Request)
	}
	if out := s0.Outstanding(); len(out) != 1 || out[0].Line != 4 {
		t.Errorf("session 0 outstanding %+v, want the tools/call at line 4", out)
	}
	if m := tr.at(t, 8); m.Request != nil {
		t.Errorf("line 8 paired across sessions with the request at line %d", m.Request.Line)
	}
	if s0.Frames != 4 || s1.Frames != 4 {
		t.Errorf("frames %d, %d; want 4, 4", s0.Frames, s1.Frames)
	}
}

// Frames before any initialize form a session of their own, without a contract;
// PreHandshake counts them.
func TestFramesBeforeHandshake(t *testing.T) {
	text := lines(
		`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`,                                           // 1
		`{"jsonrpc":"2.0","id":7,"result":{"tools":[]}}`,                                           // 2
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}`, // 3
		`{"jsonrpc":"2.0","id":6,"result":{"content":[]}}`,                                         // 4: the tail of a call before the capture
		initReq(0, "2025-06-18"),                                                                   // 5
		initRes(0, "2025-06-18", "s"),                                                              // 6
		initialized,                                                                                // 7
	)
	tr := run(t, "late.jsonl", text, frame.Options{})
	if len(tr.started) != 2 {
		t.Fatalf("%d sessions (events %v), want 2", len(tr.started), tr.events)
	}
	pre, s := tr.started[0], tr.started[1]
	if pre.Era != session.EraUnknown || pre.Legacy != nil || pre.Contract() != nil {
		t.Errorf("pre-handshake session: era %s legacy %+v", pre.Era, pre.Legacy)
	}
	if pre.FirstLine != 1 || pre.LastLine != 4 || pre.Frames != 4 {
		t.Errorf("pre-handshake session: lines %d-%d frames %d, want 1-4, 4", pre.FirstLine, pre.LastLine, pre.Frames)
	}
	for line := 1; line <= 4; line++ {
		if m := tr.at(t, line); m.Contract != nil || m.Session != pre {
			t.Errorf("line %d: contract %+v, want none", line, m.Contract)
		}
	}
	// Four frames came before the handshake: the response at line 4 is one of them.
	if pre.PreHandshake != 4 {
		t.Errorf("PreHandshake = %d, want 4 (every frame before the handshake, responses included)", pre.PreHandshake)
	}
	if s.Era != session.EraLegacy || s.PreHandshake != 0 || s.FirstLine != 5 || s.Index != 1 {
		t.Errorf("second session: era %s PreHandshake %d first line %d index %d", s.Era, s.PreHandshake, s.FirstLine, s.Index)
	}
	if m := tr.at(t, 7); m.Contract != s.Legacy || m.Dir != spec.C2S {
		t.Errorf("line 7: contract %p dir %s, want the session's legacy contract", m.Contract, m.Dir)
	}
}

// A tail with only responses is still a session before any handshake.
func TestOnlyResponsesBeforeHandshake(t *testing.T) {
	text := lines(
		env("s->c", `{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}`),
		env("s->c", `{"jsonrpc":"2.0","id":4,"result":{}}`),
	)
	s := run(t, "tail.jsonl", text, frame.Options{}).onlySession(t)
	if s.Era != session.EraUnknown || s.PreHandshake != 2 {
		t.Errorf("era %s PreHandshake %d, want unknown, 2", s.Era, s.PreHandshake)
	}
}

// Envelopes carrying different session_id values are separate sessions, each with
// its StreamKey; ids repeat across streams without pairing across them.
func TestInterleavedSessionIDs(t *testing.T) {
	A, B := `"session_id":"A"`, `"session_id":"B"`
	text := lines(
		env("c->s", initReq(0, "2025-06-18"), A),                                               // 1
		env("c->s", initReq(0, "2025-11-25"), B),                                               // 2
		env("s->c", initRes(0, "2025-11-25", "srv-b"), B),                                      // 3
		env("s->c", initRes(0, "2025-06-18", "srv-a"), A),                                      // 4
		env("c->s", initialized, B),                                                            // 5
		env("c->s", initialized, A),                                                            // 6
		env("c->s", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, A),                       // 7
		env("c->s", `{"jsonrpc":"2.0","id":1,"method":"prompts/list"}`, B),                     // 8
		env("s->c", `{"jsonrpc":"2.0","id":1,"result":{"prompts":[]}}`, B),                     // 9
		env("c->s", `{"jsonrpc":"2.0","id":2,"method":"ping"}`, B),                             // 10
		env("s->c", `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`, A),                       // 11
		env("s->c", `{"jsonrpc":"2.0","id":2,"result":{}}`, B),                                 // 12
		env("c->s", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x"}}`, A), // 13: unanswered
	)
	tr := run(t, "multi.jsonl", text, frame.Options{})
	if len(tr.started) != 2 || len(tr.ended) != 2 {
		t.Fatalf("events %v, want two sessions", tr.events)
	}
	a, b := tr.started[0], tr.started[1]
	if a.StreamKey != "A" || b.StreamKey != "B" || a.Index != 0 || b.Index != 1 {
		t.Fatalf("sessions %q/%d, %q/%d", a.StreamKey, a.Index, b.StreamKey, b.Index)
	}
	if a.FirstLine != 1 || a.LastLine != 13 || b.FirstLine != 2 || b.LastLine != 12 {
		t.Errorf("lines A %d-%d, B %d-%d", a.FirstLine, a.LastLine, b.FirstLine, b.LastLine)
	}
	if a.Legacy.Server.Name != "srv-a" || a.Legacy.Revision != spec.Rev20250618 || b.Legacy.Server.Name != "srv-b" || b.Legacy.Revision != spec.Rev20251125 {
		t.Errorf("contracts A %+v, B %+v", *a.Legacy, *b.Legacy)
	}
	for resp, want := range map[int]struct {
		s       *session.Session
		reqLine int
	}{3: {b, 2}, 4: {a, 1}, 9: {b, 8}, 11: {a, 7}, 12: {b, 10}} {
		m := tr.at(t, resp)
		if m.Session != want.s {
			t.Errorf("line %d went to session %q", resp, m.Session.StreamKey)
		}
		if m.Request == nil || m.Request.Line != want.reqLine {
			t.Errorf("line %d: paired with %+v, want the request at line %d", resp, m.Request, want.reqLine)
		}
	}
	if out := a.Outstanding(); len(out) != 1 || out[0].Line != 13 {
		t.Errorf("A outstanding %+v, want the tools/call at line 13", out)
	}
	if out := b.Outstanding(); len(out) != 0 {
		t.Errorf("B outstanding %+v", out)
	}
	// Close ends the open sessions in order of their first frame.
	if tr.ended[0] != a || tr.ended[1] != b {
		t.Errorf("ended in order %q, %q", tr.ended[0].StreamKey, tr.ended[1].StreamKey)
	}
}

// A restart on one stream of an interleaved capture ends only that stream's session.
func TestRestartOnOneStream(t *testing.T) {
	A, B := `"server_label":"a"`, `"server_label":"b"`
	text := lines(
		env("c->s", initReq(0, "2025-06-18"), A),                   // 1
		env("c->s", initReq(0, "2025-06-18"), B),                   // 2
		env("s->c", initRes(0, "2025-06-18", "a"), A),              // 3
		env("s->c", initRes(0, "2025-06-18", "b"), B),              // 4
		env("c->s", initReq(0, "2025-06-18"), A),                   // 5: a restarts
		env("s->c", initRes(0, "2025-06-18", "a2"), A),             // 6
		env("c->s", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, B), // 7
	)
	tr := run(t, "restart-a.jsonl", text, frame.Options{})
	want := []event{{"start", 0, 1}, {"start", 1, 2}, {"end", 0, 5}, {"start", 2, 5}, {"end", 1, 0}, {"end", 2, 0}}
	if !slices.Equal(tr.events, want) {
		t.Fatalf("events %v, want %v", tr.events, want)
	}
	if s := tr.started[2]; s.StreamKey != "a" || s.Legacy.Server.Name != "a2" || s.FirstLine != 5 {
		t.Errorf("third session: %q %+v", s.StreamKey, s.Legacy)
	}
	if s := tr.started[1]; s.LastLine != 7 || s.Frames != 3 {
		t.Errorf("stream b: last line %d frames %d", s.LastLine, s.Frames)
	}
}

// fixtures/sessions/dual-era-probe.jsonl: server/discover refused, then initialize.
// One session (the probe does not make a session of its own), legacy era, with the
// contract of the initialize exchange.
func TestDualEraProbe(t *testing.T) {
	tr := runFile(t, "sessions/dual-era-probe.jsonl")
	s := tr.onlySession(t)
	if s.Era != session.EraLegacy || s.FirstLine != 1 || s.LastLine != 9 || s.Frames != 9 {
		t.Errorf("era %s lines %d-%d frames %d", s.Era, s.FirstLine, s.LastLine, s.Frames)
	}
	c := s.Legacy
	if c == nil {
		t.Fatal("no legacy contract")
	}
	if s.Contract() != c {
		t.Errorf("Session.Contract() is not the initialize contract")
	}
	if c.RequestLine != 3 || c.ResultLine != 4 || c.Revision != spec.Rev20251125 || c.Verdict != session.VerdictEchoed {
		t.Errorf("contract lines %d/%d revision %q verdict %s", c.RequestLine, c.ResultLine, c.Revision, c.Verdict)
	}
	if string(c.ServerCaps) != `{"tools":{"listChanged":true}}` || c.Server.Name != "lab-legacy-server" || c.Client.Name != "lab-dual-era-client" {
		t.Errorf("contract %+v", *c)
	}
	if s.Discover != nil {
		t.Errorf("Discover %+v from a refused probe", *s.Discover)
	}
	if s.InitializedLine != 5 || s.PreHandshake != 0 {
		t.Errorf("InitializedLine %d PreHandshake %d", s.InitializedLine, s.PreHandshake)
	}
	probe := tr.requestAt(t, 1)
	if probe.Method != "server/discover" || probe.ResponseLine != 2 || !probe.ResponseErr {
		t.Errorf("probe %+v", *probe)
	}
	// Everything after the fallback is judged by the legacy contract.
	for _, line := range []int{4, 5, 6, 7, 8, 9} {
		if m := tr.at(t, line); m.Contract != c {
			t.Errorf("line %d: contract %+v, want the initialize contract", line, m.Contract)
		}
	}
	if out := s.Outstanding(); len(out) != 0 {
		t.Errorf("outstanding %+v", out)
	}
}

// The same probe without _meta (a client that sends a bare discover) still stays one
// session with the initialize that follows.
func TestDualEraProbeWithoutMeta(t *testing.T) {
	text := lines(
		env("c->s", `{"jsonrpc":"2.0","id":1,"method":"server/discover"}`),
		env("s->c", `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"missing _meta"}}`),
		env("c->s", initReq(2, "2025-06-18")),
		env("s->c", initRes(2, "2025-06-18", "s")),
	)
	tr := run(t, "probe.jsonl", text, frame.Options{})
	s := tr.onlySession(t)
	if s.Era != session.EraLegacy || s.Legacy == nil || s.Legacy.ResultLine != 4 {
		t.Errorf("era %s contract %+v", s.Era, s.Legacy)
	}
}

// A successful discover followed by initialize is a new (legacy) session: the client
// used the modern era, then started over.
func TestDiscoverAnsweredThenInitialize(t *testing.T) {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	text := lines(
		env("c->s", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+meta+`}}`),
		env("s->c", `{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}}}}`),
		env("c->s", initReq(2, "2025-11-25")),
		env("s->c", initRes(2, "2025-11-25", "s")),
	)
	tr := run(t, "probe.jsonl", text, frame.Options{})
	if len(tr.started) != 2 {
		t.Fatalf("events %v, want two sessions", tr.events)
	}
	if s := tr.started[0]; s.Era != session.EraModern || s.Discover == nil || s.LastLine != 2 {
		t.Errorf("first session: era %s discover %+v last line %d", s.Era, s.Discover, s.LastLine)
	}
	if s := tr.started[1]; s.Era != session.EraLegacy || s.FirstLine != 3 {
		t.Errorf("second session: era %s first line %d", s.Era, s.FirstLine)
	}
}

// fixtures/sessions/two-sessions-restart.jsonl and interleaved-streams.jsonl, as the
// tracker sees them (their .want files are checked by pkg/rules).
func TestSessionFixtures(t *testing.T) {
	t.Run("two-sessions-restart", func(t *testing.T) {
		tr := runFile(t, "sessions/two-sessions-restart.jsonl")
		want := []event{{"start", 0, 1}, {"end", 0, 7}, {"start", 1, 7}, {"end", 1, 0}}
		if !slices.Equal(tr.events, want) {
			t.Fatalf("events %v, want %v", tr.events, want)
		}
		s0, s1 := tr.started[0], tr.started[1]
		if s0.LastLine != 6 || s1.FirstLine != 7 || s1.LastLine != 13 {
			t.Errorf("lines %d-%d, %d-%d", s0.FirstLine, s0.LastLine, s1.FirstLine, s1.LastLine)
		}
		if out := s0.Outstanding(); len(out) != 1 || out[0].Line != 6 || out[0].Method != "tools/call" {
			t.Errorf("first session outstanding %+v, want the tools/call at line 6", out)
		}
		if m := tr.at(t, 13); m.Request == nil || m.Request.Line != 12 {
			t.Errorf("line 13 paired with %+v, want the tools/call at line 12", m.Request)
		}
		if out := s1.Outstanding(); len(out) != 0 {
			t.Errorf("second session outstanding %+v", out)
		}
	})
	t.Run("interleaved-streams", func(t *testing.T) {
		tr := runFile(t, "sessions/interleaved-streams.jsonl")
		if len(tr.started) != 2 {
			t.Fatalf("events %v, want two sessions", tr.events)
		}
		files, weather := tr.started[0], tr.started[1]
		if files.StreamKey != "files" || weather.StreamKey != "weather" {
			t.Fatalf("stream keys %q, %q", files.StreamKey, weather.StreamKey)
		}
		for resp, want := range map[int]struct {
			s       *session.Session
			reqLine int
		}{3: {weather, 2}, 4: {files, 1}, 9: {weather, 8}, 10: {files, 7}, 12: {files, 11}, 15: {files, 14}, 16: {weather, 13}} {
			m := tr.at(t, resp)
			if m.Session != want.s || m.Request == nil || m.Request.Line != want.reqLine {
				t.Errorf("line %d: session %q request %+v, want line %d of %q", resp, m.Session.StreamKey, m.Request, want.reqLine, want.s.StreamKey)
			}
		}
		if r := tr.requestAt(t, 11); r.Dir != spec.S2C || r.ResponseLine != 12 {
			t.Errorf("roots/list: dir %s response line %d", r.Dir, r.ResponseLine)
		}
		for _, s := range tr.started {
			if out := s.Outstanding(); len(out) != 0 {
				t.Errorf("%s outstanding %+v", s.StreamKey, out)
			}
			if s.Era != session.EraLegacy || s.Legacy.Verdict != session.VerdictEchoed {
				t.Errorf("%s: era %s verdict %s", s.StreamKey, s.Era, s.Legacy.Verdict)
			}
		}
	})
}

// An initialize anywhere in a batch (illegal, MCP1009, but seen) opens a new session
// like a lone one: it must not overwrite the running session's contract.
func TestInitializeInsideBatch(t *testing.T) {
	for _, tc := range []struct {
		name  string
		batch string
	}{
		{"first member", `[` + initReq(0, "2025-03-26") + `,{"jsonrpc":"2.0","id":1,"method":"ping"}]`},
		{"second member", `[{"jsonrpc":"2.0","id":1,"method":"ping"},` + initReq(0, "2025-03-26") + `]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := lines(
				env("c->s", initReq(0, "2025-06-18")),
				env("s->c", initRes(0, "2025-06-18", "old")),
				env("c->s", initialized),
				env("c->s", tc.batch),
				env("s->c", initRes(0, "2025-03-26", "new")),
			)
			tr := run(t, "batch-init.jsonl", text, frame.Options{})
			if len(tr.started) != 2 {
				t.Fatalf("events %v, want a second session at line 4", tr.events)
			}
			old := tr.started[0]
			if old.Legacy.RequestLine != 1 || old.Legacy.Server.Name != "old" || old.Legacy.Revision != spec.Rev20250618 || old.LastLine != 3 {
				t.Errorf("first session's contract was changed: %+v (last line %d)", *old.Legacy, old.LastLine)
			}
			if s := tr.started[1]; s.FirstLine != 4 || s.Legacy == nil || s.Legacy.RequestLine != 4 || s.Legacy.Server.Name != "new" {
				t.Errorf("second session: first line %d contract %+v", s.FirstLine, s.Legacy)
			}
		})
	}
}
