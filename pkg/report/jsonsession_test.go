package report

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
)

// sessionWith is a session whose every string is s and whose raw members are raw.
func sessionWith(s string, raw json.RawMessage) *Session {
	ptr := func(v string) *string { return &v }
	return &Session{Input: s, Index: 3, StreamKey: s, FirstLine: 1, LastLine: -2, Era: s,
		Client:          Peer{Name: s, Version: s, Capabilities: raw},
		Server:          Peer{Name: s, Capabilities: nil},
		ProtocolVersion: Versions{Requested: s, Answered: s, Negotiated: s},
		Frames:          7,
		Findings: []Finding{
			{Rule: "MCP0001", Name: s, Severity: "error", Message: s, Input: s, Line: 4, Entry: 2, Time: ptr(s), Method: ptr(s), ID: raw, Party: s,
				Related: []rule.Related{{Line: 1, Note: s}, {Line: 2, Note: ""}}, Fingerprint: s},
			{Rule: "MCP0002", Related: []rule.Related{}},
		},
		Notes: []string{s, ""},
	}
}

// The hand-written session encoder writes what encoding/json writes, on strings
// that need every kind of escape and on raw members of every shape.
func TestSessionEncoderEqualsEncodingJSON(t *testing.T) {
	strs := []string{"", "plain", "quote \" and \\ backslash", "<script>&amp;</script>", "\x00\x01\x1f\b\f\n\r\t\x7f",
		"line\u2028sep\u2029", "invalid \xff\xfe utf-8 \xe2\x82", "héllo wörld ✓ 🙂", "\u00a0\ufeff"}
	raws := []json.RawMessage{nil, json.RawMessage(`{}`), json.RawMessage(`[]`), json.RawMessage(`1`), json.RawMessage(` "a<b" `),
		json.RawMessage(`{"tools":{"listChanged":true},"x":[1,{"y":null}],"e":{},"a":[]}`), json.RawMessage("{\n  \"k\" : [ 1 , 2 ]\n}"),
		json.RawMessage(`{"s":"\u2028 & \u003c"}`)}
	sessions := []*Session{{}, {Findings: []Finding{}, Notes: []string{}}}
	for _, s := range strs {
		for _, raw := range raws {
			sessions = append(sessions, sessionWith(s, raw))
		}
	}
	for i, sess := range sessions {
		want, err := json.MarshalIndent(sess, "    ", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got, ok := appendSessionJSON(nil, sess, "    ")
		if !ok || !bytes.Equal(got, want) {
			t.Fatalf("session %d (ok %v):\n--- encoding/json\n%s\n--- appendSessionJSON\n%s", i, ok, want, got)
		}
	}
	if _, ok := appendSessionJSON(nil, sessionWith("x", json.RawMessage(`{"a":`)), "    "); ok {
		t.Fatal("a raw member that is not JSON was encoded; encoding/json refuses it")
	}
}

func FuzzSessionEncoder(f *testing.F) {
	f.Add("<a>&\u2028\xff", []byte(`{"a":[1,2]}`))
	f.Fuzz(func(t *testing.T, s string, raw []byte) {
		sess := sessionWith(s, raw)
		want, err := json.MarshalIndent(sess, "    ", "  ")
		got, ok := appendSessionJSON(nil, sess, "    ")
		if (err == nil) != ok {
			t.Fatalf("encoding/json error %v, appendSessionJSON ok %v", err, ok)
		}
		if ok && !bytes.Equal(got, want) {
			t.Fatalf("--- encoding/json\n%s\n--- appendSessionJSON\n%s", want, got)
		}
	})
}
