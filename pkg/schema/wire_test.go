package schema_test

import (
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/schema"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// Every request and notification of the method table has a definition in the
// schema of each revision it belongs to, for the side that sends it: the selection
// by the unions' method consts cannot drift from the spec.
func TestEveryMethodHasADefinition(t *testing.T) {
	for _, m := range spec.Methods() {
		if m.Extension != "" || m.Kind == spec.KindInputRequest {
			continue
		}
		for _, rev := range m.Revisions {
			d, err := schema.DocFor(rev)
			if err != nil {
				t.Fatal(err)
			}
			sender := spec.Sender(m.Dir)
			var ok bool
			var target schema.Target
			if m.Kind == spec.KindRequest {
				target, ok = d.Request(m.Name, sender)
			} else {
				target, ok = d.Notification(m.Name, sender)
			}
			if !ok {
				t.Errorf("%s: %s %s sent by the %s has no definition", rev, m.Kind, m.Name, sender)
				continue
			}
			if m.Kind == spec.KindRequest {
				if _, ok := d.Result(m.Name, sender, false); !ok {
					t.Errorf("%s: %s (%s) has no result definition", rev, m.Name, target.Definition)
				}
			}
		}
	}
}

func TestSelection(t *testing.T) {
	type sel struct {
		rev    spec.Revision
		get    func(*schema.Doc) (schema.Target, bool)
		want   string
		member string
	}
	request := func(method string, side spec.Side) func(*schema.Doc) (schema.Target, bool) {
		return func(d *schema.Doc) (schema.Target, bool) { return d.Request(method, side) }
	}
	result := func(method string, side spec.Side, task bool) func(*schema.Doc) (schema.Target, bool) {
		return func(d *schema.Doc) (schema.Target, bool) { return d.Result(method, side, task) }
	}
	notification := func(method string, side spec.Side) func(*schema.Doc) (schema.Target, bool) {
		return func(d *schema.Doc) (schema.Target, bool) { return d.Notification(method, side) }
	}
	errorDef := func(d *schema.Doc) (schema.Target, bool) { return d.Error(), true }
	for _, c := range []sel{
		{"2024-11-05", request("tools/call", spec.Client), "CallToolRequest", ""},
		{"2025-06-18", request("tools/call", 0), "CallToolRequest", ""},
		{"2025-06-18", request("ping", spec.Server), "PingRequest", ""},
		{"2025-06-18", request("sampling/createMessage", spec.Server), "CreateMessageRequest", ""},
		{"2025-06-18", result("tools/call", spec.Client, false), "CallToolResult", "result"},
		{"2025-06-18", result("tools/list", spec.Client, false), "ListToolsResult", "result"},
		{"2025-06-18", result("initialize", spec.Client, false), "InitializeResult", "result"},
		{"2025-06-18", result("ping", spec.Client, false), "EmptyResult", "result"},
		{"2025-06-18", result("logging/setLevel", spec.Client, false), "EmptyResult", "result"},
		{"2025-06-18", result("elicitation/create", spec.Server, false), "ElicitResult", "result"},
		{"2025-06-18", notification("notifications/message", spec.Server), "LoggingMessageNotification", ""},
		{"2025-06-18", notification("notifications/cancelled", spec.Client), "CancelledNotification", ""},
		{"2025-06-18", errorDef, "JSONRPCError", ""},
		{"2025-11-25", errorDef, "JSONRPCErrorResponse", ""},
		{"2025-11-25", result("tools/call", spec.Client, true), "CreateTaskResult", "result"},
		{"2025-11-25", result("tools/call", spec.Client, false), "CallToolResult", "result"},
		{"2025-11-25", result("tools/list", spec.Client, true), "ListToolsResult", "result"}, // not task-augmentable
		{"2025-11-25", result("sampling/createMessage", spec.Server, true), "CreateTaskResult", "result"},
		// ElicitRequestParams is a union of the form and URL params, each taking "task"
		{"2025-11-25", result("elicitation/create", spec.Server, true), "CreateTaskResult", "result"},
		{"2025-11-25", result("elicitation/create", spec.Server, false), "ElicitResult", "result"},
		{"2025-06-18", result("elicitation/create", spec.Server, true), "ElicitResult", "result"}, // no tasks before 2025-11-25
		{"2025-11-25", result("tasks/get", spec.Client, false), "GetTaskResult", "result"},
		{"2026-07-28", result("tools/call", spec.Client, false), "CallToolResultResponse", ""},
		{"2026-07-28", result("server/discover", spec.Client, false), "DiscoverResultResponse", ""},
		{"2026-07-28", request("subscriptions/listen", spec.Client), "SubscriptionsListenRequest", ""},
	} {
		d, err := schema.DocFor(c.rev)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := c.get(d)
		if !ok || got.Definition != c.want || got.Member != c.member {
			t.Errorf("%s: got %+v (%v), want %s member %q", c.rev, got, ok, c.want, c.member)
		}
	}
	// A result's "task" member matters only where it changes the definition.
	for _, c := range []struct {
		rev    spec.Revision
		method string
		sender spec.Side
		want   bool
	}{
		{spec.Rev20251125, "tools/call", spec.Client, true},
		{spec.Rev20251125, "elicitation/create", spec.Server, true},
		{spec.Rev20251125, "tools/list", spec.Client, false},
		{spec.Rev20250618, "tools/call", spec.Client, false},
		{spec.Rev20260728, "tools/call", spec.Client, false},
	} {
		d, err := schema.DocFor(c.rev)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.TaskMatters(c.method, c.sender); got != c.want {
			t.Errorf("%s %s: TaskMatters = %v, want %v", c.rev, c.method, got, c.want)
		}
	}
	// What a revision does not define has no definition.
	d, _ := schema.DocFor(spec.Rev20260728)
	if _, ok := d.Request("ping", spec.Client); ok {
		t.Error("2026-07-28 defines no ping request")
	}
	if _, ok := d.Request("roots/list", spec.Server); ok {
		t.Error("2026-07-28 has no server requests")
	}
	d, _ = schema.DocFor(spec.Rev20250326)
	if _, ok := d.Request("elicitation/create", spec.Server); ok {
		t.Error("2025-03-26 defines no elicitation")
	}
	if _, err := schema.For("1999-01-01"); err == nil {
		t.Error("For accepted an unknown revision")
	}
}

// Violations read like a client validator's log: pointer, keyword, Ajv-style message
// and the offending value; a failed anyOf is resolved to the branch the value meant.
func TestCheckViolations(t *testing.T) {
	w, err := schema.For(spec.Rev20250618)
	if err != nil {
		t.Fatal(err)
	}
	d := w.Doc()
	call, _ := d.Request("tools/call", spec.Client)
	callResult, _ := d.Result("tools/call", spec.Client, false)
	read, _ := d.Request("resources/read", spec.Client)
	readResult, _ := d.Result("resources/read", spec.Client, false)
	logMsg, _ := d.Notification("notifications/message", spec.Server)
	for _, c := range []struct {
		name   string
		target schema.Target
		raw    string
		want   []string // ClientStyle of each violation
	}{
		{"valid call", call, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"x":1}}}`, nil},
		{"name of the wrong type", call, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":42}}`,
			[]string{`instancePath: /params/name  keyword: type  message: must be string  data: 42`}},
		{"missing params", call, `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`,
			[]string{`instancePath:   keyword: required  message: must have required property 'params'  data: {"jsonrpc":"2.0","id":1,"method":"tools/call"}`}},
		{"text block without text", callResult, `{"content":[{"type":"text"}]}`,
			[]string{`instancePath: /result/content/0  keyword: required  message: must have required property 'text'  data: {"type":"text"}`}},
		{"image block with a number for data", callResult, `{"content":[{"type":"image","data":5,"mimeType":"image/png"}]}`,
			[]string{`instancePath: /result/content/0/data  keyword: type  message: must be string  data: 5`}},
		{"unknown content type", callResult, `{"content":[{"type":"video","text":"x"}]}`,
			[]string{`instancePath: /result/content/0  keyword: anyOf  message: must match a schema in anyOf  data: {"type":"video","text":"x"}`}},
		{"relative uri", read, `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"notes.txt"}}`,
			[]string{`instancePath: /params/uri  keyword: format  message: must match format "uri"  data: "notes.txt"`}},
		{"blob of the wrong type", readResult, `{"contents":[{"uri":"file:///a","blob":5}]}`,
			[]string{`instancePath: /result/contents/0/blob  keyword: type  message: must be string  data: 5`}},
		{"log level", logMsg, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"verbose","data":1}}`,
			[]string{`instancePath: /params/level  keyword: enum  message: must be equal to one of the allowed values ("alert","critical","debug","emergency","error","info","notice","warning")  data: "verbose"`}},
	} {
		raw := []byte(c.raw)
		if c.target.Member == "result" {
			raw = []byte(c.raw) // the result member itself
		}
		vs, err := w.Check(c.target, raw)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		var got []string
		for _, v := range vs {
			got = append(got, v.ClientStyle())
		}
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// Extra members are allowed everywhere: the official schemas never forbid them
// (no additionalProperties: false), so fields of other revisions are MCP1010's info,
// never a schema violation.
func TestNoAdditionalPropertiesFalse(t *testing.T) {
	for _, rev := range spec.Revisions() {
		if strings.Contains(string(spec.Schema(rev)), `"additionalProperties": false`) {
			t.Errorf("%s: the schema forbids additional properties somewhere: revisit MCP4001 vs MCP1010", rev)
		}
	}
	w, _ := schema.For(spec.Rev20250618)
	res, _ := w.Doc().Result("tools/list", spec.Client, false)
	vs, err := w.Check(res, []byte(`{"tools":[],"ttlMs":0,"cacheScope":"public","nextCursor":"x"}`))
	if err != nil || len(vs) != 0 {
		t.Errorf("2025-06-18 tools/list result with 2026-07-28 fields: %v %v", vs, err)
	}
}

func TestToolSchemaTarget(t *testing.T) {
	for _, c := range []struct {
		rev        spec.Revision
		member     string
		defined    bool
		raw        string
		violations int
	}{
		{"2025-03-26", "outputSchema", false, "", 0},
		{"2025-06-18", "inputSchema", true, `{"type":"object"}`, 0},
		{"2025-06-18", "inputSchema", true, `{"type":"array"}`, 1},
		{"2025-06-18", "inputSchema", true, `{"properties":{}}`, 1},
		{"2025-06-18", "outputSchema", true, `{"type":"string"}`, 1},
		{"2026-07-28", "outputSchema", true, `{"type":"string"}`, 0}, // any JSON Schema from 2026-07-28
	} {
		w, err := schema.For(c.rev)
		if err != nil {
			t.Fatal(err)
		}
		target, ok := w.Doc().ToolSchema(c.member)
		if ok != c.defined {
			t.Errorf("%s %s: defined %v", c.rev, c.member, ok)
			continue
		}
		if !ok {
			continue
		}
		vs, err := w.Check(target, []byte(c.raw))
		if err != nil || len(vs) != c.violations {
			t.Errorf("%s %s %s: %v %v, want %d violations", c.rev, c.member, c.raw, vs, err, c.violations)
		}
	}
}

// Compiled schemas and a run's verdicts by shape are shared by every analysis of the
// process (parallel scans included): using them from many goroutines is safe (go test
// -race).
func TestConcurrentUse(t *testing.T) {
	done := make(chan bool)
	valid := schema.NewValidShapes(8) // one run's verdicts, shared by every goroutine
	for i := range 8 {
		go func() {
			defer func() { done <- true }()
			rev := spec.Revisions()[i%len(spec.Revisions())]
			w, err := schema.For(rev)
			if err != nil {
				t.Error(err)
				return
			}
			target, ok := w.Doc().Request("tools/list", spec.Client)
			if !ok {
				t.Errorf("%s: no tools/list", rev)
				return
			}
			var shaper schema.Shaper
			raw := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":5}}`)
			for range 50 {
				if _, err := w.CheckShaped(valid, shaper.Wire(raw), target, raw); err != nil {
					t.Error(err)
				}
			}
			schema.LaterFields(rev, schema.Message{Kind: frame.KindResult, Method: "tools/list", Sender: spec.Client, Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[],"ttlMs":1}}`)})
		}()
	}
	for range 8 {
		<-done
	}
}

// A value the validator cannot compare (an exponent past what it parses, against a
// maximum) is an error for the caller to note, never a panic that ends the report.
func TestValidatorPanicIsAnError(t *testing.T) {
	w, err := schema.For("2025-06-18")
	if err != nil {
		t.Fatal(err)
	}
	target, ok := w.Doc().Result("tools/call", spec.Client, false)
	if !ok {
		t.Fatal("no CallToolResult")
	}
	vs, err := w.Check(target, []byte(`{"content":[{"type":"text","text":"x","annotations":{"priority":1e1000001}}]}`))
	if err == nil || !strings.Contains(err.Error(), "could not be compared") {
		t.Fatalf("violations %v, error %v; want an error saying the value could not be compared", vs, err)
	}
}

// Valid JSON that nests deeper than the decoder goes is not checked, and the error
// says so: it is not "invalid JSON" (issue 11 item 16).
func TestTooDeepIsNotInvalid(t *testing.T) {
	w, err := schema.For("2025-06-18")
	if err != nil {
		t.Fatal(err)
	}
	target, ok := w.Doc().Result("tools/call", spec.Client, false)
	if !ok {
		t.Fatal("no CallToolResult")
	}
	deep := `{"content":[],"structuredContent":{"a":` + strings.Repeat("[", 600) + strings.Repeat("]", 600) + `}}`
	vs, err := w.Check(target, []byte(deep))
	if err == nil || !strings.Contains(err.Error(), "nested deeper than 512 levels") || strings.Contains(err.Error(), "invalid JSON") {
		t.Fatalf("violations %v, error %v; want an error saying it is nested deeper than 512 levels", vs, err)
	}
}

// A member name repeated in an object is reported, and a violation quotes the value
// that was validated, the last one (issue 11 item 16).
func TestDuplicateMembers(t *testing.T) {
	w, err := schema.For("2025-06-18")
	if err != nil {
		t.Fatal(err)
	}
	target, ok := w.Doc().Request("tools/call", spec.Client)
	if !ok {
		t.Fatal("no CallToolRequest")
	}
	vs, err := w.Check(target, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","name":7}}`))
	if err != nil {
		t.Fatal(err)
	}
	var dup, typ *schema.Violation
	for i := range vs {
		switch vs[i].Keyword {
		case schema.DuplicateKeyword:
			dup = &vs[i]
		case "type":
			typ = &vs[i]
		}
	}
	if dup == nil || dup.Pointer != "/params/name" || !strings.Contains(dup.Message, `"name" appears 2 times in one object`) || dup.Value != "7" {
		t.Errorf("duplicate member: got %+v in %+v", dup, vs)
	}
	if typ == nil || typ.Pointer != "/params/name" || typ.Value != "7" {
		t.Errorf("type violation must quote the validated value 7: got %+v in %+v", typ, vs)
	}
	// A repeated name whose values are both valid is still reported.
	vs, err = w.Check(target, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"x":1,"x":2,"y":{"z":1,"z":1}},"name":"b"}}`))
	if err != nil {
		t.Fatal(err)
	}
	var ptrs []string
	for _, v := range vs {
		ptrs = append(ptrs, v.Keyword+" "+v.Pointer)
	}
	if got, want := strings.Join(ptrs, ", "), "duplicate member /params/arguments/x, duplicate member /params/arguments/y/z, duplicate member /params/name"; got != want {
		t.Errorf("violations: got %s, want %s", got, want)
	}
}
