package frame

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestJSONDocFindsEntries reads entries whose strings hold quotes, backslashes and
// brackets, one byte per read (every boundary falls inside a string or an escape
// once), and checks each entry's text and the line it starts on.
func TestJSONDocFindsEntries(t *testing.T) {
	doc := "{\"log\": {\"creator\": {\"name\": \"x\\\"}\"},\n \"entries\": [\n" +
		`  {"a": "\\", "b": "]\"[{"},` + "\n" +
		`  {"c": ["\\\\\"", {"d": "}"}]}` + "\n" +
		"  ,\n  {}\n]}}"
	for name, r := range map[string]io.Reader{"whole": strings.NewReader(doc), "byte by byte": iotest.OneByteReader(strings.NewReader(doc))} {
		t.Run(name, func(t *testing.T) {
			d := newJSONDoc("t.har", r, 0)
			var creator string
			if err := d.enter([]string{"log", "entries"}, func(depth int, key string, raw []byte) {
				if depth == 1 && key == "creator" {
					n, _ := Parse(raw)
					v, _ := n.Get("name")
					creator = strings.Clone(v.Text())
				}
			}); err != nil {
				t.Fatal(err)
			}
			if creator != `x"}` {
				t.Errorf("creator %q", creator)
			}
			want := []struct {
				raw  string
				line int
			}{{`{"a": "\\", "b": "]\"[{"}`, 3}, {`{"c": ["\\\\\"", {"d": "}"}]}`, 4}, {`{}`, 6}}
			for i, w := range want {
				n, line, err := d.entry()
				if err != nil {
					t.Fatalf("entry %d: %v", i+1, err)
				}
				if string(n.Raw()) != w.raw || line != w.line {
					t.Errorf("entry %d: %s on line %d, want %s on line %d", i+1, n.Raw(), line, w.raw, w.line)
				}
			}
			if _, _, err := d.entry(); err != io.EOF {
				t.Errorf("after the last entry: %v, want io.EOF", err)
			}
		})
	}
}

// TestJSONDocNamesWhereAnEntryBreaks: an entry that is not JSON is named by its
// index and by the line of the byte where it goes wrong, even when a stray quote
// keeps the entry from ending before the input does.
func TestJSONDocNamesWhereAnEntryBreaks(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{"[{\"a\": 1},\n{\"a\": x}]", `mcpsleuth: t.json: entry 2: not valid JSON: unexpected "x" on line 2`},
		{"[{\"a\": 1},\n{\"a\"\n \"b\": 2}]", `mcpsleuth: t.json: entry 2: not valid JSON: unexpected "\"" on line 3`},
		{"[{\"a\": 1},\n{\"a\": \"b\"\"c\": 2}]", `mcpsleuth: t.json: entry 2: not valid JSON: unexpected "\"" on line 2`},
		{"[{\"a\": 1},\n{\"a\": ", `mcpsleuth: t.json: entry 2: unexpected EOF`},
		{"[{\"a\": 1} {\"a\": 2}]", `mcpsleuth: t.json: entry 2: expected a comma or ']', found '{'`},
		{"[{\"a\": 1}, 7]", `mcpsleuth: t.json: entry 2: not a JSON object`},
		{"[{\"a\": \"" + strings.Repeat("y", 100) + "\"}]", `mcpsleuth: t.json: entry 1: longer than the 64 bytes limit (--max-line)`},
	} {
		d := newJSONDoc("t.json", strings.NewReader(c.doc), 64)
		if err := d.enter(nil, nil); err != nil {
			t.Fatal(err)
		}
		var err error
		for err == nil {
			_, _, err = d.entry()
		}
		if err.Error() != c.want {
			t.Errorf("%q:\n got %s\nwant %s", c.doc, err, c.want)
		}
	}
}
