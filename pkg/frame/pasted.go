package frame

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// maxPasted bounds the pasted form of handshake input.
const maxPasted = 16 << 20

// Pasted recognises the pasted form that handshake and audit take besides
// captures (bare initialize params/result objects, or messages without their
// "jsonrpc" member) and rewrites it as JSON-RPC lines, which a Reader then reads. JSON-RPC messages and envelope records, compact or
// pretty-printed (documents that span lines: the pretty-json format), are left to the
// reader, which reads them as check does.
func Pasted(br *bufio.Reader) ([]byte, bool) {
	head, _ := br.Peek(1 << 20)
	trimmed := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, false
	}
	// The first document's top-level names say what it is; a document larger
	// than the peek (a pasted result with megabytes of instructions) shows its
	// first names, which are enough.
	keys, multiLine := topNames(trimmed)
	isRPC, bareParams := keys["jsonrpc"], keys["protocolVersion"]
	rewritable := keys["method"] || keys["result"] || keys["error"] || keys["clientInfo"] || keys["serverInfo"] || keys["capabilities"]
	if isRPC || !rewritable {
		return nil, false // a message or an envelope record, one a line or pretty-printed; or a document that holds a capture (HAR)
	}
	if !multiLine && !bareParams {
		return nil, false // a capture: one message per line
	}
	dec := json.NewDecoder(io.LimitReader(br, maxPasted))
	var out bytes.Buffer
	for {
		var doc map[string]json.RawMessage
		if err := dec.Decode(&doc); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, false
		}
		line, ok := asJSONRPC(doc)
		if !ok {
			continue
		}
		out.Write(line)
		out.WriteByte('\n')
	}
	return out.Bytes(), out.Len() > 0
}

// topNames reads the member names of the JSON object b starts with, as far as
// b holds it, and whether that object spans lines (it does when it is not
// complete within b and b holds a newline).
func topNames(b []byte) (names map[string]bool, multiLine bool) {
	names = map[string]bool{}
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return names, false
	}
	end := len(b)
	for {
		if !dec.More() {
			if _, err := dec.Token(); err == nil {
				end = int(dec.InputOffset()) // the closing brace: the document is whole
			}
			break
		}
		t, err := dec.Token()
		if err != nil {
			break
		}
		if name, ok := t.(string); ok {
			names[name] = true
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			break // cut by the peek
		}
	}
	return names, bytes.IndexByte(b[:end], '\n') >= 0
}

// asJSONRPC turns a pasted document into one compact JSON-RPC line: a full message
// stays as it is; bare initialize params (clientInfo) or results (serverInfo) are wrapped.
func asJSONRPC(doc map[string]json.RawMessage) ([]byte, bool) {
	var msg any = doc
	switch {
	case doc["jsonrpc"] != nil:
	case doc["method"] != nil || doc["result"] != nil || doc["error"] != nil:
		doc["jsonrpc"] = json.RawMessage(`"2.0"`)
	case doc["clientInfo"] != nil:
		msg = map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": doc}
	case doc["serverInfo"] != nil || doc["capabilities"] != nil:
		msg = map[string]any{"jsonrpc": "2.0", "id": 0, "result": doc}
	default:
		return nil, false
	}
	line, err := json.Marshal(msg)
	return line, err == nil
}
