package main

import "fmt"

// writeBase64 writes envelope JSONL (dir c2s/s2c) of healthy 2025-06-18 sessions (the
// handshake, tools/list, the server's roots/list) in which about half the exchanges
// carry base64 of 64 KB to 4 MB (log-uniform): a
// resources/read of a scan (a PDF or PNG blob) or a tools/call render_chart whose
// result is a caption and an image content (image/png). The rest are small tool
// calls with progress, log notifications and pings.
func writeBase64(o *output, limit int64) {
	g := &base64Sessions{conversation: newConversation(o, newEnvelope(), 3), b64: newB64Pool(31)}
	for o.n < limit {
		g.session(limit)
	}
}

type base64Sessions struct {
	*conversation
	b64 b64Pool
}

var base64Tools = []tool{
	{"get_invoice", "Fetch one invoice by number",
		`{"type":"object","properties":{"number":{"type":"string","description":"Invoice number, e.g. INV-2025-0042"}},"required":["number"]}`, ""},
	{"render_chart", "Render a revenue chart as a PNG image",
		`{"type":"object","properties":{"quarter":{"type":"string","description":"Quarter, e.g. 2025-Q3"},"width":{"type":"integer","description":"Width in pixels, e.g. 1024"}},"required":["quarter"]}`, ""},
}

func (g *base64Sessions) session(limit int64) {
	const rev = "2025-06-18"
	g.msg = appendInitialize(g.msg[:0], rev, "client-b", "3.2.0")
	g.send(c2s, 1, 5)
	g.msg = appendInitializeResult(g.msg[:0], rev, "reports", "1.4.0", "")
	g.send(s2c, 5, 40)
	g.msg = append(g.msg[:0], initializedNf...)
	g.send(c2s, 1, 5)
	g.msg = append(appendRequest(g.msg[:0], 1, "tools/list"), '}')
	g.send(c2s, 1, 5)
	g.msg = appendToolsList(g.msg[:0], 1, rev, base64Tools)
	g.send(s2c, 2, 20)
	g.msg = append(appendRequest(g.msg[:0], 0, "roots/list"), '}')
	g.send(s2c, 1, 10)
	g.msg = append(appendResult(g.msg[:0], 0), `{"roots":[{"uri":"file:///srv/reports","name":"Reports"}]}}`...)
	g.send(c2s, 1, 10)
	for id, n := 2, g.between(30, 60); n > 0 && g.o.n < limit; id, n = id+1, n-1 {
		switch r := g.rng.IntN(100); {
		case r < 25:
			q := fmt.Sprintf("20%02d-Q%d", g.between(20, 25), g.between(1, 4))
			g.msg = appendCallTool(g.msg[:0], id, "render_chart")
			g.msg = fmt.Appendf(g.msg, `"quarter":"%s","width":%s`, q, g.pick("1024", "1920", "3840"))
			g.msg = closeCallTool(g.msg, "")
			g.send(c2s, 1, 20)
			g.msg = appendImageResult(g.msg[:0], g.conversation, g.b64, id, "Revenue by region, "+q, logUniform(g.rng, 64<<10, 4<<20))
			g.send(s2c, 50, 2000)
		case r < 50:
			uri, mime, header := fmt.Sprintf("file:///srv/reports/scans/INV-2025-%04d.pdf", g.rng.IntN(10000)), "application/pdf", pdfHeader
			if g.rng.IntN(2) == 0 {
				uri, mime, header = fmt.Sprintf("file:///srv/reports/charts/chart-%05d.png", g.rng.IntN(100000)), "image/png", pngHeader
			}
			g.msg = appendRequest(g.msg[:0], id, "resources/read")
			g.msg = append(g.msg, `,"params":{"uri":"`+uri+`"}}`...)
			g.send(c2s, 1, 20)
			g.msg = appendReadBlob(g.msg[:0], g.conversation, g.b64, id, uri, mime, header, logUniform(g.rng, 64<<10, 4<<20))
			g.send(s2c, 20, 1000)
		case r < 70:
			tok := token(id)
			g.msg = appendCallTool(g.msg[:0], id, "get_invoice")
			g.msg = fmt.Appendf(g.msg, `"number":"INV-2025-%04d"`, id)
			g.msg = closeCallTool(g.msg, tok)
			g.send(c2s, 1, 20)
			g.msg = appendProgress(g.msg[:0], tok, 1, 2, "")
			g.send(s2c, 5, 50)
			g.msg = appendTextResultOpen(g.msg[:0], id)
			g.msg = fmt.Appendf(g.msg, `Invoice INV-2025-%04d: ACME Corp, 3 lines, total 129.90 EUR, due 2025-07-01.\n`, id)
			g.msg = closeTextResult(g.msg)
			g.send(s2c, 5, 50)
		case r < 85:
			g.msg = appendLog(g.msg[:0], "info", "reports", "cache refreshed at "+g.now.Format("2006-01-02T15:04:05Z07:00"))
			g.send(s2c, 1, 100)
		default:
			g.msg = append(appendRequest(g.msg[:0], id, "ping"), '}')
			g.send(c2s, 1, 500)
			g.msg = appendEmptyResult(g.msg[:0], id)
			g.send(s2c, 1, 5)
		}
	}
}
