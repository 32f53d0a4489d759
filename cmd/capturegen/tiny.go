package main

import "fmt"

// writeTinySessions writes envelope JSONL (dir c2s/s2c) of many short sessions, about
// 200,000 a GiB, as a fleet of short-lived clients leaves them: 20 frames each
// (initialize, initialized, tools/list, four tool calls, one with progress, two
// pings, two log notifications), the revisions 2025-03-26, 2025-06-18 and 2025-11-25
// and three clients in turn.
func writeTinySessions(o *output, limit int64) {
	g := &tinySessions{conversation: newConversation(o, newEnvelope(), 4), text: newTextPool(41)}
	for i := 0; o.n < limit; i++ {
		g.session(i)
	}
}

type tinySessions struct {
	*conversation
	text textPool
}

var tinyTools = []tool{
	{"get_invoice", "Fetch one invoice by number",
		`{"type":"object","properties":{"number":{"type":"string","description":"Invoice number, e.g. INV-2025-0042"}},"required":["number"]}`, ""},
	{"search_invoices", "Search invoices",
		`{"type":"object","properties":{"since":{"type":"string","format":"date","description":"ISO date, e.g. 2025-06-01"},"customer":{"type":"string"}}}`, ""},
}

var tinyClients = [][2]string{{"claude-ai", "0.1.0"}, {"cursor-vscode", "1.0.0"}, {"support-console", "4.1.2"}}

func (g *tinySessions) session(i int) {
	rev := revisions[i%len(revisions)]
	client := tinyClients[(i/len(revisions))%len(tinyClients)]
	g.msg = appendInitialize(g.msg[:0], rev, client[0], client[1])
	g.send(c2s, 100, 2000)
	g.msg = appendInitializeResult(g.msg[:0], rev, "invoices", "1.9.3", "")
	g.send(s2c, 5, 40)
	g.msg = append(g.msg[:0], initializedNf...)
	g.send(c2s, 1, 5)
	g.msg = append(appendRequest(g.msg[:0], 1, "tools/list"), '}')
	g.send(c2s, 1, 5)
	g.msg = appendToolsList(g.msg[:0], 1, rev, tinyTools)
	g.send(s2c, 2, 20)
	g.log()

	g.invoice(2, token(2))
	g.msg = appendCallTool(g.msg[:0], 3, "search_invoices")
	g.msg = fmt.Appendf(g.msg, `"since":"2025-%02d-01","customer":"%s"`, g.between(1, 12), g.pick(customers...))
	g.msg = closeCallTool(g.msg, "")
	g.send(c2s, 100, 3000)
	g.result(3)
	g.ping(4)
	g.invoice(5, "")
	g.invoice(6, "")
	g.log()
	g.ping(7)
}

func (g *tinySessions) invoice(id int, tok string) {
	g.msg = appendCallTool(g.msg[:0], id, "get_invoice")
	g.msg = fmt.Appendf(g.msg, `"number":"INV-2025-%04d"`, g.rng.IntN(10000))
	g.msg = closeCallTool(g.msg, tok)
	g.send(c2s, 100, 3000)
	if tok != "" {
		g.msg = appendProgress(g.msg[:0], tok, 1, 2, "")
		g.send(s2c, 5, 50)
	}
	g.result(id)
}

func (g *tinySessions) result(id int) {
	g.msg = appendTextResultOpen(g.msg[:0], id)
	g.msg = g.text.appendText(g.msg, g.rng, g.between(200, 800))
	g.msg = closeTextResult(g.msg)
	g.send(s2c, 5, 200)
}

func (g *tinySessions) ping(id int) {
	g.msg = append(appendRequest(g.msg[:0], id, "ping"), '}')
	g.send(c2s, 100, 1000)
	g.msg = appendEmptyResult(g.msg[:0], id)
	g.send(s2c, 1, 5)
}

func (g *tinySessions) log() {
	g.msg = appendLog(g.msg[:0], "info", "invoices", fmt.Sprintf("cache refreshed, %d entries", g.rng.IntN(5000)))
	g.send(s2c, 1, 100)
}
