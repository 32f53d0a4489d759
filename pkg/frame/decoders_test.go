package frame_test

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

const initReq = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"claude-ai","version":"0.1.0"}}}`

func TestClaudeDesktopLines(t *testing.T) {
	in := strings.Join([]string{
		// per-server file, early 2025: no metadata suffix
		`2025-03-10T17:03:18.764Z [demo] [info] Message from client: ` + initReq,
		// mid-2025 on: the util.inspect metadata suffix
		`2025-07-12T05:51:44.601Z [demo] [info] Message from server: {"jsonrpc":"2.0","id":0,"result":{}} { metadata: undefined }`,
		// combined mcp.log: level first; a name with spaces and parentheses
		`2025-04-08T07:54:28.421Z [info] [Hello World (Ref)] Message from client: {"method":"prompts/list","params":{},"jsonrpc":"2.0","id":612}`,
		// a frame cut short in the log: not valid JSON
		`2025-04-08T07:54:28.421Z [info] [Hello World (Ref)] Message from server: {"jsonrpc":"2.0","id":612,"err { metadata: undefined }`,
		// lifecycle, stderr and a %o block
		`2025-07-12T05:52:44.613Z [demo] [info] Server transport closed { metadata: undefined }`,
		`[supergateway] Stdio → SSE: {`,
		`  jsonrpc: '2.0',`,
		`}`,
		// brackets inside the JSON do not confuse the split
		`2025-07-12T05:51:44.601Z [demo] [info] Message from client: {"jsonrpc":"2.0","id":"a]b","method":"tools/call","params":{"name":"x","arguments":{"s":"} { metadata"}}}`,
	}, "\n") + "\n"
	recs, st := read(t, in, frame.Options{})
	checkStats(t, recs, st)
	if st.Format != "claude-desktop-log" || st.Frames != 5 || st.Rejected != 1 || st.Context != 4 {
		t.Fatalf("stats %+v", st)
	}
	f := recs[0].Frame
	if f.Method != "initialize" || f.Dir != spec.C2S || f.StreamKey != "demo" || !f.Time.Equal(time.Date(2025, 3, 10, 17, 3, 18, 764e6, time.UTC)) {
		t.Errorf("line 1: %s key %q", describe(f), f.StreamKey)
	}
	if f := recs[1].Frame; f.Kind != frame.KindResult || f.Dir != spec.S2C || string(f.Raw) != `{"jsonrpc":"2.0","id":0,"result":{}}` {
		t.Errorf("line 2: %s", describe(f))
	}
	if f := recs[2].Frame; f.StreamKey != "Hello World (Ref)" || f.ID != "612" || f.Dir != spec.C2S {
		t.Errorf("line 3: %s key %q", describe(f), f.StreamKey)
	}
	if f := recs[3].Frame; f.Problem != frame.ProblemNotJSON || strings.Contains(string(f.Raw), "metadata") {
		t.Errorf("line 4: %s", describe(f))
	}
	if f := recs[8].Frame; f == nil || f.Method != "tools/call" || f.ID != `"a]b"` {
		t.Errorf("line 9: %s", describeOrNil(f))
	}
}

func TestVSCodeLines(t *testing.T) {
	in := strings.Join([]string{
		`2026-07-24 02:03:14.031 [info] Starting server mcp-taskfile-server`,
		`2026-07-24 02:03:14.089 [info] Connection state: Running`,
		`2026-07-24 02:03:14.089 [debug] [editor -> server] ` + initReq,
		`2026-07-24 02:03:14.151 [debug] [server -> editor] {"jsonrpc":"2.0","id":0,"result":{"capabilities":{"logging":{}},"protocolVersion":"2025-11-25","serverInfo":{"name":"mcp-t...`,
		`2025-03-23 16:38:00.970 [info] [Client Says] {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"v","arguments":{}}}`,
		`2025-03-23 16:38:00.989 [info] [Server Says] {"jsonrpc":"2.0","id":4,"result":{"content":[],"isError":false}}`,
		`2025-05-15 18:02:47.196 [warning] [server stderr] 'npx' is not recognized`,
	}, "\n") + "\n"
	recs, st := read(t, in, frame.Options{})
	checkStats(t, recs, st)
	if st.Format != "vscode-mcp-log" || st.Frames != 4 || st.Rejected != 1 || st.Context != 3 {
		t.Fatalf("stats %+v", st)
	}
	if f := recs[2].Frame; f.Method != "initialize" || f.Dir != spec.C2S || !f.Time.Equal(time.Date(2026, 7, 24, 2, 3, 14, 89e6, time.UTC)) {
		t.Errorf("line 3: %s", describe(f))
	}
	if f := recs[3].Frame; f.Problem != frame.ProblemNotJSON || f.Dir != spec.S2C {
		t.Errorf("line 4 (cut short by the Output panel): %s", describe(f))
	}
	if f := recs[4].Frame; f.Dir != spec.C2S || f.Method != "tools/call" {
		t.Errorf("line 5: %s", describe(f))
	}
	if f := recs[5].Frame; f.Dir != spec.S2C || f.Kind != frame.KindResult {
		t.Errorf("line 6: %s", describe(f))
	}
}

func harDoc(entries ...string) string {
	return `{"log":{"version":"1.2","creator":{"name":"DevTools","version":"1"},"pages":[{"id":"p"}],"entries":[` + strings.Join(entries, ",") + `]}}`
}

func harEntry(method, reqHeaders, body string, status int, respHeaders, mime, text string) string {
	post := ""
	if body != "" {
		post = `,"postData":{"mimeType":"application/json","text":` + jsonString(body) + `}`
	}
	return `{"startedDateTime":"2026-05-01T12:00:00.000Z","time":20,"request":{"method":"` + method + `","url":"http://h/mcp?x=1","headers":[` + reqHeaders + `]` + post +
		`},"response":{"status":` + itoa(status) + `,"statusText":"","headers":[` + respHeaders + `],"content":{"mimeType":"` + mime + `","text":` + jsonString(text) + `}}}`
}

func TestHARExchanges(t *testing.T) {
	sid := `{"name":"mcp-session-id","value":"S1"}`
	pv := `{"name":"MCP-Protocol-Version","value":"2025-03-26"}`
	doc := harDoc(
		// initialize: the session id comes back on the response
		harEntry("POST", "", initReq, 200, `{"name":"Content-Type","value":"application/json"},{"name":"Mcp-Session-Id","value":"S1"}`, "application/json",
			`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-03-26","capabilities":{}}}`),
		// a batch, answered by an SSE stream: a priming event, a retry, a comment, CRLF, data over two lines
		harEntry("POST", sid+","+pv, `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`, 200,
			`{"name":"Content-Type","value":"text/event-stream"}`, "text/event-stream",
			"id: 0\r\ndata:\r\n\r\nretry: 100\r\n\r\n: keep-alive\r\n\r\nevent: message\r\ndata: {\"jsonrpc\":\"2.0\",\r\ndata: \"id\":1,\"result\":{}}\r\n\r\n"),
		// a notification: 202 without a body
		harEntry("POST", sid+","+pv, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`, 202, "", "x-unknown", ""),
		// other traffic in a browser capture
		harEntry("GET", "", "", 200, `{"name":"Content-Type","value":"text/html"}`, "text/html", "<html></html>"),
		// a GET stream carrying a server request, base64-encoded by the exporter
		`{"startedDateTime":"2026-05-01T12:00:00Z","request":{"method":"GET","url":"http://h/mcp","headers":[`+sid+`]},"response":{"status":200,"headers":[],"content":{"mimeType":"text/event-stream","encoding":"base64","text":"`+
			base64.StdEncoding.EncodeToString([]byte("data: {\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"roots/list\"}\n\n"))+`"}}}`,
		// the session expired
		harEntry("POST", sid+","+pv, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, 404, "", "text/plain", "session not found"),
		// a DELETE: no message
		harEntry("DELETE", sid, "", 204, "", "x-unknown", ""),
	)
	recs, st := read(t, doc, frame.Options{})
	checkCounts(t, recs, st)
	if st.Format != "har" || st.Lines != 7 || st.Frames != 7 || st.Context != 2 || st.Rejected != 0 {
		t.Fatalf("stats %+v", st)
	}
	type want struct {
		line int
		kind frame.Kind
		dir  spec.Direction
		key  string
		resp bool
	}
	wants := []want{
		{1, frame.KindRequest, spec.C2S, "S1", false}, {1, frame.KindResult, spec.S2C, "S1", true},
		{2, frame.KindBatch, spec.C2S, "S1", false}, {2, frame.KindResult, spec.S2C, "S1", true},
		{3, frame.KindNotification, spec.C2S, "S1", false},
		{5, frame.KindRequest, spec.S2C, "S1", true},
		{6, frame.KindRequest, spec.C2S, "S1", false},
	}
	frames := framesOf(recs)
	for i, w := range wants {
		f := frames[i].Frame
		if f.Entry != w.line || f.Line != 1 || f.Kind != w.kind || f.Dir != w.dir || f.StreamKey != w.key || f.HTTP == nil || f.HTTP.InResponse != w.resp || f.HTTP.Entry != w.line {
			t.Errorf("frame %d: %s key %q http %+v", i, describe(f), f.StreamKey, f.HTTP)
		}
	}
	if h := frames[0].Frame.HTTP; h.SessionID != "" || h.ProtocolVersion != "" || h.Path != "/mcp" || h.Method != "POST" || h.Status != 200 {
		t.Errorf("initialize exchange %+v", h)
	}
	if h := frames[2].Frame.HTTP; h.SessionID != "S1" || h.ProtocolVersion != "2025-03-26" {
		t.Errorf("batch exchange %+v", h)
	}
	if m := frames[2].Frame.Members; len(m) != 2 || m[0].HTTP != frames[2].Frame.HTTP || m[1].Entry != 2 {
		t.Errorf("batch members %v", m)
	}
	if string(frames[3].Frame.Raw) != `{"jsonrpc":"2.0",`+"\n"+`"id":1,"result":{}}` {
		t.Errorf("SSE data lines: %q", frames[3].Frame.Raw)
	}
	if h := frames[6].Frame.HTTP; h.Status != 404 || h.InResponse {
		t.Errorf("expired session exchange %+v", h)
	}
	if recs[5].Kind != frame.RecordContext || recs[5].Entry != 4 || recs[5].Line != 1 || !strings.Contains(recs[5].Text, "GET /mcp 200") {
		t.Errorf("record 6: %+v", recs[5])
	}
	if !frames[0].Frame.Time.Equal(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)) || !frames[1].Frame.Time.Equal(time.Date(2026, 5, 1, 12, 0, 0, 20e6, time.UTC)) {
		t.Errorf("times %v %v", frames[0].Frame.Time, frames[1].Frame.Time)
	}
}

func TestHARSyntheticAndBroken(t *testing.T) {
	t.Run("recorder HAR has no wire headers", func(t *testing.T) {
		doc := strings.Replace(harDoc(harEntry("POST", "", initReq, 200, "", "application/json", `{"jsonrpc":"2.0","id":0,"result":{}}`)), "DevTools", "mcpsnoop", 1)
		recs, _ := read(t, doc, frame.Options{})
		for _, r := range framesOf(recs) {
			if r.Frame.HTTP != nil {
				t.Errorf("HTTP %+v from a synthetic HAR", r.Frame.HTTP)
			}
		}
	})
	t.Run("truncated document", func(t *testing.T) {
		doc := harDoc(harEntry("POST", "", initReq, 200, "", "application/json", `{"jsonrpc":"2.0","id":0,"result":{}}`), harEntry("POST", "", initReq, 200, "", "", ""))
		recs, _, err := readAll(t, "cut.har", strings.NewReader(doc[:len(doc)-40]), frame.Options{})
		if err == nil || !strings.Contains(err.Error(), "mcpsleuth: cut.har: entry 2:") {
			t.Fatalf("err = %v", err)
		}
		if len(framesOf(recs)) != 2 {
			t.Errorf("the first entry's frames were not handed out before the error: %d records", len(recs))
		}
	})
	t.Run("entry longer than MaxLine", func(t *testing.T) {
		doc := harDoc(harEntry("POST", "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"x":"`+strings.Repeat("a", 1<<20)+`"}}`, 200, "", "", ""))
		_, _, err := readAll(t, "big.har", strings.NewReader(doc), frame.Options{MaxLine: 64 << 10})
		if err == nil || !strings.Contains(err.Error(), "entry 1: longer than the 64 KiB limit") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("no entries", func(t *testing.T) {
		_, st := read(t, `{"log":{"version":"1.2","creator":{"name":"x"}}}`, frame.Options{})
		if st.Format != "har" || st.Frames != 0 || !strings.Contains(st.Lossy, "a HAR capture without any MCP message") {
			t.Errorf("stats %+v", st)
		}
	})
}

func TestInspectorExport(t *testing.T) {
	doc := `[
  {"id":"1","timestamp":"2026-05-01T12:00:00.000Z","direction":"request","origin":"client","message":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}},"response":{"jsonrpc":"2.0","id":1,"result":{"content":[]}},"duration":500},
  {"id":"2","timestamp":"2026-05-01T12:00:00.100Z","direction":"notification","origin":"server","message":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}},
  {"id":"3","timestamp":"2026-05-01T12:00:00.200Z","direction":"request","origin":"server","message":{"jsonrpc":"2.0","id":0,"method":"roots/list"},"response":{"jsonrpc":"2.0","id":0,"result":{"roots":[]}},"duration":5},
  {"id":"4","timestamp":"2026-05-01T12:00:01.000Z","direction":"response","origin":"server","message":{"jsonrpc":"2.0","id":77,"result":{}}},
  {"id":"5","timestamp":"2026-05-01T12:00:02.000Z","direction":"request","message":{"jsonrpc":"2.0","id":2,"method":"ping"},"response":{"jsonrpc":"2.0","id":2,"result":{}},"duration":1}
]
`
	recs, st := read(t, doc, frame.Options{})
	checkCounts(t, recs, st)
	if st.Format != "inspector-json" || st.Lines != 5 || st.Frames != 8 {
		t.Fatalf("stats %+v", st)
	}
	var got []string
	for _, r := range recs {
		f := r.Frame
		got = append(got, itoa(f.Entry)+" "+f.Dir.String()+" "+f.Kind.String()+" "+f.Method+" "+f.ID)
	}
	want := []string{
		"1 c2s request tools/call 1",
		"2 s2c notification notifications/progress ",
		"3 s2c request roots/list 0",
		"3 c2s result  0",
		"1 s2c result  1", // arrived at 12:00:00.500, after the progress and the roots/list exchange
		"4 s2c result  77",
		"5 unknown request ping 2",
		"5 unknown result  2",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("frames:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if f := recs[4].Frame; !f.Time.Equal(time.Date(2026, 5, 1, 12, 0, 0, 500e6, time.UTC)) {
		t.Errorf("folded response time %v", f.Time)
	}
}

func TestMCPGoSlog(t *testing.T) {
	in := strings.Join([]string{
		`{"time":"2026-05-14T09:12:01.004Z","level":"DEBUG","msg":"→ request","method":"initialize","id":1,"params":{"protocolVersion":"2025-06-18","capabilities":{}}}`,
		`{"time":"2026-05-14T09:12:01.016Z","level":"DEBUG","msg":"← response","id":1,"method":"initialize","duration":12000000,"result":"{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{}}"}`,
		`{"time":"2026-05-14T09:12:01.017Z","level":"DEBUG","msg":"→ notification","method":"notifications/initialized"}`,
		`{"time":"2026-05-14T09:12:01.018Z","level":"DEBUG","msg":"← notification","method":"notifications/message","params":"{\"level\":\"info\",\"data\":\"hi\"}"}`,
		`{"time":"2026-05-14T09:12:01.019Z","level":"DEBUG","msg":"← request","method":"roots/list","id":"s-1"}`,
		`{"time":"2026-05-14T09:12:01.020Z","level":"DEBUG","msg":"→ response error","id":"s-1","method":"roots/list","duration":5,"code":-32601,"error":"Method not found"}`,
		`{"time":"2026-05-14T09:12:02.020Z","level":"DEBUG","msg":"← response error","id":2,"method":"tools/call","duration":5,"error":"context deadline exceeded"}`,
		`{"time":"2026-05-14T09:12:02.021Z","level":"DEBUG","msg":"→ notification error","method":"notifications/cancelled","error":"transport closed"}`,
		`{"time":"2026-05-14T09:12:02.022Z","level":"INFO","msg":"bye"}`,
	}, "\n") + "\n"
	recs, st := read(t, in, frame.Options{})
	checkStats(t, recs, st)
	if st.Format != "mcpgo-slog" || st.Frames != 6 || st.Context != 3 || st.Rejected != 0 {
		t.Fatalf("stats %+v", st)
	}
	wants := []string{
		`c2s {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}`,
		`s2c {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{}}}`,
		`c2s {"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`s2c {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}`,
		`s2c {"jsonrpc":"2.0","id":"s-1","method":"roots/list"}`,
		`c2s {"jsonrpc":"2.0","id":"s-1","error":{"code":-32601,"message":"Method not found"}}`,
	}
	for i, w := range wants {
		f := recs[i].Frame
		if got := f.Dir.String() + " " + string(f.Raw); got != w {
			t.Errorf("line %d:\n got  %s\n want %s", i+1, got, w)
		}
	}
	if !recs[1].Frame.Time.Equal(time.Date(2026, 5, 14, 9, 12, 1, 16e6, time.UTC)) {
		t.Errorf("time %v", recs[1].Frame.Time)
	}
}

func TestRecorderEnvelopes(t *testing.T) {
	t.Run("mcpsnoop", func(t *testing.T) {
		in := strings.Join([]string{
			`{"session_id":"s","server_label":"gh","seq":1,"ts":"2026-05-01T12:00:00Z","direction":"meta","transport":"stdio","raw":{"command":["srv"]}}`,
			`{"session_id":"s","server_label":"gh","seq":2,"ts":"2026-05-01T12:00:00Z","direction":"stderr","transport":"stdio","text":"listening"}`,
			`{"session_id":"s","server_label":"gh","seq":3,"ts":"2026-05-01T12:00:00Z","direction":"c2s","transport":"stdio","raw":` + initReq + `}`,
			`{"session_id":"s","server_label":"gh","seq":4,"ts":"2026-05-01T12:00:00Z","direction":"s2c","transport":"stdio","text":"Debugger listening on ws://127.0.0.1:9229"}`,
			`{"session_id":"s","server_label":"gh","seq":5,"ts":"2026-05-01T12:00:00Z","direction":"s2c","transport":"stdio","text":"{\"jsonrpc\":\"2.0\",\"id\":0,\"res","truncated":true}`,
		}, "\n") + "\n"
		recs, st := read(t, in, frame.Options{})
		checkStats(t, recs, st)
		if st.Format != "envelope-jsonl" || st.Frames != 2 || st.Rejected != 1 || st.Context != 3 {
			t.Fatalf("stats %+v", st)
		}
		if f := recs[3].Frame; f == nil || f.Problem != frame.ProblemNotJSON || f.Dir != spec.S2C || !strings.Contains(f.Detail, "protocol line") || f.StreamKey != "s" {
			t.Errorf("line 4 (stdout pollution): %s", describeOrNil(f))
		}
	})
	t.Run("mcpsnoop split batches", func(t *testing.T) {
		rec := func(seq int, dir, raw string) string {
			return `{"session_id":"s","seq":` + itoa(seq) + `,"ts":"2026-05-01T12:00:00Z","direction":"` + dir + `","transport":"http","raw":` + raw + `,"batch":true}`
		}
		in := strings.Join([]string{
			rec(1, "c2s", `{"jsonrpc":"2.0","id":1,"method":"ping"}`),
			rec(2, "c2s", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`),
			rec(3, "s2c", `{"jsonrpc":"2.0","id":1,"result":{}}`),
			rec(4, "s2c", `{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`),
			`{"session_id":"s","seq":5,"ts":"2026-05-01T12:00:01Z","direction":"c2s","transport":"http","raw":{"jsonrpc":"2.0","id":3,"method":"ping"}}`,
			rec(6, "c2s", `{"jsonrpc":"2.0","id":4,"method":"ping"}`),
		}, "\n") + "\n"
		recs, st := read(t, in, frame.Options{})
		checkCounts(t, recs, st)
		if st.Lines != 6 || st.Frames != 4 || st.Folded != 2 || st.Context != 0 {
			t.Fatalf("stats %+v", st)
		}
		got := []string{}
		for _, r := range recs {
			got = append(got, itoa(r.Line)+" "+r.Frame.Dir.String()+" "+r.Frame.Kind.String()+" "+string(r.Frame.Raw))
		}
		want := []string{
			`1 c2s batch [{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`,
			`3 s2c batch [{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}]`,
			`5 c2s request {"jsonrpc":"2.0","id":3,"method":"ping"}`,
			`6 c2s batch [{"jsonrpc":"2.0","id":4,"method":"ping"}]`,
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("records:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
	t.Run("mcpsnoop split batch bounded by MaxLine", func(t *testing.T) {
		var lines []string
		for i := range 10 {
			lines = append(lines, `{"seq":`+itoa(i)+`,"direction":"c2s","raw":{"jsonrpc":"2.0","id":`+itoa(i)+`,"method":"ping"},"batch":true}`)
		}
		recs, st := read(t, strings.Join(lines, "\n")+"\n", frame.Options{MaxLine: 200})
		checkCounts(t, recs, st)
		if st.Frames < 2 || st.Frames+st.Folded != 10 {
			t.Fatalf("stats %+v", st)
		}
		for _, r := range recs {
			if r.Frame.Kind != frame.KindBatch || r.Frame.Size() > 200 {
				t.Errorf("line %d: %s", r.Line, describe(r.Frame))
			}
		}
	})
	t.Run("mcp-cassette", func(t *testing.T) {
		in := strings.Join([]string{
			`{"type":"header","cassetteVersion":2,"recorder":"mcp-cassette@0.3.1","startedAt":"2026-08-15T09:00:00Z","transport":"http"}`,
			`{"type":"frame","t":4,"dir":"c2s","frame":` + initReq + `}`,
			`{"type":"raw","t":10,"dir":"s2c","data":"npm WARN deprecated"}`,
			`{"type":"raw","t":11,"dir":"c2s","data":"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]"}`,
			`{"type":"chunks","t":20,"dir":"s2c","id":7,"chunks":[{"t":20,"frame":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}},{"t":35,"frame":{"jsonrpc":"2.0","id":7,"result":{}}}]}`,
			`{"type":"future-entry","t":40}`,
		}, "\n") + "\n"
		recs, st := read(t, in, frame.Options{})
		checkCounts(t, recs, st)
		if st.Format != "envelope-jsonl" || st.Lines != 6 || st.Frames != 5 || st.Rejected != 1 || st.Context != 2 {
			t.Fatalf("stats %+v", st)
		}
		start := time.Date(2026, 8, 15, 9, 0, 0, 0, time.UTC)
		frames := framesOf(recs)
		checks := []struct {
			line int
			kind frame.Kind
			at   time.Duration
		}{{2, frame.KindRequest, 4 * time.Millisecond}, {3, frame.KindInvalid, 10 * time.Millisecond}, {4, frame.KindBatch, 11 * time.Millisecond},
			{5, frame.KindNotification, 20 * time.Millisecond}, {5, frame.KindResult, 35 * time.Millisecond}}
		for i, c := range checks {
			f := frames[i].Frame
			if f.Line != c.line || f.Kind != c.kind || !f.Time.Equal(start.Add(c.at)) {
				t.Errorf("frame %d: %s, want line %d %v at +%v", i, describe(f), c.line, c.kind, c.at)
			}
		}
		if f := frames[4].Frame; f.Dir != spec.S2C || f.ID != "7" {
			t.Errorf("last chunk: %s", describe(f))
		}
	})
	t.Run("mcp-trace-validator", func(t *testing.T) {
		in := strings.Join([]string{
			`{"seq":0,"direction":"client-to-server","transport":"streamable-http","kind":"lifecycle","event":"transport-open"}`,
			`{"seq":1,"direction":"client-to-server","transport":"streamable-http","kind":"message","payload":` + initReq + `}`,
			`{"seq":2,"direction":"server-to-client","transport":"streamable-http","kind":"http","status":200,"headers":{"Mcp-Session-Id":"abc"}}`,
			`{"seq":3,"direction":"server-to-client","transport":"streamable-http","kind":"message","payload":{"jsonrpc":"2.0","id":0,"result":{}},"ts":"2026-05-01T12:00:00Z"}`,
		}, "\n") + "\n"
		recs, st := read(t, in, frame.Options{})
		checkStats(t, recs, st)
		if st.Frames != 2 || st.Context != 2 || recs[1].Frame.Dir != spec.C2S || recs[3].Frame.Dir != spec.S2C {
			t.Errorf("stats %+v", st)
		}
	})
}

// A JSON log record, a recorder's header or an envelope is not a broken message: bare
// JSON-RPC reading keeps it as context; a message missing "jsonrpc" still is one.
func TestBareKeepsRecordsAsContext(t *testing.T) {
	in := `{"level":"info","msg":"started","id":3}` + "\n" +
		`{"type":"chunks","dir":"s2c","id":7,"chunks":[]}` + "\n" +
		`{"id":4,"method":"ping"}` + "\n" +
		`[48213] [Local→Remote] tools/call` + "\n"
	recs, st := read(t, in, frame.Options{Format: "jsonrpc-jsonl"})
	checkStats(t, recs, st)
	if st.Frames != 1 || st.Rejected != 1 || recs[2].Frame == nil || recs[2].Frame.Problem != frame.ProblemNotJSONRPC {
		t.Errorf("stats %+v", st)
	}
}

func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func itoa(n int) string { return strconv.Itoa(n) }

// HAR entries are handed out in startedDateTime order (stable for equal times; an
// entry without a time stays after the one before it), each with its own index as
// its entry (issue 11 item 15).
func TestHARSortedByStartedDateTime(t *testing.T) {
	at := func(ts, id string) string {
		e := harEntry("POST", "", `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`, 202, "", "x-unknown", "")
		return strings.Replace(e, `"startedDateTime":"2026-05-01T12:00:00.000Z"`, `"startedDateTime":"`+ts+`"`, 1)
	}
	doc := harDoc(
		at("2026-05-01T12:00:03Z", "1"),
		at("2026-05-01T12:00:01Z", "2"),
		at("2026-05-01T13:00:02+02:00", "3"), // 11:00:02Z: the oldest
		at("not a time", "4"),                // after entry 3 (file order), at its time
		at("2026-05-01T12:00:01Z", "5"),      // the same time as entry 2: after it
	)
	recs, st := read(t, doc, frame.Options{})
	checkCounts(t, recs, st)
	var got []string
	for _, r := range framesOf(recs) {
		got = append(got, fmt.Sprintf("%d:%s", r.Entry, r.Frame.ID))
	}
	if want := "3:3 4:4 2:2 5:5 1:1"; strings.Join(got, " ") != want || st.OutOfOrder != 0 {
		t.Errorf("frames (entry:id) %s, out of order %d; want %s, 0", strings.Join(got, " "), st.OutOfOrder, want)
	}

	// More entries than the window holds, then one older than all: it cannot be put
	// in order any more, is judged where it is, and is counted.
	var entries []string
	base := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	const n = 5000
	for i := range n {
		entries = append(entries, at(base.Add(time.Duration(i)*time.Second).Format(time.RFC3339), itoa(i+1)))
	}
	entries = append(entries, at(base.Add(-time.Hour).Format(time.RFC3339), "0"))
	recs, st = read(t, harDoc(entries...), frame.Options{})
	checkCounts(t, recs, st)
	fs := framesOf(recs)
	if len(fs) != n+1 || st.OutOfOrder != 1 {
		t.Fatalf("%d frames, %d out of order; want %d and 1", len(fs), st.OutOfOrder, n+1)
	}
	for i, r := range fs {
		if r.Frame.ID == "0" && r.Entry != n+1 {
			t.Errorf("the late entry came out %dth as entry %d", i+1, r.Entry)
		}
		if i > 0 && r.Frame.ID != "0" && fs[i-1].Frame.ID != "0" && fs[i-1].Entry > r.Entry {
			t.Errorf("entries %d and %d out of order", fs[i-1].Entry, r.Entry)
		}
	}
}
