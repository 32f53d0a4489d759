package schema_test

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/schema"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// The fields a revision lacks are derived from the schemas of the later revisions.
func TestLaterFields(t *testing.T) {
	for _, c := range []struct {
		name string
		rev  spec.Revision
		msg  schema.Message
		want string // "pointer since" lines
	}{
		{"tool title and outputSchema before 2025-06-18", "2025-03-26",
			schema.Message{Kind: frame.KindResult, Method: "tools/list", Sender: spec.Client,
				Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","title":"A","inputSchema":{"type":"object"},"outputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"},"icons":[]}]}}`)},
			"/result/tools/0/title 2025-06-18\n/result/tools/0/outputSchema 2025-06-18\n/result/tools/1/icons 2025-11-25"},
		{"audio content before 2025-03-26", "2024-11-05",
			schema.Message{Kind: frame.KindResult, Method: "tools/call", Sender: spec.Client,
				Raw: []byte(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"audio","data":"AA==","mimeType":"audio/wav"}]}}`)},
			`/result/content/0/type "audio" 2025-03-26`},
		{"resource_link content before 2025-06-18", "2025-03-26",
			schema.Message{Kind: frame.KindResult, Method: "tools/call", Sender: spec.Client,
				Raw: []byte(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"x"},{"type":"resource_link","uri":"file:///a","name":"a"}]}}`)},
			`/result/content/1/type "resource_link" 2025-06-18`},
		{"a type no revision defines", "2025-06-18",
			schema.Message{Kind: frame.KindResult, Method: "tools/call", Sender: spec.Client,
				Raw: []byte(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"video","text":"x"}]}}`)},
			""},
		{"annotations on text content before 2025-03-26 are defined", "2024-11-05",
			schema.Message{Kind: frame.KindResult, Method: "tools/call", Sender: spec.Client,
				Raw: []byte(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"x","annotations":{"priority":1}}]}}`)},
			""},
		// An inputSchema is a JSON Schema, which the spec declares open: its $schema
		// keyword is no field 2024-11-05 or 2025-06-18 lacks (issue 13 item 2), while
		// the result's fields next to it still are.
		{"inputSchema.$schema before 2025-11-25 is admitted", "2024-11-05",
			schema.Message{Kind: frame.KindResult, Method: "tools/list", Sender: spec.Client,
				Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","additionalProperties":false}}]}}`)},
			""},
		{"inputSchema.$schema under 2025-06-18, with a title the revision has", "2025-06-18",
			schema.Message{Kind: frame.KindResult, Method: "tools/list", Sender: spec.Client,
				Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","title":"A","icons":[],"inputSchema":{"$schema":"x","type":"object"}}]}}`)},
			"/result/tools/0/icons 2025-11-25"},
		{"structuredContent before 2025-06-18 is still a later field", "2025-03-26",
			schema.Message{Kind: frame.KindResult, Method: "tools/call", Sender: spec.Client,
				Raw: []byte(`{"jsonrpc":"2.0","id":2,"result":{"content":[],"structuredContent":{"a":1}}}`)},
			"/result/structuredContent 2025-06-18"},
		{"cache fields before 2026-07-28", "2025-11-25",
			schema.Message{Kind: frame.KindResult, Method: "tools/list", Sender: spec.Client,
				Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[],"ttlMs":0,"cacheScope":"public"}}`)},
			"/result/ttlMs 2026-07-28\n/result/cacheScope 2026-07-28"},
		{"tasks capability in 2025-06-18", "2025-06-18",
			schema.Message{Kind: frame.KindResult, Method: "initialize", Sender: spec.Client,
				Raw: []byte(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{},"tasks":{}},"serverInfo":{"name":"s","version":"1"}}}`)},
			"/result/capabilities/tasks 2025-11-25"},
		{"envelope members are not fields of a later revision", "2025-06-18",
			schema.Message{Kind: frame.KindRequest, Method: "tools/call", Sender: spec.Client,
				Raw: []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"a","arguments":{"anything":1},"_meta":{"progressToken":1}}}`)},
			""},
		{"vendor fields are left alone", "2025-03-26",
			schema.Message{Kind: frame.KindResult, Method: "tools/list", Sender: spec.Client,
				Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"},"x-vendor":1}],"x-other":2}}`)},
			""},
		{"structuredContent before 2025-06-18", "2025-03-26",
			schema.Message{Kind: frame.KindResult, Method: "tools/call", Sender: spec.Client,
				Raw: []byte(`{"jsonrpc":"2.0","id":2,"result":{"content":[],"structuredContent":{"total":1}}}`)},
			"/result/structuredContent 2025-06-18"},
		{"the newest revision has nothing later", "draft",
			schema.Message{Kind: frame.KindResult, Method: "tools/list", Sender: spec.Client,
				Raw: []byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[],"resultType":"complete"}}`)},
			""},
		{"a method the revision lacks", "2025-03-26",
			schema.Message{Kind: frame.KindRequest, Method: "elicitation/create", Sender: spec.Server,
				Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}`)},
			""},
	} {
		var got []string
		fields := schema.LaterFields(c.rev, c.msg)
		through := c.msg
		var err error
		if through.Value, err = frame.Parse(c.msg.Raw); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if other := schema.LaterFields(c.rev, through); !reflect.DeepEqual(other, fields) {
			t.Errorf("%s: through the message's Node\n%+v\nthrough its bytes\n%+v", c.name, other, fields)
		}
		for _, f := range fields {
			line := f.Pointer + " " + string(f.Since)
			if f.Value != "" {
				line = f.Pointer + " " + f.Value + " " + string(f.Since)
			}
			got = append(got, line)
			if !strings.HasPrefix(f.Pattern, "/") || strings.ContainsAny(f.Pattern, "0123456789") && strings.Contains(f.Pointer, "/tools/") {
				t.Errorf("%s: pattern %q keeps an index", c.name, f.Pattern)
			}
		}
		if strings.Join(got, "\n") != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, strings.Join(got, "\n"), c.want)
		}
	}
}

// largeResults are tool results of the payload-heavy captures LaterFields spends its
// time on: a long text with escapes, a structuredContent with a 300-element array
// (and its JSON again as escaped text, as servers send it), and a base64 image.
func largeResults() []struct {
	name string
	raw  []byte
} {
	var text strings.Builder
	for text.Len() < 200<<10 {
		text.WriteString(`Line of output with a \"quoted\" word,\ta tab and a path C:\\tmp\\x.\n`)
	}
	var rows, rowsText strings.Builder
	for i := range 300 {
		if i > 0 {
			rows.WriteByte(',')
			rowsText.WriteByte(',')
		}
		row := `{"id":` + strconv.Itoa(i) + `,"name":"item ` + strconv.Itoa(i) + `","price":12.5,"tags":["a","b"],"ok":true,"note":null}`
		rows.WriteString(row)
		rowsText.WriteString(strings.ReplaceAll(row, `"`, `\"`))
	}
	blob := strings.Repeat("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg", 1<<10)
	return []struct {
		name string
		raw  []byte
	}{
		{"text-200KB", []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` + text.String() + `"}],"isError":false}}`)},
		{"structured-300", []byte(`{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"{\"rows\":[` + rowsText.String() + `]}"}],"structuredContent":{"rows":[` + rows.String() + `]},"isError":false}}`)},
		{"image-base64", []byte(`{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"a chart"},{"type":"image","data":"` + blob + `","mimeType":"image/png"}]}}`)},
	}
}

// BenchmarkLaterFieldsLarge is BenchmarkLaterFields on large tool results, under a
// revision before structuredContent (2025-03-26) and under 2025-06-18: from the
// message's bytes (raw: LaterFields parses them), and from the Node the frame
// reader's scan made (node: what MCP1010 passes).
func BenchmarkLaterFieldsLarge(b *testing.B) {
	for _, r := range largeResults() {
		for _, rev := range []spec.Revision{"2025-03-26", spec.Rev20250618} {
			msg := schema.Message{Kind: frame.KindResult, Method: "tools/call", Sender: spec.Client, Raw: r.raw}
			want := len(schema.LaterFields(rev, msg))
			node := msg
			var err error
			if node.Value, err = frame.Parse(r.raw); err != nil {
				b.Fatal(err)
			}
			for _, m := range []struct {
				name string
				msg  schema.Message
			}{{"raw", msg}, {"node", node}} {
				b.Run(r.name+"/"+string(rev)+"/"+m.name, func(b *testing.B) {
					b.SetBytes(int64(len(r.raw)))
					b.ReportAllocs()
					for b.Loop() {
						if got := schema.LaterFields(rev, m.msg); len(got) != want {
							b.Fatalf("%v", got)
						}
					}
				})
			}
		}
	}
}
