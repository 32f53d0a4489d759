package frame_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// prettyForms rewrites a JSONL capture as `jq .` (each line's value indented, one
// document after the other), `jq -s .` (one array of them) and `jq .msg` (the
// messages only), with encoding/json's indentation (two spaces, as jq). A line that
// is not valid JSON stays as it is in the concatenated form; the array and message
// forms are false when a line is not an envelope record.
func prettyForms(t *testing.T, capture []byte) (concatenated, array, msgs []byte, ok bool) {
	t.Helper()
	var cat, arr, bare, compactBare bytes.Buffer
	ok = true
	arr.WriteString("[\n")
	first := true
	sc := bufio.NewScanner(bytes.NewReader(capture))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		line := sc.Bytes()
		if !json.Valid(line) {
			cat.Write(line)
			cat.WriteByte('\n')
			ok = false
			continue
		}
		if err := json.Indent(&cat, line, "", "  "); err != nil {
			t.Fatal(err)
		}
		cat.WriteByte('\n')
		if !first {
			arr.WriteString(",\n")
		}
		first = false
		arr.WriteString("  ")
		if err := json.Indent(&arr, line, "  ", "  "); err != nil {
			t.Fatal(err)
		}
		var env map[string]json.RawMessage
		if json.Unmarshal(line, &env) != nil || env["msg"] == nil {
			ok = false
			continue
		}
		if err := json.Indent(&bare, env["msg"], "", "  "); err != nil {
			t.Fatal(err)
		}
		bare.WriteByte('\n')
		compactBare.Write(env["msg"])
		compactBare.WriteByte('\n')
	}
	arr.WriteString("\n]\n")
	return cat.Bytes(), arr.Bytes(), bare.Bytes(), ok
}

// verdicts lists the findings of an input (error, warning and info) as "rule
// severity direction time @frame message", the frames counted in input order and
// the lines a message names replaced by the frames on them: a pretty form and its
// compact original must agree on everything but the lines.
func verdicts(t *testing.T, name string, data []byte) []string {
	t.Helper()
	ordinal := map[int]int{}
	recs, _, err := readAll(t, name, bytes.NewReader(data), frame.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.Kind == frame.RecordFrame {
			if _, seen := ordinal[r.Frame.Line]; !seen {
				ordinal[r.Frame.Line] = len(ordinal) + 1
			}
		}
	}
	res, err := driver.Run(name, bytes.NewReader(data), rules.All(), driver.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lineRef := regexp.MustCompile(`line (\d+)`)
	linesLater := regexp.MustCompile(`\d+ lines later`)
	var out []string
	for _, s := range res.Sessions {
		for _, f := range s.Findings {
			msg := lineRef.ReplaceAllStringFunc(f.Message, func(m string) string {
				n, _ := strconv.Atoi(strings.TrimPrefix(m, "line "))
				return fmt.Sprintf("frame #%d", ordinal[n])
			})
			msg = linesLater.ReplaceAllString(msg, "N lines later")
			out = append(out, fmt.Sprintf("%s %s %s %s @%d %s", f.Rule, f.Severity, f.Dir, f.Time.Format(time.RFC3339Nano), ordinal[f.Line], msg))
		}
	}
	return out
}

// TestPrettyFormsFindTheSame: every real capture and rule fixture written as `jq .`,
// `jq -s .` and `jq .msg` gives the findings of its compact original (the messages
// against the compact bare lines), rule for rule, message for message, in the same
// direction, at the same time and on the same frame; only the lines differ.
func TestPrettyFormsFindTheSame(t *testing.T) {
	var captures []string
	for _, glob := range []string{"real/*.jsonl", "rules/*.jsonl"} {
		m, err := filepath.Glob(filepath.Join("..", "..", "fixtures", glob))
		if err != nil || len(m) == 0 {
			t.Fatalf("no fixtures match %s", glob)
		}
		captures = append(captures, m...)
	}
	forms := 0
	for _, path := range captures {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(strings.TrimPrefix(path, "../../fixtures/"), func(t *testing.T) {
			concatenated, array, msgs, whole := prettyForms(t, data)
			want := verdicts(t, path, data)
			check := func(form string, pretty, original []byte, want []string) {
				t.Helper()
				forms++
				if st := stats(t, pretty); st.Format != "pretty-json" {
					t.Errorf("%s: read as %s", form, st.Format)
				}
				got := verdicts(t, path+" ("+form+")", pretty)
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("%s: findings differ from the compact original's:\n got\n  %s\n want\n  %s", form, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
				}
			}
			check("jq .", concatenated, data, want)
			if !whole {
				return // a line that is not an envelope record: no array or message form
			}
			check("jq -s .", array, data, want)
			compact := compactMessages(t, data)
			if bytes.HasPrefix(compact, []byte("[")) {
				// The first message is a batch: `jq .msg` makes it an array alone on
				// its first line, which is the array form (`jq -s .` of bare lines).
				return
			}
			check("jq .msg", msgs, compact, verdicts(t, path+" (messages)", compact))
		})
	}
	if forms < 100 {
		t.Errorf("only %d pretty forms compared", forms)
	}
}

func compactMessages(t *testing.T, capture []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	for _, line := range bytes.Split(bytes.TrimSpace(capture), []byte("\n")) {
		var env map[string]json.RawMessage
		if err := json.Unmarshal(line, &env); err != nil {
			t.Fatal(err)
		}
		out.Write(env["msg"])
		out.WriteByte('\n')
	}
	return out.Bytes()
}

func stats(t *testing.T, data []byte) frame.Stats {
	t.Helper()
	recs, st, err := readAll(t, "pretty.json", bytes.NewReader(data), frame.Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkCounts(t, recs, st)
	return st
}

// TestPrettyDetection: a first line that opens a JSON value and does not close it
// makes the input pretty-printed JSON; a first line that is a whole value (JSONL),
// text, or a broken record followed by records, keeps its line format, as does every
// document format.
func TestPrettyDetection(t *testing.T) {
	for _, tc := range []struct{ in, format string }{
		{"{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"method\": \"ping\"\n}\n", "pretty-json"},
		{"\n\n[\n  {\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\"}\n]\n", "pretty-json"},
		{"{\"jsonrpc\": \"2.0\", \"id\": 1,\n \"method\": \"ping\"}\n", "pretty-json"},
		{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n", "jsonrpc-jsonl"},
		{"{\"ts\":1,\"dir\":\"c->s\",\"msg\":{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}}\n", "envelope-jsonl"},
		{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n", "jsonrpc-jsonl"},
		{"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]\n", "jsonrpc-jsonl"},
		{"[48213] [Local→Remote] tools/call\n", "mcp-remote-log"},
		{"[\n  {\n    \"timestamp\": \"2026-05-01T12:00:00Z\",\n    \"direction\": \"request\",\n    \"origin\": \"client\",\n    \"message\": {\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\"}\n  }\n]\n", "inspector-json"},
		{"{\n  \"log\": {\n    \"entries\": []\n  }\n}\n", "har"},
	} {
		_, st, err := readAll(t, "in", strings.NewReader(tc.in), frame.Options{})
		if err != nil || st.Format != tc.format {
			t.Errorf("%q: read as %s (%v), want %s", tc.in, st.Format, err, tc.format)
		}
	}
}

// TestPrettyForcedOnLines: a line format forced on pretty-printed JSON is refused
// with what the input is; pretty-json forced on JSONL reads each line as a document.
func TestPrettyForcedOnLines(t *testing.T) {
	_, err := frame.NewReader("p.json", strings.NewReader("{\n  \"jsonrpc\": \"2.0\"\n}\n"), frame.Options{Format: "envelope-jsonl"})
	if err == nil || !strings.Contains(err.Error(), "mcpsleuth: p.json: this input is pretty-printed JSON") || !strings.Contains(err.Error(), "--input-format pretty-json") {
		t.Errorf("error %v", err)
	}
	recs, st := read(t, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\nstderr line\n", frame.Options{Format: "pretty-json"})
	if st.Format != "pretty-json" || len(recs) != 2 || recs[0].Frame == nil || recs[0].Frame.Method != "ping" || recs[1].Kind != frame.RecordContext || recs[1].Line != 2 {
		t.Errorf("stats %+v, records %+v", st, recs)
	}
}

// prettyRecord is what a test expects of one record: its line, entry, and what it
// is ("ping c2s", "MCP0001 <detail>", "context <text>", "blank <run>").
type prettyRecord struct {
	line, entry int
	what        string
}

func summarize(r record) string {
	switch r.Kind {
	case frame.RecordContext:
		return "context " + r.Text
	case frame.RecordBlank:
		return "blank " + strconv.Itoa(r.Run)
	}
	f := r.Frame
	switch {
	case f.Kind == frame.KindInvalid && f.Problem == frame.ProblemNotJSON:
		return "MCP0001 " + f.Detail
	case f.Kind == frame.KindInvalid:
		return "MCP0002 " + f.Detail
	case f.Kind == frame.KindBatch:
		return fmt.Sprintf("batch of %d %s", len(f.Members), f.Dir)
	case f.Method != "":
		return f.Method + " " + f.Dir.String()
	}
	return f.Kind.String() + " " + f.Dir.String()
}

func checkPretty(t *testing.T, in string, opt frame.Options, want []prettyRecord) frame.Stats {
	t.Helper()
	recs, st := read(t, in, opt)
	checkCounts(t, recs, st)
	if st.Format != "pretty-json" {
		t.Errorf("read as %s", st.Format)
	}
	lines := strings.Count(in, "\n")
	if !strings.HasSuffix(in, "\n") {
		lines++
	}
	if st.Lines < lines || st.Unaccounted() != 0 {
		t.Errorf("stats %+v: %d lines in the input", st, lines)
	}
	var got []string
	for _, r := range recs {
		got = append(got, fmt.Sprintf("%d/%d %s", r.Line, r.Entry, summarize(r)))
	}
	var exp []string
	for _, w := range want {
		exp = append(exp, fmt.Sprintf("%d/%d %s", w.line, w.entry, w.what))
	}
	if strings.Join(got, "\n") != strings.Join(exp, "\n") {
		t.Errorf("records:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(exp, "\n  "))
	}
	return st
}

func TestPrettyDocuments(t *testing.T) {
	t.Run("envelopes: the line of the message member", func(t *testing.T) {
		in := "{\n  \"ts\": \"2026-05-01T12:00:00Z\",\n  \"dir\": \"c->s\",\n  \"msg\": {\n    \"jsonrpc\": \"2.0\",\n    \"id\": 1,\n    \"method\": \"ping\"\n  }\n}\n" +
			"\n" +
			"server started on stdio\n" +
			"{\"ts\": \"2026-05-01T12:00:01Z\", \"dir\": \"s->c\",\n \"msg\": {\"jsonrpc\": \"2.0\", \"id\": 1, \"result\": {}}}{\"dir\": \"s->c\", \"msg\": \"{\\\"jsonrpc\\\":\\\"2.0\\\",\\\"method\\\":\\\"notifications/message\\\"}\"}\n"
		checkPretty(t, in, frame.Options{}, []prettyRecord{
			{4, 0, "ping c2s"},
			{10, 0, "blank 1"},
			{11, 0, "context server started on stdio"},
			{13, 0, "result s2c"},
			{13, 0, "notifications/message s2c"},
		})
	})
	t.Run("bare messages and a batch", func(t *testing.T) {
		in := "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"method\": \"initialize\"\n}\n[\n  {\n    \"jsonrpc\": \"2.0\",\n    \"method\": \"notifications/initialized\"\n  },\n  {\n    \"jsonrpc\": \"2.0\",\n    \"id\": 2,\n    \"method\": \"ping\"\n  }\n]\n"
		checkPretty(t, in, frame.Options{}, []prettyRecord{
			{1, 0, "initialize unknown"},
			{6, 0, "batch of 2 unknown"},
		})
	})
	t.Run("array form: entries, a truncated element and garbage", func(t *testing.T) {
		in := "[\n" +
			"  {\n    \"dir\": \"c->s\",\n    \"msg\": {\n      \"jsonrpc\": \"2.0\",\n      \"id\": 1,\n      \"method\": \"ping\"\n    }\n  },\n" + // lines 2-9
			"  {\n    \"dir\": \"s->c\",\n    \"msg\": {\n      \"jsonrpc\": \"2.0\",\n" + // lines 10-13: cut short
			"  {\n    \"dir\": \"s->c\",\n    \"msg\": {\"jsonrpc\": \"2.0\", \"id\": 1, \"result\": {}}\n  },\n" + // lines 14-17
			"  oops,\n" + // line 18
			"  [\n    {\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"ping\"}\n  ],\n" + // lines 19-21: a batch
			"  42\n" + // line 22
			"]\n"
		st := checkPretty(t, in, frame.Options{}, []prettyRecord{
			{4, 1, "ping c2s"},
			{10, 2, "MCP0001 record is not valid JSON: unexpected end of JSON input (byte 57)"},
			{16, 3, "result s2c"},
			{18, 4, "MCP0001 array element is not valid JSON: invalid character 'o' looking for beginning of value (byte 1)"},
			{19, 5, "batch of 1 unknown"},
			{22, 6, "MCP0002 a JSON number, not a JSON-RPC object"},
		})
		if st.Lines != 23 || st.Rejected != 3 {
			t.Errorf("stats %+v", st)
		}
	})
	t.Run("garbage in the middle: resumes at the closing brace", func(t *testing.T) {
		in := "{\n  \"jsonrpc\": \"2.0\",\n  garbage\n  \"id\": 1\n}\n{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"method\": \"ping\"\n}\n"
		checkPretty(t, in, frame.Options{}, []prettyRecord{
			{1, 0, "MCP0001 line is not valid JSON: invalid character 'g' looking for beginning of object key string (byte 25)"},
			{6, 0, "ping unknown"},
		})
	})
	t.Run("truncated at the end", func(t *testing.T) {
		in := "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"method\": \"ping\"\n}\n{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 2,\n  \"meth"
		checkPretty(t, in, frame.Options{}, []prettyRecord{
			{1, 0, "ping unknown"},
			{6, 0, "MCP0001 line is not valid JSON: unexpected end of JSON input (byte 40)"},
		})
	})
	t.Run("empty array", func(t *testing.T) {
		recs, st := read(t, "[\n]\n", frame.Options{})
		checkCounts(t, recs, st)
		if st.Format != "pretty-json" || st.Frames != 0 || !strings.Contains(st.Lossy, "pretty-printed JSON in which no document is a frame") {
			t.Errorf("stats %+v", st)
		}
	})
}

// TestPrettyLimits: a document is bounded by MaxLine as a line is, and nesting is
// counted, not recursed into: both are one MCP0001, and the next document is read.
func TestPrettyLimits(t *testing.T) {
	next := "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 9,\n  \"method\": \"ping\"\n}\n"
	t.Run("too long", func(t *testing.T) {
		long := "{\n  \"jsonrpc\": \"2.0\",\n  \"method\": \"notifications/message\",\n  \"params\": {\n    \"data\": \"" + strings.Repeat("x", 4096) + "\"\n  }\n}\n"
		recs, st := read(t, long+next, frame.Options{MaxLine: 1024})
		checkCounts(t, recs, st)
		if len(recs) != 2 || recs[0].Line != 1 || recs[0].Frame == nil || recs[0].Frame.Detail != "JSON document longer than the --max-line limit of 1 KiB: skipped, not judged" || len(recs[0].Frame.Raw) != 0 ||
			recs[1].Line != 8 || recs[1].Frame == nil || recs[1].Frame.ID != "9" {
			t.Errorf("records %+v", recs)
		}
	})
	t.Run("deep", func(t *testing.T) {
		deep := "[\n" + strings.Repeat("[", 200000) + strings.Repeat("]", 200000) + "\n]\n"
		recs, st := read(t, deep+next, frame.Options{})
		checkCounts(t, recs, st)
		// (the array alone on its first line is the array form: the deep value is its element)
		if len(recs) != 2 || recs[0].Line != 2 || recs[0].Entry != 1 || recs[0].Frame == nil || !strings.Contains(recs[0].Frame.Detail, "nested deeper than 1000 levels") ||
			recs[1].Line != 4 || recs[1].Frame == nil || recs[1].Frame.ID != "9" {
			t.Errorf("records %+v", recs)
		}
	})
}

// TestPrettyStreams: a document is handed out as soon as it is complete, without
// waiting for the rest of the input (a live pipe).
func TestPrettyStreams(t *testing.T) {
	pr, pw := io.Pipe()
	defer pr.Close()
	go func() {
		_, _ = io.WriteString(pw, "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"method\": \"ping\"\n}\n")
	}()
	rd, err := frame.NewReader("live", pr, frame.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *frame.Record, 1)
	go func() {
		rec, _ := rd.Next()
		got <- rec
	}()
	select {
	case rec := <-got:
		if rec == nil || rec.Frame == nil || rec.Frame.Method != "ping" || rd.Stats().Format != "pretty-json" {
			t.Errorf("record %+v", rec)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the first document was not handed out before the input ended")
	}
	pw.Close()
}

// TestPrettyFixturesCarryTheSourceFrames: the pretty fixtures hold the messages of the
// capture they were made from, in the same direction at the same time.
func TestPrettyFixturesCarryTheSourceFrames(t *testing.T) {
	src, _, err := readFile(t, filepath.Join("..", "..", "fixtures", "real", "ts-client-go-server-sampling-undeclared.jsonl"), frame.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"pretty-envelope-sampling.json", "pretty-array-sampling.json", "pretty-bare-sampling.json"} {
		recs, st, err := readFile(t, filepath.Join("..", "..", "fixtures", "formats", name), frame.Options{})
		if err != nil {
			t.Fatal(err)
		}
		checkCounts(t, recs, st)
		if st.Format != "pretty-json" || st.Rejected != 0 || len(recs) != len(src) {
			t.Fatalf("%s: stats %+v, %d records for %d", name, st, len(recs), len(src))
		}
		for i, r := range recs {
			s := src[i].Frame
			bare := name == "pretty-bare-sampling.json"
			if canonical(t, r.Frame.Raw) != canonical(t, s.Raw) || (!bare && (r.Frame.Dir != s.Dir || !r.Frame.Time.Equal(s.Time))) || (bare && r.Frame.Dir != spec.DirUnknown) {
				t.Errorf("%s: record %d: %s, want %s", name, i+1, describe(r.Frame), describe(s))
			}
		}
	}
}

// BenchmarkReaderPretty reads the envelope benchmark input written as `jq .` (see
// BenchmarkReaderEnvelope for the same frames one a line).
func BenchmarkReaderPretty(b *testing.B) {
	env, _ := benchInputs(b)
	var pretty bytes.Buffer
	for _, line := range bytes.Split(bytes.TrimSpace(env), []byte("\n")) {
		if err := json.Indent(&pretty, line, "", "  "); err != nil {
			b.Fatal(err)
		}
		pretty.WriteByte('\n')
	}
	benchRead(b, pretty.Bytes(), "pretty-json")
}
