package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// decode must give the value encoding/json gives (numbers as json.Number), and
// refuse what it refuses.
func TestDecodeMatchesEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`{}`, `[]`, `""`, `0`, `-1.5e+3`, `true`, `false`, `null`,
		`{"a":[1,2,{"b":null}],"c":"d"}`,
		` { "a" : "x\"y\\z\/\b\f\n\r\t" } `,
		`"\u00e9\u20ac\ud83d\ude00"`,
		`"\ud83d"`, // a lone surrogate becomes U+FFFD
		`{"dup":1,"dup":2}`,
		`"héllo"`,
		`[1e400]`,
		"\"\xfe\\b\"",          // invalid UTF-8 before an escape becomes U+FFFD (FuzzDecode, issue 11 item 17)
		"\"a\xc3\\u00e9\xff\"", // and around one
	} {
		got, _, err := decode([]byte(in))
		if err != nil {
			t.Errorf("decode(%s): %v", in, err)
			continue
		}
		dec := json.NewDecoder(bytes.NewReader([]byte(in)))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("encoding/json(%s): %v", in, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("decode(%s) = %#v, want %#v", in, got, want)
		}
	}
	for _, in := range []string{``, `{`, `[1,]`, `{"a"}`, `{"a":1,}`, `"\x"`, `"a`, `01x`, `1.`, `-`, `tru`, `{} {}`, "\"a\x01\""} {
		if _, _, err := decode([]byte(in)); err == nil {
			t.Errorf("decode(%q) accepted invalid JSON", in)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"a":[1,"b",null,true]}`, `"\u00e9"`, `-0.5e-3`, "\"\xfe\\b\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, _, err := decode(in)
		if !json.Valid(in) {
			if err == nil {
				t.Fatalf("accepted invalid JSON %q", in)
			}
			return
		}
		if errors.Is(err, errTooDeep) {
			return // valid, and not checked: too deep
		}
		if err != nil {
			t.Fatalf("refused valid JSON %q: %v", in, err)
		}
		dec := json.NewDecoder(bytes.NewReader(in))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("decode(%q) = %#v, want %#v", in, got, want)
		}
	})
}

func BenchmarkDecode(b *testing.B) {
	raw := []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p42","progress":0.5,"total":1}}`)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := decode(raw); err != nil {
			b.Fatal(err)
		}
	}
}
