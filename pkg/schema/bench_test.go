package schema_test

import (
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/schema"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// benchFrames are the frames a busy 2025-06-18 session is made of (the shapes
// cmd/capturegen writes), with the definition each is checked against and the bytes
// that definition covers (the result member for results).
var benchFrames = []struct {
	name, raw string
	target    func(d *schema.Doc) (schema.Target, bool)
}{
	{"tools-call-request", `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"get_invoice","arguments":{"number":"INV-2025-42"},"_meta":{"progressToken":"p42"}}}`,
		func(d *schema.Doc) (schema.Target, bool) { return d.Request("tools/call", spec.Client) }},
	{"tools-call-result", `{"content":[{"type":"text","text":"Invoice INV-2025-42: ACME Corp, 3 lines, total 129.90 EUR, due 2025-07-01. ` + strings.Repeat("Line item detail. ", 20) + `"}],"isError":false}`,
		func(d *schema.Doc) (schema.Target, bool) { return d.Result("tools/call", spec.Client, false) }},
	{"progress", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p42","progress":0.5,"total":1}}`,
		func(d *schema.Doc) (schema.Target, bool) {
			return d.Notification("notifications/progress", spec.Server)
		}},
	{"log-message", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"invoices","data":"cache refreshed at 2026-11-30T02:00:00Z"}}`,
		func(d *schema.Doc) (schema.Target, bool) { return d.Notification("notifications/message", spec.Server) }},
	{"ping", `{"jsonrpc":"2.0","id":40,"method":"ping"}`,
		func(d *schema.Doc) (schema.Target, bool) { return d.Request("ping", spec.Client) }},
}

// BenchmarkWireCheck is the full validation of one frame against its definition:
// decoding plus the JSON Schema validator.
func BenchmarkWireCheck(b *testing.B) {
	w, err := schema.For(spec.Rev20250618)
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range benchFrames {
		t, ok := f.target(w.Doc())
		if !ok {
			b.Fatalf("%s: no target", f.name)
		}
		raw := []byte(f.raw)
		b.Run(f.name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				if v, err := w.Check(t, raw); err != nil || len(v) != 0 {
					b.Fatalf("%v %v", v, err)
				}
			}
		})
	}
}

// BenchmarkWireCheckShaped is the path MCP4001 takes on a long capture: a frame of
// a shape that already validated is recognised by its shape and not validated
// again (the shape itself is the parse stage's, once per frame: BenchmarkWireShape).
func BenchmarkWireCheckShaped(b *testing.B) {
	w, err := schema.For(spec.Rev20250618)
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range benchFrames {
		t, _ := f.target(w.Doc())
		raw := []byte(f.raw)
		valid := schema.NewValidShapes(64)
		var shaper schema.Shaper
		shape := shaper.Wire(raw)
		if _, err := w.CheckShaped(valid, shape, t, raw); err != nil { // remembers the shape
			b.Fatal(err)
		}
		b.Run(f.name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				if v, err := w.CheckShaped(valid, shape, t, raw); err != nil || len(v) != 0 {
					b.Fatalf("%v %v", v, err)
				}
			}
		})
	}
}

// BenchmarkLaterFields walks a tools/list result against the definitions of its
// revision and of every later one (MCP1010 without its memo).
func BenchmarkLaterFields(b *testing.B) {
	msg := schema.Message{Kind: frame.KindResult, Method: "tools/list", Sender: spec.Client,
		Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"get_invoice","description":"Fetch one invoice by number","inputSchema":{"type":"object","properties":{"number":{"type":"string","description":"Invoice number, e.g. INV-2025-0042"}},"required":["number"]}},{"name":"search_invoices","description":"Search invoices","inputSchema":{"type":"object","properties":{"since":{"type":"string","format":"date","description":"ISO date, e.g. 2025-06-01"},"customer":{"type":"string"}}}}],"ttlMs":0,"cacheScope":"public"}}`)}
	b.SetBytes(int64(len(msg.Raw)))
	b.ReportAllocs()
	for b.Loop() {
		if got := schema.LaterFields(spec.Rev20250618, msg); len(got) != 2 {
			b.Fatalf("%v", got)
		}
	}
}

// BenchmarkPublishedValidate validates tools/call arguments against a published
// inputSchema with a date format, as MCP4003 does (without its memo).
func BenchmarkPublishedValidate(b *testing.B) {
	p := schema.CompilePublished([]byte(`{"type":"object","properties":{"since":{"type":"string","format":"date"},"customer":{"type":"string"}},"required":["customer"]}`), spec.Rev20250618)
	if p.Err != nil {
		b.Fatal(p.Err)
	}
	args := []byte(`{"customer":"ACME","since":"2025-06-01"}`)
	b.ReportAllocs()
	for b.Loop() {
		if v, err := p.Validate(args); err != nil || len(v) != 0 {
			b.Fatalf("%v %v", v, err)
		}
	}
}

// BenchmarkWireShape is the parse stage's part of the schema rules: one wire shape
// per frame.
func BenchmarkWireShape(b *testing.B) {
	for _, f := range benchFrames {
		raw := []byte(f.raw)
		var shaper schema.Shaper
		shaper.Wire(raw) // builds the shape vocabulary once per process
		b.Run(f.name, func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				if shaper.Wire(raw) == 0 {
					b.Fatal("no shape")
				}
			}
		})
	}
}
