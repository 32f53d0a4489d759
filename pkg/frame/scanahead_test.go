package frame_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
)

// shapeLen is a Shaper that needs no schemas: a frame's shape is the number of its
// tokens (0 for none), so that scans ahead and scans in place, which both record
// tokens, can be compared by shape as well.
type shapeLen struct{}

func (shapeLen) Shape(text []byte, tokens []frame.Token) uint64 { return uint64(len(tokens)) + 1 }
func (shapeLen) Wire(raw []byte) uint64                         { return uint64(len(raw)) + 1<<40 }

// Scanning ahead on workers changes nothing a Reader returns: the same records,
// frames, shapes and statistics as scanning each line when it is decoded, on every
// fixture and on inputs made to cross the block boundaries in every way (lines
// longer than a block or than MaxLine, runs of blank lines, CRLF, a last line
// without an ending, input that arrives a byte at a time).
func TestScanAheadChangesNothing(t *testing.T) {
	inputs := map[string][]byte{}
	files, _ := filepath.Glob("../../fixtures/*/*")
	more, _ := filepath.Glob("../../fixtures/real/*/*")
	for _, name := range append(files, more...) {
		if strings.HasSuffix(name, ".want") || strings.HasSuffix(name, ".md") {
			continue
		}
		data, err := os.ReadFile(name)
		if err != nil || len(data) == 0 {
			continue
		}
		inputs[name] = data
	}
	inputs["blocks"] = blockCrossing()
	inputs["blocks-crlf"] = bytes.ReplaceAll(blockCrossing(), []byte("\n"), []byte("\r\n"))
	inputs["blocks-no-final-newline"] = bytes.TrimSuffix(blockCrossing(), []byte("\n"))
	inputs["gosdk"] = gosdkLines(5000)
	if len(inputs) < 50 {
		t.Fatalf("only %d inputs", len(inputs))
	}
	for name, data := range inputs {
		for _, maxLine := range []int{0, 300 << 10} {
			opt := frame.Options{MaxLine: maxLine, Shaper: shapeLen{}}
			readers := map[string]func() io.Reader{"whole": func() io.Reader { return bytes.NewReader(data) }}
			if len(data) < 1<<20 {
				readers["byte at a time"] = func() io.Reader { return iotest.OneByteReader(bytes.NewReader(data)) }
			}
			for how, in := range readers {
				want, wantStats, wantErr := readAllShaped(t, name, in(), opt, false)
				for _, workers := range []int{1, 3, -3} {
					ahead := opt
					ahead.ScanAhead = max(workers, -workers)
					toggle := workers < 0 // the workers turned off and on every few records
					t.Run(fmt.Sprintf("%s/max%d/workers%d/%s", filepath.Base(name), maxLine, workers, how), func(t *testing.T) {
						got, gotStats, gotErr := readAllShaped(t, name, in(), ahead, toggle)
						if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
							t.Fatalf("error %v, want %v", gotErr, wantErr)
						}
						if len(got) != len(want) {
							for i := range min(len(got), len(want)) {
								if got[i].Line != want[i].Line || got[i].Kind != want[i].Kind {
									t.Fatalf("record %d: line %d kind %v (text %.80q), want line %d kind %v (text %.80q)", i, got[i].Line, got[i].Kind, got[i].Text, want[i].Line, want[i].Kind, want[i].Text)
								}
							}
						}
						sameFrames(t, got, want)
						for i := range want {
							if got[i].Run != want[i].Run {
								t.Errorf("record %d: run %d, want %d", i, got[i].Run, want[i].Run)
							}
							if w := want[i].Frame; w != nil && got[i].Frame.Shape() != w.Shape() {
								t.Errorf("record %d: shape %d, want %d", i, got[i].Frame.Shape(), w.Shape())
							}
						}
						if gotStats != wantStats {
							t.Errorf("stats:\n got  %+v\n want %+v", gotStats, wantStats)
						}
					})
				}
			}
		}
	}
}

// blockCrossing is an envelope capture whose lines cross the scan-ahead blocks
// (256 KiB) in every way: short lines, lines of about a block, a line of several
// blocks, a line longer than a 300 KiB MaxLine, runs of blank lines at block edges,
// context lines and broken JSON.
func blockCrossing() []byte {
	var b bytes.Buffer
	envelope := func(text string) {
		fmt.Fprintf(&b, `{"ts":"2026-11-30T02:00:00Z","dir":"s2c","msg":{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":%q}]}}}`+"\n", b.Len(), text)
	}
	b.WriteString(`{"ts":"2026-11-30T02:00:00Z","dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}` + "\n")
	for i := range 3000 {
		switch i % 500 {
		case 7:
			envelope(strings.Repeat("x", 250<<10)) // about a block
		case 99:
			envelope(strings.Repeat("y\n", 400<<10)) // several blocks, past a 300 KiB MaxLine
		case 200:
			b.WriteString(strings.Repeat("\n", 5000))
		case 300:
			b.WriteString("server started on port 3000\n")
		case 301:
			b.WriteString(`{"ts":"2026-11-30T02:00:00Z","dir":"s2c","msg":{"jsonrpc":"2.0",` + "\n")
		default:
			envelope(strings.Repeat("z", i%97))
		}
	}
	return b.Bytes()
}

// gosdkLines is a Go SDK LoggingTransport log: JSON after a prefix.
func gosdkLines(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`write: {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}` + "\n")
	b.WriteString(`read: {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}` + "\n")
	for i := range n {
		fmt.Fprintf(&b, `write: {"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"a","arguments":{}}}`+"\n", i+2)
		fmt.Fprintf(&b, `read: {"jsonrpc":"2.0","id":%d,"result":{"content":[]}}`+"\n", i+2)
	}
	return b.Bytes()
}

// readAllShaped is readAll with each frame's shape computed as it is read (a copy
// of a frame shares the Reader's index, which the next line overwrites), and the
// records of one run of blank lines as one; toggle turns the workers off and on as
// it reads (Reader.ScanAhead).
func readAllShaped(t testing.TB, name string, in io.Reader, opt frame.Options, toggle bool) ([]record, frame.Stats, error) {
	t.Helper()
	rd, err := frame.NewReader(name, in, opt)
	if err != nil {
		t.Fatalf("NewReader(%q): %v", name, err)
	}
	defer rd.Close()
	var out []record
	for {
		rec, err := rd.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return out, rd.Stats(), err
		}
		if rec.Frame != nil {
			rec.Frame.ShapeNow()
		}
		if toggle {
			rd.ScanAhead(len(out)/37%2 == 0)
		}
		if n := len(out); n > 0 && rec.Kind == frame.RecordBlank && out[n-1].Kind == frame.RecordBlank {
			// A run of blank lines is one record or several, as the input was
			// buffered when it was read (Reader.skipBlankRun never waits for more).
			out[n-1].Run += rec.Run
			continue
		}
		out = append(out, copyRecord(rec))
	}
}
