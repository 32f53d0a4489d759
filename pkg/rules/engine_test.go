package rules_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule/ruletest"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
)

// captures lists every capture under fixtures/, in a stable order.
func captures(t *testing.T) []string {
	t.Helper()
	out := ruletest.Captures(t, filepath.Join("..", "..", "fixtures"))
	if len(out) < 100 {
		t.Fatalf("only %d captures found under fixtures/", len(out))
	}
	return out
}

// verdicts renders everything a run found, in order: findings with every field a
// report shows, and notes.
func verdicts(t *testing.T, path string, opt driver.RunOptions) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := driver.Run(path, bytes.NewReader(data), rules.All(), opt)
	if err != nil {
		return "unreadable: " + err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "stats %+v broken %v connections %+v\n", res.Stats, res.Broken, res.Connections)
	for _, s := range res.Sessions {
		fmt.Fprintf(&b, "session %d lines %d-%d\n", s.Session.Index, s.Session.FirstLine, s.Session.LastLine)
		for _, f := range s.Findings {
			fmt.Fprintf(&b, "%s %s %d %s %s %s %q %q %v %q %s %v\n", f.Rule, f.Severity, f.Line, f.Dir, f.Method, f.ID, f.Message, f.Hint, f.Related, f.Evidence, f.Fingerprint, f.Values)
		}
		for _, n := range s.Notes {
			fmt.Fprintf(&b, "note %s\n", n)
		}
	}
	return b.String()
}

// The wire-shape cache must never change a verdict: every fixture gives the same
// findings and notes when every frame is validated in full.
func TestShapeCacheChangesNothing(t *testing.T) {
	sameAsReference(t, "the shape cache", "every frame validated", driver.RunOptions{NoShapes: true})
}

// The classes the rules settle (rule.Pass.Settled) must change no verdict: every
// fixture gives the same findings and notes when every rule is asked about every
// message.
func TestSettlingChangesNothing(t *testing.T) {
	sameAsReference(t, "settled classes", "every rule asked", driver.RunOptions{NoSettling: true})
}

// The methods the rules declare (rule.Rule.Methods) must change no verdict: every
// fixture gives the same findings and notes when every rule is asked about
// messages of every method.
func TestMethodsChangeNothing(t *testing.T) {
	sameAsReference(t, "rules dispatched by method", "every rule asked about every method", driver.RunOptions{AllMethods: true})
}

// A session longer than the parse stage's batches, whose memory is reused for the
// frames that follow, keeps what it remembers of its requests intact: 20,000
// answered tools/call requests, each with its own id and progress token, then one
// that reuses the first id, and progress for a token whose request was answered
// 3,000 requests before, give one finding each of the rules that remember requests
// by id and token (MCP3003, MCP3006), about the right requests. (The history of
// answered requests once kept the id of a response's frame, whose bytes the next
// batches overwrote: a healthy capture got MCP3003 findings.)
func TestLongSessionKeepsItsRequests(t *testing.T) {
	var b bytes.Buffer
	line := envelopeWriter(&b)
	toolsHandshake(line)
	const calls, late = 20000, 17000
	for i := 1; i <= calls; i++ {
		line("c2s", `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{},"_meta":{"progressToken":"t%d"}}}`, i, i)
		line("s2c", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t%d","progress":1}}`, i)
		line("s2c", `{"jsonrpc":"2.0","id":%d,"result":{"content":[]}}`, i)
	}
	line("c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	line("s2c", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t%d","progress":2}}`, late)
	end := 3 + 3*calls
	got := findingsOf(t, b.Bytes(), "MCP3002", "MCP3003", "MCP3005", "MCP3006")
	want := []string{
		fmt.Sprintf("MCP3003 %d the client reused id 1 for tools/call: its tools/call at line 4 already used it (answered), and a legacy session (2025-06-18) forbids reusing a request id anywhere in the session", end+1),
		fmt.Sprintf(`MCP3006 %d server sent progress for token "t%d" after the response to tools/call id=%d (line %d): progress must stop when the request completes`, end+2, late, late, 3*late+3),
	}
	sameFindings(t, "findings of the rules that remember requests", got, want)
}

// A request's record holds on to its frame's bytes until the batch is replayed
// (session.Tracker.Settle): a request never answered must keep a copy of them, so
// that its finding at the session's end, batches later, quotes the request.
func TestUnansweredRequestsKeepTheirBytes(t *testing.T) {
	var b bytes.Buffer
	line := envelopeWriter(&b)
	toolsHandshake(line)
	line("c2s", `{"jsonrpc":"2.0","id":"lost","method":"tools/call","params":{"name":"echo","arguments":{"text":"the lost call"}}}`)
	for i := 1; i <= 20000; i++ {
		line("c2s", `{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i)
		line("s2c", `{"jsonrpc":"2.0","id":%d,"result":{}}`, i)
	}
	got := findingsAs(t, b.Bytes(), func(f rule.Finding) string { return fmt.Sprintf("%d %s", f.Line, f.Evidence) }, "MCP3001")
	sameFindings(t, "MCP3001 findings with their evidence", got, []string{`4 {"jsonrpc":"2.0","id":"lost","method":"tools/call","params":{"name":"echo","arguments":{"text":"the lost call"}}}`})
}

// MCP4003 and MCP4004 validate a call's arguments and a result's structured
// content where they lie in the frame's bytes, without a copy: what their findings
// quote of them must be a copy, intact after later frames reuse those bytes.
func TestSchemaFindingsOutliveTheirFrames(t *testing.T) {
	var b bytes.Buffer
	line := envelopeWriter(&b)
	toolsHandshake(line)
	line("c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	line("s2c", `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"get","inputSchema":{"type":"object","properties":{"n":{"type":"string"}}},"outputSchema":{"type":"object","properties":{"due":{"type":"string"}}}}]}}`)
	line("c2s", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get","arguments":{"n":"not-a-number-but-ok"}}}`)
	line("s2c", `{"jsonrpc":"2.0","id":2,"result":{"content":[],"structuredContent":{"due":"x"}}}`)
	line("c2s", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get","arguments":{"n":12345}}}`)
	line("s2c", `{"jsonrpc":"2.0","id":3,"result":{"content":[],"structuredContent":{"due":67890}}}`)
	for i := 4; i < 20000; i++ {
		line("c2s", `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get","arguments":{"n":"%d"}}}`, i, i)
		line("s2c", `{"jsonrpc":"2.0","id":%d,"result":{"content":[],"structuredContent":{"due":"%d"}}}`, i, i)
	}
	got := findingsOf(t, b.Bytes(), "MCP4003", "MCP4004")
	want := []string{
		`MCP4003 8 tools/call "get" (line 8): the arguments break the inputSchema of "get" (tools/list result line 5); a strict client would not have sent this call and would have logged "tool call validation failed: get" with instancePath: /n  keyword: type  message: must be string  data: 12345`,
		`MCP4004 9 tools/call "get" result (line 9): structuredContent breaks the outputSchema of "get" (tools/list result line 5): at /due type: must be string (got 67890)`,
	}
	sameFindings(t, "schema findings", got, want)
}

// A checker recycled for the next session (rule.Recycler: MCP3006 keeps its
// tables' memory) remembers nothing of the session before: progress for a token
// that a request of the first session carried, sent in the second, is progress for
// a token no request of its session carried.
func TestRecycledCheckersForgetTheirSession(t *testing.T) {
	var b bytes.Buffer
	line := envelopeWriter(&b)
	for session := range 2 {
		toolsHandshake(line)
		if session == 0 {
			line("c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{},"_meta":{"progressToken":"t1"}}}`)
			line("s2c", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":1}}`)
			line("s2c", `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`)
		} else {
			line("s2c", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":2}}`)
		}
	}
	got := findingsOf(t, b.Bytes(), "MCP3006")
	want := []string{`MCP3006 10 server sent progress for token "t1", but no request sent by the client carried that _meta.progressToken`}
	sameFindings(t, "MCP3006 findings", got, want)
}

// envelopeWriter returns a function that writes one envelope record (a direction
// and a message, formatted with args) to b.
func envelopeWriter(b *bytes.Buffer) func(dir, msg string, args ...any) {
	return func(dir, msg string, args ...any) {
		fmt.Fprintf(b, `{"dir":"%s","msg":%s}`+"\n", dir, fmt.Sprintf(msg, args...))
	}
}

// toolsHandshake writes a legacy (2025-06-18) handshake with a server that offers
// tools: initialize, its result, notifications/initialized (lines 1-3 of a capture).
func toolsHandshake(line func(dir, msg string, args ...any)) {
	line("c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	line("s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`)
	line("c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// findingsOf runs every rule over a capture and lists the findings of the rules
// named, in order, as "RULE LINE MESSAGE".
func findingsOf(t *testing.T, capture []byte, ids ...string) []string {
	t.Helper()
	return findingsAs(t, capture, func(f rule.Finding) string { return fmt.Sprintf("%s %d %s", f.Rule, f.Line, f.Message) }, ids...)
}

// findingsAs runs every rule over a capture and lists the findings of the rules
// named, in order, each as show writes it.
func findingsAs(t *testing.T, capture []byte, show func(rule.Finding) string, ids ...string) []string {
	t.Helper()
	res, err := driver.Run("capture.jsonl", bytes.NewReader(capture), rules.All(), driver.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range res.Sessions {
		for _, f := range s.Findings {
			if slices.Contains(ids, f.Rule) {
				got = append(got, show(f))
			}
		}
	}
	return got
}

// sameFindings fails the test when the findings listed are not those wanted.
func sameFindings(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n%s\nwant\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// sameAsReference runs every fixture as a run does and with the reference
// options, which turn a shortcut off, and requires the same verdicts.
func sameAsReference(t *testing.T, shortcut, without string, reference driver.RunOptions) {
	t.Helper()
	for _, path := range captures(t) {
		with, ref := verdicts(t, path, driver.RunOptions{}), verdicts(t, path, reference)
		if with != ref {
			t.Errorf("%s: findings differ with %s:\n--- with\n%s--- without (%s)\n%s", path, shortcut, with, without, ref)
		}
	}
}

// The verdicts of one run must not depend on what earlier runs that shared its
// run-wide state saw: every fixture alone equals every fixture after all the others.
func TestSharedStateChangesNothing(t *testing.T) {
	paths := captures(t)
	shared := rule.NewShared()
	for _, path := range paths {
		verdicts(t, path, driver.RunOptions{Shared: shared})
	}
	for _, path := range paths {
		alone := verdicts(t, path, driver.RunOptions{})
		after := verdicts(t, path, driver.RunOptions{Shared: shared})
		if alone != after {
			t.Errorf("%s: findings differ after the other fixtures shared the run's state:\n--- alone\n%s--- after\n%s", path, alone, after)
		}
	}
}

// The parse stage runs beside the replay: the results must be the same on one
// processor as on two, and with the parse stage inline (scan's jobs).
func TestProcessorsChangeNothing(t *testing.T) {
	paths := captures(t)
	on := func(procs int, opt driver.RunOptions) []string {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		out := make([]string, len(paths))
		for i, path := range paths {
			out[i] = verdicts(t, path, opt)
		}
		return out
	}
	one, two, inline := on(1, driver.RunOptions{}), on(2, driver.RunOptions{}), on(2, driver.RunOptions{Inline: true})
	for i := range paths {
		if one[i] != two[i] {
			t.Errorf("%s: findings differ between GOMAXPROCS=1 and 2:\n--- 1\n%s--- 2\n%s", paths[i], one[i], two[i])
		}
		if inline[i] != two[i] {
			t.Errorf("%s: findings differ with the parse stage inline:\n--- beside\n%s--- inline\n%s", paths[i], two[i], inline[i])
		}
	}
}

// withFiller appends thousands of healthy frames of another session (another stream
// key) to an envelope capture, so that the parse stage recycles its buffers many
// times before the capture's own sessions end: a rule or the session tracker that
// keeps a frame's bytes instead of copying them then reports zeros or later bytes.
// ok is false for captures that are not envelope JSONL.
func withFiller(t *testing.T, path string) ([]byte, bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(path, ".jsonl") || !bytes.Contains(data, []byte(`"dir":"c->s"`)) || bytes.Contains(data, []byte(`"session_id"`)) {
		return nil, false
	}
	var b bytes.Buffer
	b.Write(data)
	if len(data) > 0 && data[len(data)-1] != '\n' {
		b.WriteByte('\n')
	}
	emit := func(dir, msg string) {
		fmt.Fprintf(&b, `{"ts":"2026-11-30T23:00:00Z","dir":"%s","session_id":"filler","msg":%s}`+"\n", dir, msg)
	}
	emit("c->s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"filler","version":"1"}}}`)
	emit("s->c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"filler","version":"1"}}}`)
	emit("c->s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	pad := strings.Repeat("z", 2000)
	for i := 1; i <= 3000; i++ {
		emit("c->s", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"_meta":{"pad":"%s"}}}`, i, pad))
		emit("s->c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, i))
	}
	return b.Bytes(), true
}

// Findings reported long after their frame (at the end of a session, at a later
// frame) must be the same when thousands of frames of another session come in
// between: nothing may alias memory the parse stage has reused.
func TestLongCapturesKeepTheirFindings(t *testing.T) {
	t.Run("parse stage beside", func(t *testing.T) { longCapturesKeepTheirFindings(t, driver.RunOptions{}) })
	t.Run("parse stage inline", func(t *testing.T) { longCapturesKeepTheirFindings(t, driver.RunOptions{Inline: true}) })
}

func longCapturesKeepTheirFindings(t *testing.T, opt driver.RunOptions) {
	n := 0
	for _, path := range captures(t) {
		long, ok := withFiller(t, path)
		if !ok {
			continue
		}
		n++
		want := verdicts(t, path, driver.RunOptions{})
		res, err := driver.Run(path, bytes.NewReader(long), rules.All(), opt)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, s := range res.Sessions {
			if s.Session.StreamKey == "filler" {
				for _, f := range s.Findings {
					if f.Severity > rule.SeverityInfo {
						t.Errorf("%s: the filler session reports %s at line %d: %s", path, f.Rule, f.Line, f.Message)
					}
				}
				continue
			}
			fmt.Fprintf(&b, "session %d lines %d-%d\n", s.Session.Index, s.Session.FirstLine, s.Session.LastLine)
			for _, f := range s.Findings {
				fmt.Fprintf(&b, "%s %s %d %s %s %s %q %q %v %q %s %v\n", f.Rule, f.Severity, f.Line, f.Dir, f.Method, f.ID, f.Message, f.Hint, f.Related, f.Evidence, f.Fingerprint, f.Values)
			}
			for _, note := range s.Notes {
				fmt.Fprintf(&b, "note %s\n", note)
			}
		}
		// The reference run's header line (stats) differs: compare from the sessions on.
		_, wantSessions, _ := strings.Cut(want, "\n")
		if got := b.String(); got != wantSessions {
			t.Errorf("%s: findings differ once other traffic follows:\n--- alone\n%s--- followed by filler\n%s", path, wantSessions, got)
		}
	}
	if n < 50 {
		t.Fatalf("only %d envelope captures were tried", n)
	}
}

// A capture of far more unanswered requests than a session follows at once keeps a
// bounded table: the oldest are dropped and counted, and the rules say what they
// could not judge instead of reporting their responses as unknown.
func TestUnansweredFloodIsBounded(t *testing.T) {
	const n = session.MaxOutstanding + 5000
	pr, pw := io.Pipe()
	go func() {
		w := bufio.NewWriter(pw)
		fmt.Fprintln(w, `{"dir":"c->s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}`)
		fmt.Fprintln(w, `{"dir":"s->c","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}}`)
		fmt.Fprintln(w, `{"dir":"c->s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}`)
		for i := 1; i <= n; i++ {
			fmt.Fprintf(w, `{"dir":"c->s","msg":{"jsonrpc":"2.0","id":%d,"method":"ping","params":{"_meta":{"progressToken":%d}}}}`+"\n", i, i)
		}
		// The answer to the very first ping comes last: its request was dropped.
		fmt.Fprintln(w, `{"dir":"s->c","msg":{"jsonrpc":"2.0","id":1,"result":{}}}`)
		w.Flush()
		pw.Close()
	}()
	res, err := driver.Run("flood.jsonl", pr, rules.All(), driver.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Sessions[0]
	if s.Session.Untracked != n-session.MaxOutstanding {
		t.Errorf("untracked %d, want %d", s.Session.Untracked, n-session.MaxOutstanding)
	}
	var unanswered, unknown int
	for _, f := range s.Findings {
		switch f.Rule {
		case "MCP3001":
			unanswered++
			if unanswered == 1 && f.Line != 3+5001 {
				t.Errorf("first MCP3001 at line %d, want %d (the oldest request still followed)", f.Line, 3+5001)
			}
		case "MCP3002":
			unknown++
		}
	}
	if unknown != 0 {
		t.Errorf("%d MCP3002 findings for a response to a dropped request, want none", unknown)
	}
	if unanswered != rule.DefaultFindingLimit {
		t.Errorf("%d MCP3001 findings, want the limit %d", unanswered, rule.DefaultFindingLimit)
	}
	notes := strings.Join(s.Notes, "\n")
	for _, want := range []string{"MCP3001 unanswered-request could not judge 5000 messages: requests dropped from tracking", "MCP3002 unknown-response could not judge 1 message: a response that may answer one of the requests dropped"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}

// More progress tokens in flight than MCP3006 remembers: the tokens are forgotten
// and said so, and progress for a forgotten token is not judged (it was reported
// as progress for a token no request carried), while progress for a token carried
// after the bound is still judged.
func TestProgressTokenFloodIsBounded(t *testing.T) {
	const n = session.MaxOutstanding + 5000
	var b strings.Builder
	b.WriteString(`{"dir":"c->s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}` + "\n")
	b.WriteString(`{"dir":"s->c","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}}` + "\n")
	b.WriteString(`{"dir":"c->s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}` + "\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `{"dir":"c->s","msg":{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"x","arguments":{},"_meta":{"progressToken":"t%d"}}}}`+"\n", i, i)
	}
	// Progress for the first token (forgotten), then twice the same value for the
	// last one (remembered: judged).
	b.WriteString(`{"dir":"s->c","msg":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":1}}}` + "\n")
	last := fmt.Sprintf(`{"dir":"s->c","msg":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t%d","progress":1}}}`+"\n", n)
	b.WriteString(last + last)
	res, err := driver.Run("progress-flood.jsonl", strings.NewReader(b.String()), rules.All(), driver.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Sessions[0]
	var got []string
	for _, f := range s.Findings {
		if f.Rule == "MCP3006" {
			got = append(got, fmt.Sprintf("%d %s", f.Line, f.Message))
		}
	}
	want := []string{fmt.Sprintf("%d server sent progress for token \"t%d\" that went from 1 (line %d) to 1: the value must increase with each notification", n+6, n, n+5)}
	if !slices.Equal(got, want) {
		t.Errorf("MCP3006 findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	notes := strings.Join(s.Notes, "\n")
	if w := "MCP3006 bad-progress could not judge 2 messages: more than 20480 progress tokens in flight: the earlier ones were forgotten"; !strings.Contains(notes, w) {
		t.Errorf("notes lack %q:\n%s", w, notes)
	}
}

// A file cut into regions judged apart (driver.RunOptions.RegionBytes) must give
// what the whole file gives: every fixture cut at every line that may start a
// session, on two and three workers, in the order sessions end (OnSession) and
// in the report's order; and all the fixtures of a kind one after another, so that
// cuts fall between captures of every sort, in the middle of sessions that
// continue, and in files that mix formats (where the cuts must fail).
func TestRegionsChangeNothing(t *testing.T) {
	whole := driver.RunOptions{RegionBytes: -1}
	ended := func(path string, data []byte, opt driver.RunOptions) string {
		var b strings.Builder
		opt.Discard = true
		opt.OnSession = func(sr *rule.SessionResult) {
			fmt.Fprintf(&b, "session %d lines %d-%d ended by %d findings %d\n", sr.Session.Index, sr.Session.FirstLine, sr.Session.LastLine, sr.Session.EndedBy, len(sr.Findings))
		}
		res, err := driver.Run(path, bytes.NewReader(data), rules.All(), opt)
		if err != nil {
			return "unreadable: " + err.Error()
		}
		fmt.Fprintf(&b, "stats %+v broken %v\n", res.Stats, res.Broken)
		return b.String()
	}
	cut, kept := 0, 0
	for _, path := range captures(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ref, refEnded := verdicts(t, path, whole), ended(path, data, whole)
		for _, workers := range []int{2, 3} {
			opt := driver.RunOptions{RegionBytes: 1, RegionWorkers: workers}
			if got := verdicts(t, path, opt); got != ref {
				t.Errorf("%s: findings differ cut into regions on %d workers:\n--- whole\n%s--- regions\n%s", path, workers, ref, got)
			}
			if got := ended(path, data, opt); got != refEnded {
				t.Errorf("%s: sessions end otherwise cut into regions on %d workers:\n--- whole\n%s--- regions\n%s", path, workers, refEnded, got)
			}
		}
		if bytes.Count(data, []byte(`"initialize"`)) > 1 {
			cut++
		}
		kept += keptCuts(path, data)
		// The fixture followed by a session of its own, in two line formats: the
		// cut before it is checked against every state a fixture ends in.
		for _, tail := range []string{envelopeTail, bareTail} {
			long := append(bytes.Clone(data), '\n')
			long = append(long, tail...)
			tailed := filepath.Join(t.TempDir(), filepath.Base(path))
			if err := os.WriteFile(tailed, long, 0o644); err != nil {
				t.Fatal(err)
			}
			want, got := verdicts(t, tailed, whole), verdicts(t, tailed, driver.RunOptions{RegionBytes: 1, RegionWorkers: 2})
			if got != want {
				t.Errorf("%s followed by a session: findings differ cut into regions:\n%s", path, ruletest.FirstDifference(want, got))
			}
			kept += keptCuts(tailed, long)
		}
	}
	if cut < 10 || kept < 100 {
		t.Errorf("%d fixtures have more than one line to cut at, and %d cuts were kept in all: the regions are hardly tested", cut, kept)
	}
	// Every fixture of a suffix, one after another in one file.
	defer func() { t.Logf("%d cuts kept", kept) }()
	bySuffix := map[string]*bytes.Buffer{}
	for _, path := range captures(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ext := filepath.Ext(path)
		if bySuffix[ext] == nil {
			bySuffix[ext] = &bytes.Buffer{}
		}
		b := bySuffix[ext]
		b.Write(data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	for ext, b := range bySuffix {
		name := "all" + ext
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		ref := verdicts(t, path, whole)
		kept += keptCuts(path, b.Bytes())
		for _, size := range []int{1, 4 << 10, 64 << 10} {
			opt := driver.RunOptions{RegionBytes: size, RegionWorkers: 2}
			if got := verdicts(t, path, opt); got != ref {
				t.Errorf("%s (%d bytes): findings differ cut into regions of %d bytes:\n%s", name, b.Len(), size, ruletest.FirstDifference(ref, got))
			}
			if got, want := ended(path, b.Bytes(), opt), ended(path, b.Bytes(), whole); got != want {
				t.Errorf("%s: sessions end otherwise cut into regions of %d bytes:\n%s", name, size, ruletest.FirstDifference(want, got))
			}
		}
	}
}

// A healthy session of its own, in envelope JSONL and in bare JSON-RPC lines.
const (
	envelopeTail = `{"ts":"2026-12-01T10:00:00Z","dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"tail","version":"1"}}}}
{"ts":"2026-12-01T10:00:01Z","dir":"s2c","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"tail","version":"1"}}}}
{"ts":"2026-12-01T10:00:02Z","dir":"c2s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}
{"ts":"2026-12-01T10:00:03Z","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}
{"ts":"2026-12-01T10:00:04Z","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}}
`
	bareTail = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"tail","version":"1"}}}
{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"tail","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":1,"method":"tools/list"}
{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}
`
)

// keptCuts is how many cuts into regions of a byte each a run of data kept.
func keptCuts(path string, data []byte) int {
	res, err := driver.Run(path, bytes.NewReader(data), rules.All(), driver.RunOptions{RegionBytes: 1, RegionWorkers: 2})
	if err != nil || res.Regions < 2 {
		return 0
	}
	return res.Regions - 1
}

// A cut that fails does not end the cutting: the region before goes on over the
// next one's lines, and a later cut may be kept (a tools/call whose arguments
// name "method":"initialize" is a line the cutter picks and no session starts
// at); after maxFailedCuts in a row (another stream's session open all along)
// the rest of the file goes on one analysis, its sessions handed on as they end.
// Both give what the whole file gives.
func TestRegionsGoOnPastFailedCuts(t *testing.T) {
	var decoys, streams bytes.Buffer
	line := envelopeWriter(&decoys)
	const sessions = 40
	for range sessions {
		toolsHandshake(line)
		line("c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"proxy","arguments":{"method":"initialize"}}}`)
		line("s2c", `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`)
		line("c2s", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"lost","arguments":{}}}`) // never answered: MCP3001 at each session's end
	}
	keyed := func(key, dir, msg string) {
		fmt.Fprintf(&streams, `{"dir":"%s","session_id":"%s","msg":%s}`+"\n", dir, key, msg)
	}
	keyed("a", "c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"a","version":"1"}}}`)
	for i := range sessions {
		keyed("b", "c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`)
		keyed("b", "s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`)
		keyed("b", "c2s", `{"jsonrpc":"2.0","id":1,"method":"ping"}`) // never answered
		keyed("a", "c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i+1))
	}
	for _, c := range []struct {
		name    string
		data    []byte
		regions int // regions kept
	}{
		{"decoys", decoys.Bytes(), sessions},
		{"two streams", streams.Bytes(), 1},
	} {
		path := filepath.Join(t.TempDir(), c.name+".jsonl")
		if err := os.WriteFile(path, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		want := verdicts(t, path, driver.RunOptions{RegionBytes: -1})
		for _, workers := range []int{2, 3} {
			opt := driver.RunOptions{RegionBytes: 1, RegionWorkers: workers}
			if got := verdicts(t, path, opt); got != want {
				t.Errorf("%s, %d workers: findings differ cut into regions:\n%s", c.name, workers, ruletest.FirstDifference(want, got))
			}
			var ended strings.Builder
			opt.Discard, opt.OnSession = true, func(sr *rule.SessionResult) {
				fmt.Fprintf(&ended, "session %d lines %d-%d findings %d\n", sr.Session.Index, sr.Session.FirstLine, sr.Session.LastLine, len(sr.Findings))
			}
			res, err := driver.Run(path, bytes.NewReader(c.data), rules.All(), opt)
			if err != nil {
				t.Fatal(err)
			}
			if res.Regions != c.regions {
				t.Errorf("%s, %d workers: %d regions kept, want %d", c.name, workers, res.Regions, c.regions)
			}
			var whole strings.Builder
			wopt := driver.RunOptions{RegionBytes: -1, Discard: true, OnSession: func(sr *rule.SessionResult) {
				fmt.Fprintf(&whole, "session %d lines %d-%d findings %d\n", sr.Session.Index, sr.Session.FirstLine, sr.Session.LastLine, len(sr.Findings))
			}}
			if _, err := driver.Run(path, bytes.NewReader(c.data), rules.All(), wopt); err != nil {
				t.Fatal(err)
			}
			if ended.String() != whole.String() {
				t.Errorf("%s, %d workers: sessions end otherwise:\n%s", c.name, workers, ruletest.FirstDifference(whole.String(), ended.String()))
			}
		}
	}
}

// A compressed file is never cut: a gzip file written without compression holds
// its lines as they are, between block headers, where the cutter would find them.
func TestRegionsLeaveCompressedFilesWhole(t *testing.T) {
	var plain bytes.Buffer
	line := envelopeWriter(&plain)
	for i := range 300 {
		toolsHandshake(line)
		line("c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"n%d","arguments":{}}}`, i)
	}
	var stored bytes.Buffer
	zw, err := gzip.NewWriterLevel(&stored, gzip.NoCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write(plain.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(stored.Bytes(), []byte("\n"+`{"dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize"`)) {
		t.Fatal("the stored gzip file does not hold the lines as they are: the test tests nothing")
	}
	path := filepath.Join(t.TempDir(), "stored.jsonl.gz")
	if err := os.WriteFile(path, stored.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	want := verdicts(t, path, driver.RunOptions{RegionBytes: -1})
	opt := driver.RunOptions{RegionBytes: 1, RegionWorkers: 2}
	if got := verdicts(t, path, opt); got != want {
		t.Errorf("findings differ on a stored gzip file with regions on:\n%s", ruletest.FirstDifference(want, got))
	}
	if res, err := driver.Run(path, bytes.NewReader(stored.Bytes()), rules.All(), opt); err != nil || res.Regions != 0 {
		t.Errorf("a gzip file was cut into %d regions (err %v)", res.Regions, err)
	}
}

// A Go SDK log is cut too, its regions resumed with the side that wrote it as
// the first region inferred it: a log a client wrote followed by one a server
// wrote reads the second part with the client's perspective, as the whole run
// does (the side is inferred once).
func TestRegionsKeepTheLogsPerspective(t *testing.T) {
	var b bytes.Buffer
	for _, side := range []struct{ out, in string }{{"write", "read"}, {"read", "write"}} {
		for i := range 30 {
			fmt.Fprintf(&b, "2026/12/01 10:00:%02d %s: {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}\n", i, side.out)
			fmt.Fprintf(&b, "2026/12/01 10:00:%02d %s: {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}\n", i, side.in)
			fmt.Fprintf(&b, "2026/12/01 10:00:%02d %s: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n", i, side.out)
			fmt.Fprintf(&b, "2026/12/01 10:00:%02d %s: {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n", i, side.out)
		}
	}
	path := filepath.Join(t.TempDir(), "two-sides.log")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	want := verdicts(t, path, driver.RunOptions{RegionBytes: -1})
	if !strings.Contains(want, "gosdk-log") {
		t.Fatalf("not read as a Go SDK log:\n%s", want)
	}
	for _, workers := range []int{2, 3} {
		opt := driver.RunOptions{RegionBytes: 1, RegionWorkers: workers}
		if got := verdicts(t, path, opt); got != want {
			t.Errorf("%d workers: findings differ cut into regions:\n%s", workers, ruletest.FirstDifference(want, got))
		}
		if res, err := driver.Run(path, bytes.NewReader(b.Bytes()), rules.All(), opt); err != nil || res.Regions < 30 {
			t.Errorf("%d workers: %d regions kept (err %v): the client's part is not cut", workers, res.Regions, err)
		}
	}
}
