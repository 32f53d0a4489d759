package replay

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// maxMessage bounds one message read from the server.
const maxMessage = 64 << 20

// Lines is a server on a stdio transport: messages are lines written to w
// and read from r.
type Lines struct {
	mu       sync.Mutex
	w        io.Writer
	received chan []byte
}

// NewLines reads the server's lines from r (until it ends) and writes to w.
func NewLines(r io.Reader, w io.Writer) *Lines {
	l := &Lines{w: w, received: make(chan []byte, 256)}
	go func() {
		defer close(l.received)
		br := bufio.NewReaderSize(r, 64<<10)
		for {
			var line []byte
			var err error
			for {
				var chunk []byte
				chunk, err = br.ReadSlice('\n')
				line = append(line, chunk...)
				if len(line) > maxMessage || !errors.Is(err, bufio.ErrBufferFull) {
					break
				}
			}
			if len(line) > maxMessage {
				return
			}
			if msg := bytes.TrimSpace(line); len(msg) > 0 {
				l.received <- msg
			}
			if err != nil {
				return
			}
		}
	}()
	return l
}

// Send writes one message as a line.
func (l *Lines) Send(_ context.Context, msg []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, err := l.w.Write(append(append([]byte(nil), msg...), '\n'))
	return err
}

// Received delivers the server's lines.
func (l *Lines) Received() <-chan []byte { return l.received }

// HTTP is a server on Streamable HTTP: each message is POSTed to the URL; a
// JSON answer or the events of an event stream are the server's messages. The
// Mcp-Session-Id the server assigns and the negotiated MCP-Protocol-Version
// go with every later request.
type HTTP struct {
	URL    string
	Client *http.Client

	mu        sync.Mutex
	sessionID string
	version   string
	received  chan []byte
	once      sync.Once
}

func (h *HTTP) init() {
	h.once.Do(func() {
		h.received = make(chan []byte, 256)
		if h.Client == nil {
			h.Client = http.DefaultClient
		}
	})
}

// Received delivers what the server answered.
func (h *HTTP) Received() <-chan []byte {
	h.init()
	return h.received
}

// Send POSTs one message and reads its answer in the background.
func (h *HTTP) Send(ctx context.Context, msg []byte) error {
	h.init()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(msg))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	h.mu.Lock()
	if h.sessionID != "" {
		req.Header.Set("Mcp-Session-Id", h.sessionID)
	}
	version := h.version
	h.mu.Unlock()
	// A 2026-07-28 message says its revision in its _meta, and names its
	// method and target in headers for the gateways that route by them.
	var m struct {
		Method string                     `json:"method"`
		Params map[string]json.RawMessage `json:"params"`
	}
	json.Unmarshal(msg, &m)
	var meta map[string]json.RawMessage
	json.Unmarshal(m.Params["_meta"], &meta)
	var modern string
	json.Unmarshal(meta[spec.MetaProtocolVersion], &modern)
	switch {
	case modern != "":
		req.Header.Set("MCP-Protocol-Version", modern)
		req.Header.Set("Mcp-Method", m.Method)
		var name string
		if field := spec.NameHeaderParam(m.Method); field != "" && json.Unmarshal(m.Params[field], &name) == nil {
			req.Header.Set("Mcp-Name", spec.EncodeHeaderValue(name))
		}
	case version != "":
		req.Header.Set("MCP-Protocol-Version", version)
	}
	resp, err := h.Client.Do(req)
	if err != nil {
		return err
	}
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		h.mu.Lock()
		h.sessionID = id
		h.mu.Unlock()
	}
	if resp.StatusCode >= 400 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		return fmt.Errorf("HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(body)))
	}
	go func() {
		defer resp.Body.Close()
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			readEvents(resp.Body, h.deliver)
			return
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxMessage))
		if err == nil && len(bytes.TrimSpace(body)) > 0 {
			h.deliver(body)
		}
	}()
	return nil
}

// deliver hands a message over, learning the negotiated revision from an
// initialize result.
func (h *HTTP) deliver(msg []byte) {
	var r struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if json.Unmarshal(msg, &r) == nil && r.Result.ProtocolVersion != "" {
		h.mu.Lock()
		if h.version == "" {
			h.version = r.Result.ProtocolVersion
		}
		h.mu.Unlock()
	}
	h.received <- msg
}

// readEvents reads an event stream, handing over each event's data.
func readEvents(r io.Reader, deliver func([]byte)) {
	br := bufio.NewReaderSize(r, 64<<10)
	var data []byte
	for {
		line, err := br.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			if len(data) > 0 {
				deliver(data)
				data = nil
			}
		case strings.HasPrefix(line, "data:"):
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")...)
		}
		if err != nil {
			if len(data) > 0 {
				deliver(data)
			}
			return
		}
	}
}
