package frame_test

import (
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

func TestBareMessages(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		kind    frame.Kind
		method  string
		id      string
		params  string
		result  string
		code    int64
		message string
		problem frame.Problem
		detail  string // substring of Detail
	}{
		{name: "request", line: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`,
			kind: frame.KindRequest, method: "tools/call", id: "1", params: `{"name":"x"}`},
		{name: "request, members in another order", line: `{"method":"initialize","params":{},"jsonrpc":"2.0","id":0}`,
			kind: frame.KindRequest, method: "initialize", id: "0", params: `{}`},
		{name: "request with string id", line: `{"jsonrpc":"2.0","id":"1","method":"ping"}`,
			kind: frame.KindRequest, method: "ping", id: `"1"`},
		{name: "notification", line: `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			kind: frame.KindNotification, method: "notifications/initialized"},
		{name: "result", line: `{"jsonrpc":"2.0","id":4,"result":{"tools":[]}}`,
			kind: frame.KindResult, id: "4", result: `{"tools":[]}`},
		{name: "null result", line: `{"jsonrpc":"2.0","id":4,"result":null}`,
			kind: frame.KindResult, id: "4", result: `null`},
		{name: "error", line: `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`,
			kind: frame.KindError, id: "1", code: -32601, message: "Method not found"},
		{name: "error with escaped message", line: `{"jsonrpc":"2.0","id":"a","error":{"message":"bad \"x\"\n","code":-32602,"data":{}}}`,
			kind: frame.KindError, id: `"a"`, code: -32602, message: "bad \"x\"\n"},
		{name: "error with null id", line: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
			kind: frame.KindError, id: "null", code: -32700, message: "Parse error"},
		{name: "jsonrpc 1.0", line: `{"jsonrpc":"1.0","id":1,"method":"ping"}`,
			problem: frame.ProblemNotJSONRPC, detail: `"1.0"`},
		{name: "jsonrpc as a number", line: `{"jsonrpc":2.0,"id":1,"method":"ping"}`,
			problem: frame.ProblemNotJSONRPC, detail: `not "2.0"`},
		{name: "no jsonrpc member", line: `{"id":1,"method":"ping"}`,
			problem: frame.ProblemNotJSONRPC, detail: `"jsonrpc"`},
		{name: "id only", line: `{"jsonrpc":"2.0","id":1}`,
			problem: frame.ProblemNotJSONRPC, detail: `no "method", "result" or "error"`},
		{name: "result and error", line: `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}`,
			problem: frame.ProblemNotJSONRPC, detail: `both "result" and "error"`},
		{name: "method and result", line: `{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}`,
			problem: frame.ProblemNotJSONRPC, detail: `both "method"`},
		{name: "method not a string", line: `{"jsonrpc":"2.0","id":1,"method":7}`,
			problem: frame.ProblemNotJSONRPC, detail: `"method" is 7`},
		{name: "empty batch", line: `[]`,
			problem: frame.ProblemNotJSONRPC, detail: "empty batch"},
		{name: "empty batch with spaces", line: `[ ]`,
			problem: frame.ProblemNotJSONRPC, detail: "empty batch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A valid line first, so that the format is settled before the line under test.
			in := `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + tt.line + "\n"
			recs, st := read(t, in, frame.Options{})
			checkStats(t, recs, st)
			if st.Format != "jsonrpc-jsonl" {
				t.Errorf("Format = %q", st.Format)
			}
			if len(recs) != 2 || recs[1].Kind != frame.RecordFrame {
				t.Fatalf("records: %d", len(recs))
			}
			f := recs[1].Frame
			if f.Line != 2 || f.Source != "test.jsonl" || string(f.Raw) != tt.line {
				t.Errorf("line %d source %q raw %s", f.Line, f.Source, f.Raw)
			}
			if tt.problem != frame.NoProblem {
				if f.Kind != frame.KindInvalid || f.Problem != tt.problem || !strings.Contains(f.Detail, tt.detail) {
					t.Errorf("got %s, want invalid with problem %v and detail containing %q", describe(f), tt.problem, tt.detail)
				}
				if st.Rejected != 1 {
					t.Errorf("Rejected = %d", st.Rejected)
				}
				return
			}
			if f.Kind != tt.kind || f.Method != tt.method || f.ID != tt.id || string(f.Params) != tt.params ||
				string(f.Result) != tt.result || f.ErrorCode != tt.code || f.ErrorMessage != tt.message {
				t.Errorf("got %s params=%s result=%s code=%d message=%q", describe(f), f.Params, f.Result, f.ErrorCode, f.ErrorMessage)
			}
			if f.Problem != frame.NoProblem || f.Detail != "" {
				t.Errorf("valid frame with problem %v %q", f.Problem, f.Detail)
			}
			if f.Dir != spec.DirUnknown || f.DirReason == "" {
				t.Errorf("bare line: Dir %v reason %q, want unknown with a reason", f.Dir, f.DirReason)
			}
			if !f.Time.IsZero() {
				t.Errorf("bare line has time %v", f.Time)
			}
			if st.Rejected != 0 {
				t.Errorf("Rejected = %d", st.Rejected)
			}
		})
	}
}

func TestBareBatch(t *testing.T) {
	line := `[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","id":"4","result":{}},{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}},{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"Invalid Request"}},42,{"id":6}]`
	f := onlyFrame(t, line+"\n", frame.Options{})
	if f.Kind != frame.KindBatch || f.Problem != frame.NoProblem || string(f.Raw) != line {
		t.Fatalf("got %s", describe(f))
	}
	want := []struct {
		kind    frame.Kind
		method  string
		id      string
		raw     string
		problem frame.Problem
	}{
		{frame.KindRequest, "ping", "3", `{"jsonrpc":"2.0","id":3,"method":"ping"}`, frame.NoProblem},
		{frame.KindResult, "", `"4"`, `{"jsonrpc":"2.0","id":"4","result":{}}`, frame.NoProblem},
		{frame.KindNotification, "notifications/progress", "", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`, frame.NoProblem},
		{frame.KindError, "", "5", `{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"Invalid Request"}}`, frame.NoProblem},
		{frame.KindInvalid, "", "", `42`, frame.ProblemNotJSONRPC},
		{frame.KindInvalid, "", "6", `{"id":6}`, frame.ProblemNotJSONRPC},
	}
	if len(f.Members) != len(want) {
		t.Fatalf("%d members, want %d", len(f.Members), len(want))
	}
	for i, w := range want {
		m := &f.Members[i]
		if m.Kind != w.kind || m.Method != w.method || m.ID != w.id || string(m.Raw) != w.raw || m.Problem != w.problem || m.Line != 1 || m.Source != "test.jsonl" {
			t.Errorf("member %d: %s, want %v %q %q %s", i, describe(m), w.kind, w.method, w.id, w.raw)
		}
	}
	if m := f.Members[3]; m.ErrorCode != -32600 || m.ErrorMessage != "Invalid Request" {
		t.Errorf("member 3: code %d message %q", m.ErrorCode, m.ErrorMessage)
	}
	if len(f.Members[4].Members) != 0 || f.Members[4].Detail == "" {
		t.Errorf("member 4: %s", describe(&f.Members[4]))
	}
}

// Bad lines become invalid frames (or context for text) and reading goes on with the
// right line numbers.
func TestBareReadingContinuesAfterBadLines(t *testing.T) {
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, // 1
		`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-`, // 2 truncated
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,     // 3
		`42`, // 4 a number
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, // 5
		`"just a string"`, // 6
		`{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}`, // 7
		`{"jsonrpc":"2.0","id":3,"method":"ping"}}`,      // 8 trailing garbage
		`[`,                                    // 9
		`server started on stdio`,              // 10 a text line: context
		`{"jsonrpc":"2.0","id":3,"result":{}}`, // 11
		`null`,                                 // 12
		`{"jsonrpc":"2.0","id":4,"method":"ping"` + "\x00", // 13 a NUL byte
		`{"jsonrpc":"2.0","id":4,"result":{}}`,             // 14
	}
	recs, st := read(t, strings.Join(lines, "\n"), frame.Options{})
	checkStats(t, recs, st)
	if len(recs) != len(lines) {
		t.Fatalf("%d records, want %d", len(recs), len(lines))
	}
	type want struct {
		kind    frame.Kind
		problem frame.Problem
		detail  string
		offset  int64 // for ProblemNotJSON; -1 otherwise
	}
	wants := map[int]want{
		1:  {frame.KindRequest, frame.NoProblem, "", -1},
		2:  {frame.KindInvalid, frame.ProblemNotJSON, "not valid JSON", int64(len(lines[1]))},
		3:  {frame.KindNotification, frame.NoProblem, "", -1},
		4:  {frame.KindInvalid, frame.ProblemNotJSONRPC, "number", -1},
		5:  {frame.KindRequest, frame.NoProblem, "", -1},
		6:  {frame.KindInvalid, frame.ProblemNotJSONRPC, "string", -1},
		7:  {frame.KindResult, frame.NoProblem, "", -1},
		8:  {frame.KindInvalid, frame.ProblemNotJSON, "not valid JSON", int64(len(lines[7]))},
		9:  {frame.KindInvalid, frame.ProblemNotJSON, "not valid JSON", 1},
		11: {frame.KindResult, frame.NoProblem, "", -1},
		12: {frame.KindInvalid, frame.ProblemNotJSONRPC, "null", -1},
		13: {frame.KindInvalid, frame.ProblemNotJSON, "not valid JSON", int64(len(lines[12]))},
		14: {frame.KindResult, frame.NoProblem, "", -1},
	}
	for line := 1; line <= len(lines); line++ {
		r := recs[line-1]
		if r.Line != line {
			t.Errorf("record %d has line %d", line, r.Line)
		}
		w, ok := wants[line]
		if !ok {
			if r.Kind != frame.RecordContext || r.Text != lines[line-1] {
				t.Errorf("line %d: kind %v text %q, want context", line, r.Kind, r.Text)
			}
			continue
		}
		if r.Kind != frame.RecordFrame {
			t.Errorf("line %d: kind %v, want a frame", line, r.Kind)
			continue
		}
		f := r.Frame
		if f.Kind != w.kind || f.Problem != w.problem || !strings.Contains(f.Detail, w.detail) || f.Line != line {
			t.Errorf("line %d: got %s, want %v problem %v detail ~%q", line, describe(f), w.kind, w.problem, w.detail)
		}
		if w.problem == frame.ProblemNotJSON && f.Offset != w.offset {
			t.Errorf("line %d: Offset = %d, want %d", line, f.Offset, w.offset)
		}
		if w.problem == frame.ProblemNotJSON && string(f.Raw) != lines[line-1] {
			t.Errorf("line %d: Raw = %q", line, f.Raw)
		}
	}
	if st.Frames != 13 || st.Rejected != 7 || st.Context != 1 || st.Lines != 14 {
		t.Errorf("stats %+v", st)
	}
}

// The same scalar line must be classified the same way wherever it appears: as the
// first line of a bare file it is not yet known to be one, but it is valid JSON that
// is not JSON-RPC (MCP0002), not a context line.
func TestBareScalarFirstLine(t *testing.T) {
	for _, line := range []string{`42`, `"hello"`, `true`, `null`} {
		t.Run(line, func(t *testing.T) {
			recs, st := read(t, line+"\n"+`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n", frame.Options{})
			checkStats(t, recs, st)
			if len(recs) != 2 {
				t.Fatalf("%d records", len(recs))
			}
			if r := recs[0]; r.Kind != frame.RecordFrame || r.Frame.Problem != frame.ProblemNotJSONRPC || r.Frame.Line != 1 {
				t.Errorf("line 1: kind %v text %q frame %s, want a ProblemNotJSONRPC frame", r.Kind, r.Text, describeOrNil(r.Frame))
			}
			if r := recs[1]; r.Kind != frame.RecordFrame || r.Frame.Method != "ping" || r.Frame.Line != 2 {
				t.Errorf("line 2: %s", describeOrNil(r.Frame))
			}
		})
	}
}

func TestBareTruncatedLastLine(t *testing.T) {
	// The last line has no newline and is cut in the middle of a string.
	in := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":1,"result":{"x":"abc`
	recs, st := read(t, in, frame.Options{})
	checkStats(t, recs, st)
	if len(recs) != 2 {
		t.Fatalf("%d records", len(recs))
	}
	f := recs[1].Frame
	if f == nil || f.Problem != frame.ProblemNotJSON || f.Line != 2 || f.Offset != int64(len(`{"jsonrpc":"2.0","id":1,"result":{"x":"abc`)) {
		t.Errorf("line 2: %s", describeOrNil(f))
	}
}
