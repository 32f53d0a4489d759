// Package mock serves a captured session as a server (mcpsleuth mock): a
// client's message is matched with a message the captured client sent, and the
// captured server's messages that followed it (the response, its
// notifications, its own requests) are sent back, ids rewritten. It declares
// what the captured server declared and answers what it answered, bugs
// included: a client the captured server failed fails the same way.
package mock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/script"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// Policy says which captured client message a client's message is matched
// with.
type Policy string

const (
	// InOrder: the captured client's messages are expected in their order; a
	// message that is not the next one is not answered (an error).
	InOrder Policy = "order"
	// ByMethod: the first captured message of the same method not matched yet;
	// once all are, the last one again (its response, not its notifications).
	ByMethod Policy = "method"
	// ByParams: the first captured request of the same method and params (its
	// _meta aside) not matched yet, or matched already when all are; initialize,
	// server/discover, ping and notifications are matched by method.
	ByParams Policy = "params"
)

// Policies are the policies, for help and errors.
var Policies = []Policy{ByParams, ByMethod, InOrder}

// Errors the mock answers a request the capture cannot answer with.
const (
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternal       = -32603
)

// Options configure a Mock.
type Options struct {
	Policy Policy
	// Log receives a line for each message the capture cannot answer.
	Log io.Writer
	// Crossed, when set, is told each message that crossed (a recording of
	// the mock's session).
	Crossed func(dir spec.Direction, msg []byte)
}

// Mock is a captured session served as a server.
type Mock struct {
	s   *script.Script
	opt Options

	mu      sync.Mutex
	matched []bool            // captured client messages matched so far
	played  []bool            // captured client messages whose turn was played
	live    map[string]string // a captured request's id -> the live request's id
	tokens  map[string]string // a captured progress token -> the live one
	held    map[string][]byte // captured responses played before their request was matched
	next    int               // InOrder: the next captured client message expected
}

// New makes a mock of a script.
func New(s *script.Script, opt Options) *Mock {
	if opt.Policy == "" {
		opt.Policy = ByParams
	}
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	return &Mock{s: s, opt: opt, matched: make([]bool, len(s.Messages)), played: make([]bool, len(s.Messages)),
		live: map[string]string{}, tokens: map[string]string{}, held: map[string][]byte{}}
}

// Start is what the captured server sent before the client's first message.
func (m *Mock) Start() [][]byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out [][]byte
	for j := range m.s.Messages {
		if m.s.Messages[j].Dir == spec.C2S {
			break
		}
		out = m.send(out, j)
	}
	return out
}

// incoming is a client's message as the mock reads it.
type incoming struct {
	kind   frame.Kind
	method string
	id     string // raw JSON
	raw    []byte
}

func read(raw []byte) (incoming, bool) {
	kind, method, id, ok := script.Read(raw)
	return incoming{kind: kind, method: method, id: id, raw: raw}, ok
}

// Receive handles one message of the client and returns what the server
// sends for it, in order.
func (m *Mock) Receive(raw []byte) [][]byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.opt.Crossed != nil {
		m.opt.Crossed(spec.C2S, raw)
	}
	in, ok := read(raw)
	if !ok {
		fmt.Fprintf(m.opt.Log, "mcpsleuth: mock: a message that is not JSON-RPC, ignored: %s\n", quote.String(string(raw), 120))
		return nil
	}
	i, why := m.match(in)
	if i < 0 {
		if in.kind != frame.KindRequest {
			return nil // a notification or response the capture has not: nothing follows it
		}
		fmt.Fprintf(m.opt.Log, "mcpsleuth: mock: %s id=%s: %s\n", in.method, in.id, why.message)
		return m.crossed([][]byte{errorResponse(in.id, why)})
	}
	captured := &m.s.Messages[i]
	again := m.matched[i]
	m.matched[i] = true
	if in.kind == frame.KindRequest {
		m.live[captured.ID] = in.id
		if tok := progressToken(captured.Raw); tok != "" {
			if live := progressToken(raw); live != "" {
				m.tokens[tok] = live
			}
		}
	}
	var out [][]byte
	if !again && !m.played[i] {
		m.played[i] = true
		for j := i + 1; j < len(m.s.Messages) && m.s.Messages[j].Dir != spec.C2S; j++ {
			out = m.send(out, j)
		}
	}
	if in.kind == frame.KindRequest {
		if held, ok := m.held[captured.ID]; ok {
			delete(m.held, captured.ID)
			out = append(out, script.With(held, in.id, "id"))
		} else if again {
			if a := m.s.Answer(i); a >= 0 {
				out = append(out, script.With(m.s.Messages[a].Raw, in.id, "id"))
			}
		}
	}
	return m.crossed(out)
}

func (m *Mock) crossed(out [][]byte) [][]byte {
	if m.opt.Crossed != nil {
		for _, msg := range out {
			m.opt.Crossed(spec.S2C, msg)
		}
	}
	return out
}

// send appends the captured server message j, as the live session needs it:
// a response to a request the client sent gets the live id (one whose
// request is not matched yet waits for it), a progress notification the live
// token.
func (m *Mock) send(out [][]byte, j int) [][]byte {
	msg := &m.s.Messages[j]
	switch {
	case msg.IsResponse():
		id, ok := m.live[msg.ID]
		if !ok {
			m.held[msg.ID] = msg.Raw
			return out
		}
		return append(out, script.With(msg.Raw, id, "id"))
	case msg.IsNotification():
		if tok := progressToken(msg.Raw); tok != "" {
			if live, ok := m.tokens[tok]; ok && live != tok {
				return append(out, script.With(msg.Raw, live, "params", "progressToken"))
			}
		}
	}
	return append(out, msg.Raw)
}

// A miss says why the capture cannot answer a message.
type miss struct {
	code    int
	message string
}

// match finds the captured client message a client's message stands for, by
// the policy; -1 and why when there is none.
func (m *Mock) match(in incoming) (int, miss) {
	msgs := m.s.Messages
	same := func(j int) bool {
		c := &msgs[j]
		if c.Dir != spec.C2S || c.Kind.IsResponse() != in.kind.IsResponse() || c.IsNotification() != (in.kind == frame.KindNotification) {
			return false
		}
		if in.kind.IsResponse() {
			return c.ID == in.id
		}
		return c.Method == in.method
	}
	seen := 0
	for j := range msgs {
		if same(j) {
			seen++
		}
	}
	if seen == 0 {
		return -1, miss{codeMethodNotFound, fmt.Sprintf("the captured client never sent %s, so the capture has no answer to it", in.method)}
	}
	switch m.opt.Policy {
	case InOrder:
		for m.next < len(msgs) && msgs[m.next].Dir != spec.C2S {
			m.next++
		}
		if m.next < len(msgs) && same(m.next) {
			m.next++
			return m.next - 1, miss{}
		}
		if m.next >= len(msgs) {
			return -1, miss{codeInternal, fmt.Sprintf("in order, the captured client sent nothing after its last message (line %d), not this %s", msgs[len(msgs)-1].Line, in.method)}
		}
		return -1, miss{codeInternal, fmt.Sprintf("in order, the captured client sent %s next (line %d), not this %s", describe(&msgs[m.next]), msgs[m.next].Line, in.method)}
	case ByMethod:
		return m.first(same, nil), miss{}
	}
	if in.kind != frame.KindRequest || byMethodOnly(in.method) {
		return m.first(same, nil), miss{}
	}
	params := script.Params(in.raw)
	equal := func(j int) bool { return bytes.Equal(script.Params(msgs[j].Raw), params) }
	if i := m.first(same, equal); i >= 0 {
		return i, miss{}
	}
	return -1, miss{codeInvalidParams, fmt.Sprintf("the captured client sent %s %s, never with these params (match policy params; --match method answers by method alone)",
		quote.Count(seen, "time"), in.method)}
}

// first is the first captured message that is the same (and equal, when
// given) not matched yet, else the last one matched; -1 when none is.
func (m *Mock) first(same, equal func(int) bool) int {
	last := -1
	for j := range m.s.Messages {
		if !same(j) || (equal != nil && !equal(j)) {
			continue
		}
		if !m.matched[j] {
			return j
		}
		last = j
	}
	return last
}

// byMethodOnly are the requests ByParams matches by method: what each client
// fills in its own way.
func byMethodOnly(method string) bool {
	switch method {
	case "initialize", "server/discover", "ping":
		return true
	}
	return false
}

func describe(m *script.Message) string {
	switch {
	case m.IsResponse():
		return "a response id=" + m.ID
	case m.IsNotification():
		return m.Method
	}
	return m.Method + " id=" + m.ID
}

// errorResponse is the JSON-RPC error a request the capture cannot answer gets.
func errorResponse(id string, why miss) []byte {
	b, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": json.RawMessage(id),
		"error": map[string]any{"code": why.code, "message": "mcpsleuth mock: " + why.message},
	})
	return b
}

// progressToken is a message's progress token (params._meta.progressToken of
// a request, params.progressToken of a progress notification), raw JSON.
func progressToken(raw []byte) string {
	var msg struct {
		Params struct {
			Token json.RawMessage `json:"progressToken"`
			Meta  struct {
				Token json.RawMessage `json:"progressToken"`
			} `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(raw, &msg) != nil {
		return ""
	}
	if len(msg.Params.Token) > 0 {
		return string(msg.Params.Token)
	}
	return string(msg.Params.Meta.Token)
}

// Summary says what the mock serves, for its first line on stderr.
func (m *Mock) Summary() string {
	var server, version string
	requests := 0
	for j := range m.s.Messages {
		msg := &m.s.Messages[j]
		if msg.Dir == spec.C2S && msg.IsRequest() {
			requests++
		}
		if msg.Dir == spec.S2C && msg.IsResponse() && server == "" {
			var r struct {
				Result struct {
					ProtocolVersion string `json:"protocolVersion"`
					ServerInfo      struct {
						Name, Version string
					} `json:"serverInfo"`
				} `json:"result"`
			}
			if json.Unmarshal(msg.Raw, &r) == nil && r.Result.ServerInfo.Name != "" {
				server, version = r.Result.ServerInfo.Name+" "+r.Result.ServerInfo.Version, r.Result.ProtocolVersion
			}
		}
	}
	if server == "" {
		server = "a server without a handshake"
	}
	parts := []string{strings.TrimSpace(server)}
	if version != "" {
		parts = append(parts, "revision "+version)
	}
	parts = append(parts, quote.Count(requests, "captured request"), "match policy "+string(m.opt.Policy))
	return strings.Join(parts, ", ")
}
