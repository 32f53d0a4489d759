package frame

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// envelopeBenchFiles are the captures of each recorder whose JSONL the envelope
// decoder reads: generic envelopes, mcpsnoop, mcp-trace-validator, mcp-cassette and
// mcpsleuth's own record --http.
var envelopeBenchFiles = []string{
	"real/ts-everything-healthy.jsonl",
	"formats/mcpsnoop-stdio-cancel.jsonl",
	"formats/mcpsnoop-http-batch.jsonl",
	"formats/trace-validator-killed-midcall.jsonl",
	"formats/cassette-batch-2025-03-26.jsonl",
	"formats/cassette-http-chunks.jsonl",
	"real/http/mcp-lite-get-refused.jsonl",
	"real/mcp-remote/http-mcp-remote-everything-two-sessions.jsonl",
}

// envelopeBenchLines reads the lines of the captures of envelopeBenchFiles.
func envelopeBenchLines(b *testing.B) [][]byte {
	b.Helper()
	var lines [][]byte
	for _, name := range envelopeBenchFiles {
		data, err := os.ReadFile(filepath.Join("..", "..", "fixtures", filepath.FromSlash(name)))
		if err != nil {
			b.Fatal(err)
		}
		lines = append(lines, bytes.Split(bytes.TrimSpace(data), []byte("\n"))...)
	}
	return lines
}

// BenchmarkEnvelopeDecode decodes each line of every recorder's captures, with the
// frame reset between lines as the Reader resets it: the scan, the members collected
// by the field map and the message decoded.
func BenchmarkEnvelopeDecode(b *testing.B) {
	lines := envelopeBenchLines(b)
	size := 0
	for _, line := range lines {
		size += len(line)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	var (
		d envelopeDecoder
		f Frame
		x lineExtras
	)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d = envelopeDecoder{}
		for _, line := range lines {
			members := f.Members[:0]
			f = Frame{Members: members, Offset: -1, view: f.view, root: -1}
			if f.view != nil {
				f.view.text = nil
			}
			x.batchKey, x.more, x.exchange = "", x.more[:0], nil
			d.decode(line, &f, &x)
		}
	}
}
