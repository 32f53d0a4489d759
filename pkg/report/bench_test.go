package report_test

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// benchCapture is a healthy capture of sessions of 2000 exchanges, like cmd/capturegen writes.
func benchCapture(sessions int) []byte {
	var b bytes.Buffer
	line := 0
	emit := func(dir, msg string) {
		line++
		fmt.Fprintf(&b, `{"ts":"2026-11-30T02:%02d:%02d.%03dZ","dir":"%s","msg":%s}`+"\n", line/60000%60, line/1000%60, line%1000, dir, msg)
	}
	for s := 0; s < sessions; s++ {
		emit("c->s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true},"sampling":{}},"clientInfo":{"name":"client-b","version":"3.2.0"}}}`)
		emit("s->c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true},"resources":{"listChanged":true,"subscribe":true},"logging":{}},"serverInfo":{"name":"invoices","version":"1.9.3"}}}`)
		emit("c->s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		for i := 2; i < 2000; i++ {
			id := fmt.Sprint(i)
			switch i % 5 {
			case 0:
				emit("c->s", `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`)
				emit("s->c", `{"jsonrpc":"2.0","id":`+id+`,"result":{}}`)
			case 1:
				emit("s->c", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"invoices","data":"cache refreshed"}}`)
			default:
				emit("c->s", `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"get_invoice","arguments":{"number":"INV-`+id+`"},"_meta":{"progressToken":"p`+id+`"}}}`)
				emit("s->c", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p`+id+`","progress":0.5,"total":1}}`)
				emit("s->c", `{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[{"type":"text","text":"Invoice `+id+` `+strings.Repeat("detail ", 40)+`"}],"isError":false}}`)
			}
		}
	}
	return b.Bytes()
}

// BenchmarkCheckJSON: the analysis behind check --format json.
func BenchmarkCheckJSON(b *testing.B) {
	data := benchCapture(4)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		res, err := driver.Run("bench.jsonl", bytes.NewReader(data), rules.All(), driver.RunOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if err := report.WriteJSON(io.Discard, report.Build("bench", []*driver.InputResult{res})); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckJSONInline: the same analysis on one goroutine (driver.RunOptions.Inline),
// so that its time per operation is the CPU the whole check costs: the figure that
// shows a change of either stage, where the pipelined run's wall time shows only the
// slower one.
func BenchmarkCheckJSONInline(b *testing.B) {
	data := benchCapture(4)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		res, err := driver.Run("bench.jsonl", bytes.NewReader(data), rules.All(), driver.RunOptions{Inline: true})
		if err != nil {
			b.Fatal(err)
		}
		if err := report.WriteJSON(io.Discard, report.Build("bench", []*driver.InputResult{res})); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckMarkdown: the analysis behind check --format markdown (the tracer
// next to the rules, the diagram frames kept per session).
func BenchmarkCheckMarkdown(b *testing.B) {
	data := benchCapture(4)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		tr := trace.New(trace.Options{Needs: report.MarkdownRequires})
		opt := driver.RunOptions{}
		tr.Apply(&opt)
		res, err := driver.Run("bench.jsonl", bytes.NewReader(data), rules.All(), opt)
		if err != nil {
			b.Fatal(err)
		}
		rep := report.BuildWith("bench", []*driver.InputResult{res}, report.Options{Rules: rules.All(), Trace: tr})
		if err := report.WriteMarkdown(io.Discard, rep); err != nil {
			b.Fatal(err)
		}
	}
}
