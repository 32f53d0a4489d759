package rules_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
)

// The finding messages users paste into tickets (issue 28), held exactly: a
// wording change shows up here as a diff of whole sentences, not as a .want
// regexp that still matches.

// firingMessage is one real message of a rule: the finding at line of the rule's
// firing fixture (a path under fixtures/) whose message is exactly message.
type firingMessage struct {
	fixture string
	line    int
	message string
}

// ruleMessages holds one message for every rule of the catalogue, from its
// MCPxxxx-fires* fixture. TestEveryRuleMessage fails for a rule missing here.
var ruleMessages = map[string]firingMessage{
	"MCP0001": {"rules/MCP0001-fires.jsonl", 6, `record is not valid JSON: unexpected end of JSON input (byte 91)`},
	"MCP0002": {"rules/MCP0002-fires.jsonl", 6, `not a JSON-RPC 2.0 message: "jsonrpc" is "1.0", not "2.0"`},
	"MCP0003": {"rules/MCP0003-fires.jsonl", 6, `direction of x-vendor/diagnostics id="x-7" unknown: x-vendor/diagnostics can be sent by either side and the log does not say which; rules that depend on the sender did not judge it`},
	"MCP0004": {"rules/MCP0004-fires.jsonl", 1, `4 messages with no contract to judge them by (no initialize and no request carrying a modern _meta contract): capability and revision rules could not judge them`},
	"MCP0005": {"rules/MCP0005-fires-get-refused.har", 134, `HTTP 400 Bad Request for GET /mcp (entry 3) with Mcp-Session-Id 3V2CNDVCSPW44LNMFIINV67EMS: the request was well-formed (it carried the session's Mcp-Session-Id, Accept: text/event-stream and MCP-Protocol-Version), so 400 Bad Request is no answer for it; no event stream was opened, so server requests and notifications not tied to a request (list_changed, logging, sampling) have nowhere to go. A GET may only be answered with an event stream (200, text/event-stream) or with 405 Method Not Allowed (at fault: the server)`},
	"MCP0006": {"rules/MCP0006-fires.har", 7, `GET /mcp (entry 1) asked for an event stream without a session, as an HTTP+SSE (2024-11-05) client opens its connection, and got 400 Bad Request: a Streamable HTTP server that requires sessions answers a request without one so: the server speaks Streamable HTTP, where a session starts with an initialize POST. No session followed before the capture ended, so the connection never reached a handshake: configure the client for Streamable HTTP (type "http" in Claude Code and VS Code), or put the server behind a bridge that serves HTTP+SSE (at fault: the client)`},
	"MCP0007": {"rules/MCP0007-fires.har", 341, `the client sent POST /mcp (entry 6) carrying tools/call id=5 with Mcp-Session-Id 4OWX3SUDLUW2NBMZLZFFYBRCAO after the server answered 404 for that session (entry 5): the session is gone, and a client that gets 404 must start a new session with an initialize request without Mcp-Session-Id (at fault: the client)`},
	"MCP0008": {"rules/MCP0008-fires.har", 217, `POST /mcp (entry 4) carrying tools/call id=3 was answered 200 OK with Content-Type text/plain: a client reads the response only from application/json or text/event-stream, so this one never reaches it (at fault: the server)`},
	"MCP0009": {"rules/MCP0009-fires.har", 42, `POST /mcp (entry 1) carrying server/discover id=1 was sent with Accept: */*, which does not list application/json or text/event-stream: a client must list application/json and text/event-stream for a POST; this server answered 200, a server that checks the header (the TypeScript SDK's) answers 406 Not Acceptable (at fault: the client)`},
	"MCP0010": {"rules/MCP0010-fires.har", 213, `POST /mcp (entry 4) carrying tools/call id=3 has no Mcp-Session-Id, but the server assigned this client session UJUUJWA3O2DUQGZFYSRI4M2HI6 in its answer to initialize (entry 2), which is still open: a client must send the id on every request after initialize (at fault: the client)`},
	"MCP0011": {"rules/MCP0011-fires.har", 212, `the server sent the tools/call response id=2 on the standalone GET stream (entry 4), which resumed no stream (its GET carried no Last-Event-ID): a server must not send a JSON-RPC response there, and a client waiting on the stream of the POST that carried the request (entry 3) may never see it (at fault: the server)`},
	"MCP0012": {"rules/MCP0012-fires.har", 714, `the client asked for the server's event stream 10 times in 5ms (GET /mcp, up to entry 14), and the server refused each (405 Method Not Allowed ×10): a reconnect loop; 405 Method Not Allowed says the server offers no GET stream, so asking again cannot succeed: a client stops asking and works without it (at fault: the client)`},
	"MCP0013": {"rules/MCP0013-fires.har", 160, `the server sent event id PMXWTPTMXZYZMWULNZDF6ZSZRB_1 again (tools/call response id=2, on POST /mcp (entry 3)), after an event with that id on POST /mcp (entry 1): event ids must be unique across all the streams of a session, or a client that resumes from one gets the wrong stream replayed (at fault: the server)`},
	"MCP1001": {"rules/MCP1001-fires.jsonl", 2, `initialize (line 1) was answered with error -32602 "Unsupported protocol version": no session was established`},
	"MCP1002": {"rules/MCP1002-fires.jsonl", 1, `the client requested protocolVersion "2025-13-01", which is not a published revision (published: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28)`},
	"MCP1003": {"rules/MCP1003-fires.jsonl", 2, `the client requested protocolVersion 2025-06-18 (line 1) and the server answered 2025-11-25, a newer revision the client never offered: a server that supports 2025-06-18 must echo it, and a client that cannot speak 2025-11-25 should disconnect rather than go on`},
	"MCP1004": {"rules/MCP1004-fires.jsonl", 2, `the client requested protocolVersion 2025-11-25 (line 1) and the server answered 2025-06-18: the session is 2025-06-18, so neither side may use what 2025-11-25 has and 2025-06-18 lacks: methods notifications/elicitation/complete (server), tasks/get (either side), tasks/result (either side), tasks/list (either side), tasks/cancel (either side), notifications/tasks/status (either side); capabilities client.sampling.context, client.sampling.tools, client.elicitation.form, client.elicitation.url, client.tasks, server.tasks`},
	"MCP1005": {"rules/MCP1005-fires.jsonl", 2, `the client never sent notifications/initialized after the initialize result (line 2), yet sent 2 other messages from line 3 on`},
	"MCP1006": {"rules/MCP1006-fires.jsonl", 2, `the client sent tools/list id=1 before the server answered its initialize request (line 1): until the initialize result the client should send nothing but ping`},
	"MCP1007": {"rules/MCP1007-fires.jsonl", 2, `the initialize result carries instructions of 1471 bytes, 319 tokens (o200k_base), over the 300-token budget: clients put them in the model's context on every turn; starts "# Reports server\n\nAudience: these instructions are for the model that uses this ..."`},
	"MCP1008": {"rules/MCP1008-fires.jsonl", 7, `server sent elicitation/create id=0, which 2025-03-26 does not have (it exists in 2025-06-18, 2025-11-25, 2026-07-28)`},
	"MCP1009": {"rules/MCP1009-fires-2024-11-05.jsonl", 6, `JSON-RPC batch of 2 messages (ping id=2, tools/list id=3) in a 2024-11-05 session: that revision does not define batching (2025-03-26 added it)`},
	"MCP1010": {"schema/MCP1010-fires.jsonl", 5, `tools/list response id=1 (line 5) carries 2 fields that 2025-03-26 does not define: /result/tools/0/title (defined from 2025-06-18), /result/tools/0/outputSchema (defined from 2025-06-18); a peer that speaks only 2025-03-26 may drop them`},
	"MCP1011": {"rules/MCP1011-fires.har", 421, `POST /mcp (entry 4) carrying tools/list id=1 has no MCP-Protocol-Version header, but the session negotiated 2025-11-25 (initialize result, line 113): from 2025-06-18 every request after initialize must carry MCP-Protocol-Version: 2025-11-25, and a server that sees none assumes 2025-03-26 (at fault: the client)`},
	"MCP1012": {"rules/MCP1012-fires.jsonl", 7, `the client's tools/call id=4 carries no _meta io.modelcontextprotocol/clientCapabilities: every 2026-07-28 client request must carry both io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities in params._meta, and the server must reject it as malformed (-32602)`},
	"MCP1013": {"rules/MCP1013-fires.jsonl", 2, `the initialize result declares none of tools, resources, prompts (capabilities: {"logging":{},"completions":{}}): a client that follows the spec will never list or call anything, however many handlers the server registered`},
	"MCP1014": {"rules/MCP1014-fires-no-fallback.jsonl", 2, `the server answered the client's server/discover id=1 with -32601 "Method not found", which is no recognized modern error: the server is legacy, and the client never fell back to initialize; the capture ends 1.5ms and 2 lines later (at fault: the client)`},
	"MCP1015": {"rules/MCP1015-fires.jsonl", 7, `the client sent the server SIGINT (line 7) and never closed the server's stdin before the server exited: the lifecycle page asks the client to close stdin first and signal only a server that does not exit (SIGTERM, then SIGKILL) (at fault: the client)`},
	"MCP1016": {"rules/MCP1016-fires.jsonl", 5, `the tools/list result (line 5) carries 80 tool definitions of 33304 tokens together (o200k_base), over the 20000-token budget: clients put them in the model's context on every turn; the largest: "update_issue_00" (642), "close_issue_00" (642), "update_issue_01" (642) (at fault: the server)`},
	"MCP2001": {"rules/MCP2001-fires.jsonl", 6, `server sent notifications/message but its initialize result (line 2) declared no logging (capabilities: {"tools":{}}): the receiver may drop it`},
	"MCP2002": {"rules/MCP2002-fires.jsonl", 6, `client sent tools/list id=2 but the server's initialize result (line 2) declared no tools (capabilities: {"prompts":{}})`},
	"MCP2003": {"rules/MCP2003-fires.jsonl", 7, `server sent sampling/createMessage id=10 with params.tools but the client's initialize request (line 1) declared sampling: {} (no tools): the client must answer it with an error`},
	"MCP2004": {"rules/MCP2004-fires.jsonl", 5, `logging/setLevel id=1 (line 4) was answered with error -32601 "Method not found", although the server's initialize result (line 2) declared logging`},
	"MCP2005": {"rules/MCP2005-fires.jsonl", 9, `prompts/list result (line 9) differs from the one at line 5 (added: summarize) with no notifications/prompts/list_changed between them, although the initialize result (line 2) declared prompts.listChanged: clients that trust it keep the stale list`},
	"MCP2006": {"rules/MCP2006-fires.jsonl", 11, `server sent notifications/resources/updated for "file:///srv/notes/todo.md" but the client unsubscribed (resources/unsubscribe id=3 at line 9, answered at line 10); subscribed URIs: none`},
	"MCP2007": {"rules/MCP2007-fires.jsonl", 6, `the client received notifications/tools/list_changed at line 6 and never sent tools/list again; the capture ends 6.51s and 4 lines later: it may be working from a stale tools list`},
	"MCP2008": {"rules/MCP2008-fires.jsonl", 6, `InputRequiredResult for tools/call id=3 asks inputRequests "where" (roots/list), but the request's _meta clientCapabilities (line 5) declared no roots (capabilities: {"elicitation":{}})`},
	"MCP2009": {"rules/MCP2009-fires.jsonl", 4, `server sent notifications/tools/list_changed on subscriptions/listen stream id=2 (line 3) before notifications/subscriptions/acknowledged: nothing may be sent on a subscription before its acknowledgement`},
	"MCP2010": {"rules/MCP2010-fires.jsonl", 8, `tools/call id=2 uses "file:///home/ana/kb2/secrets.txt" (params.arguments.path, path /home/ana/kb2/secrets.txt), outside every root the client returned from roots/list (line 5: "file:///home/ana/kb")`},
	"MCP2011": {"rules/MCP2011-fires.jsonl", 11, `resources/read of "file:///srv/notes/todo.md" returned different contents at line 11 (37 bytes) than at line 9 (15 bytes), and no notifications/resources/updated for it came between them, although the client subscribed to it (resources/subscribe at line 6)`},
	"MCP3001": {"rules/MCP3001-fires.jsonl", 6, `tools/call id=5 sent by the client was never answered; the capture ends 4s and 4 lines later`},
	"MCP3002": {"rules/MCP3002-fires.jsonl", 8, `response id=99 from the server answers no request: the client has no outstanding request with id 99 (ids of the two sides are separate)`},
	"MCP3003": {"rules/MCP3003-fires.jsonl", 8, `the client reused id 1 for tools/call: its ping at line 4 already used it (answered), and a legacy session (2025-06-18) forbids reusing a request id anywhere in the session`},
	"MCP3004": {"rules/MCP3004-fires.jsonl", 4, `ping has id null: MCP request ids must be a string or an integer, never null`},
	"MCP3005": {"rules/MCP3005-fires.jsonl", 10, `the client cancelled its tools/call id=1 (line 4) 82ms after its response arrived (line 5): the response had reached it, so this is no race; a cancellation must reference a request still in flight (a timeout timer left running after the answer?)`},
	"MCP3006": {"rules/MCP3006-fires.jsonl", 8, `server sent progress for token "t1" that went from 0.5 (line 7) to 0.3: the value must increase with each notification`},
	"MCP3007": {"rules/MCP3007-fires.jsonl", 4, `the error response to resources/read id=2 uses code -32002 under 2026-07-28: -32002 (resource not found) was retired in 2026-07-28 and must not be emitted; a missing resource is -32602 (Invalid params) there`},
	"MCP3008": {"rules/MCP3008-fires.jsonl", 7, `tools/call id=2 sent by the client (line 6) was answered after 45s, over the 30s threshold; the request carried no progressToken, so nothing told the sender it was still running`},
	"MCP3009": {"rules/MCP3009-fires.jsonl", 8, `the server sent progress for the client's tools/call id=1 (line 4) 800ms after the client cancelled it (line 6): the work went on; the receiver of a cancellation should stop it and not answer (at fault: the server)`},
	"MCP3010": {"rules/MCP3010-fires.jsonl", 7, `tools/call "query" id=2 (line 6) was answered with JSON-RPC error -32603 "cannot execute INSERT in a read-only transaction": Internal error, which the tools page keeps for a server that failed; a tool that fails while it runs answers with a result whose isError is true, which the model reads and can act on, while a JSON-RPC error reaches only the client (unless the server itself broke) (at fault: the server)`},
	"MCP3011": {"rules/MCP3011-fires.jsonl", 6, `the server's log message carries the string "Loading config from ~/.claude-server-commander/config.json" spread into an object of 58 one-character members ({"0":..., "1":...}): clients show the object, not the text; send the string itself as data (at fault: the server)`},
	"MCP4001": {"schema/MCP4001-fires.jsonl", 7, `tools/call response id=2 (line 7) breaks CallToolResult (the result member) of the 2025-06-18 schema: at /result/content/0 required: must have required property 'text' (got {"type":"text"})`},
	"MCP4002": {"schema/MCP4002-fires.jsonl", 5, `tools/list result (line 5): tool "list_customers" publishes an inputSchema that strict clients reject: it breaks the 2025-06-18 Tool definition: at /type const: must be equal to constant ("object") (got "array"); they refuse every call to this tool before it is sent`},
	"MCP4003": {"schema/MCP4003-fires.jsonl", 6, `tools/call "search_invoices" (line 6): the arguments break the inputSchema of "search_invoices" (tools/list result line 5); a strict client would not have sent this call and would have logged "tool call validation failed: search_invoices" with instancePath: /since  keyword: format  message: must match format "date"  data: "last month"`},
	"MCP4004": {"schema/MCP4004-fires.jsonl", 7, `tools/call "get_invoice" result (line 7): structuredContent breaks the outputSchema of "get_invoice" (tools/list result line 5): at its root required: must have required property 'total' (got {"id":"INV-0042","due":"1 July"}); at /due format: must match format "date" (got "1 July")`},
	"MCP4005": {"schema/MCP4005-fires.jsonl", 5, `tools/list result (line 5): tool "search_invoices", field /since is constrained by format "date" but it has no description, with no example or format hint: the model has no instruction and strict clients reject the values it guesses`},
}

// TestEveryRuleMessage runs every rule's firing fixture and holds one of its
// messages to the table, exactly. A rule of the catalogue without a row fails,
// and so does a row for a rule the catalogue lacks.
func TestEveryRuleMessage(t *testing.T) {
	runs := map[string]*driver.InputResult{}
	catalogue := map[string]bool{}
	for _, r := range rules.All() {
		catalogue[r.ID] = true
		want, ok := ruleMessages[r.ID]
		if !ok {
			t.Errorf("%s %s has no message in ruleMessages: add one finding of its firing fixture, exact", r.ID, r.Name)
			continue
		}
		if !strings.HasPrefix(filepath.Base(want.fixture), r.ID+"-fires") {
			t.Errorf("%s: %s is not one of its firing fixtures (%s-fires*)", r.ID, want.fixture, r.ID)
			continue
		}
		res, ok := runs[want.fixture]
		if !ok {
			res = runFixture(t, want.fixture)
			runs[want.fixture] = res
		}
		checkMessage(t, r.ID+" in "+want.fixture, res, r.ID, want.line, 0, want.message)
	}
	for id := range ruleMessages {
		if !catalogue[id] {
			t.Errorf("ruleMessages holds %s, which is not in rules.All()", id)
		}
	}
}

// wordingCases are messages of issue 28 that no firing fixture's table row shows:
// each revision's wording of a refused GET or DELETE, a direction left unknown,
// the ways a session ends, missing required properties of one object.
var wordingCases = []struct {
	name    string
	capture func(t *testing.T) (name string, data []byte)
	rule    string
	line    int
	entry   int // the HAR entry, when the capture is one
	message string
}{
	{
		"GET refused 400 in 2026-07-28", refusedIn2026("GET"), "MCP0005", 1, 10,
		`HTTP 400 Bad Request for GET /mcp (entry 10): 2026-07-28 has no standalone GET stream (server messages travel on subscriptions/listen responses), so a server answers a GET with 405 Method Not Allowed or not at all`,
	},
	{
		"DELETE refused 400 in 2026-07-28", refusedIn2026("DELETE"), "MCP0005", 1, 10,
		`HTTP 400 Bad Request for DELETE /mcp (entry 10): 2026-07-28 has no sessions to terminate, so a server answers a DELETE with 405 Method Not Allowed or not at all (at fault: the client)`,
	},
	{
		"DELETE refused 400 in 2025-11-25", fixture("rules/MCP0005-fires-delete-refused.har"), "MCP0005", 264, 5,
		`HTTP 400 Bad Request for DELETE /mcp (entry 5) with Mcp-Session-Id 3V2CNDVCSPW44LNMFIINV67EMS: the request was well-formed (it carried the session's Mcp-Session-Id), so 400 Bad Request is no answer for it; the session was not terminated: the server keeps its state until it expires. A DELETE may only be answered with a 2xx status (the session is terminated) or with 405 Method Not Allowed (at fault: the server)`,
	},
	{
		"a response either side may have sent", inline("either.jsonl", eitherSide), "MCP0003", 6, 0,
		`direction of response id=2 unknown: both sides have id 2 outstanding, and the result's members do not say which side sent it; rules that depend on the sender did not judge it`,
	},
	{
		"an error response either side may have sent", inline("either.jsonl", eitherSide), "MCP0003", 7, 0,
		`direction of response id=2 unknown: both sides have id 2 outstanding, and an error response does not say which side sent it; rules that depend on the sender did not judge it`,
	},
	{
		"unanswered, then a new initialize later", inline("reinitialized.jsonl", reinitialized), "MCP3001", 4, 0,
		`tools/list id=1 sent by the client was never answered; the session ends 1s and 1 line later, before a new initialize at line 6`,
	},
	{
		"unanswered, then a new initialize", inline("reinitialized.jsonl", reinitialized), "MCP3001", 5, 0,
		`tools/call id=2 sent by the client was never answered; the session ends with it, before a new initialize at line 6`,
	},
	{
		"unanswered, then a DELETE", fixture("sessions/http-session-deleted.har"), "MCP3001", 556, 5,
		`tools/call id=2 sent by the client was never answered; the client ends the session with a DELETE at entry 6`,
	},
	{
		"unanswered, the last frame of its stream", fixture("formats/claude-mcp-log-interleaved.log"), "MCP3001", 47, 0,
		`tools/call id=1 sent by the client was never answered; the capture ends with no frame after it on stream everything`,
	},
	{
		"one message before any handshake", fixture("sessions/http-session-deleted.har"), "MCP0004", 751, 7,
		`1 message with no contract to judge it by (no initialize and no request carrying a modern _meta contract): capability and revision rules could not judge it`,
	},
	{
		"progress for a token no request carried", fixture("formats/mcpsnoop-http-batch.jsonl"), "MCP3006", 8, 0,
		`client sent progress for token "none", but no request sent by the server carried that _meta.progressToken`,
	},
	{
		"an update on the GET stream for a URI never subscribed", fixture("review/http-everything-update-get-stream-unsubscribed.har"), "MCP2006", 350, 3,
		`server sent notifications/resources/updated for "demo://resource/static/document/architecture.md" (on the HTTP GET stream) but the client never subscribed to it during the session; subscribed URIs: none`,
	},
	{
		"a method 2026-07-28 removed", fixture("rules/MCP1012-silent-removed-method.jsonl"), "MCP1008", 5, 0,
		`client sent ping id=6, which 2026-07-28 does not have (it exists in 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25)`,
	},
	{
		"required properties missing from one object", fixture("rules/MCP2008-fires.jsonl"), "MCP4001", 8, 0,
		`prompts/list response id=4 (line 8) breaks ListPromptsResultResponse of the 2026-07-28 schema: at /result required: must have required properties 'cacheScope', 'prompts', 'ttlMs' (got {"resultType":"input_required","_meta":{"io.modelcontextprotocol/serverInfo":...)`,
	},
}

// TestMessageWording holds the wording cases to their messages, exactly.
func TestMessageWording(t *testing.T) {
	for _, c := range wordingCases {
		t.Run(c.name, func(t *testing.T) {
			name, data := c.capture(t)
			res, err := driver.Run(name, strings.NewReader(string(data)), rules.All(), driver.RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			checkMessage(t, c.name, res, c.rule, c.line, c.entry, c.message)
		})
	}
}

// checkMessage fails unless a finding of rule at line (and entry, when not 0) has
// exactly want as its message; it lists the rule's messages there when none has.
func checkMessage(t *testing.T, what string, res *driver.InputResult, id string, line, entry int, want string) {
	t.Helper()
	var there []rule.Finding
	for _, s := range res.Sessions {
		for _, f := range s.Findings {
			if f.Rule == id && f.Line == line && (entry == 0 || f.Entry == entry) {
				there = append(there, f)
			}
		}
	}
	for _, f := range there {
		if f.Message == want {
			return
		}
	}
	var got strings.Builder
	for _, f := range there {
		got.WriteString("\n\t" + f.Message)
	}
	if got.Len() == 0 {
		got.WriteString(" none")
	}
	t.Errorf("%s: no %s finding at line %d with the message\n\t%s\n%s there:%s", what, id, line, want, id, got.String())
}

// runFixture runs the catalogue over a fixture (a path under fixtures/).
func runFixture(t *testing.T, path string) *driver.InputResult {
	t.Helper()
	name, data := fixture(path)(t)
	res, err := driver.Run(name, strings.NewReader(string(data)), rules.All(), driver.RunOptions{})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return res
}

// fixture reads a capture under fixtures/.
func fixture(path string) func(*testing.T) (string, []byte) {
	return func(t *testing.T) (string, []byte) {
		t.Helper()
		data, err := os.ReadFile(filepath.Join("..", "..", "fixtures", filepath.FromSlash(path)))
		if err != nil {
			t.Fatal(err)
		}
		return filepath.Base(path), data
	}
}

// inline is a capture written in the test.
func inline(name, capture string) func(*testing.T) (string, []byte) {
	return func(*testing.T) (string, []byte) { return name, []byte(capture) }
}

// refusedIn2026 is the 2026-07-28 session of MCP1011-fires-2026-07-28.har with one
// more entry: a bodiless request of method (GET, DELETE) answered 400 Bad Request,
// as the usability review reproduced it (issue 28). The capture is written on one
// line: its findings are at line 1, told apart by entry.
func refusedIn2026(method string) func(*testing.T) (string, []byte) {
	return func(t *testing.T) (string, []byte) {
		t.Helper()
		_, data := fixture("rules/MCP1011-fires-2026-07-28.har")(t)
		var har struct {
			Log map[string]any `json:"log"`
		}
		if err := json.Unmarshal(data, &har); err != nil {
			t.Fatal(err)
		}
		entries, _ := har.Log["entries"].([]any)
		if len(entries) != 9 {
			t.Fatalf("MCP1011-fires-2026-07-28.har has %d entries, want 9", len(entries))
		}
		// A copy of the last entry (a POST answered 202), made bodiless.
		var last map[string]any
		raw, _ := json.Marshal(entries[len(entries)-1])
		if err := json.Unmarshal(raw, &last); err != nil {
			t.Fatal(err)
		}
		req, resp := last["request"].(map[string]any), last["response"].(map[string]any)
		req["method"] = method
		delete(req, "postData")
		req["bodySize"] = 0
		var headers []any
		for _, h := range req["headers"].([]any) {
			if n := h.(map[string]any)["name"]; n != "Content-Type" && n != "Mcp-Method" {
				headers = append(headers, h)
			}
		}
		req["headers"] = headers
		resp["status"], resp["statusText"] = 400, "Bad Request"
		har.Log["entries"] = append(entries, last)
		out, err := json.Marshal(har)
		if err != nil {
			t.Fatal(err)
		}
		return strings.ToLower(method) + "-2026-07-28.har", out
	}
}

// eitherSide: bare lines in which both sides have a request with id 2 in flight
// when a response with id 2 comes (line 6: an empty result, line 7: an error):
// nothing says which side answered.
const eitherSide = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"sampling":{}},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","arguments":{}}}
{"jsonrpc":"2.0","id":2,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":10}}
{"jsonrpc":"2.0","id":2,"result":{}}
{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"boom"}}
`

// reinitialized: two requests never answered before the client initializes again
// (line 6): tools/list one line and a second before the session's last frame,
// tools/call as its last frame.
const reinitialized = `{"ts":"2026-11-30T10:00:00.001Z","dir":"c->s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}
{"ts":"2026-11-30T10:00:00.002Z","dir":"s->c","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}}
{"ts":"2026-11-30T10:00:00.003Z","dir":"c->s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}
{"ts":"2026-11-30T10:00:00.004Z","dir":"c->s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}
{"ts":"2026-11-30T10:00:01.004Z","dir":"c->s","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","arguments":{}}}}
{"ts":"2026-11-30T10:00:03.000Z","dir":"c->s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}
{"ts":"2026-11-30T10:00:03.002Z","dir":"s->c","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}}
`
