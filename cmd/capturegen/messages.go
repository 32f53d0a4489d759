package main

import "strconv"

// Builders of the messages the generated profiles share. Each appends one JSON-RPC
// message (or its opening, for the caller to finish) to b; they follow the official
// schema of every legacy revision from 2025-03-26 on.

// customers are the names invoices are made out to.
var customers = []string{"ACME Corp", "Müller & Söhne GmbH", "Café Lumière SARL", "Nordlys AS", "Tōkyō Trading K.K."}

// The legacy revisions the generated sessions take in turn.
var revisions = []string{"2025-03-26", "2025-06-18", "2025-11-25"}

// structured reports whether a revision defines outputSchema and structuredContent.
func structured(rev string) bool { return rev >= "2025-06-18" }

const (
	// The client declares roots and sampling; the servers tools, resources (no
	// subscribe) and logging.
	clientCaps    = `{"roots":{"listChanged":true},"sampling":{}}`
	serverCaps    = `{"tools":{"listChanged":true},"resources":{"listChanged":true},"logging":{}}`
	initializedNf = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

func appendInitialize(b []byte, rev, client, version string) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`...)
	b = append(b, rev...)
	b = append(b, `","capabilities":`+clientCaps+`,"clientInfo":{"name":"`...)
	b = append(b, client...)
	b = append(b, `","version":"`...)
	b = append(b, version...)
	return append(b, `"}}}`...)
}

func appendInitializeResult(b []byte, rev, server, version, instructions string) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"`...)
	b = append(b, rev...)
	b = append(b, `","capabilities":`+serverCaps+`,"serverInfo":{"name":"`...)
	b = append(b, server...)
	b = append(b, `","version":"`...)
	b = append(b, version...)
	b = append(b, `"}`...)
	if instructions != "" {
		b = append(b, `,"instructions":"`...)
		b = appendEscaped(b, []byte(instructions))
		b = append(b, '"')
	}
	return append(b, `}}`...)
}

// appendRequest opens a request: the caller appends `,"params":{...}}` or `}`.
func appendRequest(b []byte, id int, method string) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, int64(id), 10)
	b = append(b, `,"method":"`...)
	b = append(b, method...)
	return append(b, '"')
}

// appendResult opens a result: the caller appends the result object and `}`.
func appendResult(b []byte, id int) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, int64(id), 10)
	return append(b, `,"result":`...)
}

func appendEmptyResult(b []byte, id int) []byte {
	return append(appendResult(b, id), `{}}`...)
}

func appendError(b []byte, id, code int, message string) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, int64(id), 10)
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, `,"message":"`...)
	b = appendEscaped(b, []byte(message))
	return append(b, `"}}`...)
}

// appendProgress is a notifications/progress for token (a JSON string or integer).
func appendProgress(b []byte, token string, progress, total int, message string) []byte {
	b = append(b, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":`...)
	b = append(b, token...)
	b = append(b, `,"progress":`...)
	b = strconv.AppendInt(b, int64(progress), 10)
	b = append(b, `,"total":`...)
	b = strconv.AppendInt(b, int64(total), 10)
	if message != "" {
		b = append(b, `,"message":"`...)
		b = appendEscaped(b, []byte(message))
		b = append(b, '"')
	}
	return append(b, `}}`...)
}

func appendLog(b []byte, level, logger, data string) []byte {
	b = append(b, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"`...)
	b = append(b, level...)
	b = append(b, `","logger":"`...)
	b = append(b, logger...)
	b = append(b, `","data":"`...)
	b = appendEscaped(b, []byte(data))
	return append(b, `"}}`...)
}

// appendCallTool opens a tools/call: the caller appends the arguments' members and
// then closeCallTool.
func appendCallTool(b []byte, id int, tool string) []byte {
	b = appendRequest(b, id, "tools/call")
	b = append(b, `,"params":{"name":"`...)
	b = append(b, tool...)
	return append(b, `","arguments":{`...)
}

// closeCallTool ends a tools/call, with params._meta.progressToken when token is not "".
func closeCallTool(b []byte, token string) []byte {
	b = append(b, '}')
	if token != "" {
		b = append(b, `,"_meta":{"progressToken":`...)
		b = append(b, token...)
		b = append(b, '}')
	}
	return append(b, `}}`...)
}

// appendTextResultOpen opens a tools/call result with one text content: the caller
// appends the escaped text and then closeTextResult.
func appendTextResultOpen(b []byte, id int) []byte {
	return append(appendResult(b, id), `{"content":[{"type":"text","text":"`...)
}

func closeTextResult(b []byte) []byte {
	return append(b, `"}],"isError":false}}`...)
}

// A tool as tools/list publishes it; output is its outputSchema, published only
// under revisions that define it.
type tool struct {
	name, description, input, output string
}

func appendToolsList(b []byte, id int, rev string, tools []tool) []byte {
	b = append(appendResult(b, id), `{"tools":[`...)
	for i, t := range tools {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":"`...)
		b = append(b, t.name...)
		b = append(b, `","description":"`...)
		b = appendEscaped(b, []byte(t.description))
		b = append(b, `","inputSchema":`...)
		b = append(b, t.input...)
		if t.output != "" && structured(rev) {
			b = append(b, `,"outputSchema":`...)
			b = append(b, t.output...)
		}
		b = append(b, '}')
	}
	return append(b, `]}}`...)
}

// appendReadBlob is a resources/read result with one blob of about n base64 characters.
func appendReadBlob(b []byte, c *conversation, pool b64Pool, id int, uri, mime string, header []byte, n int) []byte {
	b = append(appendResult(b, id), `{"contents":[{"uri":"`...)
	b = append(b, uri...)
	b = append(b, `","mimeType":"`...)
	b = append(b, mime...)
	b = append(b, `","blob":"`...)
	b = pool.appendBase64(b, c.rng, header, n)
	return append(b, `"}]}}`...)
}

// appendImageResult is a tools/call result with a caption and one image content of
// about n base64 characters.
func appendImageResult(b []byte, c *conversation, pool b64Pool, id int, caption string, n int) []byte {
	b = append(appendResult(b, id), `{"content":[{"type":"text","text":"`...)
	b = appendEscaped(b, []byte(caption))
	b = append(b, `"},{"type":"image","data":"`...)
	b = pool.appendBase64(b, c.rng, pngHeader, n)
	return append(b, `","mimeType":"image/png"}],"isError":false}}`...)
}
