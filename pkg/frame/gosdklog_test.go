package frame_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

const gosdkFixture = "gosdk-log/ts-client-go-server-sampling-undeclared.log"

// The fixture was logged by the server: read = client to server, write = server to client.
func TestGoSDKFixtureServerSide(t *testing.T) {
	for _, tt := range []struct {
		name              string
		opt               frame.Options
		readDir, writeDir spec.Direction
	}{
		{"inferred", frame.Options{}, spec.C2S, spec.S2C},
		{"perspective server", frame.Options{Perspective: spec.Server}, spec.C2S, spec.S2C},
		// Options.Perspective overrides what the initialize would say.
		{"perspective client", frame.Options{Perspective: spec.Client}, spec.S2C, spec.C2S},
	} {
		t.Run(tt.name, func(t *testing.T) {
			raw := string(fixture(t, gosdkFixture))
			lines := strings.Split(strings.TrimSuffix(raw, "\n"), "\n")
			recs, st := read(t, raw, tt.opt)
			checkStats(t, recs, st)
			if st.Format != "gosdk-log" {
				t.Errorf("Format = %q", st.Format)
			}
			if len(recs) != len(lines) {
				t.Fatalf("%d records, %d lines", len(recs), len(lines))
			}
			for i, line := range lines {
				r := recs[i]
				switch {
				case strings.HasPrefix(line, "read: "), strings.HasPrefix(line, "write: "):
					want := tt.readDir
					payload := strings.TrimPrefix(line, "read: ")
					if strings.HasPrefix(line, "write: ") {
						want, payload = tt.writeDir, strings.TrimPrefix(line, "write: ")
					}
					if r.Kind != frame.RecordFrame || r.Frame.Dir != want || r.Frame.DirReason != "" || string(r.Frame.Raw) != payload || r.Frame.Kind == frame.KindInvalid {
						t.Errorf("line %d %.30q: kind %v frame %s, want dir %v", i+1, line, r.Kind, describeOrNil(r.Frame), want)
					}
				default:
					if r.Kind != frame.RecordContext || r.Text != line {
						t.Errorf("line %d: kind %v text %q, want context %q", i+1, r.Kind, r.Text, line)
					}
				}
			}
			if last := recs[len(recs)-1]; last.Text != "read error: EOF" {
				t.Errorf("last record: %q", last.Text)
			}
			if st.Frames != 11 || st.Context != 1 || st.Rejected != 0 {
				t.Errorf("stats %+v", st)
			}
			// Spot checks: the sampling request the server sent and the client's error.
			if f := recs[6].Frame; f.Method != "sampling/createMessage" || f.Kind != frame.KindRequest || f.Dir != tt.writeDir {
				t.Errorf("line 7: %s", describe(f))
			}
			if f := recs[7].Frame; f.Kind != frame.KindError || f.ErrorCode != -32601 || f.Dir != tt.readDir {
				t.Errorf("line 8: %s", describe(f))
			}
		})
	}
}

type wantDir struct {
	line   int
	kind   frame.RecordKind
	method string
	dir    spec.Direction
}

func checkDirs(t *testing.T, recs []record, want []wantDir) {
	t.Helper()
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d", len(recs), len(want))
	}
	for i, w := range want {
		r := recs[i]
		if r.Line != w.line || r.Kind != w.kind {
			t.Errorf("record %d: line %d kind %v, want line %d kind %v", i, r.Line, r.Kind, w.line, w.kind)
			continue
		}
		if w.kind != frame.RecordFrame {
			continue
		}
		if f := r.Frame; f.Method != w.method || f.Dir != w.dir || f.Line != w.line {
			t.Errorf("record %d: %s, want method %q dir %v", i, describe(f), w.method, w.dir)
		}
		for j := range r.Frame.Members {
			if m := r.Frame.Members[j]; m.Dir != w.dir {
				t.Errorf("record %d member %d: dir %v, want %v", i, j, m.Dir, w.dir)
			}
		}
	}
}

// The client-side examples from the Go SDK's own test (formats.md 3a), where the
// lines are sorted so the server's response comes before the initialize it answers.
func TestGoSDKClientSide(t *testing.T) {
	legacy := `read: {"jsonrpc":"2.0","id":1,"result":{"capabilities":{"logging":{}},"protocolVersion":"2025-11-25","serverInfo":{"name":"server","version":"v0.0.1"}}}
write: {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"client","version":"v0.0.1"},"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}}}}
write: {"jsonrpc":"2.0","method":"notifications/initialized","params":{}}
`
	modern := `read: {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"server","version":"v0.0.1"}},"ttlMs":0,"cacheScope":"public","supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"capabilities":{"logging":{}}}}
write: {"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}},"io.modelcontextprotocol/clientInfo":{"name":"client","version":"v0.0.1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}
`
	t.Run("legacy", func(t *testing.T) {
		recs, st := read(t, legacy, frame.Options{})
		checkStats(t, recs, st)
		checkDirs(t, recs, []wantDir{
			{1, frame.RecordFrame, "", spec.S2C},
			{2, frame.RecordFrame, "initialize", spec.C2S},
			{3, frame.RecordFrame, "notifications/initialized", spec.C2S},
		})
		if f := recs[0].Frame; f.Kind != frame.KindResult || f.ID != "1" || !strings.Contains(string(f.Result), `"serverInfo"`) {
			t.Errorf("held frame lost its content: %s", describe(f))
		}
	})
	t.Run("modern", func(t *testing.T) {
		recs, st := read(t, modern, frame.Options{})
		checkStats(t, recs, st)
		checkDirs(t, recs, []wantDir{
			{1, frame.RecordFrame, "", spec.S2C},
			{2, frame.RecordFrame, "server/discover", spec.C2S},
		})
	})
	t.Run("perspective server overrides", func(t *testing.T) {
		recs, _ := read(t, legacy, frame.Options{Perspective: spec.Server})
		checkDirs(t, recs, []wantDir{
			{1, frame.RecordFrame, "", spec.C2S},
			{2, frame.RecordFrame, "initialize", spec.S2C},
			{3, frame.RecordFrame, "notifications/initialized", spec.S2C},
		})
	})
}

// Frames whose direction cannot be told are held until a message fixes the perspective,
// then come out in order with their own line numbers.
func TestGoSDKHeldUntilInitialize(t *testing.T) {
	server := []string{
		`write: {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`,
		`read: {"jsonrpc":"2.0","id":5,"method":"ping"}`,
		`write: {"jsonrpc":"2.0","id":5,"result":{}}`,
		`read: [{"jsonrpc":"2.0","id":6,"result":{}},{"jsonrpc":"2.0","id":7,"result":{}}]`,
		`read: {"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`,
		`write: {"jsonrpc":"2.0","id":9,"result":{}}`,
	}
	t.Run("server side", func(t *testing.T) {
		recs, st := read(t, strings.Join(server, "\n")+"\n", frame.Options{})
		checkStats(t, recs, st)
		checkDirs(t, recs, []wantDir{
			{1, frame.RecordFrame, "", spec.S2C},
			{2, frame.RecordFrame, "ping", spec.C2S},
			{3, frame.RecordFrame, "", spec.S2C},
			{4, frame.RecordFrame, "", spec.C2S},
			{5, frame.RecordFrame, "initialize", spec.C2S},
			{6, frame.RecordFrame, "", spec.S2C},
		})
		if f := recs[3].Frame; f.Kind != frame.KindBatch || len(f.Members) != 2 || f.Members[1].ID != "7" || f.Members[1].Line != 4 {
			t.Errorf("held batch: %s", describe(f))
		}
		if f := recs[2].Frame; f.ID != "5" || string(f.Result) != "{}" || f.Source != "test.jsonl" {
			t.Errorf("held frame: %s", describe(f))
		}
	})
	t.Run("timestamp prefix", func(t *testing.T) {
		var in strings.Builder
		for i, l := range server {
			in.WriteString("2026/05/01 12:00:0" + strconv.Itoa(i) + " " + l + "\n")
		}
		recs, st := read(t, in.String(), frame.Options{})
		checkStats(t, recs, st)
		if st.Format != "gosdk-log" {
			t.Errorf("Format = %q", st.Format)
		}
		checkDirs(t, recs, []wantDir{
			{1, frame.RecordFrame, "", spec.S2C},
			{2, frame.RecordFrame, "ping", spec.C2S},
			{3, frame.RecordFrame, "", spec.S2C},
			{4, frame.RecordFrame, "", spec.C2S},
			{5, frame.RecordFrame, "initialize", spec.C2S},
			{6, frame.RecordFrame, "", spec.S2C},
		})
		if want := strings.TrimPrefix(server[1], "read: "); string(recs[1].Frame.Raw) != want {
			t.Errorf("Raw = %s, want %s", recs[1].Frame.Raw, want)
		}
	})
	t.Run("microsecond prefix, client side", func(t *testing.T) {
		in := "2026/05/01 12:00:00.000001 read: {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}\n" +
			"2026/05/01 12:00:00.000002 write: {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{}}\n"
		recs, st := read(t, in, frame.Options{})
		checkStats(t, recs, st)
		checkDirs(t, recs, []wantDir{
			{1, frame.RecordFrame, "", spec.S2C},
			{2, frame.RecordFrame, "initialize", spec.C2S},
		})
	})
	t.Run("never resolved", func(t *testing.T) {
		in := strings.Join(server[1:4], "\n") + "\nread error: EOF\n"
		recs, st := read(t, in, frame.Options{})
		checkStats(t, recs, st)
		checkDirs(t, recs, []wantDir{
			{1, frame.RecordFrame, "ping", spec.DirUnknown},
			{2, frame.RecordFrame, "", spec.DirUnknown},
			{3, frame.RecordFrame, "", spec.DirUnknown},
			{4, frame.RecordContext, "", spec.DirUnknown},
		})
		for _, r := range recs[:3] {
			if !strings.Contains(r.Frame.DirReason, "perspective") {
				t.Errorf("line %d: DirReason %q does not say how to fix it", r.Line, r.Frame.DirReason)
			}
		}
		if recs[3].Text != "read error: EOF" {
			t.Errorf("context text %q", recs[3].Text)
		}
	})
}

// Lines that are not frames (the server's own log lines on the same stderr, blank
// lines, a broken message) while frames are held must neither release the held frames
// without a direction nor change their order.
func TestGoSDKHeldAcrossOtherLines(t *testing.T) {
	in := strings.Join([]string{
		`write: {"jsonrpc":"2.0","id":0,"result":{}}`,
		``,
		`2026/05/01 12:00:00 tool registry loaded`,
		`read: {"jsonrpc":"2.0","id":`,
		`write: {"jsonrpc":"2.0","id":1,"result":{}}`,
		`read: {"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`,
	}, "\n") + "\n"
	recs, st := read(t, in, frame.Options{})
	checkStats(t, recs, st)
	checkDirs(t, recs, []wantDir{
		{1, frame.RecordFrame, "", spec.S2C},
		{2, frame.RecordBlank, "", 0},
		{3, frame.RecordContext, "", 0},
		{4, frame.RecordFrame, "", spec.DirUnknown},
		{5, frame.RecordFrame, "", spec.S2C},
		{6, frame.RecordFrame, "initialize", spec.C2S},
	})
	if r := recs[2]; r.Text != "2026/05/01 12:00:00 tool registry loaded" {
		t.Errorf("context text %q", r.Text)
	}
	if f := recs[3].Frame; f == nil || f.Problem != frame.ProblemNotJSON || !strings.Contains(f.Detail, "logged message") {
		t.Errorf("line 4: %s", describeOrNil(f))
	}
}

// More held frames than the reader will keep: they come out (without a direction)
// rather than pile up, in order, and the rest of the log still resolves.
func TestGoSDKHeldLimit(t *testing.T) {
	const n = 5000
	var in strings.Builder
	for i := 1; i <= n; i++ {
		in.WriteString(`write: {"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"result":{}}` + "\n")
	}
	in.WriteString(`read: {"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}` + "\n")
	in.WriteString(`write: {"jsonrpc":"2.0","id":0,"result":{}}` + "\n")
	recs, st := read(t, in.String(), frame.Options{})
	checkStats(t, recs, st)
	if len(recs) != n+2 {
		t.Fatalf("%d records, want %d", len(recs), n+2)
	}
	for i := 0; i < n; i++ {
		if f := recs[i].Frame; f == nil || f.ID != strconv.Itoa(i+1) {
			t.Fatalf("record %d: %s", i, describeOrNil(f))
		}
	}
	if f := recs[n].Frame; f.Method != "initialize" || f.Dir != spec.C2S {
		t.Errorf("initialize: %s", describe(f))
	}
	if f := recs[n+1].Frame; f.Dir != spec.S2C {
		t.Errorf("after initialize: %s", describe(f))
	}
}

func TestGoSDKLineShapes(t *testing.T) {
	tests := []struct {
		name string
		line string
		kind frame.RecordKind
		dir  spec.Direction
	}{
		{"read", `read: {"jsonrpc":"2.0","id":1,"method":"tools/list"}`, frame.RecordFrame, spec.C2S},
		{"write", `write: {"jsonrpc":"2.0","id":1,"result":{}}`, frame.RecordFrame, spec.S2C},
		{"log prefix", `2026/05/01 12:00:00 read: {"jsonrpc":"2.0","id":1,"method":"tools/list"}`, frame.RecordFrame, spec.C2S},
		{"read error", `read error: EOF`, frame.RecordContext, 0},
		{"write error", `write error: broken pipe`, frame.RecordContext, 0},
		{"marker glued to a word", `xread: {"jsonrpc":"2.0","id":1,"method":"tools/list"}`, frame.RecordContext, 0},
		{"marker inside JSON", `{"text":"read: {\"a\":1}"}`, frame.RecordContext, 0},
		{"marker too far", strings.Repeat("x", 80) + ` read: {"jsonrpc":"2.0","id":1,"method":"tools/list"}`, frame.RecordContext, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := only(t, tt.line+"\n", frame.Options{Format: "gosdk-log", Perspective: spec.Server})
			if r.Kind != tt.kind {
				t.Fatalf("kind %v (frame %s), want %v", r.Kind, describeOrNil(r.Frame), tt.kind)
			}
			if r.Kind == frame.RecordFrame && r.Frame.Dir != tt.dir {
				t.Errorf("dir %v, want %v", r.Frame.Dir, tt.dir)
			}
			if r.Kind == frame.RecordContext && r.Text != tt.line {
				t.Errorf("text %q", r.Text)
			}
		})
	}
}

// A Go server that logs JSON (slog) to the same stderr as its LoggingTransport: the
// first line is a JSON object but not a frame, and must not make the file "JSONL".
func TestGoSDKAfterJSONLogLine(t *testing.T) {
	in := `{"time":"2026-05-01T12:00:00Z","level":"INFO","msg":"server starting"}` + "\n" +
		`read: {"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}` + "\n" +
		`write: {"jsonrpc":"2.0","id":0,"result":{}}` + "\n"
	recs, st := read(t, in, frame.Options{})
	checkStats(t, recs, st)
	if st.Format != "gosdk-log" {
		t.Errorf("Format = %q, want gosdk-log", st.Format)
	}
	checkDirs(t, recs, []wantDir{
		{1, frame.RecordContext, "", 0},
		{2, frame.RecordFrame, "initialize", spec.C2S},
		{3, frame.RecordFrame, "", spec.S2C},
	})
}
