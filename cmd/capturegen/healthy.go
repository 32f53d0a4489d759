package main

import (
	"strconv"
	"strings"
	"time"
)

// writeHealthy writes healthy 2025-06-18 sessions of 2,000 exchanges as envelope JSONL
// (dir "c->s"/"s->c"): the capture of the figures in docs/performance.md, byte for byte
// what capturegen wrote before it had profiles.
func writeHealthy(o *output, limit int64) {
	healthySessions(o, &envelope{dirs: [2]string{"c->s", "s->c"}}, limit)
}

// healthySessions writes healthy sessions in format f until limit bytes are written.
func healthySessions(o *output, f lineFormat, limit int64) {
	g := &healthy{o: o, f: f, now: time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)}
	for o.n < limit {
		g.session(2000)
		if e, ok := f.(sessionEnder); ok {
			e.endSession(o)
		}
	}
}

// A sessionEnder writes what its format logs when a connection ends.
type sessionEnder interface {
	endSession(o *output)
}

type healthy struct {
	o   *output
	f   lineFormat
	now time.Time
}

func (g *healthy) emit(dir, msg string) {
	g.now = g.now.Add(1500 * time.Microsecond)
	d := c2s
	if dir == "s->c" {
		d = s2c
	}
	g.f.frame(g.o, g.now, d, []byte(msg))
}

const tools = `{"tools":[{"name":"get_invoice","description":"Fetch one invoice by number","inputSchema":{"type":"object","properties":{"number":{"type":"string","description":"Invoice number, e.g. INV-2025-0042"}},"required":["number"]}},{"name":"search_invoices","description":"Search invoices","inputSchema":{"type":"object","properties":{"since":{"type":"string","format":"date","description":"ISO date, e.g. 2025-06-01"},"customer":{"type":"string"}}}}]}`

// session writes one healthy 2025-06-18 session of about n exchanges.
func (g *healthy) session(n int) {
	g.emit("c->s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true},"sampling":{}},"clientInfo":{"name":"client-b","version":"3.2.0"}}}`)
	g.emit("s->c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true},"resources":{"listChanged":true,"subscribe":true},"logging":{}},"serverInfo":{"name":"invoices","version":"1.9.3"}}}`)
	g.emit("c->s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	g.emit("c->s", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	g.emit("s->c", `{"jsonrpc":"2.0","id":1,"result":`+tools+`}`)
	for i := 2; i < n; i++ {
		id := strconv.Itoa(i)
		switch i % 5 {
		case 0:
			g.emit("c->s", `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`)
			g.emit("s->c", `{"jsonrpc":"2.0","id":`+id+`,"result":{}}`)
		case 1:
			g.emit("s->c", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"invoices","data":"cache refreshed at `+g.now.Format(time.RFC3339)+`"}}`)
		default:
			g.emit("c->s", `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"get_invoice","arguments":{"number":"INV-2025-`+id+`"},"_meta":{"progressToken":"p`+id+`"}}}`)
			g.emit("s->c", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p`+id+`","progress":0.5,"total":1}}`)
			g.emit("s->c", `{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[{"type":"text","text":"Invoice INV-2025-`+id+`: ACME Corp, 3 lines, total 129.90 EUR, due 2025-07-01.\n`+strings.Repeat(`Line item detail.\n`, 20)+`"}],"isError":false}}`)
		}
	}
}
