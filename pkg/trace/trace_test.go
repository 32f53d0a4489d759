package trace_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// The seed article's handshake: the server declares resources without listChanged
// and sends resources/list_changed anyway; the client never lists again.
const seed = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true},"sampling":{}},"clientInfo":{"name":"client-b","version":"3.2.0"}}}
{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true},"resources":{}},"serverInfo":{"name":"invoices","version":"1.9.3"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":1,"method":"tools/list"}
{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}
{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_invoice"}}
`

func traced(t *testing.T, capture string, opt trace.Options) (*trace.Tracer, *driver.InputResult) {
	t.Helper()
	tr := trace.New(opt)
	ropt := driver.RunOptions{}
	tr.Apply(&ropt)
	res, err := driver.Run("seed.jsonl", strings.NewReader(capture), nil, ropt)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sessions) != 1 {
		t.Fatalf("%d sessions", len(res.Sessions))
	}
	return tr, res
}

func TestRequireNothing(t *testing.T) {
	if trace.Require(trace.Options{}) != nil {
		t.Errorf("a tracer for no needs")
	}
	var none *trace.Tracer
	opt := driver.RunOptions{}
	none.Apply(&opt)
	if len(opt.Analyses) != 0 || opt.OnContext != nil || none.Of(nil) != nil {
		t.Errorf("a nil tracer changed the run")
	}
	if got := (trace.Needs{Frames: true}).Union(trace.Needs{Contract: true}); got != (trace.Needs{Frames: true, Contract: true}) {
		t.Errorf("Union = %+v", got)
	}
}

func TestFramesAndReactions(t *testing.T) {
	tr, res := traced(t, seed, trace.Options{Needs: trace.Needs{Frames: true}})
	got := tr.Of(res.Sessions[0])
	if got == nil || got.Total != 7 || len(got.Frames) != 7 {
		t.Fatalf("trace %+v", got)
	}
	byLine := map[int]trace.FrameSummary{}
	for _, fs := range got.Frames {
		byLine[fs.Line] = fs
	}
	if fs := byLine[4]; fs.Kind != trace.KindRequest || fs.ResponseLine != 5 {
		t.Errorf("line 4 = %+v", fs)
	}
	if fs := byLine[5]; fs.Kind != trace.KindResult || fs.Method != "tools/list" || fs.RequestLine != 4 {
		t.Errorf("line 5 = %+v", fs)
	}
	if r := byLine[6].Reaction; !r.Dropped() || r.Missing() || r.Expected != "resources/list or resources/templates/list" || r.Undeclared != "the server declared resources without listChanged" || r.Receiver != spec.Client {
		t.Errorf("line 6 reaction = %+v", r)
	}
	if fs := byLine[7]; !fs.Unanswered || fs.Subject != "get_invoice" {
		t.Errorf("line 7 = %+v", fs)
	}
	if v := got.Session; !v.HasContract || v.Revision != spec.Rev20250618 || v.Verdict != "echoed" || v.ServerLine != 2 || v.Server.Name != "invoices" {
		t.Errorf("session view %+v", v)
	}
	if got.Contract != nil || got.Handshake != nil {
		t.Errorf("contract or handshake computed without being needed")
	}
}

func TestContractTable(t *testing.T) {
	tr, res := traced(t, seed, trace.Options{Needs: trace.Needs{Contract: true}})
	rows := map[string]trace.CapabilityRow{}
	for _, row := range tr.Of(res.Sessions[0]).Contract {
		rows[row.Side.String()+"."+row.Path] = row
	}
	if row := rows["server.resources.listChanged"]; row.Declared || !row.Known || len(row.Uses) != 1 || row.Uses[0].Lines[0] != 6 {
		t.Errorf("server.resources.listChanged = %+v", row)
	}
	if row := rows["server.tools"]; !row.Declared || len(row.Uses) != 2 {
		t.Errorf("server.tools = %+v", row)
	}
	if row := rows["client.sampling"]; !row.Declared || len(row.Uses) != 0 {
		t.Errorf("client.sampling = %+v", row)
	}
}

func TestHandshake(t *testing.T) {
	tr, res := traced(t, seed, trace.Options{Needs: trace.Needs{Handshake: true}})
	h := tr.Of(res.Sessions[0]).Handshake
	if h == nil || h.Negotiated != "2025-06-18" || h.Verdict != "echoed" || h.Client.Name != "client-b" {
		t.Fatalf("handshake %+v", h)
	}
	allowed := map[string]trace.Permission{}
	for _, p := range h.Permissions {
		allowed[p.Method+" "+p.Sender] = p
	}
	if p := allowed["notifications/resources/list_changed server"]; p.Allowed || p.Why != "the server declared resources without listChanged" {
		t.Errorf("resources/list_changed: %+v", p)
	}
	if p := allowed["sampling/createMessage server"]; !p.Allowed {
		t.Errorf("sampling/createMessage: %+v", p)
	}
	promised := map[string]string{}
	for _, p := range h.Promises {
		promised[p.Side+"."+p.Capability] = p.Must
	}
	if !strings.Contains(promised["server.tools.listChanged"], "notifications/tools/list_changed") || promised["server.resources.listChanged"] != "" {
		t.Errorf("promises %v", promised)
	}
	lacks := map[string]string{}
	for _, l := range h.Lacking {
		lacks[l.Feature] = l.Detail
	}
	for feature, detail := range map[string]string{
		"JSON-RPC batching":                "removed in 2025-06-18: send messages one by one",
		"tasks/get":                        "not in 2025-06-18 (from 2025-11-25)",
		"client.tasks capability":          "not in 2025-06-18 (from 2025-11-25)",
		"client.sampling.tools capability": "not in 2025-06-18 (from 2025-11-25)",
	} {
		if lacks[feature] != detail {
			t.Errorf("lacking %s = %q, want %q", feature, lacks[feature], detail)
		}
	}
}

// TestContextLines: context lines go to the session that saw the last frame, or
// to the preamble before any.
func TestContextLines(t *testing.T) {
	capture := "server starting\n" + strings.Replace(seed, "\n", "\ncache warmed\n", 1)
	tr, res := traced(t, capture, trace.Options{Needs: trace.Needs{Frames: true, Context: true}})
	if len(tr.Preamble) != 1 || tr.Preamble[0].Text != "server starting" {
		t.Errorf("preamble %+v", tr.Preamble)
	}
	frames := tr.Of(res.Sessions[0]).Frames
	if len(frames) < 2 || !frames[1].Context || frames[1].Text != "cache warmed" || frames[1].Line != 3 {
		t.Errorf("frames %+v", frames[:2])
	}
}

// exchangeTrace traces the HAR whose entry 3 (line 134) is a GET refused with
// 400, with MCP0005 running.
func exchangeTrace(t *testing.T, needs trace.Needs) (*trace.Trace, *rule.SessionResult) {
	t.Helper()
	f, err := os.Open("../../fixtures/rules/MCP0005-fires-get-refused.har")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, ok := rules.Lookup(rules.All(), "MCP0005")
	if !ok {
		t.Fatal("no MCP0005")
	}
	tr := trace.New(trace.Options{Needs: needs})
	ropt := driver.RunOptions{}
	tr.Apply(&ropt)
	res, err := driver.Run("get-refused.har", f, []*rule.Rule{r}, ropt)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sessions) != 1 {
		t.Fatalf("%d sessions", len(res.Sessions))
	}
	return tr.Of(res.Sessions[0]), res.Sessions[0]
}

// TestExchangeEntries: an HTTP exchange that carried no message is an entry of
// the timeline at its line (method, path, status, entry), between the frames
// around it, no frame of the session; with context lines kept it is set on its
// record's context line instead, never listed twice.
func TestExchangeEntries(t *testing.T) {
	want := trace.HTTPExchange{Entry: 3, Number: 3, Method: "GET", Path: "/mcp", Status: 400, StatusText: "Bad Request"}
	got, _ := exchangeTrace(t, trace.Needs{Frames: true})
	var lines []int
	for _, fs := range got.Frames {
		lines = append(lines, fs.Line)
		if fs.Line != 134 {
			if fs.Exchange != nil {
				t.Errorf("line %d: an exchange %+v", fs.Line, *fs.Exchange)
			}
			continue
		}
		if fs.Exchange == nil || *fs.Exchange != want || !fs.IsExchange() || fs.Seq != 0 || fs.Context || fs.Time.IsZero() {
			t.Errorf("line 134: %+v, exchange %+v", fs, fs.Exchange)
		}
	}
	if fmt.Sprint(lines) != "[36 57 105 134 226 243 243 291 308]" {
		t.Errorf("lines %v", lines)
	}
	if got.Total != 8 {
		t.Errorf("total %d frames, want 8 (the exchange is no frame)", got.Total)
	}

	got, _ = exchangeTrace(t, trace.Needs{Frames: true, Context: true})
	n := 0
	for _, fs := range got.Frames {
		if fs.Line == 134 {
			n++
			if !fs.Context || fs.Exchange == nil || *fs.Exchange != want || fs.IsExchange() {
				t.Errorf("line 134 with context: %+v", fs)
			}
		}
	}
	if n != 1 {
		t.Errorf("line 134 listed %d times with context lines", n)
	}
}

// TestDiagramDrawsFlaggedExchange: the diagram draws an exchange a finding is
// about (from its context line too), and no other context line.
func TestDiagramDrawsFlaggedExchange(t *testing.T) {
	for _, needs := range []trace.Needs{{Frames: true}, {Frames: true, Context: true}} {
		got, sr := exchangeTrace(t, needs)
		var drawn []string
		for _, fs := range trace.DiagramFrames(got, trace.AnchorsOf(sr.Findings)) {
			if fs.Context {
				t.Errorf("context=%v: a context line drawn: %+v", needs.Context, fs)
			}
			if fs.Exchange != nil {
				drawn = append(drawn, fmt.Sprintf("%d %s %s %d", fs.Line, fs.Exchange.Method, fs.Exchange.Path, fs.Exchange.Status))
			}
		}
		if fmt.Sprint(drawn) != "[134 GET /mcp 400]" {
			t.Errorf("context=%v: exchanges drawn %v", needs.Context, drawn)
		}
		// Without the finding, the exchange is not drawn.
		if frames := trace.DiagramFrames(got, nil); slices.ContainsFunc(frames, func(fs trace.FrameSummary) bool { return fs.Exchange != nil }) {
			t.Errorf("context=%v: an exchange no finding is about was drawn", needs.Context)
		}
	}
}

// A flood of unanswered requests: the requests the session gave up are settled as
// unanswered (a late response to one of them is not paired), the newer ones still
// get their response.
func TestUnansweredFloodSummaries(t *testing.T) {
	n := 2*session.MaxOutstanding + 100
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}` + "\n")
	b.WriteString(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}` + "\n")
	b.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`+"\n", i)
	}
	fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"result":{"tools":[]}}`+"\n", n)
	b.WriteString(`{"jsonrpc":"2.0","id":50,"result":{"tools":[]}}` + "\n")
	tr, res := traced(t, b.String(), trace.Options{Needs: trace.Needs{Frames: true}, MaxFrames: n + 10})
	got := tr.Of(res.Sessions[0])
	byLine := map[int]trace.FrameSummary{}
	for _, fs := range got.Frames {
		byLine[fs.Line] = fs
	}
	for _, c := range []struct {
		line       int
		unanswered bool
		response   int
	}{{4, true, 0}, {3 + 50, true, 0}, {3 + n, false, 4 + n}, {3 + n - 1, true, 0}} {
		fs := byLine[c.line]
		if fs.Unanswered != c.unanswered || fs.ResponseLine != c.response {
			t.Errorf("request at line %d: unanswered %v, response line %d; want %v, %d", c.line, fs.Unanswered, fs.ResponseLine, c.unanswered, c.response)
		}
	}
}

// TestMaxRunFrames: with a cap over the run, the sessions keep frames until the
// run has kept that many, then keep none, counting them and saying the cap was
// the run's; without one, every session keeps all its frames.
func TestMaxRunFrames(t *testing.T) {
	var b strings.Builder
	for s := range 3 { // three sessions of 3 + 4 frames, lines 1-7, 8-14, 15-21
		b.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}` + "\n")
		b.WriteString(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}` + "\n")
		b.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
		for i := 1; i <= 2; i++ {
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`+"\n", 10*s+i)
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"result":{"tools":[]}}`+"\n", 10*s+i)
		}
	}
	for _, c := range []struct {
		max      int
		kept     []int
		cappedAt []int
		runCap   []int
	}{
		{0, []int{7, 7, 7}, []int{0, 0, 0}, []int{0, 0, 0}},
		{10, []int{7, 3, 0}, []int{0, 11, 15}, []int{0, 10, 10}},
		{14, []int{7, 7, 0}, []int{0, 0, 15}, []int{0, 0, 14}},
	} {
		tr := trace.New(trace.Options{Needs: trace.Needs{Frames: true}, MaxRunFrames: c.max})
		ropt := driver.RunOptions{}
		tr.Apply(&ropt)
		res, err := driver.Run("seed.jsonl", strings.NewReader(b.String()), nil, ropt)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Sessions) != 3 {
			t.Fatalf("%d sessions", len(res.Sessions))
		}
		for i, sr := range res.Sessions {
			got := tr.Of(sr)
			if len(got.Frames) != c.kept[i] || got.Omitted != 7-c.kept[i] || got.CappedAt != c.cappedAt[i] || got.RunCap != c.runCap[i] || got.Capped != (c.kept[i] < 7) {
				t.Errorf("MaxRunFrames %d, session %d: kept %d, omitted %d, capped %v at %d, the run's cap %d; want %d, %d, %v at %d, %d",
					c.max, i+1, len(got.Frames), got.Omitted, got.Capped, got.CappedAt, got.RunCap, c.kept[i], 7-c.kept[i], c.kept[i] < 7, c.cappedAt[i], c.runCap[i])
			}
		}
	}
}

// TestRunCapCountsOtherEntries: context lines and HTTP exchanges past the run's
// cap are counted (Trace.OmittedOther) and mark the trace capped, so that a
// session whose only entries past the cap are such lines still says the cap was
// reached, and from which line.
func TestRunCapCountsOtherEntries(t *testing.T) {
	var b strings.Builder
	msg := func(from, json string) {
		fmt.Fprintf(&b, "2026-11-30T03:00:00.000Z [srv] [info] Message from %s: %s { metadata: undefined }\n", from, json)
	}
	msg("client", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	msg("server", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`)
	msg("client", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	msg("client", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	msg("server", `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`)
	b.WriteString("2026-11-30T03:00:01.000Z [srv] [info] Server stderr: cache warmed\n")      // line 6
	b.WriteString("2026-11-30T03:00:02.000Z [srv] [info] Server stderr: shutting down now\n") // line 7
	tr := trace.New(trace.Options{Needs: trace.Needs{Frames: true, Context: true}, MaxRunFrames: 5})
	ropt := driver.RunOptions{}
	tr.Apply(&ropt)
	res, err := driver.Run("claude.log", strings.NewReader(b.String()), nil, ropt)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sessions) != 1 {
		t.Fatalf("%d sessions", len(res.Sessions))
	}
	got := tr.Of(res.Sessions[0])
	if len(got.Frames) != 5 || got.Omitted != 0 || got.OmittedOther != 2 || !got.Capped || got.CappedAt != 6 || got.RunCap != 5 {
		t.Errorf("kept %d, omitted %d frames and %d other entries, capped %v at %d, the run's cap %d; want 5, 0, 2, true at 6, 5",
			len(got.Frames), got.Omitted, got.OmittedOther, got.Capped, got.CappedAt, got.RunCap)
	}
}
