package ruletest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// A Form is another encoding of an envelope capture ({"ts","dir","msg"} lines).
// The rules infer who sent what from the session, not from the envelope, so the
// error and warning findings must not change when the envelope is gone.
type Form struct {
	Name string
	// Rewrite turns an envelope capture into this form; false when it cannot (not
	// an envelope capture, or one with several streams the form cannot keep apart).
	Rewrite func(capture []byte) ([]byte, bool)
	// Unjudged lists rules this form cannot judge: their findings are not compared.
	Unjudged []string
}

// Ignoring returns the form with rules added to its Unjudged.
func (f Form) Ignoring(rules ...string) Form {
	f.Unjudged = append(slices.Clip(f.Unjudged), rules...)
	return f
}

var (
	// Bare is the capture as bare JSON-RPC lines: no direction, no time.
	Bare = Form{Name: "bare", Rewrite: func(b []byte) ([]byte, bool) { return stripEnvelopes(b, false) }}
	// GoSDKLog is the capture as the Go SDK LoggingTransport log of the server
	// ("read: " what the client sent, "write: " what the server sent), no time.
	GoSDKLog = Form{Name: "gosdk-log", Rewrite: func(b []byte) ([]byte, bool) { return stripEnvelopes(b, true) }}
)

// stripEnvelopes rewrites each envelope line (a "msg" and a "dir" of "c->s" or
// "s->c") as its message, prefixed with read: or write: for a Go SDK log. Lines that
// are no envelope are kept as they are; a truncated envelope (not valid JSON) keeps
// what follows "msg":. False when no line is an envelope.
func stripEnvelopes(data []byte, logged bool) ([]byte, bool) {
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	envelopes := 0
	for sc.Scan() {
		var env map[string]json.RawMessage
		if json.Unmarshal(sc.Bytes(), &env) != nil {
			env = brokenEnvelope(sc.Text())
		}
		if dir := string(env["dir"]); env["msg"] != nil && (dir == `"c->s"` || dir == `"s->c"`) {
			if env["server_label"] != nil || env["session_id"] != nil {
				return nil, false
			}
			envelopes++
			if logged {
				if dir == `"c->s"` {
					out.WriteString("read: ")
				} else {
					out.WriteString("write: ")
				}
			}
			out.Write(env["msg"])
		} else {
			out.Write(sc.Bytes())
		}
		out.WriteByte('\n')
	}
	if sc.Err() != nil || envelopes == 0 {
		return nil, false
	}
	return out.Bytes(), true
}

// brokenEnvelope takes apart an envelope line that is not valid JSON (a truncated
// record) by its text: the direction and whatever follows "msg":.
func brokenEnvelope(line string) map[string]json.RawMessage {
	_, msg, ok := strings.Cut(line, `"msg":`)
	if !ok || !strings.HasPrefix(line, "{") { // (a member line of a pretty-printed record is none)
		return nil
	}
	env := map[string]json.RawMessage{"msg": json.RawMessage(msg), "dir": json.RawMessage(`"s->c"`)}
	if strings.Contains(line, `"dir":"c->s"`) {
		env["dir"] = json.RawMessage(`"c->s"`)
	}
	return env
}
