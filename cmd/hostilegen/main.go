// Command hostilegen writes the large hostile inputs of issue 11 into a directory,
// the ones too big to keep under fixtures/hostile/: deep nesting (plain, gzip, in a
// HAR body), decompression bombs (gzip, zstd), a line far past --max-line, a flood
// of unanswered requests, a capture of very many sessions, progress floods for the
// direction inference, and a directory holding a FIFO and device links. `task
// hostile` runs check on each and prints exit code, time and peak memory. It is a
// development tool, not part of mcpsleuth.
//
//	go run ./cmd/hostilegen -o /tmp/mcpsleuth-hostile
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

func main() {
	dir := flag.String("o", "/tmp/mcpsleuth-hostile", "directory to write the inputs into")
	flag.Parse()
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		fail(err)
	}
	for _, in := range inputs {
		path := filepath.Join(*dir, in.name)
		if err := write(path, in.compress, in.body); err != nil {
			fail(fmt.Errorf("%s: %w", in.name, err))
		}
		fmt.Println(path)
	}
	// A directory walk must open only regular files: a FIFO named like a capture and
	// links to devices and to files outside the tree are skipped and named.
	walk := filepath.Join(*dir, "walk")
	os.RemoveAll(walk)
	if err := os.MkdirAll(walk, 0o755); err != nil {
		fail(err)
	}
	if err := mkfifo(filepath.Join(walk, "x.jsonl")); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		fail(err)
	}
	for name, target := range map[string]string{"zero.log": "/dev/zero", "passwd.log": "/etc/passwd", "loop": "."} {
		if err := os.Symlink(target, filepath.Join(walk, name)); err != nil {
			fail(err)
		}
	}
	if err := os.WriteFile(filepath.Join(walk, "ok.jsonl"), []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"+`{"jsonrpc":"2.0","id":1,"result":{}}`+"\n"), 0o644); err != nil {
		fail(err)
	}
	fmt.Println(walk)
}

type input struct {
	name     string
	compress string // "", "gzip", "zstd"
	body     func(w *bufio.Writer)
}

const (
	initReq = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	initRes = `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`
	inited  = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

func repeat(w *bufio.Writer, s string, n int) {
	for range n {
		w.WriteString(s)
	}
}

var inputs = []input{
	{"deep-11M.jsonl.gz", "gzip", func(w *bufio.Writer) { repeat(w, "[", 11_000_000); w.WriteString("\n" + initReq + "\n") }},
	{"deep-3M.jsonl", "", func(w *bufio.Writer) { repeat(w, "[", 3_000_000); w.WriteString("\n" + initReq + "\n") }},
	{"deep-in-har-body.har", "", func(w *bufio.Writer) {
		w.WriteString(`{"log":{"version":"1.2","creator":{"name":"x","version":"1"},"entries":[{"startedDateTime":"2026-11-30T10:00:00Z","request":{"method":"POST","url":"http://h/mcp","headers":[],"postData":{"mimeType":"application/json","text":"`)
		repeat(w, "[", 3_000_000)
		w.WriteString(`"}},"response":{"status":200,"headers":[],"content":{"mimeType":"application/json","text":"{}"}}}]}}`)
	}},
	{"bomb-newlines.jsonl.gz", "gzip", func(w *bufio.Writer) { repeat(w, "\n", 4<<30) }},
	{"bomb-one-line.jsonl.gz", "gzip", func(w *bufio.Writer) { repeat(w, "x", 2<<30) }},
	{"bomb-zeros.jsonl.zst", "zstd", func(w *bufio.Writer) { repeat(w, "\x00", 8<<30) }},
	{"line-500MB.jsonl", "", func(w *bufio.Writer) {
		w.WriteString(initReq + "\n" + initRes + "\n" + inited + "\n")
		w.WriteString(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`)
		repeat(w, strings.Repeat("a", 1023)+`\n`, 500<<10)
		w.WriteString(`"}]}}` + "\n")
	}},
	{"unanswered-2M.jsonl", "", func(w *bufio.Writer) {
		w.WriteString(initReq + "\n" + initRes + "\n" + inited + "\n")
		for i := 1; i <= 2_000_000; i++ {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`+"\n", i)
		}
	}},
	{"sessions-1M.jsonl", "", func(w *bufio.Writer) {
		for range 1_000_000 {
			w.WriteString(initReq + "\n" + initRes + "\n" + inited + "\n")
		}
	}},
	{"progress-1M-bare.jsonl", "", func(w *bufio.Writer) {
		// Bare lines: directions inferred, each progress notification placed by its token.
		w.WriteString(initReq + "\n" + initRes + "\n" + inited + "\n")
		for i := 1; i <= 1_000_000; i++ {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"x","arguments":{},"_meta":{"progressToken":"t%d"}}}`+"\n", i, i)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t%d","progress":1}}`+"\n", i)
		}
	}},
}

func write(path, compress string, body func(*bufio.Writer)) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var w io.Writer = f
	var closer io.Closer
	switch compress {
	case "gzip":
		zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
		w, closer = zw, zw
	case "zstd":
		zw, err := zstd.NewWriter(f, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
		if err != nil {
			return err
		}
		w, closer = zw, zw
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	body(bw)
	if err := bw.Flush(); err != nil {
		return err
	}
	if closer != nil {
		return closer.Close()
	}
	return nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "hostilegen:", err)
	os.Exit(2)
}
