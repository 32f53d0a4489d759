package main

import (
	"fmt"
	"strconv"
)

// writePayloadHeavy writes what support archives hold: envelope JSONL (dir c2s/s2c)
// of sessions of 2025-03-26, 2025-06-18 and 2025-11-25 in turn, each a handshake
// (the client declares roots and sampling, the server tools, resources and logging),
// tools/list, roots/list and resources/list, then 150 to 400 exchanges of:
//
//   - tools/call fetch_log: text results of 100 B to 200 KB (log-uniform), escaped
//     newlines, quotes, tabs, backslashes, accents and emoji; half with progress
//     (params._meta.progressToken, then notifications/progress before the result);
//     one of about 5 MB in every 100 MB of output;
//   - tools/call invoice_summary: the summary as JSON text, and from 2025-06-18 also
//     as structuredContent matching the tool's outputSchema;
//   - resources/read: a PDF or PNG scan as a base64 blob of 1 to 256 KB, now and
//     then -32002 (resource not found);
//   - tools/call get_invoice: a short text, or -32602 for an invoice number the
//     server does not accept (the published inputSchema allows it);
//   - tools/call ask_assistant: the server asks sampling/createMessage, the client
//     answers, then the tool answers; list_workspace: the server asks roots/list;
//   - a tools/call the client cancels (notifications/cancelled) after a first
//     progress, and that is never answered;
//   - notifications/message logs and pings.
func writePayloadHeavy(o *output, limit int64) {
	p := &payloadHeavy{
		conversation: newConversation(o, newEnvelope(), 2),
		text:         newTextPool(21),
		b64:          newB64Pool(22),
		nextBig:      50 << 20,
	}
	for i := 0; o.n < limit; i++ {
		p.session(revisions[i%len(revisions)], limit)
	}
}

type payloadHeavy struct {
	*conversation
	text    textPool
	b64     b64Pool
	nextBig int64 // the output size at which the next 5 MB result is due
	rev     string
	id      int // the client's next request id
	sid     int // the server's next request id
	scratch []byte
}

const invoiceSummarySchema = `{"type":"object","properties":{"number":{"type":"string"},"customer":{"type":"string"},"currency":{"type":"string"},"total":{"type":"number"},"lines":{"type":"array","items":{"type":"object","properties":{"sku":{"type":"string"},"description":{"type":"string"},"quantity":{"type":"integer"},"amount":{"type":"number"}},"required":["sku","quantity","amount"]}}},"required":["number","customer","currency","total","lines"]}`

var payloadTools = []tool{
	{"fetch_log", `Return the tail of a service's log, e.g. service "billing", lines 500`,
		`{"type":"object","properties":{"service":{"type":"string","description":"Service name, e.g. billing"},"lines":{"type":"integer","description":"How many lines, e.g. 500"}},"required":["service"]}`, ""},
	{"get_invoice", "Fetch one invoice by number",
		`{"type":"object","properties":{"number":{"type":"string","description":"Invoice number, e.g. INV-2025-0042"}},"required":["number"]}`, ""},
	{"invoice_summary", "Summarise an invoice: customer, currency, total and lines",
		`{"type":"object","properties":{"number":{"type":"string","description":"Invoice number, e.g. INV-2025-0042"}},"required":["number"]}`, invoiceSummarySchema},
	{"ask_assistant", "Ask the client's model about a support case (the server asks for sampling)",
		`{"type":"object","properties":{"question":{"type":"string","description":"The question, e.g. why was INV-2025-0042 charged twice?"}},"required":["question"]}`, ""},
	{"list_workspace", "List the client's workspace roots (the server asks roots/list)",
		`{"type":"object","properties":{}}`, ""},
}

var services = []string{"billing", "archive", "ingest", "auth", "scheduler"}

func (p *payloadHeavy) session(rev string, limit int64) {
	p.rev, p.id, p.sid = rev, 3, 0
	p.msg = appendInitialize(p.msg[:0], rev, "support-console", "4.1.2")
	p.send(c2s, 1, 5)
	p.msg = appendInitializeResult(p.msg[:0], rev, "ops-archive", "2.7.0",
		"Archive of service logs, invoices and scanned documents. Use fetch_log for logs and read file:///srv/archive resources for scans.")
	p.send(s2c, 5, 40)
	p.msg = append(p.msg[:0], initializedNf...)
	p.send(c2s, 1, 5)
	p.msg = appendRequest(p.msg[:0], 1, "tools/list")
	p.msg = append(p.msg, '}')
	p.send(c2s, 1, 5)
	p.msg = appendToolsList(p.msg[:0], 1, rev, payloadTools)
	p.send(s2c, 2, 20)
	p.roots()
	p.msg = appendRequest(p.msg[:0], 2, "resources/list")
	p.msg = append(p.msg, '}')
	p.send(c2s, 1, 5)
	p.msg = append(appendResult(p.msg[:0], 2), `{"resources":[`...)
	for i := range 5 {
		if i > 0 {
			p.msg = append(p.msg, ',')
		}
		p.msg = fmt.Appendf(p.msg, `{"uri":"file:///srv/archive/scans/INV-2025-%04d.pdf","name":"INV-2025-%04d.pdf","mimeType":"application/pdf"}`, i+1, i+1)
	}
	p.msg = append(p.msg, `]}}`...)
	p.send(s2c, 2, 20)

	for n := p.between(150, 400); n > 0 && p.o.n < limit; n-- {
		if p.o.n >= p.nextBig {
			p.nextBig += 100 << 20
			p.fetchLog(p.between(4_800_000, 5_400_000), true)
			continue
		}
		switch r := p.rng.IntN(100); {
		case r < 30:
			p.fetchLog(logUniform(p.rng, 100, 200_000), p.rng.IntN(2) == 0)
		case r < 45:
			p.invoiceSummary()
		case r < 58:
			p.readScan()
		case r < 60:
			p.readMissing()
		case r < 68:
			p.getInvoice()
		case r < 72:
			p.badArguments()
		case r < 76:
			p.askAssistant()
		case r < 78:
			p.listWorkspace()
		case r < 81:
			p.cancelled()
		case r < 90:
			p.log()
		default:
			p.ping()
		}
	}
}

func (p *payloadHeavy) next() int {
	p.id++
	return p.id - 1
}

// token is a progress token for request id: a string or an integer, in turn.
func token(id int) string {
	if id%2 == 0 {
		return `"tok-` + strconv.Itoa(id) + `"`
	}
	return strconv.Itoa(100_000 + id)
}

func (p *payloadHeavy) fetchLog(size int, progress bool) {
	id := p.next()
	tok := ""
	if progress {
		tok = token(id)
	}
	p.msg = appendCallTool(p.msg[:0], id, "fetch_log")
	p.msg = fmt.Appendf(p.msg, `"service":"%s","lines":%d`, p.pick(services...), size/80+1)
	p.msg = closeCallTool(p.msg, tok)
	p.send(c2s, 1, 20)
	if progress {
		steps := p.between(1, 3)
		for k := 1; k <= steps; k++ {
			p.msg = appendProgress(p.msg[:0], tok, k, steps+1, fmt.Sprintf("read segment %d of %d", k, steps+1))
			p.send(s2c, 20, 400)
		}
	}
	p.msg = appendTextResultOpen(p.msg[:0], id)
	p.msg = p.text.appendText(p.msg, p.rng, size)
	p.msg = closeTextResult(p.msg)
	p.send(s2c, 20, 800)
}

var (
	products = []string{"Consulting – Q3", "Licence (annual)", "Support hours", "Übersetzung DE→FR", "Hosting 🚀 plan", "Travel, Zürich"}
	currency = []string{"EUR", "CHF", "NOK", "JPY", "USD"}
)

// invoiceSummary answers with the summary as text and, from 2025-06-18, as
// structuredContent too (the tool publishes its outputSchema only from then).
func (p *payloadHeavy) invoiceSummary() {
	id := p.next()
	number := fmt.Sprintf("INV-2025-%04d", p.rng.IntN(10000))
	p.msg = appendCallTool(p.msg[:0], id, "invoice_summary")
	p.msg = append(p.msg, `"number":"`+number+`"`...)
	p.msg = closeCallTool(p.msg, "")
	p.send(c2s, 1, 20)

	lines := logUniform(p.rng, 1, 500)
	sc := fmt.Appendf(p.scratch[:0], `{"number":"%s","customer":"%s","currency":"%s","lines":[`, number, p.pick(customers...), p.pick(currency...))
	total := 0
	for i := range lines {
		if i > 0 {
			sc = append(sc, ',')
		}
		qty, cents := p.between(1, 40), p.between(100, 250_000)
		total += qty * cents
		sc = fmt.Appendf(sc, `{"sku":"SKU-%05d","description":"%s","quantity":%d,"amount":%d.%02d}`, p.rng.IntN(100_000), p.pick(products...), qty, qty*cents/100, qty*cents%100)
	}
	sc = fmt.Appendf(sc, `],"total":%d.%02d}`, total/100, total%100)
	p.scratch = sc

	p.msg = appendResult(p.msg[:0], id)
	p.msg = append(p.msg, `{"content":[{"type":"text","text":"`...)
	p.msg = appendEscaped(p.msg, sc)
	p.msg = append(p.msg, `"}]`...)
	if structured(p.rev) {
		p.msg = append(p.msg, `,"structuredContent":`...)
		p.msg = append(p.msg, sc...)
	}
	p.msg = append(p.msg, `,"isError":false}}`...)
	p.send(s2c, 20, 300)
}

func (p *payloadHeavy) readScan() {
	id := p.next()
	n := p.rng.IntN(10000)
	uri, mime, header := fmt.Sprintf("file:///srv/archive/scans/INV-2025-%04d.pdf", n), "application/pdf", pdfHeader
	if p.rng.IntN(3) == 0 {
		uri, mime, header = fmt.Sprintf("file:///srv/archive/scans/receipt-%05d.png", n), "image/png", pngHeader
	}
	p.msg = appendRequest(p.msg[:0], id, "resources/read")
	p.msg = append(p.msg, `,"params":{"uri":"`+uri+`"}}`...)
	p.send(c2s, 1, 20)
	p.msg = appendReadBlob(p.msg[:0], p.conversation, p.b64, id, uri, mime, header, logUniform(p.rng, 1<<10, 256<<10))
	p.send(s2c, 5, 300)
}

func (p *payloadHeavy) readMissing() {
	id := p.next()
	uri := fmt.Sprintf("file:///srv/archive/scans/INV-2019-%04d.pdf", p.rng.IntN(10000))
	p.msg = appendRequest(p.msg[:0], id, "resources/read")
	p.msg = append(p.msg, `,"params":{"uri":"`+uri+`"}}`...)
	p.send(c2s, 1, 20)
	p.msg = appendError(p.msg[:0], id, -32002, "Resource not found: "+uri)
	p.send(s2c, 2, 30)
}

func (p *payloadHeavy) getInvoice() {
	id := p.next()
	number := fmt.Sprintf("INV-2025-%04d", p.rng.IntN(10000))
	p.msg = appendCallTool(p.msg[:0], id, "get_invoice")
	p.msg = append(p.msg, `"number":"`+number+`"`...)
	p.msg = closeCallTool(p.msg, "")
	p.send(c2s, 1, 20)
	p.msg = appendTextResultOpen(p.msg[:0], id)
	p.msg = fmt.Appendf(p.msg, `Invoice %s: %s, total %d.%02d %s, due 2025-12-31.\n`, number, p.pick(customers...), p.rng.IntN(9000), p.rng.IntN(100), p.pick(currency...))
	p.msg = p.text.appendText(p.msg, p.rng, p.between(100, 1500))
	p.msg = closeTextResult(p.msg)
	p.send(s2c, 5, 100)
}

// badArguments is a call the server refuses with -32602: the arguments fit the
// published inputSchema (a string), but the server wants another form of number.
func (p *payloadHeavy) badArguments() {
	id := p.next()
	number := strconv.Itoa(p.rng.IntN(100000))
	p.msg = appendCallTool(p.msg[:0], id, "get_invoice")
	p.msg = append(p.msg, `"number":"`+number+`"`...)
	p.msg = closeCallTool(p.msg, "")
	p.send(c2s, 1, 20)
	p.msg = appendError(p.msg[:0], id, -32602, `Invalid params: invoice number "`+number+`" is not of the form INV-YYYY-NNNN`)
	p.send(s2c, 2, 30)
}

// askAssistant is a tool call during which the server asks the client's model.
func (p *payloadHeavy) askAssistant() {
	id := p.next()
	p.msg = appendCallTool(p.msg[:0], id, "ask_assistant")
	p.msg = fmt.Appendf(p.msg, `"question":"Why was INV-2025-%04d charged twice?"`, p.rng.IntN(10000))
	p.msg = closeCallTool(p.msg, "")
	p.send(c2s, 1, 20)

	sid := p.sid
	p.sid++
	p.msg = appendRequest(p.msg[:0], sid, "sampling/createMessage")
	p.msg = append(p.msg, `,"params":{"messages":[{"role":"user","content":{"type":"text","text":"Here is the billing log of the case:\n`...)
	p.msg = p.text.appendText(p.msg, p.rng, logUniform(p.rng, 500, 20_000))
	p.msg = append(p.msg, `"}}],"systemPrompt":"You are a support engineer. Answer briefly.","modelPreferences":{"intelligencePriority":0.8,"speedPriority":0.3},"maxTokens":800}}`...)
	p.send(s2c, 5, 50)
	p.msg = appendResult(p.msg[:0], sid)
	p.msg = append(p.msg, `{"role":"assistant","content":{"type":"text","text":"`...)
	answer := len(p.msg)
	p.msg = p.text.appendText(p.msg, p.rng, logUniform(p.rng, 200, 4000))
	p.scratch = append(p.scratch[:0], p.msg[answer:]...)
	p.msg = append(p.msg, `"},"model":"claude-sonnet-4-5","stopReason":"endTurn"}}`...)
	p.send(c2s, 500, 4000)
	p.msg = appendTextResultOpen(p.msg[:0], id)
	p.msg = append(p.msg, p.scratch...)
	p.msg = closeTextResult(p.msg)
	p.send(s2c, 5, 50)
}

// roots is the server's roots/list, answered by the client.
func (p *payloadHeavy) roots() {
	sid := p.sid
	p.sid++
	p.msg = appendRequest(p.msg[:0], sid, "roots/list")
	p.msg = append(p.msg, '}')
	p.send(s2c, 1, 10)
	p.msg = append(appendResult(p.msg[:0], sid), `{"roots":[{"uri":"file:///srv/archive","name":"Archive"},{"uri":"file:///home/support/cases","name":"Cases"}]}}`...)
	p.send(c2s, 1, 10)
}

func (p *payloadHeavy) listWorkspace() {
	id := p.next()
	p.msg = appendCallTool(p.msg[:0], id, "list_workspace")
	p.msg = closeCallTool(p.msg, "")
	p.send(c2s, 1, 20)
	p.roots()
	p.msg = appendTextResultOpen(p.msg[:0], id)
	for i := range p.between(3, 40) {
		p.msg = fmt.Appendf(p.msg, `/srv/archive/scans/INV-2025-%04d.pdf\t%d bytes\n`, i, p.rng.IntN(300_000))
	}
	p.msg = closeTextResult(p.msg)
	p.send(s2c, 5, 50)
}

// cancelled is a long call the client gives up on: the server reported progress
// once, and does not answer after the cancellation.
func (p *payloadHeavy) cancelled() {
	id := p.next()
	tok := token(id)
	p.msg = appendCallTool(p.msg[:0], id, "fetch_log")
	p.msg = fmt.Appendf(p.msg, `"service":"%s","lines":1000000`, p.pick(services...))
	p.msg = closeCallTool(p.msg, tok)
	p.send(c2s, 1, 20)
	p.msg = appendProgress(p.msg[:0], tok, 1, 100, "read segment 1 of 100")
	p.send(s2c, 50, 500)
	p.msg = append(p.msg[:0], `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`...)
	p.msg = strconv.AppendInt(p.msg, int64(id), 10)
	p.msg = append(p.msg, `,"reason":"User cancelled the request"}}`...)
	p.send(c2s, 1000, 5000)
}

func (p *payloadHeavy) log() {
	p.msg = append(p.msg[:0], `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"`...)
	p.msg = append(p.msg, p.pick("debug", "info", "info", "notice", "warning", "error")...)
	p.msg = append(p.msg, `","logger":"`...)
	p.msg = append(p.msg, p.pick(services...)...)
	p.msg = append(p.msg, `","data":"`...)
	p.msg = p.text.appendText(p.msg, p.rng, logUniform(p.rng, 60, 3000))
	p.msg = append(p.msg, `"}}`...)
	p.send(s2c, 1, 200)
}

func (p *payloadHeavy) ping() {
	id := p.next()
	p.msg = append(appendRequest(p.msg[:0], id, "ping"), '}')
	p.send(c2s, 1, 1000)
	p.msg = appendEmptyResult(p.msg[:0], id)
	p.send(s2c, 1, 5)
}
