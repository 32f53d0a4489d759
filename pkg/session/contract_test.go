package session_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// handshake runs an initialize request (line 1) and optional answer (line 2) and
// returns the session's legacy contract.
func handshake(t *testing.T, req, answer string) (*session.Contract, *trace) {
	t.Helper()
	ls := []string{env("c->s", req)}
	if answer != "" {
		ls = append(ls, env("s->c", answer))
	}
	tr := run(t, "handshake.jsonl", lines(ls...), frame.Options{})
	s := tr.onlySession(t)
	if s.Era != session.EraLegacy || s.Legacy == nil {
		t.Fatalf("era %s, legacy %+v", s.Era, s.Legacy)
	}
	if s.Contract() != s.Legacy {
		t.Errorf("Session.Contract() is not the legacy contract")
	}
	return s.Legacy, tr
}

func TestLegacyVerdicts(t *testing.T) {
	for _, tc := range []struct {
		name                string
		requested, answered string
		revision            spec.Revision
		verdict             session.Verdict
		verdictName         string
	}{
		{"echoed", "2025-06-18", "2025-06-18", spec.Rev20250618, session.VerdictEchoed, "echoed"},
		{"downgraded", "2025-11-25", "2025-03-26", spec.Rev20250326, session.VerdictDowngraded, "downgraded"},
		{"oldest", "2025-11-25", "2024-11-05", spec.Rev20241105, session.VerdictDowngraded, "downgraded"},
		{"not offered", "2025-03-26", "2025-11-25", spec.Rev20251125, session.VerdictNotOffered, "not offered"},
		{"modern answer to a legacy request", "2025-11-25", "2026-07-28", spec.Rev20260728, session.VerdictNotOffered, "not offered"},
		{"unknown answer", "2025-06-18", "2025-13-01", "", session.VerdictUnknown, "unknown revision"},
		{"draft is not a wire version", "2025-06-18", "draft", "", session.VerdictUnknown, "unknown revision"},
		{"unknown request", "1.0", "2025-06-18", spec.Rev20250618, session.VerdictUnknown, "unknown revision"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := handshake(t, initReq(0, tc.requested), initRes(0, tc.answered, "s"))
			if c.Requested != tc.requested || c.Answered != tc.answered {
				t.Errorf("requested %q answered %q", c.Requested, c.Answered)
			}
			if c.Revision != tc.revision {
				t.Errorf("Revision %q, want %q", c.Revision, tc.revision)
			}
			if c.Verdict != tc.verdict || c.Verdict.String() != tc.verdictName {
				t.Errorf("Verdict %s, want %s", c.Verdict, tc.verdictName)
			}
			if c.Era != session.EraLegacy || c.Era.String() != "legacy" {
				t.Errorf("Era %s", c.Era)
			}
			if c.RequestLine != 1 || c.ResultLine != 2 || c.ServerCapsLine != 2 || c.ErrorLine != 0 {
				t.Errorf("lines: request %d result %d server caps %d error %d", c.RequestLine, c.ResultLine, c.ServerCapsLine, c.ErrorLine)
			}
		})
	}
}

func TestLegacyFailedAndPending(t *testing.T) {
	t.Run("failed", func(t *testing.T) {
		c, tr := handshake(t, initReq(0, "2099-01-01"),
			`{"jsonrpc":"2.0","id":0,"error":{"code":-32602,"message":"Unsupported protocol version","data":{"supported":["2025-06-18"],"requested":"2099-01-01"}}}`)
		if c.Verdict != session.VerdictFailed || c.Verdict.String() != "initialize failed" {
			t.Errorf("Verdict %s, want initialize failed", c.Verdict)
		}
		if c.ErrorLine != 2 || c.ResultLine != 0 || c.Answered != "" || c.ServerCaps != nil || c.ServerCapsLine != 0 {
			t.Errorf("ErrorLine %d ResultLine %d Answered %q ServerCaps %s", c.ErrorLine, c.ResultLine, c.Answered, c.ServerCaps)
		}
		if r := tr.requestAt(t, 1); !r.ResponseErr || r.ResponseLine != 2 {
			t.Errorf("initialize request: ResponseErr %v ResponseLine %d", r.ResponseErr, r.ResponseLine)
		}
		if m := tr.at(t, 2); m.ErrorCode != -32602 || m.Contract != c {
			t.Errorf("error response: code %d contract %p", m.ErrorCode, m.Contract)
		}
	})
	t.Run("no answer", func(t *testing.T) {
		c, tr := handshake(t, initReq(0, "2025-06-18"), "")
		if c.Verdict != session.VerdictPending || c.Verdict.String() != "no answer" {
			t.Errorf("Verdict %s, want no answer", c.Verdict)
		}
		// The requested revision governs provisionally until the result answers.
		if c.Revision != spec.Rev20250618 || c.ResultLine != 0 || c.ServerCaps != nil {
			t.Errorf("Revision %q ResultLine %d ServerCaps %s", c.Revision, c.ResultLine, c.ServerCaps)
		}
		if out := tr.started[0].Outstanding(); len(out) != 1 || out[0].Method != "initialize" {
			t.Errorf("outstanding %+v", out)
		}
	})
	t.Run("no answer to a request for a modern revision", func(t *testing.T) {
		// An initialize selects legacy semantics: asking it for 2026-07-28 leaves the
		// newest legacy revision governing until the result answers.
		c, _ := handshake(t, initReq(0, "2026-07-28"), "")
		if c.Revision != spec.Rev20251125 || c.Requested != "2026-07-28" {
			t.Errorf("Revision %q Requested %q, want 2025-11-25 and 2026-07-28", c.Revision, c.Requested)
		}
	})
	t.Run("no answer to a request for an unknown version", func(t *testing.T) {
		c, _ := handshake(t, initReq(0, "2099-01-01"), "")
		if c.Revision != "" {
			t.Errorf("Revision %q, want none", c.Revision)
		}
	})
}

// The capability objects are kept verbatim (whitespace and order as captured), with
// the implementations, the instructions and the lines that declared them.
func TestLegacyContractFields(t *testing.T) {
	req := `{"jsonrpc":"2.0","id":"init-1","method":"initialize","params":{"protocolVersion":"2025-11-25",` +
		`"capabilities": { "roots" : {"listChanged": true}, "sampling":{}, "elicitation":{"form":{}}, "experimental":null, "x":{"a*b":{},"abc":{}} },` +
		`"clientInfo":{"name":"lab client","version":"1.2.3","title":"Lab"}}}`
	res := `{"jsonrpc":"2.0","id":"init-1","result":{"protocolVersion":"2025-11-25",` +
		`"capabilities":{"tools":{"listChanged":false},"resources":{"subscribe":true},"logging":{},"prompts":{},"completions":false,"tasks":{"requests":{"tools":{"call":{}}}}},` +
		`"serverInfo":{"name":"lab server","version":"9.8"},"instructions":"Use the tools.\nNever guess."}}`
	c, tr := handshake(t, req, res)
	tr2 := run(t, "h", lines(env("c->s", req), env("s->c", res), env("c->s", initialized)), frame.Options{})
	if s := tr2.onlySession(t); s.InitializedLine != 3 {
		t.Errorf("InitializedLine %d, want 3", s.InitializedLine)
	}
	if got, want := string(c.ClientCaps), `{ "roots" : {"listChanged": true}, "sampling":{}, "elicitation":{"form":{}}, "experimental":null, "x":{"a*b":{},"abc":{}} }`; got != want {
		t.Errorf("ClientCaps\n got %s\nwant %s", got, want)
	}
	if got, want := string(c.ServerCaps), `{"tools":{"listChanged":false},"resources":{"subscribe":true},"logging":{},"prompts":{},"completions":false,"tasks":{"requests":{"tools":{"call":{}}}}}`; got != want {
		t.Errorf("ServerCaps\n got %s\nwant %s", got, want)
	}
	if c.Client != (session.Implementation{Name: "lab client", Version: "1.2.3"}) || c.Server != (session.Implementation{Name: "lab server", Version: "9.8"}) {
		t.Errorf("Client %+v Server %+v", c.Client, c.Server)
	}
	if c.Instructions != "Use the tools.\nNever guess." {
		t.Errorf("Instructions %q", c.Instructions)
	}
	if c.RequestLine != 1 || c.ResultLine != 2 || c.ServerCapsLine != 2 {
		t.Errorf("lines %d/%d/%d", c.RequestLine, c.ResultLine, c.ServerCapsLine)
	}
	if c.DeclaredLine(spec.Client) != 1 || c.DeclaredLine(spec.Server) != 2 {
		t.Errorf("DeclaredLine client %d server %d", c.DeclaredLine(spec.Client), c.DeclaredLine(spec.Server))
	}
	if r := tr.requestAt(t, 1); r.ID != `"init-1"` || r.Contract != c {
		t.Errorf("initialize request id %s contract %p", r.ID, r.Contract)
	}

	for _, d := range []struct {
		side     spec.Side
		path     string
		boolean  bool
		declared bool
	}{
		{spec.Server, "tools", false, true},
		{spec.Server, "tools.listChanged", true, false}, // false
		{spec.Server, "resources.subscribe", true, true},
		{spec.Server, "resources.listChanged", true, false}, // absent
		{spec.Server, "resources", false, true},
		{spec.Server, "logging", false, true}, // {}
		{spec.Server, "prompts.listChanged", true, false},
		{spec.Server, "completions", false, false}, // false is not a declaration
		{spec.Server, "tasks.requests.tools.call", false, true},
		{spec.Server, "tasks.requests.sampling", false, false},
		{spec.Server, "roots", false, false}, // a client capability
		{spec.Client, "roots", false, true},
		{spec.Client, "roots.listChanged", true, true},
		{spec.Client, "sampling", false, true},
		{spec.Client, "sampling.tools", false, false},
		{spec.Client, "elicitation.form", false, true},
		{spec.Client, "elicitation.url", false, false},
		{spec.Client, "experimental", false, false}, // null
		{spec.Client, "tools", false, false},        // a server capability
		{spec.Client, "x.a*b", false, true},         // gjson syntax in a key is literal
		{spec.Client, "x.a?c", false, false},        // ... and no wildcard
		{spec.Client, "x.ab*", false, false},
	} {
		declared, ok := c.Declares(d.side, d.path, d.boolean)
		if !ok || declared != d.declared {
			t.Errorf("Declares(%s, %q, boolean=%v) = %v, %v; want %v, true", d.side, d.path, d.boolean, declared, ok, d.declared)
		}
	}

	for _, s := range []struct {
		side spec.Side
		top  string
		want string
	}{
		{spec.Server, "tools", `tools: {"listChanged":false}`},
		{spec.Server, "logging", `logging: {}`},
		{spec.Server, "completions", `completions: false`},
		{spec.Server, "elicitation", `no elicitation`},
		{spec.Client, "roots", `roots: {"listChanged":true}`}, // whitespace dropped
		{spec.Client, "experimental", `experimental: null`},
		{spec.Client, "tools", `no tools`},
	} {
		if got := c.CapabilitySummary(s.side, s.top); got != s.want {
			t.Errorf("CapabilitySummary(%s, %q) = %q, want %q", s.side, s.top, got, s.want)
		}
	}
	if got := c.DeclaredIn(spec.Server); got != "initialize result (line 2)" {
		t.Errorf("DeclaredIn(server) = %q", got)
	}
	if got := c.DeclaredIn(spec.Client); got != "initialize request (line 1)" {
		t.Errorf("DeclaredIn(client) = %q", got)
	}
}

// Declaration unknown (no capabilities member, no result yet) is not "declared
// nothing": Declares says ok=false so that rules cannot judge rather than fire.
func TestDeclaresUnknown(t *testing.T) {
	c, _ := handshake(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","clientInfo":{"name":"c","version":"1"}}}`, "")
	for _, side := range []spec.Side{spec.Client, spec.Server} {
		if declared, ok := c.Declares(side, "roots", false); declared || ok {
			t.Errorf("Declares(%s) = %v, %v; want false, false", side, declared, ok)
		}
		if got := c.CapabilitySummary(side, "tools"); got != "no tools" {
			t.Errorf("CapabilitySummary(%s) = %q", side, got)
		}
	}
	if got := c.DeclaredIn(spec.Server); got != "initialize result" {
		t.Errorf("DeclaredIn(server) without a result = %q, want no line", got)
	}
	// An empty object is a declaration of nothing: known, and false.
	c2, _ := handshake(t, initReq(0, "2025-06-18"), initRes(0, "2025-06-18", "s"))
	if declared, ok := c2.Declares(spec.Client, "sampling", false); declared || !ok {
		t.Errorf("Declares on {} = %v, %v; want false, true", declared, ok)
	}
}

func TestDeclaredInWording(t *testing.T) {
	for _, tc := range []struct {
		c    session.Contract
		side spec.Side
		want string
	}{
		{session.Contract{Era: session.EraLegacy, RequestLine: 4, ServerCapsLine: 5}, spec.Client, "initialize request (line 4)"},
		{session.Contract{Era: session.EraLegacy, RequestLine: 4, ServerCapsLine: 5}, spec.Server, "initialize result (line 5)"},
		{session.Contract{Era: session.EraModern, RequestLine: 9, ServerCapsLine: 2}, spec.Client, "the request's _meta clientCapabilities (line 9)"},
		{session.Contract{Era: session.EraModern, RequestLine: 9, ServerCapsLine: 2}, spec.Server, "server/discover result (line 2)"},
		{session.Contract{Era: session.EraModern, RequestLine: 9}, spec.Server, "server/discover result"},
		{session.Contract{}, spec.Client, "initialize request"},
	} {
		if got := tc.c.DeclaredIn(tc.side); got != tc.want {
			t.Errorf("%+v DeclaredIn(%s) = %q, want %q", tc.c, tc.side, got, tc.want)
		}
	}
}

// CapabilitySummary shortens long values for messages; the cut must not split a
// UTF-8 character (messages go to JSON, SARIF and terminals).
func TestCapabilitySummaryLong(t *testing.T) {
	// Shift the two-byte characters by one byte so that some cut falls inside one.
	for pad := 0; pad < 2; pad++ {
		long := `{"experimental":{"note":"` + strings.Repeat("x", pad) + strings.Repeat("é", 100) + `"}}`
		c := session.Contract{ClientCaps: []byte(long)}
		got := c.CapabilitySummary(spec.Client, "experimental")
		if !strings.HasPrefix(got, `experimental: {"note":"`) || !strings.HasSuffix(got, "...") {
			t.Errorf("pad %d: summary %q", pad, got)
		}
		if n := len(strings.TrimPrefix(got, "experimental: ")); n > 120 {
			t.Errorf("pad %d: value is %d bytes, want at most 120", pad, n)
		}
		if !utf8.ValidString(got) {
			t.Errorf("pad %d: summary is not valid UTF-8: %q", pad, got)
		}
	}
	// Escaped quotes inside strings do not end the string: its spaces are kept.
	c := session.Contract{ServerCaps: []byte(`{"experimental": {"say": "a \" b c"}}`)}
	if got := c.CapabilitySummary(spec.Server, "experimental"); got != `experimental: {"say":"a \" b c"}` {
		t.Errorf("summary %q", got)
	}
}

// go-client-go-server-2026-07-28-discover: a stateless session. Every request carries
// its own contract in _meta; server capabilities come from the server/discover result.
func TestModernSession(t *testing.T) {
	tr := runFile(t, "real/go-client-go-server-2026-07-28-discover.jsonl")
	s := tr.onlySession(t)
	if s.Era != session.EraModern || s.Legacy != nil || s.ModernRevision != spec.Rev20260728 || s.PreHandshake != 0 {
		t.Errorf("era %s legacy %+v modern revision %q PreHandshake %d", s.Era, s.Legacy, s.ModernRevision, s.PreHandshake)
	}
	const serverCaps = `{"logging":{},"prompts":{"listChanged":true},"resources":{"listChanged":true},"tools":{"listChanged":true}}`
	const clientCaps = `{"roots":{"listChanged":true}}`
	d := s.Discover
	if d == nil {
		t.Fatal("no Discover contract")
	}
	if string(d.ServerCaps) != serverCaps || d.ServerCapsLine != 2 || d.Era != session.EraModern {
		t.Errorf("Discover caps %s line %d era %s", d.ServerCaps, d.ServerCapsLine, d.Era)
	}
	if d.Server != (session.Implementation{Name: "lab-go-sdk-server", Version: "0.1.0"}) {
		t.Errorf("Discover server %+v (from the result's _meta serverInfo)", d.Server)
	}
	if !slices.Equal(d.SupportedVersions, []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}) {
		t.Errorf("SupportedVersions %q", d.SupportedVersions)
	}

	// The discover request: its own _meta, no server declaration yet.
	dr := tr.requestAt(t, 1)
	if c := dr.Contract; c == nil || c.ServerCaps != nil || c.ServerCapsLine != 0 || c.Server.Name != "" {
		t.Errorf("server/discover request contract %+v, want no server caps yet", c)
	} else {
		if string(c.ClientCaps) != clientCaps || c.Requested != "2026-07-28" || c.Revision != spec.Rev20260728 || c.RequestLine != 1 {
			t.Errorf("server/discover contract %+v", *c)
		}
		if declared, ok := c.Declares(spec.Server, "tools", false); declared || ok {
			t.Errorf("before the discover result, Declares(server, tools) = %v, %v; want unknown", declared, ok)
		}
	}

	for _, line := range []int{3, 5, 7, 9, 11, 13} {
		r := tr.requestAt(t, line)
		c := r.Contract
		if c == nil {
			t.Errorf("line %d: no contract", line)
			continue
		}
		if c.Era != session.EraModern || c.Requested != "2026-07-28" || c.Revision != spec.Rev20260728 || c.Verdict != session.VerdictEchoed {
			t.Errorf("line %d: era %s requested %q revision %q verdict %s", line, c.Era, c.Requested, c.Revision, c.Verdict)
		}
		if string(c.ClientCaps) != clientCaps || c.Client.Name != "lab-go-sdk-client" || c.RequestLine != line {
			t.Errorf("line %d: client caps %s client %+v request line %d", line, c.ClientCaps, c.Client, c.RequestLine)
		}
		if string(c.ServerCaps) != serverCaps || c.ServerCapsLine != 2 || c.Server.Name != "lab-go-sdk-server" || len(c.SupportedVersions) != 5 {
			t.Errorf("line %d: server caps %s line %d server %+v", line, c.ServerCaps, c.ServerCapsLine, c.Server)
		}
		if got := c.DeclaredIn(spec.Server); got != "server/discover result (line 2)" {
			t.Errorf("line %d: DeclaredIn(server) = %q", line, got)
		}
		if got := c.DeclaredIn(spec.Client); got != fmt.Sprintf("the request's _meta clientCapabilities (line %d)", line) {
			t.Errorf("line %d: DeclaredIn(client) = %q", line, got)
		}
		if declared, ok := c.Declares(spec.Server, "tools.listChanged", true); !declared || !ok {
			t.Errorf("line %d: Declares(server, tools.listChanged) = %v, %v", line, declared, ok)
		}
		// The response is governed by its request's contract.
		if m := tr.at(t, line+1); m.Request != r || m.Contract != c {
			t.Errorf("line %d: response not governed by its request's contract", line+1)
		}
	}

	// ping carries no _meta: the session's revision, no client declaration.
	ping := tr.requestAt(t, 15)
	if c := ping.Contract; c == nil {
		t.Error("ping: no contract")
	} else {
		if c.Revision != spec.Rev20260728 || c.ClientCaps != nil || c.Era != session.EraModern {
			t.Errorf("ping contract: revision %q client caps %s era %s", c.Revision, c.ClientCaps, c.Era)
		}
		if declared, ok := c.Declares(spec.Client, "roots", false); declared || ok {
			t.Errorf("ping: Declares(client, roots) = %v, %v; want unknown", declared, ok)
		}
		if string(c.ServerCaps) != serverCaps {
			t.Errorf("ping: server caps %s", c.ServerCaps)
		}
	}

	listen := tr.requestAt(t, 3)
	if listen.Method != "subscriptions/listen" || !listen.LongLived {
		t.Errorf("line 3: %s LongLived=%v", listen.Method, listen.LongLived)
	}
	for _, line := range []int{1, 5, 7, 15} {
		if tr.requestAt(t, line).LongLived {
			t.Errorf("line %d: LongLived", line)
		}
	}
	ack := tr.at(t, 4)
	if ack.Method != "notifications/subscriptions/acknowledged" || ack.Request != listen || ack.Contract != listen.Contract {
		t.Errorf("line 4: %s request %+v, want the listen request", ack.Method, ack.Request)
	}
	if !listen.Cancelled || listen.CancelLine != 17 {
		t.Errorf("listen: Cancelled=%v CancelLine=%d, want true, 17", listen.Cancelled, listen.CancelLine)
	}
	if listen.ResponseLine != 18 {
		t.Errorf("listen: ResponseLine %d, want 18", listen.ResponseLine)
	}
	if out := s.Outstanding(); len(out) != 0 {
		t.Errorf("outstanding %+v", out)
	}
	// The session's contract as a whole: the latest request's, with the discover caps.
	if c := s.Contract(); c == nil || c.Requested != "2026-07-28" || string(c.ServerCaps) != serverCaps {
		t.Errorf("Session.Contract() %+v", c)
	}
}

// A subscriptionId that names no listen request (or a request from the wrong side)
// resolves to nothing.
func TestModernSubscriptionIDMismatch(t *testing.T) {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	text := lines(
		env("c->s", `{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{`+meta+`,"notifications":{"toolsListChanged":true}}}`),
		env("s->c", `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L"}}}`),
		env("s->c", `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"M"}}}`),
		env("s->c", `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L"}}}`),
	)
	tr := run(t, "listen.jsonl", text, frame.Options{})
	listen := tr.requestAt(t, 1)
	if m := tr.at(t, 2); m.Request != listen {
		t.Errorf("ack: request %+v", m.Request)
	}
	if m := tr.at(t, 3); m.Request != nil {
		t.Errorf("line 3 (subscription M): resolved to %+v", m.Request)
	}
	if m := tr.at(t, 4); m.Request != listen || m.Contract != listen.Contract {
		t.Errorf("line 4: request %+v", m.Request)
	}
	if s := tr.onlySession(t); s.Era != session.EraModern || s.Discover != nil {
		t.Errorf("era %s discover %+v", s.Era, s.Discover)
	}
	if c := listen.Contract; c.ServerCaps != nil {
		t.Errorf("no discover, yet server caps %s", c.ServerCaps)
	}
}

// 2026-07-28: "Server-sent cancellation notifications MUST reference a
// subscriptions/listen request" (changes.md section 6): the server ends the client's
// listen stream by cancelling it. The listen request is then cancelled, although the
// cancel travels the other way.
func TestModernServerCancelsListen(t *testing.T) {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	text := lines(
		env("c->s", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+meta+`}}`),
		env("s->c", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":true}},"ttlMs":0,"cacheScope":"public"}}`),
		env("c->s", `{"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{`+meta+`,"notifications":{"toolsListChanged":true}}}`),
		env("s->c", `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":2},"notifications":{"toolsListChanged":true}}}`),
		env("s->c", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"server shutting down"}}`),
	)
	tr := run(t, "listen-cancel.jsonl", text, frame.Options{})
	listen := tr.requestAt(t, 3)
	if !listen.Cancelled || listen.CancelLine != 5 {
		t.Errorf("listen: Cancelled=%v CancelLine=%d, want true, 5 (the server ended the stream)", listen.Cancelled, listen.CancelLine)
	}
}

// TestDeclaresFollowsTheDeclaration: Declares remembers its answers, and a
// declaration replaced afterwards (a later discover result, a copied contract)
// is read again, never answered from the old one.
func TestDeclaresFollowsTheDeclaration(t *testing.T) {
	c := &session.Contract{ServerCaps: []byte(`{"tools":{}}`)}
	for range 3 {
		if d, ok := c.Declares(spec.Server, "tools", false); !d || !ok {
			t.Fatalf("tools declared in %s: got %v, %v", c.ServerCaps, d, ok)
		}
		if d, _ := c.Declares(spec.Server, "tools.listChanged", true); d {
			t.Fatalf("tools.listChanged not declared in %s", c.ServerCaps)
		}
	}
	c.ServerCaps = []byte(`{"tools":{"listChanged":true}}`)
	if d, _ := c.Declares(spec.Server, "tools.listChanged", true); !d {
		t.Fatalf("tools.listChanged declared in %s, answered from the old declaration", c.ServerCaps)
	}
	c.ServerCaps = []byte(`{"prompts":{}}`)
	if d, _ := c.Declares(spec.Server, "tools", false); d {
		t.Fatalf("tools not declared in %s, answered from the old declaration", c.ServerCaps)
	}
	for i := range 20 { // more paths than it remembers
		c.Declares(spec.Client, fmt.Sprintf("x%d", i), false)
	}
	if d, ok := c.Declares(spec.Client, "roots", false); d || ok {
		t.Fatalf("client declared nothing: got %v, %v", d, ok)
	}
}
