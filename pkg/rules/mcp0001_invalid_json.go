package rules

import (
	"fmt"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
)

// InvalidJSON reports records and payloads that do not parse as JSON.
var InvalidJSON = &rule.Rule{
	ID:       "MCP0001",
	Name:     "invalid-json",
	Severity: rule.SeverityError,
	Title:    "A record or payload is not valid JSON",
	Anchor:   "the line that does not parse",
	Hint:     "find what wrote this line: a truncated write, stdout pollution (a print or a banner on the stdio channel) or a recorder that split a message",
	Doc: rule.Doc{
		Sees: fmt.Sprintf(`A line of the capture that starts like JSON ({ or [) but does not parse, or a capture record whose message payload does not parse (an envelope's msg given as a string, the message in a Go SDK log line). The finding gives the parser's cause and the byte offset. A line longer than the reader's limit (--max-line, %s by default) is reported here too: it is skipped without being read. Plain text lines that do not start like JSON (a banner, a stack trace) are kept as context and not reported; a log line such as "[INFO] ready" written on the JSON-RPC channel starts like a JSON array and is.`, frame.Size(frame.DefaultMaxLine)),
		Why:  "On stdio every line is one JSON-RPC message. A line the receiver cannot parse is dropped, answered with -32700 Parse error and a null id, or makes the SDK close the transport. Whatever message it was meant to carry is lost: if it was a request, its sender waits for an answer that never comes; if it was a response, the request it answered hangs (MCP3001). The usual culprits are a server that prints logs or a banner on stdout, a message pretty-printed over several lines, a write cut short by a crash or a full pipe, and a recorder that split one message in two. Nothing in the protocol tells the user: the tool call simply never finishes.",
		Fix:  "On the side that wrote the line: write exactly one complete, compact JSON-RPC message per line and flush it whole; send every log line, banner and debug print to stderr (or as notifications/message when logging is declared), never to stdout. If the recorder or the log pipeline cut the line, fix the capture and analyse it again.",
		Bad: `c->s {"jsonrpc":"2.0","id":3,"method":"tools/list"}
# a log line printed on stdout, then the reply cut short
s->c [INFO] search index loaded
s->c {"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"search","inputSch`,
		Good: `c->s {"jsonrpc":"2.0","id":3,"method":"tools/list"}
# logs go to stderr; the reply is one complete line
s->c {"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"search","inputSchema":{"type":"object"}}]}}`,
		Spec: []rule.SpecRef{
			{Revision: "2025-06-18", Page: "basic/transports#stdio", Says: "Messages are delimited by newlines and MUST NOT contain embedded newlines; the server MUST NOT write anything to its stdout that is not a valid MCP message."},
			{Revision: "2025-06-18", Page: "basic#messages", Says: "All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification."},
		},
	},
	Kinds: rule.KindsOf(frame.KindInvalid),
	New: rule.PerMessage(func(p *rule.Pass, m *session.Message) {
		if m.Kind == frame.KindInvalid && m.Problem == frame.ProblemNotJSON {
			p.Report(rule.At(m), rule.Text(m.Detail))
		}
	}),
}
