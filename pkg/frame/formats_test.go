package frame_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// formatFixture is one file under fixtures/formats: the format it must be detected as,
// and the real envelope captures its frames were taken from (none for lossy logs).
type formatFixture struct {
	file    string
	format  string
	sources []string
	lossy   bool
}

var formatFixtures = []formatFixture{
	{file: "claude-mcp-server-sampling.log", format: "claude-desktop-log", sources: []string{"ts-client-go-server-sampling-undeclared"}},
	{file: "claude-mcp-log-interleaved.log", format: "claude-desktop-log", sources: []string{"ts-everything-healthy", "ts-client-mcpgo-server-tools-silent-change", "ts-everything-killed-midcall"}},
	{file: "vscode-mcp-debug.log", format: "vscode-mcp-log", sources: []string{"ts-client-mcpgo-server-tools-silent-change"}},
	{file: "vscode-mcp-client-says.log", format: "vscode-mcp-log", sources: []string{"ts-everything-cancel"}},
	{file: "inspector-protocol-sampling.json", format: "inspector-json", sources: []string{"ts-client-go-server-sampling-undeclared"}},
	{file: "inspector-protocol-healthy.json", format: "inspector-json", sources: []string{"ts-everything-healthy"}},
	{file: "mcpgo-slog-sampling.jsonl", format: "mcpgo-slog", sources: []string{"ts-client-go-server-sampling-undeclared"}},
	{file: "mcpsnoop-stdio-cancel.jsonl", format: "envelope-jsonl", sources: []string{"ts-everything-cancel"}},
	{file: "mcpsnoop-http-batch.jsonl", format: "envelope-jsonl", sources: []string{"raw-everything-batch-2025-06-18"}},
	{file: "trace-validator-killed-midcall.jsonl", format: "envelope-jsonl", sources: []string{"ts-everything-killed-midcall"}},
	{file: "cassette-batch-2025-03-26.jsonl", format: "envelope-jsonl", sources: []string{"raw-go-server-batch-2025-03-26"}},
	{file: "cassette-http-chunks.jsonl", format: "envelope-jsonl", sources: []string{"ts-client-go-server-sampling-undeclared"}},
	{file: "gosdk-log-response-before-request.log", format: "gosdk-log", sources: []string{"ts-client-go-server-sampling-undeclared"}},
	{file: "lossy-cursor-mcp.log", format: "cursor-mcp-log", lossy: true},
	{file: "lossy-mcp-remote.log", format: "mcp-remote-log", lossy: true},
	{file: "lossy-python-sdk.log", format: "python-sdk-log", lossy: true},
	{file: "lossy-vscode-info.log", format: "vscode-mcp-log", lossy: true},
	{file: "lossy-mcpgo-text.log", format: "mcpgo-slog", lossy: true},
	{file: "lossy-claude-lifecycle.log", format: "claude-desktop-log", lossy: true},
	{file: "lossy-claude-code-stdio.jsonl", format: "claude-code-mcp-log", lossy: true},
	{file: "lossy-claude-code-http.jsonl", format: "claude-code-mcp-log", lossy: true},
}

// allFormatInputs is every input the cross-decoder test feeds: the format fixtures,
// the HAR captures (real and rule fixtures) and the real envelope, bare and Go SDK
// captures.
func allFormatInputs(t *testing.T) map[string]string {
	t.Helper()
	root := filepath.Join("..", "..", "fixtures")
	out := map[string]string{}
	for _, f := range formatFixtures {
		out[filepath.Join(root, "formats", f.file)] = f.format
	}
	for glob, format := range map[string]string{
		"real/http/*.har": "har", "rules/*.har": "har", "real/*.jsonl": "envelope-jsonl",
		"real/bare/*.jsonl": "jsonrpc-jsonl", "real/gosdk-log/*.log": "gosdk-log",
	} {
		m, err := filepath.Glob(filepath.Join(root, glob))
		if err != nil || len(m) == 0 {
			t.Fatalf("no fixtures match %s", glob)
		}
		for _, p := range m {
			out[p] = format
		}
	}
	return out
}

// readFile reads a whole input with the given options; err is the first error of
// NewReader or Next.
func readFile(t *testing.T, path string, opt frame.Options) ([]record, frame.Stats, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := frame.NewReader(path, f, opt)
	if err != nil {
		return nil, frame.Stats{}, err
	}
	defer rd.Close()
	var out []record
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out, rd.Stats(), nil
		}
		if err != nil {
			return out, rd.Stats(), err
		}
		out = append(out, copyRecord(rec))
		if len(out) > 1<<20 {
			t.Fatalf("%s: Next does not stop", path)
		}
	}
}

// checkCounts asserts the counters agree with the records (inputs where a line may
// carry several frames, or none: document formats, regrouped batches).
func checkCounts(t *testing.T, recs []record, st frame.Stats) {
	t.Helper()
	var frames, rejected, context, blank int
	for _, r := range recs {
		switch r.Kind {
		case frame.RecordFrame:
			frames++
			if r.Frame.Kind == frame.KindInvalid {
				rejected++
			}
			if r.Frame.Line != r.Line || r.Frame.Entry != r.Entry {
				t.Errorf("record line %d entry %d, frame line %d entry %d", r.Line, r.Entry, r.Frame.Line, r.Frame.Entry)
			}
		case frame.RecordContext:
			context++
		case frame.RecordBlank:
			blank++
		}
		// Lines counts the entries of a document format.
		if r.Line < 1 || r.at() < 1 || r.at() > st.Lines {
			t.Errorf("record line %d entry %d outside 1..%d", r.Line, r.Entry, st.Lines)
		}
	}
	if st.Frames != frames || st.Rejected != rejected || st.Context != context || st.Blank != blank {
		t.Errorf("stats %+v, records say frames=%d rejected=%d context=%d blank=%d", st, frames, rejected, context, blank)
	}
	lines := map[int]bool{}
	for _, r := range recs {
		if r.Kind == frame.RecordFrame {
			lines[r.at()] = true
		}
	}
	if n := st.Unaccounted(); n != 0 || (st.Folded == 0 && st.FrameLines != len(lines)) {
		t.Errorf("stats %+v: %d lines unaccounted for, records say %d lines carried frames", st, n, len(lines))
	}
}

// TestFormatFixturesDetected: every format fixture is detected as its format, reads
// without error, and a lossy log (and only a lossy log) says it cannot be judged.
func TestFormatFixturesDetected(t *testing.T) {
	for path, format := range allFormatInputs(t) {
		t.Run(strings.TrimPrefix(path, "../../fixtures/"), func(t *testing.T) {
			recs, st, err := readFile(t, path, frame.Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkCounts(t, recs, st)
			if st.Format != format {
				t.Errorf("detected %q, want %q", st.Format, format)
			}
			lossy := strings.HasPrefix(filepath.Base(path), "lossy-")
			exchanges := 0
			for _, r := range recs {
				if r.Exchange {
					exchanges++
				}
			}
			switch {
			case !lossy && st.Frames == 0 && exchanges > 0:
				// An HTTP capture of a connection refused before any message: the
				// reader has no frame, the rules judge its exchanges (MCP0006).
				if !strings.HasPrefix(st.Lossy, "cannot judge: this log holds no frames: ") {
					t.Errorf("exchanges only: Lossy %q", st.Lossy)
				}
			case lossy && (st.Frames != 0 || !strings.HasPrefix(st.Lossy, "cannot judge: this log holds no frames: ")):
				t.Errorf("lossy log: frames %d, Lossy %q", st.Frames, st.Lossy)
			case !lossy && (st.Frames == 0 || st.Lossy != ""):
				t.Errorf("frames %d, Lossy %q", st.Frames, st.Lossy)
			case !lossy && st.Rejected != 0:
				for _, r := range recs {
					if r.Frame != nil && r.Frame.Kind == frame.KindInvalid {
						t.Errorf("line %d: %s", r.Line, describe(r.Frame))
					}
				}
			}
			for _, r := range recs {
				if r.Frame != nil && r.Frame.Dir == spec.DirUnknown && format != "jsonrpc-jsonl" {
					t.Errorf("line %d: no direction: %s", r.Line, describe(r.Frame))
				}
			}
		})
	}
}

// canonical renders a JSON value with sorted keys and no spacing, so that a message
// rebuilt or re-indented by a format compares equal to the captured one.
func canonical(t *testing.T, raw []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// messages lists a capture's messages as "dir canonical-json", sorted (a format may
// place a message later than the envelope did: a folded response, an SSE stream).
func messages(t *testing.T, recs []record) []string {
	var out []string
	for _, r := range recs {
		if r.Frame != nil {
			out = append(out, r.Frame.Dir.String()+" "+canonical(t, r.Frame.Raw))
		}
	}
	sort.Strings(out)
	return out
}

// TestFormatFixturesCarryTheSourceFrames: each format fixture holds exactly the
// messages of the real captures it was made from, each in the same direction
// (its findings, line for line, are checked by the fixture harness against its .want).
func TestFormatFixturesCarryTheSourceFrames(t *testing.T) {
	for _, ff := range formatFixtures {
		if ff.lossy {
			continue
		}
		t.Run(ff.file, func(t *testing.T) {
			recs, _, err := readFile(t, filepath.Join("..", "..", "fixtures", "formats", ff.file), frame.Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := messages(t, recs)
			var want []string
			for _, src := range ff.sources {
				srecs, _, err := readFile(t, filepath.Join("..", "..", "fixtures", "real", src+".jsonl"), frame.Options{})
				if err != nil {
					t.Fatal(err)
				}
				want = append(want, messages(t, srecs)...)
			}
			sort.Strings(want)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("messages differ from %v:\n got  %d\n want %d", ff.sources, len(got), len(want))
				for i := 0; i < len(got) || i < len(want); i++ {
					var g, w string
					if i < len(got) {
						g = got[i]
					}
					if i < len(want) {
						w = want[i]
					}
					if g != w {
						t.Errorf("first difference:\n got  %.200s\n want %.200s", g, w)
						break
					}
				}
			}
		})
	}
}

// TestWrongDecoderRefuses feeds every fixture to every decoder. A decoder that is not
// the input's own must refuse cleanly: an error that names the problem, or no frame
// that the right decoder would not produce (so: no frames, or all lines context;
// envelope-jsonl reads bare JSON-RPC lines as they are).
func TestWrongDecoderRefuses(t *testing.T) {
	for path, right := range allFormatInputs(t) {
		want, _, err := readFile(t, path, frame.Options{})
		if err != nil {
			t.Fatal(err)
		}
		produced := map[string]bool{}
		for _, r := range want {
			if r.Frame != nil {
				produced[frameKey(r)] = true
			}
		}
		for _, format := range frame.Formats() {
			if format == right {
				continue
			}
			t.Run(strings.TrimPrefix(path, "../../fixtures/")+"/"+format, func(t *testing.T) {
				recs, st, err := readFile(t, path, frame.Options{Format: format})
				if err != nil {
					if !strings.Contains(err.Error(), path) || !strings.HasPrefix(err.Error(), "mcpsleuth: ") {
						t.Errorf("error does not say which input: %v", err)
					}
					return
				}
				checkCounts(t, recs, st)
				for _, r := range recs {
					if r.Frame != nil && !produced[frameKey(r)] {
						t.Errorf("line %d: a frame the %s reading does not have: %s", r.Line, right, describe(r.Frame))
						return
					}
				}
				if st.Frames == 0 && st.Lossy == "" {
					t.Errorf("no frames and no Lossy note: %+v", st)
				}
			})
		}
	}
}

func frameKey(r record) string {
	return fmt.Sprintf("%d %v %s", r.Line, r.Frame.Kind, r.Frame.Raw)
}

// TestForcedFormatErrors: forcing a line format on a JSON document, or a document
// format on something else, is an error at NewReader that says what the input is.
func TestForcedFormatErrors(t *testing.T) {
	har := filepath.Join("..", "..", "fixtures", "real", "http", "http-ts-everything-healthy.har")
	env := filepath.Join("..", "..", "fixtures", "real", "ts-everything-healthy.jsonl")
	insp := filepath.Join("..", "..", "fixtures", "formats", "inspector-protocol-healthy.json")
	for _, tc := range []struct {
		path, format string
		wants        []string
	}{
		{har, "envelope-jsonl", []string{"HAR 1.2 capture", "not envelope-jsonl lines", "--input-format har"}},
		{insp, "jsonrpc-jsonl", []string{"an MCP Inspector", "--input-format inspector-json"}},
		{env, "har", []string{"not a HAR 1.2 capture", `first member is "ts" (a HAR document starts with "log"`}},
		{env, "inspector-json", []string{"not an MCP Inspector", `first member is "ts"`, "an Inspector export is an array"}},
		{insp, "har", []string{"not a HAR 1.2 capture", "it is an MCP Inspector Protocol export"}},
		{har, "inspector-json", []string{"not an MCP Inspector", "it is a HAR 1.2 capture"}},
	} {
		t.Run(filepath.Base(tc.path)+"/"+tc.format, func(t *testing.T) {
			_, _, err := readFile(t, tc.path, frame.Options{Format: tc.format})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range append(tc.wants, tc.path) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// lossyInputs are logs without frames: each is recognised, and Stats.Lossy says what
// it is and what it shows.
func TestLossyLogs(t *testing.T) {
	for _, tc := range []struct {
		file, format string
		says         []string
	}{
		{"lossy-cursor-mcp.log", "cursor-mcp-log", []string{"a Cursor MCP log", "7 Cursor MCP log lines", `2 error lines (first: "2025-04-11 11:52:14.403 [error] r-ai: No server info found")`}},
		{"lossy-mcp-remote.log", "mcp-remote-log", []string{"an mcp-remote log", "initialize ×1, notifications/initialized ×1, tools/call ×1, tools/list ×1"}},
		{"lossy-python-sdk.log", "python-sdk-log", []string{"a Python SDK log", "CallToolRequest ×1, ListToolsRequest ×1, initialize ×1, tools/call ×1", "1 error line ("}},
		{"lossy-vscode-info.log", "vscode-mcp-log", []string{"VS Code MCP output channel", "Debug or Trace"}},
		{"lossy-mcpgo-text.log", "mcpgo-slog", []string{"mcp-go LoggingTransport log without payloads", "initialize ×1, notifications/initialized ×1, notifications/tools/list_changed ×1, tools/list ×1"}},
		{"lossy-claude-lifecycle.log", "claude-desktop-log", []string{"Claude Desktop MCP log without any"}},
		{"lossy-claude-code-stdio.jsonl", "claude-code-mcp-log", []string{"a Claude Code MCP log",
			`connection 1 over stdio: connected in 707ms to "wild2-mcp-framework-server 0.1.0", revision 2025-11-25 (legacy era), the server offers tools, no prompts, no resources, no resource subscriptions, closed after 0s (cleanly); 7 lines of server stderr`}},
		{"lossy-claude-code-http.jsonl", "claude-code-mcp-log", []string{
			`connection 1 over http to "http://127.0.0.1:47210/mcp": connected in 65ms to "wild2-mcp-framework-server 0.1.0", revision 2025-11-25 (legacy era)`}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			recs, st, err := readFile(t, filepath.Join("..", "..", "fixtures", "formats", tc.file), frame.Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkStats(t, recs, st)
			if st.Format != tc.format || st.Frames != 0 {
				t.Errorf("stats %+v", st)
			}
			for _, s := range append([]string{"cannot judge: this log holds no frames: "}, tc.says...) {
				if !strings.Contains(st.Lossy, s) {
					t.Errorf("Lossy %q does not say %q", st.Lossy, s)
				}
			}
		})
	}
	for _, tc := range []struct{ name, in, says string }{
		{"empty", "", "the input is empty"},
		{"unknown text", "hello\nworld\n", "no line is a frame in any known format (2 lines, 2 of context)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, st := read(t, tc.in, frame.Options{})
			if !strings.Contains(st.Lossy, tc.says) {
				t.Errorf("Lossy %q does not say %q", st.Lossy, tc.says)
			}
		})
	}
	t.Run("not before the end", func(t *testing.T) {
		rd, err := frame.NewReader("x.log", strings.NewReader("hello\n"), frame.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rd.Next(); err != nil {
			t.Fatal(err)
		}
		if st := rd.Stats(); st.Lossy != "" {
			t.Errorf("Lossy before the end: %q", st.Lossy)
		}
	})
	t.Run("a frame later on takes over", func(t *testing.T) {
		in := "[48213] [Local→Remote] initialize\n" +
			"2025-03-10T17:03:18.764Z [demo] [info] Message from client: " + `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}` + "\n"
		recs, st := read(t, in, frame.Options{})
		checkStats(t, recs, st)
		if st.Format != "claude-desktop-log" || st.Frames != 1 || st.Lossy != "" {
			t.Errorf("stats %+v", st)
		}
	})
}

func TestFormatFixtureBytes(t *testing.T) {
	for _, ff := range formatFixtures {
		path := filepath.Join("..", "..", "fixtures", "formats", ff.file)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		_, st, err := readFile(t, path, frame.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if st.Bytes != int64(len(b)) {
			t.Errorf("%s: Bytes %d, want %d", ff.file, st.Bytes, len(b))
		}
		if !bytes.HasSuffix(b, []byte("\n")) {
			t.Errorf("%s: no final newline", ff.file)
		}
	}
}

// TestAboutDescribesEveryFormat: --list-formats describes exactly the formats
// --input-format accepts.
func TestAboutDescribesEveryFormat(t *testing.T) {
	var names []string
	for _, f := range frame.About() {
		if f.What == "" {
			t.Errorf("%s: no description", f.Name)
		}
		names = append(names, f.Name)
	}
	if got, want := strings.Join(names, " "), strings.Join(frame.Formats(), " "); got != want {
		t.Errorf("About describes %s; the formats are %s", got, want)
	}
	for _, f := range frame.NotReadYet() {
		if frame.KnownFormat(f.Name) || f.What == "" || f.Instead == "" {
			t.Errorf("%s: not read yet, but accepted, or not described with what to do instead: %+v", f.Name, f)
		}
	}
}
