package rules

import (
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// ToolErrorAsProtocolError reports a tools/call answered with a JSON-RPC error
// that is no protocol error: a tool that failed while it ran, which the tools page
// reports in a CallToolResult with isError: true, so that the model sees it.
var ToolErrorAsProtocolError = &rule.Rule{
	ID:       "MCP3010",
	Name:     "tool-error-as-protocol-error",
	Severity: rule.SeverityWarning,
	Title:    "A tool that failed while it ran was answered with a JSON-RPC error instead of a result with isError: true",
	Anchor:   "the error response to the tools/call",
	Hint:     "answer a tool that fails while it runs with a CallToolResult whose isError is true and whose content says what went wrong; keep JSON-RPC errors for unknown tools, malformed requests and failures of the server itself",
	Doc: rule.Doc{
		Sees: "Each JSON-RPC error that answers a tools/call in a session with a contract, by its code. The codes of the protocol errors " +
			"the tools page names are left alone: -32700, -32600 and -32601 (a request the server could not take), -32602 (an unknown tool, " +
			"or a request that breaks CallToolRequest; before 2025-11-25 also arguments the tool rejects); so are the errors MCP defines for " +
			"the protocol in any revision or the 2026-07-28 draft (-32002, -32042, -32020 to -32022, the draft's -32001, -32003, -32004: " +
			"MCP3007 judges whether the revision allows them), the TypeScript SDK's -32000 Connection closed that bridges forward, the " +
			"answer to a cancelled request, and errors before the handshake completed. Any other code (-32603 Internal error, another " +
			"server-defined code, 0 as the Go SDK writes a plain Go error) says the server failed while it ran the tool: reported once per " +
			"tool and code in a session, naming the server, quoting the error's message as its evidence. The rule cannot see whether the " +
			"server itself broke (out of memory, a crashed worker), the one failure a JSON-RPC error is right for: the message is the judge.",
		Why: "A client hands a tool's result to the model, and an error result (isError: true) too: the model reads \"relation users does " +
			"not exist\" or \"cannot execute INSERT in a read-only transaction\" and corrects its next call. A JSON-RPC error goes to the " +
			"client instead: most show the user a protocol failure (\"MCP error -32603\") and give the model nothing, or a generic " +
			"failure, so it retries the same call or gives up. server-postgres answers a write in a read-only transaction with -32603; " +
			"SDK handlers that return a language error (a Go error, a raised exception) instead of an error result do the same.",
		Fix: "In the tool's handler, catch failures of the work (a failed query, an API error, a file that is not there, arguments the tool " +
			"cannot use) and return a CallToolResult with isError: true and a text content that says what went wrong and what to try " +
			"instead (the TypeScript and Python SDKs do this for a thrown error; in the Go SDK, return the error from a typed handler " +
			"(mcp.AddTool), which wraps it as an error result, not from a raw ToolHandler). Keep JSON-RPC errors for unknown tools, " +
			"malformed requests and failures of the server itself.",
		Bad: `c->s {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"query","arguments":{"sql":"INSERT INTO t VALUES (1)"}}}
s->c {"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"cannot execute INSERT in a read-only transaction"}}`,
		Good: `c->s {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"query","arguments":{"sql":"INSERT INTO t VALUES (1)"}}}
s->c {"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"cannot execute INSERT in a read-only transaction: this server runs queries read-only"}],"isError":true}}`,
		Spec: []rule.SpecRef{
			{Revision: spec.Rev20250618, Page: "server/tools#error-handling", Says: "Tools use two error reporting mechanisms: Protocol Errors: Standard JSON-RPC errors for issues like: Unknown tools, Invalid arguments, Server errors. Tool Execution Errors: Reported in tool results with isError: true: API failures, Invalid input data, Business logic errors."},
			{Revision: spec.Rev20251125, Page: "server/tools#error-handling", Says: "Tool Execution Errors contain actionable feedback that language models can use to self-correct and retry with adjusted parameters; Protocol Errors indicate issues with the request structure itself that models are less likely to be able to fix. Clients SHOULD provide tool execution errors to language models to enable self-correction."},
		},
	},
	Kinds: rule.KindsOf(frame.KindRequest, frame.KindError),
	New:   func() rule.Checker { return &toolErrorWatch{} },
	// The methods it looks at (the engine asks it about no other message).
	Methods: []string{"tools/call"},
}

// maxToolCallsNamed bounds the tools/call requests whose tool name is remembered
// until their answer.
const maxToolCallsNamed = 4096

type toolErrorWatch struct {
	// names are the tool names of the tools/call requests in flight.
	names map[*session.Request]string
	// reported holds tool and code pairs already reported in the session.
	reported map[toolCode]bool
	// interned holds one copy of each tool name called: a session calls a few
	// tools many times.
	interned map[string]string
}

// Recycle forgets the session, keeping the memory of its tables (rule.Recycler).
func (w *toolErrorWatch) Recycle() {
	clear(w.names)
	clear(w.reported)
	clear(w.interned)
}

type toolCode struct {
	tool string
	code int64
}

func (w *toolErrorWatch) End(*rule.Pass) {}

func (w *toolErrorWatch) Message(p *rule.Pass, m *session.Message) {
	switch {
	case isToolsCall(m) && m.Request != nil:
		name, ok := m.ToolName()
		if !ok {
			return
		}
		if len(w.names) >= maxToolCallsNamed {
			clear(w.names) // requests never answered
		}
		if w.names == nil {
			w.names, w.interned = map[*session.Request]string{}, map[string]string{}
		}
		kept, ok := w.interned[name]
		if !ok {
			if len(w.interned) >= maxToolCallsNamed {
				clear(w.interned)
			}
			kept = strings.Clone(name)
			w.interned[kept] = kept
		}
		w.names[m.Request] = kept
	case m.Kind == frame.KindError && m.Request != nil && m.Request.Method == "tools/call":
		name, named := w.names[m.Request]
		delete(w.names, m.Request)
		switch {
		case m.Dir == spec.C2S || spec.ToolCallProtocolError(m.ErrorCode):
			return
		case m.Request.Cancelled:
			return // the error says the request was cancelled (MCP3009 judges a late one)
		case !handshaken(m.Request.Contract):
			p.CannotJudge(reasonNoContractShort) // a server that refuses calls outside a session it knows
			return
		}
		key := toolCode{name, m.ErrorCode}
		if w.reported[key] {
			return
		}
		if w.reported == nil {
			w.reported = map[toolCode]bool{}
		}
		w.reported[key] = true
		tool := rule.Text("a tools/call")
		if named {
			tool = rule.Sprintf("tools/call %s", rule.Quote(rule.ValueName, name))
		}
		message := get(get(m.Node(), "error"), "message").Text()
		p.Report(rule.At(m), rule.Sprintf("%s id=%s (line %d) was answered with JSON-RPC error %d %s: %s; a tool that fails while it runs "+
			"answers with a result whose isError is true, which the model reads and can act on, while a JSON-RPC error reaches only the "+
			"client (unless the server itself broke)",
			tool, rule.QuoteJSON(rule.ValueID, m.Request.ID), m.Request.Line, m.ErrorCode, rule.Quote(rule.ValueErrorMessage, message),
			rule.Text(codeMeaning(m.ErrorCode))).By(spec.Server),
			rule.Related{Line: m.Request.Line, Note: "the tools/call"})
	}
}

// handshaken reports whether a contract came from a completed handshake: an
// initialize answered with a result, or a modern request's _meta.
func handshaken(c *session.Contract) bool {
	if c == nil {
		return false
	}
	if c.Era == session.EraModern {
		return true
	}
	return c.Era == session.EraLegacy && c.Verdict != session.VerdictPending && c.Verdict != session.VerdictFailed
}

// codeMeaning says what a code that is no protocol error of the tools page
// claims.
func codeMeaning(code int64) string {
	switch {
	case code == spec.CodeInternalError:
		return "Internal error, which the tools page keeps for a server that failed"
	case code == 0:
		return "code 0, which no JSON-RPC error defines (a language error sent as it is)"
	case code >= -32099 && code <= -32000:
		return "a server-defined error code"
	case code >= -32768 && code <= -32000:
		return "a code JSON-RPC reserves and MCP does not define"
	}
	return "an application error code"
}
