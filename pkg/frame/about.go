package frame

import "sort"

// FormatInfo describes an input format for people choosing --input-format.
type FormatInfo struct {
	Name string
	// What says what writes it and what it looks like.
	What string
	// Lossy formats log that messages passed without the messages themselves: an
	// input in one is reported as "cannot judge", never as a clean pass.
	Lossy bool
	// Document formats are one JSON document (locations are its entries), not lines.
	Document bool
}

// About describes every format, sorted by name.
func About() []FormatInfo {
	out := []FormatInfo{
		{Name: envelopeName, What: `recorder JSONL: one {"ts","dir","msg"} object a line (and the aliases of mcpsnoop, mcp-trace-validator, mcp-cassette)`},
		{Name: jsonrpcName, What: "bare JSON-RPC: one message a line, directions inferred from the protocol"},
		{Name: gosdkName, What: "the Go SDK's LoggingTransport: read: / write: lines"},
		{Name: claudeName, What: "Claude Desktop's mcp-server-NAME.log and the combined mcp.log (split by server)"},
		{Name: vscodeName, What: "the VS Code MCP output channel at Debug or Trace level"},
		{Name: mcpgoName, What: "mcp-go's slog output with payloads (JSON handler)"},
		{Name: cursorName, What: "Cursor's MCP log: names methods, holds no messages", Lossy: true},
		{Name: mcpRemoteName, What: "mcp-remote's log: names methods, holds no messages", Lossy: true},
		{Name: mcporterName, What: `mcporter record NDJSON: one JSON-RPC message a line with the recorder's top-level "_meta":{"dir":"send"|"recv"|"lifecycle","server","ts"} (taken off before judging); one stream per server`},
		{Name: pythonName, What: "the Python SDK's log: names request types, holds no messages", Lossy: true},
	}
	for _, name := range documentFormats {
		d, _ := docNamed(name)
		out = append(out, FormatInfo{Name: name, What: d.describe(), Document: true})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
