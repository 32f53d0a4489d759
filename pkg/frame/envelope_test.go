package frame_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

const toolsList = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`

func TestEnvelopeDirectionAliases(t *testing.T) {
	tests := []struct {
		key, value string
		want       spec.Direction
	}{
		{"dir", "c->s", spec.C2S},
		{"dir", "c2s", spec.C2S},
		{"dir", "C2S", spec.C2S},
		{"direction", "client-to-server", spec.C2S},
		{"direction", "client_to_server", spec.C2S},
		{"direction", "client->server", spec.C2S},
		{"direction", "request", spec.C2S}, // mcp-debug
		{"origin", "client", spec.C2S},     // Inspector v2
		{"dir", "s->c", spec.S2C},
		{"dir", "s2c", spec.S2C},
		{"dir", "S->C", spec.S2C},
		{"direction", "server-to-client", spec.S2C},
		{"direction", "server_to_client", spec.S2C},
		{"direction", "server->client", spec.S2C},
		{"direction", "response", spec.S2C},
		{"origin", "server", spec.S2C},
	}
	for _, tt := range tests {
		t.Run(tt.key+"="+tt.value, func(t *testing.T) {
			in := `{"ts":"2026-05-01T12:00:00Z","` + tt.key + `":"` + tt.value + `","msg":` + toolsList + "}\n"
			f := onlyFrame(t, in, frame.Options{})
			if f.Dir != tt.want {
				t.Errorf("Dir = %v, want %v (reason %q)", f.Dir, tt.want, f.DirReason)
			}
			if f.DirReason != "" {
				t.Errorf("DirReason = %q for a known direction", f.DirReason)
			}
			if f.Kind != frame.KindRequest || f.Method != "tools/list" {
				t.Errorf("kind %v method %q", f.Kind, f.Method)
			}
		})
	}

	t.Run("unrecognised value", func(t *testing.T) {
		f := onlyFrame(t, `{"dir":"sideways","msg":`+toolsList+"}\n", frame.Options{})
		if f.Dir != spec.DirUnknown || !strings.Contains(f.DirReason, "sideways") {
			t.Errorf("Dir %v reason %q, want unknown with a reason naming the value", f.Dir, f.DirReason)
		}
	})
	t.Run("no direction field", func(t *testing.T) {
		f := onlyFrame(t, `{"ts":"2026-05-01T12:00:00Z","msg":`+toolsList+"}\n", frame.Options{})
		if f.Dir != spec.DirUnknown || f.DirReason == "" {
			t.Errorf("Dir %v reason %q, want unknown with a reason", f.Dir, f.DirReason)
		}
	})
}

// Relative values (send/receive, in/out, read/write) need the logger's side.
func TestEnvelopeRelativeDirection(t *testing.T) {
	line := func(dir, msg string) string {
		return `{"timestamp":"2026-05-01T12:00:00Z","direction":"` + dir + `","message":` + msg + "}\n"
	}
	result := `{"jsonrpc":"2.0","id":1,"result":{}}`
	tests := []struct {
		name string
		in   string
		opt  frame.Options
		want []spec.Direction
	}{
		{"client perspective given", line("send", toolsList) + line("receive", result), frame.Options{Perspective: spec.Client}, []spec.Direction{spec.C2S, spec.S2C}},
		{"server perspective given", line("receive", toolsList) + line("send", result), frame.Options{Perspective: spec.Server}, []spec.Direction{spec.C2S, spec.S2C}},
		{"in/out, server", line("in", toolsList) + line("out", result), frame.Options{Perspective: spec.Server}, []spec.Direction{spec.C2S, spec.S2C}},
		// MCPJam-style client log: the client's initialize is "send", so the earlier
		// "receive" is server-to-client once that is known.
		{"inferred from initialize", line("receive", result) + line("send", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`), frame.Options{}, []spec.Direction{spec.S2C, spec.C2S}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, st := read(t, tt.in, tt.opt)
			checkStats(t, recs, st)
			if len(recs) != len(tt.want) {
				t.Fatalf("%d records, want %d", len(recs), len(tt.want))
			}
			for i, w := range tt.want {
				if recs[i].Frame == nil || recs[i].Frame.Dir != w {
					t.Errorf("record %d: %s, want dir %v", i, describeOrNil(recs[i].Frame), w)
				}
			}
		})
	}
}

func TestEnvelopeID(t *testing.T) {
	tests := []struct {
		msg    string
		kind   frame.Kind
		id     string
		hasID  bool
		method string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, frame.KindRequest, `1`, true, "ping"},
		{`{"jsonrpc":"2.0","id":"1","method":"ping"}`, frame.KindRequest, `"1"`, true, "ping"},
		{`{"jsonrpc":"2.0","id":"abc-\u00e9","method":"ping"}`, frame.KindRequest, `"abc-\u00e9"`, true, "ping"},
		{`{"jsonrpc":"2.0","id":1.0,"result":{}}`, frame.KindResult, `1.0`, true, ""},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, frame.KindError, `null`, true, ""},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, frame.KindNotification, ``, false, "notifications/initialized"},
	}
	for _, tt := range tests {
		t.Run(tt.msg, func(t *testing.T) {
			f := onlyFrame(t, `{"dir":"c2s","msg":`+tt.msg+"}\n", frame.Options{})
			if f.Kind != tt.kind || f.ID != tt.id || f.HasID() != tt.hasID || f.Method != tt.method {
				t.Errorf("got kind %v id %q hasID %v method %q, want %v %q %v %q", f.Kind, f.ID, f.HasID(), f.Method, tt.kind, tt.id, tt.hasID, tt.method)
			}
			if string(f.Raw) != tt.msg {
				t.Errorf("Raw = %s, want the payload %s", f.Raw, tt.msg)
			}
		})
	}
	// 1 and "1" are different ids.
	a := onlyFrame(t, `{"dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"ping"}}`, frame.Options{})
	b := onlyFrame(t, `{"dir":"c2s","msg":{"jsonrpc":"2.0","id":"1","method":"ping"}}`, frame.Options{})
	if a.ID == b.ID {
		t.Errorf("ids 1 and \"1\" both read as %q", a.ID)
	}
}

func TestEnvelopeTime(t *testing.T) {
	epoch := time.Unix(0, 0).UTC()
	tests := []struct {
		name  string
		field string // key and value, e.g. `"ts":"..."`
		want  time.Time
		slack time.Duration
	}{
		{"ts RFC3339Nano", `"ts":"2026-11-30T02:30:45.853173992Z"`, time.Date(2026, 11, 30, 2, 30, 45, 853173992, time.UTC), 0},
		{"timestamp with offset", `"timestamp":"2026-05-01T14:00:00.5+02:00"`, time.Date(2026, 5, 1, 12, 0, 0, 5e8, time.UTC), 0},
		{"time with a space", `"time":"2026-05-01 12:00:00.25Z"`, time.Date(2026, 5, 1, 12, 0, 0, 25e7, time.UTC), 0},
		{"time without zone", `"time":"2026-05-01T12:00:00.125"`, time.Date(2026, 5, 1, 12, 0, 0, 125e6, time.UTC), 0},
		{"startedDateTime", `"startedDateTime":"2026-05-01T12:00:00Z"`, time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC), 0},
		{"epoch seconds", `"ts":1777636800`, time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC), 0},
		{"epoch seconds fractional", `"t":1777636800.952`, time.Date(2026, 5, 1, 12, 0, 0, 952e6, time.UTC), time.Microsecond},
		{"epoch milliseconds", `"timestamp":1777636800123`, time.Date(2026, 5, 1, 12, 0, 0, 123e6, time.UTC), 0},
		{"epoch microseconds", `"timestamp":1777636800123456`, time.Date(2026, 5, 1, 12, 0, 0, 123456e3, time.UTC), 0},
		// Go's time.Now().UnixNano(), a common recorder choice.
		{"epoch nanoseconds", `"ts":1777636800123456789`, time.Date(2026, 5, 1, 12, 0, 0, 123456789, time.UTC), time.Microsecond},
		{"t offset in ms (mcp-cassette)", `"t":12`, epoch.Add(12 * time.Millisecond), 0},
		{"elapsed_ms", `"elapsed_ms":3.5`, epoch.Add(3500 * time.Microsecond), 0},
		{"no time", `"seq":1`, time.Time{}, 0},
		{"unparsable time", `"ts":"yesterday"`, time.Time{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := onlyFrame(t, `{`+tt.field+`,"dir":"c2s","msg":`+toolsList+"}\n", frame.Options{})
			d := f.Time.Sub(tt.want)
			if d < 0 {
				d = -d
			}
			if d > tt.slack || f.Time.IsZero() != tt.want.IsZero() {
				t.Errorf("Time = %v, want %v", f.Time, tt.want)
			}
		})
	}
}

func TestEnvelopePayloadAliases(t *testing.T) {
	msg := `{"jsonrpc":"2.0","id":"7","method":"tools/call","params":{"name":"echo","arguments":{"text":"a \"quoted\" word"}}}`
	quoted := `"{\"jsonrpc\":\"2.0\",\"id\":\"7\",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"a \\\"quoted\\\" word\"}}}"`
	for _, key := range []string{"msg", "message", "payload", "raw", "frame", "body", "json"} {
		for _, form := range []struct{ name, value string }{{"object", msg}, {"string", quoted}} {
			t.Run(key+"/"+form.name, func(t *testing.T) {
				f := onlyFrame(t, `{"ts":"2026-05-01T12:00:00Z","dir":"c2s","`+key+`":`+form.value+"}\n", frame.Options{})
				if f.Kind != frame.KindRequest || f.Method != "tools/call" || f.ID != `"7"` || f.Dir != spec.C2S {
					t.Errorf("got %s", describe(f))
				}
				if string(f.Raw) != msg {
					t.Errorf("Raw = %s, want %s", f.Raw, msg)
				}
				if want := `{"name":"echo","arguments":{"text":"a \"quoted\" word"}}`; string(f.Params) != want {
					t.Errorf("Params = %s, want %s", f.Params, want)
				}
				if f.Size() != len(msg) {
					t.Errorf("Size = %d, want %d", f.Size(), len(msg))
				}
			})
		}
	}
	t.Run("batch payload", func(t *testing.T) {
		f := onlyFrame(t, `{"dir":"c2s","msg":[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"x","progress":1}}]}`+"\n", frame.Options{})
		if f.Kind != frame.KindBatch || len(f.Members) != 2 {
			t.Fatalf("got %s with %d members", describe(f), len(f.Members))
		}
		if m := f.Members[0]; m.Kind != frame.KindRequest || m.Method != "ping" || m.ID != "3" || m.Dir != spec.C2S || m.Line != 1 {
			t.Errorf("member 0: %s", describe(&m))
		}
		if m := f.Members[1]; m.Kind != frame.KindNotification || m.Method != "notifications/progress" || m.HasID() || m.Dir != spec.C2S {
			t.Errorf("member 1: %s", describe(&m))
		}
	})
	t.Run("payload string that is broken JSON", func(t *testing.T) {
		f := onlyFrame(t, `{"dir":"s2c","body":"{\"jsonrpc\":\"2.0\",\"id\":"}`+"\n", frame.Options{Format: "envelope-jsonl"})
		if f.Kind != frame.KindInvalid || f.Problem != frame.ProblemNotJSON || !strings.Contains(f.Detail, "payload") {
			t.Errorf("got %s problem %v", describe(f), f.Problem)
		}
	})
	t.Run("payload that is not JSON-RPC", func(t *testing.T) {
		f := onlyFrame(t, `{"dir":"s2c","msg":{"id":1}}`+"\n", frame.Options{})
		if f.Kind != frame.KindInvalid || f.Problem != frame.ProblemNotJSONRPC || f.Detail == "" || f.Dir != spec.S2C {
			t.Errorf("got %s problem %v", describe(f), f.Problem)
		}
	})
}

func TestEnvelopeStreamKey(t *testing.T) {
	tests := []struct {
		fields string
		want   string
	}{
		{`"session_id":"sess-1"`, "sess-1"},
		{`"server_label":"github"`, "github"},
		{`"session":"abc"`, "abc"},
		{`"server_name":"fs"`, "fs"},
		{`"serverName":"fs2"`, "fs2"},
		{`"conn_id":7`, "7"},
		{`"seq":1`, ""},
		// mcpsnoop writes both; the connection's session comes first.
		{`"session_id":"s-9","server_label":"github"`, "s-9"},
	}
	for _, tt := range tests {
		t.Run(tt.fields, func(t *testing.T) {
			f := onlyFrame(t, `{`+tt.fields+`,"ts":"2026-05-01T12:00:00Z","direction":"c2s","raw":`+toolsList+"}\n", frame.Options{})
			if f.StreamKey != tt.want {
				t.Errorf("StreamKey = %q, want %q", f.StreamKey, tt.want)
			}
		})
	}
}

// Lines of an envelope file that carry no frame are context, kept with their text.
func TestEnvelopeContextRecords(t *testing.T) {
	lines := []string{
		`{"ts":"2026-05-01T12:00:00Z","dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}}`,
		`{"type":"header","cassetteVersion":2,"recorder":"mcp-cassette@1.0.0","startedAt":1777636800000,"transport":"stdio"}`,
		`{"session_id":"s1","server_label":"github","seq":2,"ts":"2026-05-01T12:00:00Z","direction":"stderr","transport":"stdio","text":"server listening on stdio"}`,
		`{"seq":3,"direction":"client-to-server","transport":"stdio","kind":"lifecycle","event":"transport-close"}`,
		`{"dir":"s2c","body":"plain text, not JSON"}`,
		`{"dir":"s2c","msg":null}`,
		`# MCP Recording Session`,
		`{"type":"summary","frames":1}`,
	}
	recs, st := read(t, strings.Join(lines, "\n")+"\n", frame.Options{})
	checkStats(t, recs, st)
	if st.Format != "envelope-jsonl" {
		t.Errorf("Format = %q", st.Format)
	}
	if len(recs) != len(lines) {
		t.Fatalf("%d records, want %d", len(recs), len(lines))
	}
	if recs[0].Kind != frame.RecordFrame || recs[0].Frame.Method != "initialize" {
		t.Errorf("record 1: kind %v frame %s", recs[0].Kind, describeOrNil(recs[0].Frame))
	}
	for i := 1; i < len(lines); i++ {
		if recs[i].Kind != frame.RecordContext || recs[i].Text != lines[i] || recs[i].Frame != nil {
			t.Errorf("line %d: kind %v text %q, want context %q", i+1, recs[i].Kind, recs[i].Text, lines[i])
		}
	}
	if st.Context != len(lines)-1 || st.Frames != 1 {
		t.Errorf("stats %+v", st)
	}
}

// A recorder file often starts with a record that carries no frame: mcp-cassette's
// header, mcpsnoop's stderr or meta line, mcp-trace's header, a trace-validator
// lifecycle event (formats.md section 8). That line must not decide the format.
func TestEnvelopeDetectedAfterLeadingContext(t *testing.T) {
	tests := []struct {
		name  string
		first string
		frame string
	}{
		{"mcpsnoop stderr", `{"direction":"stderr","text":"server listening on stdio"}`,
			`{"session_id":"s1","server_label":"github","seq":1,"ts":"2026-05-01T12:00:00Z","direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}}`},
		{"mcp-cassette header", `{"type":"header","cassetteVersion":2,"recorder":"mcp-cassette@1.0.0","startedAt":1777636800000,"transport":"stdio","command":["srv"],"redaction":{"applied":true}}`,
			`{"type":"frame","t":12,"dir":"c2s","frame":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}}`},
		{"mcp-trace header", `{"format":"mcp-trace/1","run_id":"r1"}`,
			`{"dir":"c2s","elapsed_ms":3,"method":"initialize","body":"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{}}"}`},
		{"trace-validator lifecycle", `{"seq":0,"direction":"client-to-server","transport":"stdio","kind":"lifecycle","event":"transport-open"}`,
			`{"seq":1,"direction":"client-to-server","transport":"stdio","kind":"message","payload":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, st := read(t, tt.first+"\n"+tt.frame+"\n", frame.Options{})
			checkStats(t, recs, st)
			if st.Format != "envelope-jsonl" {
				t.Errorf("Format = %q, want envelope-jsonl", st.Format)
			}
			if len(recs) != 2 {
				t.Fatalf("%d records", len(recs))
			}
			if recs[0].Kind != frame.RecordContext || recs[0].Text != tt.first {
				t.Errorf("line 1: kind %v text %q, want context (frame %s)", recs[0].Kind, recs[0].Text, describeOrNil(recs[0].Frame))
			}
			f := recs[1].Frame
			if recs[1].Kind != frame.RecordFrame || f.Kind != frame.KindRequest || f.Method != "initialize" || f.Dir != spec.C2S || f.Line != 2 {
				t.Errorf("line 2: kind %v, frame %s, want the initialize request c2s", recs[1].Kind, describeOrNil(f))
			}
			if st.Rejected != 0 {
				t.Errorf("Rejected = %d, want 0", st.Rejected)
			}
		})
	}
}

func TestEnvelopeBrokenRecord(t *testing.T) {
	in := `{"ts":"2026-05-01T12:00:00Z","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"ping"}}` + "\n" +
		`{"ts":"2026-05-01T12:00:01Z","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"res` + "\n" +
		`{"ts":"2026-05-01T12:00:02Z","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{}}}` + "\n"
	recs, st := read(t, in, frame.Options{})
	checkStats(t, recs, st)
	if len(recs) != 3 {
		t.Fatalf("%d records", len(recs))
	}
	bad := recs[1].Frame
	if bad == nil || bad.Kind != frame.KindInvalid || bad.Problem != frame.ProblemNotJSON || bad.Line != 2 || bad.Offset <= 0 {
		t.Fatalf("line 2: %s", describeOrNil(bad))
	}
	if bad.Offset != int64(len(`{"ts":"2026-05-01T12:00:01Z","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"res`)) {
		t.Errorf("Offset = %d, want the end of the line", bad.Offset)
	}
	if f := recs[2].Frame; f == nil || f.Kind != frame.KindResult || f.Line != 3 || f.Dir != spec.S2C {
		t.Errorf("line 3: %s", describeOrNil(f))
	}
	if st.Rejected != 1 || st.Frames != 3 {
		t.Errorf("stats %+v", st)
	}
}

// An envelope file may hold a bare message or a bare batch among envelopes.
func TestEnvelopeMixedWithBare(t *testing.T) {
	in := `{"ts":"2026-05-01T12:00:00Z","dir":"c2s","session_id":"x","msg":{"jsonrpc":"2.0","id":1,"method":"ping"}}` + "\n" +
		`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" +
		`[{"jsonrpc":"2.0","id":2,"method":"ping"}]` + "\n"
	recs, st := read(t, in, frame.Options{})
	checkStats(t, recs, st)
	if st.Format != "envelope-jsonl" || len(recs) != 3 {
		t.Fatalf("format %q, %d records", st.Format, len(recs))
	}
	if f := recs[1].Frame; f.Kind != frame.KindResult || f.ID != "1" || f.StreamKey != "" || f.Dir != spec.DirUnknown {
		t.Errorf("line 2: %s stream %q", describe(f), f.StreamKey)
	}
	if f := recs[2].Frame; f.Kind != frame.KindBatch || len(f.Members) != 1 || f.Members[0].Method != "ping" {
		t.Errorf("line 3: %s", describe(f))
	}
}

func TestEnvelopeFixtureBatch(t *testing.T) {
	recs, st := read(t, string(fixture(t, "raw-everything-batch-2025-06-18.jsonl")), frame.Options{})
	checkStats(t, recs, st)
	f := recs[6].Frame
	if f == nil || f.Kind != frame.KindBatch || f.Line != 7 || f.Dir != spec.C2S || len(f.Members) != 3 {
		t.Fatalf("line 7: %s", describeOrNil(f))
	}
	want := []struct {
		kind   frame.Kind
		method string
		id     string
	}{
		{frame.KindRequest, "ping", "3"},
		{frame.KindRequest, "tools/list", "4"},
		{frame.KindNotification, "notifications/progress", ""},
	}
	wantTime := time.Date(2026, 11, 30, 2, 30, 51, 972615674, time.UTC)
	for i, w := range want {
		m := f.Members[i]
		if m.Kind != w.kind || m.Method != w.method || m.ID != w.id || m.Line != 7 || m.Dir != spec.C2S || !m.Time.Equal(wantTime) || m.Source != "test.jsonl" {
			t.Errorf("member %d: %s", i, describe(&m))
		}
	}
	if !f.Time.Equal(wantTime) {
		t.Errorf("Time = %v", f.Time)
	}
}
