package frame_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
)

// Reading a HAR's entries ahead changes nothing a Reader returns: the same
// records, frames, statistics and error, at the same entry, as reading each entry
// when the decoder asks for it, on every HAR fixture and on documents made to
// cross the blocks of entries in every way (more entries than a block, entries
// larger than a block's bytes or than MaxLine, entries out of time order, a
// document cut short at many places, an entry that is not JSON or not an object,
// input that arrives a byte at a time).
func TestEntriesAheadChangesNothing(t *testing.T) {
	inputs := map[string][]byte{}
	var files []string
	for _, glob := range []string{"../../fixtures/*/*.har", "../../fixtures/real/*/*.har"} {
		more, _ := filepath.Glob(glob)
		files = append(files, more...)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		inputs[name] = data
	}
	if len(inputs) < 20 {
		t.Fatalf("only %d HAR fixtures", len(inputs))
	}
	doc := manyEntries(700)
	inputs["many"] = doc
	for _, at := range []int{len(doc) / 7, len(doc) / 3, len(doc) / 2, len(doc) - 40, len(doc) - 3} {
		inputs[fmt.Sprintf("cut-at-%d", at)] = doc[:at]
	}
	entry := bytes.Index(doc[len(doc)/2:], []byte(`"startedDateTime"`)) + len(doc)/2
	inputs["not-json"] = append(append(bytes.Clone(doc[:entry]), '@'), doc[entry:]...)
	open := bytes.LastIndex(doc[:entry], []byte("{"))
	inputs["not-an-object"] = append(append(bytes.Clone(doc[:open]), `"text",`...), doc[open:]...)
	for name, data := range inputs {
		for _, maxLine := range []int{0, 64 << 10} {
			readers := map[string]func() io.Reader{"whole": func() io.Reader { return bytes.NewReader(data) }}
			if len(data) < 256<<10 {
				readers["byte at a time"] = func() io.Reader { return iotest.OneByteReader(bytes.NewReader(data)) }
			}
			for how, in := range readers {
				t.Run(fmt.Sprintf("%s/max%d/%s", filepath.Base(name), maxLine, how), func(t *testing.T) {
					want, wantStats, wantErr := readAll(t, name, in(), frame.Options{MaxLine: maxLine})
					got, gotStats, gotErr := readAll(t, name, in(), frame.Options{MaxLine: maxLine, EntriesAhead: true})
					if name == "many" && (wantStats.Format != "har" || wantStats.Frames < 600 || (maxLine == 0 && (wantStats.Frames < 1000 || wantErr != nil)) || (maxLine > 0) != (wantErr != nil)) {
						t.Fatalf("the generated HAR read as %+v, %v", wantStats, wantErr)
					}
					if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
						t.Fatalf("error %v, want %v", gotErr, wantErr)
					}
					if len(got) != len(want) {
						t.Fatalf("%d records, want %d", len(got), len(want))
					}
					for i := range want {
						if got[i].Line != want[i].Line || got[i].Kind != want[i].Kind || got[i].Entry != want[i].Entry || got[i].Text != want[i].Text {
							t.Fatalf("record %d: line %d entry %d kind %v (text %.80q), want line %d entry %d kind %v (text %.80q)",
								i, got[i].Line, got[i].Entry, got[i].Kind, got[i].Text, want[i].Line, want[i].Entry, want[i].Kind, want[i].Text)
						}
					}
					sameFrames(t, got, want)
					for i := range want {
						if g, w := got[i].Frame, want[i].Frame; g != nil && w != nil && !reflect.DeepEqual(g.HTTP, w.HTTP) {
							t.Fatalf("record %d: HTTP %+v, want %+v", i, g.HTTP, w.HTTP)
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

// A Reader closed before the end of a HAR read ahead stops its reading: Close
// returns, so does a second Close, and Next after it ends with an error instead
// of waiting for entries no one reads.
func TestEntriesAheadStopsAtClose(t *testing.T) {
	rd, err := frame.NewReader("many.har", bytes.NewReader(manyEntries(2000)), frame.Options{EntriesAhead: true})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := rd.Next(); err != nil {
			t.Fatal(err)
		}
	}
	rd.Close()
	rd.Close()
	ended := make(chan error, 1)
	go func() {
		for {
			if _, err := rd.Next(); err != nil {
				ended <- err
				return
			}
		}
	}()
	select {
	case err := <-ended:
		if errors.Is(err, io.EOF) {
			t.Errorf("Next after Close: %v, as if the document had ended", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Next after Close did not return")
	}
}

// manyEntries is a HAR of n Streamable HTTP exchanges, one session: entries of
// every size up to past 64 KiB (and one of 3 MiB, past a block and past what is
// read ahead), each fifth one started before the one ahead of it.
func manyEntries(n int) []byte {
	var b bytes.Buffer
	b.WriteString("{\n  \"log\": {\n    \"version\": \"1.2\",\n    \"creator\": {\"name\": \"test\", \"version\": \"1\"},\n    \"entries\": [\n")
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		req := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get","arguments":{}}}`, i)
		if i == 0 {
			req = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
		}
		size := i * 97 % 70000
		if i == n/2 {
			size = 3 << 20 // past a block and past what is read ahead
		}
		resp := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":%q}]}}`, i, strings.Repeat("r", size))
		if i == 0 {
			resp = `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`
		}
		second := i
		if i%5 == 4 {
			second = i - 2
		}
		fmt.Fprintf(&b, `      {
        "startedDateTime": "2026-11-30T02:%02d:%02d.000Z",
        "time": 3.5,
        "request": {"method": "POST", "url": "http://127.0.0.1:8931/mcp", "headers": [{"name": "Content-Type", "value": "application/json"}, {"name": "Mcp-Session-Id", "value": "s1"}],
          "postData": {"mimeType": "application/json", "text": %s}},
        "response": {"status": 200, "statusText": "OK", "headers": [{"name": "Content-Type", "value": "application/json"}],
          "content": {"mimeType": "application/json", "text": %s}}
      }`, second/60%60, second%60, quoteJSON(req), quoteJSON(resp))
	}
	b.WriteString("\n    ]\n  }\n}\n")
	return b.Bytes()
}

// quoteJSON is s as a JSON string.
func quoteJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// The views of the frames a HAR's bodies are read into are taken back once the
// frames are detached, for the next bodies: a detached copy keeps reading what it
// read (its bytes, its index through a Node, its shape) while later frames reuse
// the views, with the arena reset every few frames as the batches are.
func TestDetachedBodiesKeepTheirViews(t *testing.T) {
	inputs := map[string][]byte{"many": manyEntries(400)}
	files, _ := filepath.Glob("../../fixtures/real/http/*.har")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		inputs[name] = data
	}
	for name, data := range inputs {
		opt := frame.Options{Shaper: shapeLen{}, EntriesAhead: true}
		want, _, wantErr := readAllShaped(t, name, bytes.NewReader(data), opt, false)
		rd, err := frame.NewReader(name, bytes.NewReader(data), opt)
		if err != nil {
			t.Fatal(err)
		}
		type detached struct {
			f  frame.Frame
			at int // in want
		}
		var (
			arena frame.Arena
			kept  []detached // since the arena's last reset
		)
		check := func() {
			for _, d := range kept {
				g, w := &d.f, want[d.at].Frame
				if !bytes.Equal(g.Raw, w.Raw) || g.Method != w.Method || g.ID != w.ID || g.Shape() != w.Shape() || !bytes.Equal(g.Node().Raw(), bytes.TrimSpace(w.Raw)) {
					t.Fatalf("%s: frame of record %d detached: %s (shape %d), want %s (shape %d)", name, d.at, g.Raw, g.Shape(), w.Raw, w.Shape())
				}
			}
			kept = kept[:0]
			arena.Reset()
		}
		frames := 0
		for i := 0; ; i++ {
			rec, err := rd.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) || wantErr != nil {
					t.Fatalf("%s: error %v, want %v", name, err, wantErr)
				}
				break
			}
			if i >= len(want) || rec.Kind != want[i].Kind || rec.Line != want[i].Line {
				t.Fatalf("%s: record %d differs", name, i)
			}
			if rec.Frame == nil {
				continue
			}
			frames++
			kept = append(kept, detached{at: i})
			rd.Detach(rec.Frame, &arena, &kept[len(kept)-1].f, true)
			if len(kept) == 7 {
				check()
			}
		}
		if name == "many" && frames < 700 {
			t.Fatalf("only %d frames of the generated HAR", frames)
		}
		check()
		rd.Close()
	}
}
