// Command capturegen writes a large synthetic capture (envelope JSONL) for
// benchmarks and memory measurements: realistic healthy legacy sessions, one after
// another, until the requested size. It is a development tool, not part of mcpsleuth.
//
//	go run ./cmd/capturegen -size 1G -o /tmp/big.jsonl
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

func main() {
	size := flag.String("size", "100M", "approximate output size (K, M, G suffixes)")
	out := flag.String("o", "-", "output file ('-' = stdout)")
	bare := flag.Bool("bare", false, "write bare JSON-RPC lines instead of envelopes")
	flag.Parse()
	limit, err := parseSize(*size)
	if err != nil {
		fmt.Fprintf(os.Stderr, "capturegen: %v\n", err)
		os.Exit(2)
	}
	var w io.Writer = os.Stdout
	if *out != "-" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintf(os.Stderr, "capturegen: %v\n", err)
			os.Exit(2)
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	defer bw.Flush()
	g := &generator{w: bw, bare: *bare, now: time.Date(2026, 11, 30, 2, 0, 0, 0, time.UTC)}
	for g.written < limit {
		g.session(2000)
	}
}

type generator struct {
	w       *bufio.Writer
	bare    bool
	now     time.Time
	written int64
}

func (g *generator) emit(dir, msg string) {
	g.now = g.now.Add(1500 * time.Microsecond)
	var line string
	if g.bare {
		line = msg + "\n"
	} else {
		line = `{"ts":"` + g.now.Format(time.RFC3339Nano) + `","dir":"` + dir + `","msg":` + msg + "}\n"
	}
	n, _ := g.w.WriteString(line)
	g.written += int64(n)
}

const tools = `{"tools":[{"name":"get_invoice","description":"Fetch one invoice by number","inputSchema":{"type":"object","properties":{"number":{"type":"string","description":"Invoice number, e.g. INV-2025-0042"}},"required":["number"]}},{"name":"search_invoices","description":"Search invoices","inputSchema":{"type":"object","properties":{"since":{"type":"string","format":"date","description":"ISO date, e.g. 2025-06-01"},"customer":{"type":"string"}}}}]}`

// session writes one healthy 2025-06-18 session of about n exchanges.
func (g *generator) session(n int) {
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

func parseSize(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("bad -size %q", s)
	}
	return n * mult, nil
}
