package redact

import (
	"fmt"
	"hash/maphash"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/schema"
)

// TestCollectAheadIsCollect: a session's set is the same whether its frames were
// collected on the replay (CollectFrame), all ahead of it (Collector.Collect,
// then AddCollected), or some one way and some the other (what a run does: the
// parse stage collects the frames it has time for), on every capture under
// fixtures/, on the reference texts (invalid JSON among them), and on sessions
// that fill the set past its bounds of values and of bytes, with escaped strings
// whose decoded form is what is bounded.
func TestCollectAheadIsCollect(t *testing.T) {
	seed := maphash.MakeSeed()
	check := func(where string, rd *frame.Reader) int {
		t.Helper()
		onReplay, ahead, mixed := NewSeededSet(seed), NewSeededSet(seed), NewSeededSet(seed)
		collector := NewCollector(seed)
		n := 0
		eachFrame(rd, func(rec *frame.Record) {
			f := rec.Frame
			CollectFrame(f, onReplay)
			if !ahead.AddCollected(collector.Collect(f)) {
				t.Fatalf("%s:%d: a collection of the set's seed was refused", where, rec.Line)
			}
			if n%3 == 1 {
				CollectFrame(f, mixed)
			} else {
				mixed.AddCollected(collector.Collect(f))
			}
			n++
		})
		if d := setDiff(ahead, onReplay); d != "" {
			t.Errorf("%s: collected ahead: %s", where, d)
		}
		if d := setDiff(mixed, onReplay); d != "" {
			t.Errorf("%s: collected partly ahead: %s", where, d)
		}
		return n
	}

	frames := 0
	eachCapture(t, func(path string, rd *frame.Reader) { frames += check(path, rd) })
	if frames < 1000 {
		t.Fatalf("only %d frames read", frames)
	}

	var texts strings.Builder
	for _, s := range referenceTexts() {
		texts.WriteString(strings.ReplaceAll(s, "\n", " ") + "\n")
	}
	check("reference texts", linesReader(t, texts.String()))

	// Past MaxValues: 60 frames of 1,000 distinct values each, some escaped.
	var values strings.Builder
	for i := range 60 {
		fmt.Fprintf(&values, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"t","arguments":{"v":[`, i)
		for j := range 1000 {
			if j > 0 {
				values.WriteByte(',')
			}
			if j%4 == 0 {
				fmt.Fprintf(&values, `"line\n%d-%d \"quoted\""`, i, j)
			} else {
				fmt.Fprintf(&values, `"value-%d-%d"`, i, j)
			}
		}
		values.WriteString("]}}}\n")
	}
	if check("many values", linesReader(t, values.String())); !fullAfter(t, NewSet(), values.String()) {
		t.Errorf("the many values did not fill a set: the case tests nothing")
	}

	// Past MaxBytes: strings of about 15 KB, plain and escaped, then short
	// values that still fit. Among them, strings longer than MaxValue, plain and
	// escaped (left out: the set is Long), and escaped strings whose bytes are
	// longer than MaxValue but not the string they decode to (kept).
	var large strings.Builder
	for i := range 400 {
		var body string
		switch i % 5 {
		case 0:
			body = strings.Repeat(fmt.Sprintf("chunk %d of text ", i), 15<<10/20)
		case 1:
			body = strings.Repeat(fmt.Sprintf(`chunk %d\n\"text\" `, i), 15<<10/24)
		case 2:
			body = strings.Repeat(fmt.Sprintf("long %d of text ", i), 20<<10/16)
		case 3:
			body = strings.Repeat(fmt.Sprintf(`long %d\n\"text\"\u00e9 `, i), 40<<10/24)
		case 4:
			body = fmt.Sprintf("%d", i) + strings.Repeat(`\u00e9\n`, 3000) // 24 KB that decode to 9 KB
		}
		fmt.Fprintf(&large, `{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"%s"}],"x":"short-%d"}}`+"\n", i, body, i)
	}
	set := NewSet()
	if check("large values", linesReader(t, large.String())); !fullAfter(t, set, large.String()) || !set.Long {
		t.Errorf("the large values left the set with full %v and long %v: the case tests less than it should", set.Full, set.Long)
	}

	// Values longer than MaxValue once the set has no room for them: a full set
	// (4 MiB of plain 16,000-byte values, then an escaped string of 20 KB), and a
	// saturated one (50,000 values, then a plain 20 KB string). Neither is Long,
	// however the frames were collected.
	text := func(id int, s string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"%s"}]}}`+"\n", id, s)
	}
	var full strings.Builder
	for i := range MaxBytes/16_000 + 1 {
		full.WriteString(text(i, fmt.Sprintf("%05d", i)+strings.Repeat("f", 16_000-5)))
	}
	full.WriteString(text(-1, `a\nb`+strings.Repeat("y", 20_000)))
	full.WriteString(text(-2, strings.Repeat("z", 20_000)))
	set = NewSet()
	if check("long values past a full set", linesReader(t, full.String())); !fullAfter(t, set, full.String()) || set.Long {
		t.Errorf("the set is full %v and long %v, want full and not long", set.Full, set.Long)
	}
	saturated := values.String() + text(-1, strings.Repeat("z", 20_000)) + text(-2, `a\nb`+strings.Repeat("y", 20_000))
	set = NewSet()
	if check("long values past a saturated set", linesReader(t, saturated)); !fullAfter(t, set, saturated) || !set.saturated() || set.Long {
		t.Errorf("the set is saturated %v and long %v, want saturated and not long", set.saturated(), set.Long)
	}
}

// linesReader is a Reader of lines.
func linesReader(t *testing.T, lines string) *frame.Reader {
	t.Helper()
	rd, err := frame.NewReader("lines", strings.NewReader(lines), frame.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rd.Close() })
	return rd
}

// fullAfter reports whether collecting the frames of lines fills set.
func fullAfter(t *testing.T, set *Set, lines string) bool {
	eachFrame(linesReader(t, lines), func(rec *frame.Record) { CollectFrame(rec.Frame, set) })
	return set.Full
}

// TestCollectorMemoKeepsSecrets: the Collector walks a kept value that added
// nothing once (its memo), and walks again every time one that added a secret,
// so that each session's set gets the secrets of the definitions it listed, as a
// set collected on the replay does.
func TestCollectorMemoKeepsSecrets(t *testing.T) {
	const (
		clean     = `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"get_invoice","description":"Fetch one invoice by its number, as the accounting system stores it","inputSchema":{"type":"object","properties":{"number":{"type":"string"}}}}]}}`
		inText    = `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"call_api","description":"Calls the API with the token Bearer abcdefgh12345678 on every request, as documented","inputSchema":{"type":"object"}}]}}`
		inMember  = `{"jsonrpc":"2.0","id":3,"result":{"prompts":[{"name":"p","description":"a prompt whose definition carries a credential in a member of its own","token":"tok-12345678-abcdef"}]}}`
		secretOne = "abcdefgh12345678"
		secretTwo = "tok-12345678-abcdef"
	)
	seed := maphash.MakeSeed()
	collector := NewCollector(seed)
	for session := range 3 {
		onReplay, ahead := NewSeededSet(seed), NewSeededSet(seed)
		eachFrame(linesReader(t, clean+"\n"+inText+"\n"+inMember+"\n"), func(rec *frame.Record) {
			CollectFrame(rec.Frame, onReplay)
			ahead.AddCollected(collector.Collect(rec.Frame))
		})
		if d := setDiff(ahead, onReplay); d != "" {
			t.Errorf("session %d: collected ahead: %s", session+1, d)
		}
		for _, secret := range []string{secretOne, secretTwo} {
			if got := ahead.Replace("echo " + secret); strings.Contains(got, secret) {
				t.Errorf("session %d: the set collected ahead does not hide %q: %q", session+1, secret, got)
			}
		}
	}
	if len(collector.memo.clean) != 1 {
		t.Errorf("the memo holds %d values, want 1 (the definitions without a secret): the case tests nothing", len(collector.memo.clean))
	}
}

// TestInertShapesAddNothing: a Collector skips the frames of a wire shape whose
// walk read no value before (collectFrame); the sets it fills, ahead and on the
// replay, are those of a walk of every frame, on every capture under fixtures/
// read with wire shapes, each capture's frames twice over (the second time, the
// skipped ones are many); and frames of one shape that carry values are never
// skipped, whatever frame of that shape came first.
func TestInertShapesAddNothing(t *testing.T) {
	seed := maphash.MakeSeed()
	skipped := 0
	check := func(where string, frames []*frame.Frame) {
		t.Helper()
		want, ahead, replay := NewSeededSet(seed), NewSeededSet(seed), NewSeededSet(seed)
		collector, onReplay := NewCollector(seed), NewCollector(seed)
		for _, f := range frames {
			CollectFrame(f, want)
			if !ahead.AddCollected(collector.Collect(f)) {
				t.Fatalf("%s: a collection of the set's seed was refused", where)
			}
			onReplay.CollectInto(f, replay)
		}
		for name, got := range map[string]*Set{"ahead": ahead, "on the replay": replay} {
			if d := setDiff(got, want); d != "" {
				t.Errorf("%s: collected %s with the shapes' memo: %s", where, name, d)
			}
		}
		skipped += len(collector.memo.inertShapes)
	}
	shaper := &schema.Shaper{}
	read := func(rd *frame.Reader) []*frame.Frame {
		var frames []*frame.Frame
		eachFrame(rd, func(rec *frame.Record) {
			into := new(frame.Frame)
			rd.Detach(rec.Frame, new(frame.Arena), into, true)
			frames = append(frames, into)
		})
		return frames
	}
	eachCaptureWith(t, frame.Options{Shaper: shaper}, func(path string, rd *frame.Reader) {
		frames := read(rd)
		check(path, append(frames, frames...))
	})
	if skipped < 100 {
		t.Fatalf("only %d shapes were found inert: the memo was not exercised", skipped)
	}
	// One shape, values or none: the shape of a request leaves its arguments'
	// values out, and a _meta's contents are read whatever they are.
	lines := `{"jsonrpc":"2.0","id":1,"method":"ping"}
{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{"progressToken":"p2"}}}
{"jsonrpc":"2.0","id":3,"method":"ping","params":{"_meta":{"progressToken":"p3","traceparent":"00-secret-trace-value-01"}}}
{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"t","arguments":{}}}
{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"t","arguments":{"q":"a value to hide"}}}
{"jsonrpc":"2.0","id":6,"result":{}}
{"jsonrpc":"2.0","id":7,"result":{"note":"a value of a result"}}
`
	rd, err := frame.NewReader("lines", strings.NewReader(lines), frame.Options{Shaper: shaper})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	frames := read(rd)
	check("lines", append(frames, frames...))
	set := NewSeededSet(seed)
	c := NewCollector(seed)
	for _, f := range append(frames, frames...) {
		set.AddCollected(c.Collect(f))
	}
	for _, v := range []string{"00-secret-trace-value-01", "a value to hide", "a value of a result"} {
		if got := set.Replace("it said " + v); got == "it said "+v {
			t.Errorf("%q was not collected", v)
		}
	}
}
