package rules_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// TestMcporterLikeEnvelope: a recording the real mcporter made (fixtures/real/mcporter)
// is judged exactly like the same session written as envelope JSONL
// ({"ts","dir","server_label","msg"}, the message without mcporter's _meta, a
// lifecycle record as a record without a payload): the same sessions (stream, lines,
// times) and the same findings at every severity, with their lines, times,
// directions, messages and evidence. Every frame of the recording has its direction
// and time from _meta, and its stream is its server.
func TestMcporterLikeEnvelope(t *testing.T) {
	paths, _ := filepath.Glob("../../fixtures/real/mcporter/*.ndjson")
	if len(paths) < 4 {
		t.Fatalf("found %d mcporter recordings", len(paths))
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			envelope, servers := mcporterToEnvelope(t, data)
			checkMcporterFrames(t, path, data)
			got := analyse(t, path, data, "mcporter-ndjson")
			want := analyse(t, path, envelope, "envelope-jsonl")
			if len(got.Sessions) != len(servers) {
				t.Errorf("%d sessions, want one per server (%v)", len(got.Sessions), servers)
			}
			g, w := describeResult(got), describeResult(want)
			if g != w {
				t.Errorf("mcporter reading:\n%s\nenvelope reading:\n%s", g, w)
			}
		})
	}
}

func analyse(t *testing.T, name string, data []byte, format string) *driver.InputResult {
	t.Helper()
	res, err := driver.Run(name, bytes.NewReader(data), rules.All(), driver.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.Format != format {
		t.Fatalf("read as %s, want %s", res.Stats.Format, format)
	}
	return res
}

// describeResult lists what a reading of a capture concluded, one line a session or
// finding.
func describeResult(res *driver.InputResult) string {
	var b strings.Builder
	for _, s := range res.Sessions {
		ss := s.Session
		fmt.Fprintf(&b, "session %d stream %q lines %d-%d times %s..%s frames %d\n", ss.Index, ss.StreamKey, ss.FirstLine, ss.LastLine,
			ss.FirstTime.Format("15:04:05.000"), ss.LastTime.Format("15:04:05.000"), ss.Frames)
		for _, f := range s.Findings {
			fmt.Fprintf(&b, "  %d %s %s %s %s %s id=%s %s\n    evidence %s\n", f.Line, f.Rule, f.Severity, f.Time.Format("15:04:05.000"), f.Dir, f.Method, f.ID, f.Message, f.Evidence)
			for _, r := range f.Related {
				fmt.Fprintf(&b, "    related %d %s %s\n", r.Line, r.Note, r.Raw)
			}
		}
		for _, n := range s.Notes {
			fmt.Fprintf(&b, "  note %s\n", n)
		}
	}
	return b.String()
}

// mcporterToEnvelope rewrites an mcporter recording line by line as envelope JSONL
// and lists the servers that exchanged messages.
func mcporterToEnvelope(t *testing.T, data []byte) ([]byte, []string) {
	t.Helper()
	var out bytes.Buffer
	var servers []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		// mcporter writes {...message, _meta}: its _meta is the last member.
		i := strings.LastIndex(line, `,"_meta":{`)
		if i < 0 || !strings.HasSuffix(line, "}}") {
			t.Fatalf("line %d: no trailing _meta: %.80s", n, line)
		}
		var meta struct{ Dir, Server, TS string }
		if err := json.Unmarshal([]byte(line[i+len(`,"_meta":`):len(line)-1]), &meta); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		msg := line[:i] + "}"
		server, _ := json.Marshal(meta.Server)
		switch meta.Dir {
		case "send", "recv":
			dir := "c->s"
			if meta.Dir == "recv" {
				dir = "s->c"
			}
			fmt.Fprintf(&out, `{"ts":%q,"dir":%q,"server_label":%s,"msg":%s}`+"\n", meta.TS, dir, server, msg)
			if !seen[meta.Server] {
				seen[meta.Server] = true
				servers = append(servers, meta.Server)
			}
		case "lifecycle":
			fmt.Fprintf(&out, `{"ts":%q,"event":%q,"server_label":%s}`+"\n", meta.TS, strings.TrimSuffix(strings.TrimPrefix(msg, `{"jsonrpc":"2.0","method":"`), `"}`), server)
		default:
			t.Fatalf("line %d: dir %q", n, meta.Dir)
		}
	}
	return out.Bytes(), servers
}

// checkMcporterFrames: every frame has a direction and a time and its server as its
// stream; lifecycle lines are context; no frame keeps the recorder's _meta.
func checkMcporterFrames(t *testing.T, name string, data []byte) {
	t.Helper()
	rd, err := frame.NewReader(name, bytes.NewReader(data), frame.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	for {
		rec, err := rd.Next()
		if err != nil {
			break
		}
		line := lines[rec.Line-1]
		lifecycle := strings.Contains(line, `"dir":"lifecycle"`)
		if lifecycle != (rec.Kind == frame.RecordContext) {
			t.Errorf("line %d: read as %v: %.80s", rec.Line, rec.Kind, line)
			continue
		}
		if rec.Kind != frame.RecordFrame {
			continue
		}
		f := rec.Frame
		if f.Dir == spec.DirUnknown || f.Time.IsZero() || f.StreamKey == "" || !strings.Contains(line, `"server":"`+f.StreamKey+`"`) {
			t.Errorf("line %d: dir %v time %v stream %q", rec.Line, f.Dir, f.Time, f.StreamKey)
		}
		if _, ok := f.Node().Get("_meta"); ok {
			t.Errorf("line %d: the frame keeps the recorder's _meta: %.120s", rec.Line, f.Raw)
		}
	}
}
