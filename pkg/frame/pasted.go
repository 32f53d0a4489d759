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
	first, err := firstDocument(trimmed)
	if err != nil {
		return nil, false
	}
	multiLine := bytes.ContainsRune(first, '\n')
	var probe map[string]json.RawMessage
	_ = json.Unmarshal(first, &probe)
	_, isRPC := probe["jsonrpc"]
	_, bareParams := probe["protocolVersion"]
	if _, rewritable := asJSONRPC(probe); isRPC || !rewritable {
		return nil, false // a message or an envelope record, one a line or pretty-printed
	}
	if !multiLine && !bareParams {
		return nil, false // a capture: one message per line
	}
	if _, ok := asJSONRPC(probe); !ok {
		return nil, false // a document that holds a capture (HAR): read as one
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

func firstDocument(b []byte) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(new(json.RawMessage)); err != nil {
		return nil, err
	}
	return b[:dec.InputOffset()], nil
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
