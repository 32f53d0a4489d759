package record

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/redact"
)

// FuzzLines: whatever the chunks a stream arrives in, the lines cut from it are
// its newline-separated lines (the last one without its newline), each whole,
// or its length when it is over the limit; and a line handed over is never
// changed by what arrives after it (whole may keep it).
func FuzzLines(f *testing.F) {
	f.Add([]byte("a\nbc\n\nd"), uint8(1), uint8(8))
	f.Add([]byte("{\"jsonrpc\":\"2.0\"}\r\n{}\n"), uint8(3), uint8(4))
	f.Add([]byte("0123456789\nabc"), uint8(7), uint8(5))
	f.Fuzz(func(t *testing.T, data []byte, chunk, max uint8) {
		size, limit := int(chunk)%16+1, int(max)%32+1
		var got []string
		var kept [][]byte
		whole := func(b []byte) { got = append(got, string(b)); kept = append(kept, b) }
		tooLong := func(n int) { got = append(got, fmt.Sprintf("<%d>", n)) }
		l := lines{max: limit}
		for i := 0; i < len(data); i += size {
			l.feed(data[i:min(i+size, len(data))], whole, tooLong)
		}
		l.end(whole, tooLong)
		var want []string
		parts := strings.Split(string(data), "\n")
		if len(parts) > 0 && parts[len(parts)-1] == "" {
			parts = parts[:len(parts)-1] // a stream that ends with its newline
		}
		for _, p := range parts {
			if len(p) > limit {
				want = append(want, fmt.Sprintf("<%d>", len(p)))
			} else {
				want = append(want, p)
			}
		}
		if strings.Join(got, "|") != strings.Join(want, "|") || len(got) != len(want) {
			t.Fatalf("chunks of %d, limit %d: lines %q, want %q", size, limit, got, want)
		}
		i := 0
		for _, g := range got {
			if !strings.HasPrefix(g, "<") || !strings.HasSuffix(g, ">") {
				if string(kept[i]) != g {
					t.Fatalf("a line handed over changed afterwards: %q, was %q", kept[i], g)
				}
				i++
			}
		}
	})
}

// FuzzSSEEvents: an event stream cut into chunks anywhere gives the events a
// reader of text/event-stream gives (WHATWG HTML 9.2: data lines joined by
// newlines, dispatched at a blank line), never an event with more data than
// MaxBody kept.
func FuzzSSEEvents(f *testing.F) {
	f.Add([]byte("data: {\"a\":1}\n\n"), uint8(3))
	f.Add([]byte("event: message\nid: 7\ndata: x\ndata: y\r\n\r\n: comment\ndata:z\n\n"), uint8(1))
	f.Add([]byte("data: unterminated"), uint8(5))
	f.Fuzz(func(t *testing.T, stream []byte, chunk uint8) {
		size := int(chunk)%32 + 1
		var out bytes.Buffer
		rec := NewRecording(&out, Options{})
		b := &sseBody{rec: rec, meta: &Exchange{N: 1}, split: lines{max: MaxBody}, held: &budget{}}
		for i := 0; i < len(stream); i += size {
			b.split.feed(stream[i:min(i+size, len(stream))], b.line, b.tooLong)
		}
		rec.Close()
		var got []string
		for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if line == "" {
				continue
			}
			var r struct {
				Msg      json.RawMessage `json:"msg"`
				Text     *string         `json:"text"`
				Encoding string          `json:"encoding"`
			}
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("an invalid record: %q: %v", line, err)
			}
			switch {
			case r.Msg != nil:
				var c bytes.Buffer
				_ = json.Compact(&c, r.Msg)
				got = append(got, c.String())
			case r.Text != nil && r.Encoding == "base64":
				b, err := base64.StdEncoding.DecodeString(*r.Text)
				if err != nil {
					t.Fatalf("a text record that is not base64: %q", line)
				}
				got = append(got, string(b))
			case r.Text != nil:
				got = append(got, *r.Text)
			}
		}
		// The reference: split on \n, strip one \r, dispatch at an empty line.
		var want []string
		var data []string
		has := false
		text := string(stream)
		if i := strings.LastIndexByte(text, '\n'); i >= 0 {
			text = text[:i+1] // a last line without its newline is not complete
		} else {
			text = ""
		}
		for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			l = strings.TrimSuffix(l, "\r")
			switch {
			case l == "":
				if has && strings.TrimSpace(strings.Join(data, "\n")) != "" {
					d := strings.Join(data, "\n")
					if json.Valid([]byte(d)) && strings.TrimSpace(d)[0] != '"' {
						var c bytes.Buffer
						_ = json.Compact(&c, []byte(strings.TrimSpace(d)))
						d = c.String()
					}
					want = append(want, d)
				}
				data, has = nil, false
			case l[0] == ':':
			default:
				field, value, _ := strings.Cut(l, ":")
				if field == "data" {
					data = append(data, strings.TrimPrefix(value, " "))
					has = true
				}
			}
		}
		if len(text) == 0 {
			want = nil
		}
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Fatalf("chunks of %d: events %q, want %q", size, got, want)
		}
	})
}

// FuzzRedactKeepsMessagesWithoutSecrets: under --redact, a message in which no
// secret shows (its text holds none that MaskSecrets finds) is recorded exactly
// as it crossed, whatever its nesting and bytes; and what is recorded is JSON.
func FuzzRedactKeepsMessagesWithoutSecrets(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"a":[1,2,{"b":"c"}]}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"caf` + "\xe9" + `"}}`))
	f.Add([]byte(strings.Repeat(`[`, 70) + strings.Repeat(`]`, 70)))
	f.Add([]byte(`{"a":"password=hunter2hunter2"}`))
	f.Fuzz(func(t *testing.T, msg []byte) {
		if !json.Valid(msg) || redact.MaskSecrets(string(msg)) != string(msg) {
			return
		}
		got := redactMessage(bytes.TrimSpace(msg))
		if !json.Valid(got) {
			t.Fatalf("redacted into invalid JSON: %q -> %q", msg, got)
		}
		if !bytes.Equal(got, bytes.TrimSpace(msg)) && !redact.Readable(msg) {
			t.Fatalf("a message without a secret the redactor cannot read was changed: %q -> %q", msg, got)
		}
	})
}
