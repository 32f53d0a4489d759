package frame

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// fixtureLines returns every line of every capture under fixtures/.
// gjsonMembers lists what gjson's ForEach yields on r, one line a member: key,
// type, raw value, string value, number, and the same of the value's own members
// (one level down).
func gjsonMembers(r gjson.Result) string {
	var b strings.Builder
	r.ForEach(func(k, v gjson.Result) bool {
		fmt.Fprintf(&b, "%q %v %q %q %v %v\n", k.Str, v.Type, v.Raw, v.Str, v.Num, v.Type == gjson.Null)
		v.ForEach(func(k, v gjson.Result) bool {
			fmt.Fprintf(&b, "\t%q %v %q %q %v %v\n", k.Str, v.Type, v.Raw, v.Str, v.Num, v.Type == gjson.Null)
			return true
		})
		return true
	})
	return b.String()
}

// paramMembers lists what ParamMembers yields, as gjsonMembers does.
func paramMembers(f *Frame, path string) string {
	var b strings.Builder
	f.ParamMembers(path, func(k string, v Value) bool {
		r := v.Result()
		fmt.Fprintf(&b, "%q %v %q %q %v %v\n", k, r.Type, v.Raw(), r.Str, r.Num, v.IsNull())
		v.Members(func(k string, v Value) bool {
			r := v.Result()
			fmt.Fprintf(&b, "\t%q %v %q %q %v %v\n", k, r.Type, v.Raw(), r.Str, r.Num, v.IsNull())
			return true
		})
		return true
	})
	return b.String()
}

func fixtureLines(t testing.TB) [][]byte {
	t.Helper()
	var lines [][]byte
	err := filepath.WalkDir(filepath.Join("..", "..", "fixtures"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".want") || strings.HasSuffix(path, ".md") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lines = append(lines, data) // whole documents (HAR, pretty-printed JSON) too
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			lines = append(lines, bytes.Clone(sc.Bytes()))
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// The validating scan accepts exactly what encoding/json accepts, on every line of
// every fixture and on random damage done to them.
func TestScanAgreesWithEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var ix index
	check := func(b []byte) {
		t.Helper()
		p, _ := scanJSON(b, &ix)
		if got, want := p == scanOK, json.Valid(b); got != want {
			t.Fatalf("scan says valid=%v (%d), encoding/json says %v: %q", got, p, want, b)
		}
	}
	for _, line := range fixtureLines(t) {
		check(line)
		for range 20 {
			m := bytes.Clone(line)
			if len(m) == 0 {
				break
			}
			switch rng.IntN(4) {
			case 0:
				const damage = "{}[]\",:\\ 0e-.tfnu\x01\x7f"
				m[rng.IntN(len(m))] = damage[rng.IntN(len(damage))]
			case 1:
				m = m[:rng.IntN(len(m))]
			case 2:
				i := rng.IntN(len(m))
				m = append(m[:i], m[i+1:]...)
			case 3:
				i := rng.IntN(len(m))
				m = append(m[:i:i], append([]byte(`"\u00e9\n"`), m[i:]...)...)
			}
			check(m)
		}
	}
	for _, s := range []string{``, ` `, `1`, `-0`, `-`, `01`, `1.`, `1e`, `1e+5`, `"\u12"`, `"\ud800"`, `"a` + "\x00" + `"`, "\"\xff\"", `[1,]`, `{"a":1,}`, `{"a" 1}`, `[]]`, `{}{}`, `nul`, `true `, ` [ ] `, `{"a":{"b":[1,{"c":null}]}}`} {
		check([]byte(s))
	}
}

// Nesting deeper than MaxNesting is refused without recursion, however deep.
func TestScanDeepNesting(t *testing.T) {
	var ix index
	deep := bytes.Repeat([]byte("["), 5_000_000)
	if p, _ := scanJSON(deep, &ix); p != scanTooDeep {
		t.Fatalf("5M '[': problem %d, want scanTooDeep", p)
	}
	ok := []byte(strings.Repeat("[", MaxNesting) + strings.Repeat("]", MaxNesting))
	if p, _ := scanJSON(ok, &ix); p != scanOK {
		t.Fatalf("%d levels: problem %d, want valid", MaxNesting, p)
	}
}

// Lookups through the index give what gjson reads from the bytes.
func TestIndexLookups(t *testing.T) {
	var ix index
	paths := []string{"jsonrpc", "id", "method", "params", "result", "error", "msg", "dir", "ts",
		"params.name", "params._meta", "params._meta.progressToken", "result.task", "result.content", "error.code", "error.message",
		"msg.method", "msg.params._meta.progressToken", "msg.result.tools", `params._meta.io\.modelcontextprotocol/protocolVersion`}
	n := 0
	for _, line := range fixtureLines(t) {
		if p, _ := scanJSON(line, &ix); p != scanOK {
			continue
		}
		for _, path := range paths {
			got, want := lookup(line, &ix, 0, path), gjson.GetBytes(line, path)
			if got.Raw != want.Raw || got.Type != want.Type || got.Str != want.Str || got.Num != want.Num {
				t.Fatalf("%s in %q: index gives %+v, gjson %+v", path, line, got, want)
			}
			n++
		}
	}
	if n < 1000 {
		t.Fatalf("only %d lookups made", n)
	}
}

// A record nested beyond MaxNesting is one invalid frame that says so; the lines
// after it are read as usual.
func TestDeepRecordIsOneInvalidFrame(t *testing.T) {
	input := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":` + strings.Repeat("[", 200_000) + "\n" +
		`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"
	rd, err := NewReader("deep.jsonl", strings.NewReader(input), Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := rd.Next()
	if err != nil {
		t.Fatal(err)
	}
	if rec.Kind != RecordFrame || rec.Frame.Problem != ProblemNotJSON || !strings.Contains(rec.Frame.Detail, "nested deeper than 1000 levels") {
		t.Fatalf("line 1: %+v, want an invalid frame nested too deep", rec.Frame.Detail)
	}
	rec, err = rd.Next()
	if err != nil || rec.Frame == nil || rec.Frame.Kind != KindResult || rec.Line != 2 {
		t.Fatalf("line 2: %+v %v, want the result", rec, err)
	}
}

// Frame.Param and Frame.ResultGet, which read through the index, give what gjson
// reads from the bytes of params and result, on every frame of every fixture (and
// on their copies made by Detach).
func TestParamAndResultLookups(t *testing.T) {
	paths := []string{"name", "arguments", "uri", "progressToken", "requestId", "cursor", "_meta", "_meta.progressToken",
		`_meta.io\.modelcontextprotocol/protocolVersion`, "task", "task.taskId", "tools", "content", "resultType", "protocolVersion", "capabilities.tools"}
	var arena Arena
	n := 0
	eachFixtureFrame(t, func(path string, _ *Reader, rec *Record) {
		var copied Frame
		rec.Frame.Detach(&arena, &copied)
		frames := []*Frame{rec.Frame, &copied}
		for i := range rec.Frame.Members {
			frames = append(frames, &rec.Frame.Members[i], &copied.Members[i])
		}
		for _, fr := range frames {
			for _, p := range []string{"", "_meta", "arguments", "task"} {
				of := gjson.ParseBytes(fr.Params)
				if p != "" {
					of = gjson.GetBytes(fr.Params, p)
				}
				if got, want := paramMembers(fr, p), gjsonMembers(of); got != want {
					t.Fatalf("%s:%d: ParamMembers(%q) =\n%s\ngjson ForEach:\n%s", path, fr.Line, p, got, want)
				}
				n++
			}
			for _, p := range paths {
				if got, want := fr.Param(p), gjson.GetBytes(fr.Params, p); got.Raw != want.Raw || got.Str != want.Str {
					t.Fatalf("%s:%d: Param(%q) = %q, gjson %q", path, fr.Line, p, got.Raw, want.Raw)
				}
				if got, want := fr.ResultGet(p), gjson.GetBytes(fr.Result, p); got.Raw != want.Raw || got.Str != want.Str {
					t.Fatalf("%s:%d: ResultGet(%q) = %q, gjson %q", path, fr.Line, p, got.Raw, want.Raw)
				}
				n++
			}
		}
	})
	if n < 10000 {
		t.Fatalf("only %d lookups made", n)
	}
}

// eachFixtureFrame reads every capture under fixtures/ and hands each frame record
// to visit with its reader, before reading on; it returns how many captures it read.
func eachFixtureFrame(t *testing.T, visit func(path string, rd *Reader, rec *Record)) (files int) {
	t.Helper()
	err := filepath.WalkDir(filepath.Join("..", "..", "fixtures"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".want") || strings.HasSuffix(path, ".md") {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		rd, err := NewReader(path, f, Options{})
		if err != nil {
			return nil // not a capture this reader takes
		}
		defer rd.Close()
		files++
		for {
			rec, err := rd.Next()
			if err != nil {
				return nil
			}
			if rec.Kind == RecordFrame {
				visit(path, rd, rec)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// randomJSON writes a random JSON value of at most depth levels: objects with
// escaped and empty member names (repeated ones too, unless unique), arrays,
// strings with escapes, numbers, literals; empty containers too.
func randomJSON(r *rand.Rand, b *strings.Builder, depth int, unique bool) {
	names := []string{"a", "b", "id", "", `q\"k`, `\u0061`, "params", "_meta"}
	scalars := []string{`"x"`, `"line\nbreak \"q\""`, `"\u00e9t\u00e9"`, "0", "-12.5e3", "true", "false", "null", `""`}
	k := r.IntN(10)
	if depth <= 0 {
		k = 9
	}
	switch {
	case k < 3:
		b.WriteByte('{')
		perm := r.Perm(len(names))
		for i := range r.IntN(5) {
			if i > 0 {
				b.WriteByte(',')
			}
			name := names[r.IntN(len(names))]
			if unique {
				name = names[perm[i]]
			}
			fmt.Fprintf(b, "%q:", name)
			randomJSON(r, b, depth-1, unique)
		}
		b.WriteByte('}')
	case k < 5:
		b.WriteString("[ ")
		for i := range r.IntN(5) {
			if i > 0 {
				b.WriteString(" , ")
			}
			randomJSON(r, b, depth-1, unique)
		}
		b.WriteByte(']')
	default:
		b.WriteString(scalars[r.IntN(len(scalars))])
	}
}

// walkIndex lists, as gjsonMembers' walk does on the bytes, the members and
// elements of the value of entry at, read through the index alone (child,
// sibling, key, result), down to its leaves.
func walkIndex(text []byte, ix *index, at int32, b *strings.Builder) {
	r := ix.result(text, at)
	fmt.Fprintf(b, "%d %q %q %v\n", r.Type, r.Raw, r.Str, r.Num)
	kind := ix.kind(at)
	for c := ix.child(at); c >= 0; c = ix.sibling(c) {
		if kind == '{' {
			fmt.Fprintf(b, "key %q\n", ix.key(text, c))
		}
		walkIndex(text, ix, c, b)
	}
	b.WriteString("end\n")
}

// walkGjson is walkIndex from the bytes, with gjson.
func walkGjson(r gjson.Result, b *strings.Builder) {
	fmt.Fprintf(b, "%d %q %q %v\n", r.Type, r.Raw, r.Str, r.Num)
	if r.IsObject() || r.IsArray() {
		obj := r.IsObject()
		r.ForEach(func(k, v gjson.Result) bool {
			if obj {
				fmt.Fprintf(b, "key %q\n", k.Str)
			}
			walkGjson(v, b)
			return true
		})
	}
	b.WriteString("end\n")
}

// The tokens are the whole index: walking a text's values through them (members
// by stepping from one value to the next, containers skipped by their recorded
// end) gives what gjson reads from the bytes, at every depth, and so do lookups by
// path, into arrays too. (Lookups are compared on objects without repeated member
// names: where a name repeats, the index takes the first member of the name and
// gjson the first whose value has the rest of the path.)
func TestIndexWalkMatchesGjson(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 26))
	var ix index
	for i := range 6000 {
		unique := i%2 == 0
		var sb strings.Builder
		randomJSON(r, &sb, 6, unique)
		text := []byte(sb.String())
		if p, at := scanJSON(text, &ix); p != scanOK {
			t.Fatalf("%s: scan refused it at %d", text, at)
		}
		var got, want strings.Builder
		walkIndex(text, &ix, 0, &got)
		walkGjson(gjson.ParseBytes(text), &want)
		if got.String() != want.String() {
			t.Fatalf("%s:\nindex:\n%s\ngjson:\n%s", text, got.String(), want.String())
		}
		if !unique {
			continue
		}
		for _, path := range []string{"a", "a.b", "params._meta", "id.0", "b.1.a", `q\"k`, "a.a.a.a"} {
			got, want := lookup(text, &ix, 0, path), gjson.GetBytes(text, path)
			if got.Raw != want.Raw || got.Type != want.Type || got.Str != want.Str || got.Num != want.Num {
				t.Fatalf("%s in %s: index gives %+v, gjson %+v", path, text, got, want)
			}
		}
	}
}
