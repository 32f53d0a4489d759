package frame

import (
	"bytes"
	"testing"
	"unsafe"

	"github.com/tidwall/gjson"
)

// Reader.Detach hands the index of the line just read over to the copy instead of
// copying it, and reads on into another view: every copy of every fixture's frames,
// all kept until the input is read, still holds its own bytes and answers lookups
// through its index as gjson does from those bytes.
func TestDetachedFramesOutliveTheReader(t *testing.T) {
	paths := []string{"", "name", "arguments", "progressToken", "_meta.progressToken", "protocolVersion", "content", "tools"}
	type kept struct {
		frame Frame
		raw   []byte // the frame's bytes when it was read
	}
	var (
		arena  Arena
		copies []kept
		file   string
		taken  int
	)
	check := func() {
		for i := range copies {
			c := &copies[i]
			if !bytes.Equal(c.frame.Raw, c.raw) {
				t.Fatalf("%s:%d: the copy's bytes changed after reading on:\n%s\nwas\n%s", file, c.frame.Line, c.frame.Raw, c.raw)
			}
			for _, p := range paths {
				if got, want := c.frame.Param(p), gjson.GetBytes(c.frame.Params, p); p != "" && (got.Raw != want.Raw || got.Str != want.Str) {
					t.Fatalf("%s:%d: Param(%q) of the copy = %q, gjson %q", file, c.frame.Line, p, got.Raw, want.Raw)
				}
				if got, want := c.frame.ResultGet(p), gjson.GetBytes(c.frame.Result, p); p != "" && (got.Raw != want.Raw || got.Str != want.Str) {
					t.Fatalf("%s:%d: ResultGet(%q) of the copy = %q, gjson %q", file, c.frame.Line, p, got.Raw, want.Raw)
				}
				if got, want := c.frame.Get("method"), gjson.GetBytes(c.frame.Raw, "method"); got.Raw != want.Raw {
					t.Fatalf("%s:%d: Get(method) of the copy = %q, gjson %q", file, c.frame.Line, got.Raw, want.Raw)
				}
			}
		}
		copies = copies[:0]
	}
	files := eachFixtureFrame(t, func(path string, rd *Reader, rec *Record) {
		if path != file {
			check() // the copies of the capture before, all read
			file, arena = path, Arena{}
		}
		lineView := rd.fr.view
		copies = append(copies, kept{raw: bytes.Clone(rec.Frame.Raw)})
		rd.Detach(rec.Frame, &arena, &copies[len(copies)-1].frame, false)
		if lineView != nil && copies[len(copies)-1].frame.view == lineView {
			taken++
		}
	})
	check()
	if files < 50 || taken < 1000 {
		t.Fatalf("%d fixtures read, %d indexes handed over: too few to tell", files, taken)
	}
}

// Arena.Reset keeps the spare views' index memory within twice what the batch's
// indexes used, the small indexes first: a batch whose large indexes come first
// still leaves its views for typical lines their memory.
func TestResetKeepsSmallIndexesFirst(t *testing.T) {
	var a Arena
	large := maxSpareTokens // tokens: the largest a spare view keeps
	for range 4 {
		v := &textView{ix: index{tokens: make([]Token, large)}}
		a.views = append(a.views, v)
	}
	for range 200 {
		v := &textView{ix: index{tokens: make([]Token, 40, 64)}}
		a.views = append(a.views, v)
	}
	a.indexed = 64 << 10 // the batch's indexes used far less than the large views hold
	a.Reset()
	small, largeKept, spare := 0, 0, len(a.spare)
	for _, v := range a.spare {
		switch c := cap(v.ix.tokens); {
		case c == 64:
			small++
		case c == large:
			largeKept++
		}
	}
	if spare != 204 {
		t.Fatalf("%d spare views, want all 204", spare)
	}
	if small != 200 {
		t.Fatalf("%d of the 200 small views kept their memory", small)
	}
	if kept := largeKept*large*12 + small*64*12; kept > 2*(64<<10)+spareFloor {
		t.Fatalf("the spare views keep %d bytes, over the budget", kept)
	}
}

// A direction's reason or stream key that does not lie in the frame's bytes is
// copied once for an arena's frames that repeat it, and a different one is copied
// anew: every copy says what its frame said, whatever memory the original used.
func TestDetachSharesRepeatedStrings(t *testing.T) {
	var a Arena
	scratch := []byte("stream-A")
	frames := make([]Frame, 3)
	for i, key := range []string{"stream-A", "stream-A", "stream-B"} {
		copy(scratch, key) // the reader's reused memory
		f := Frame{Raw: []byte(`{"jsonrpc":"2.0","method":"ping"}`), DirReason: "bare JSON-RPC line: direction inferred", StreamKey: view(scratch[:len(key)]), root: -1}
		f.Detach(&a, &frames[i])
	}
	copy(scratch, "clobbered")
	for i, want := range []string{"stream-A", "stream-A", "stream-B"} {
		if frames[i].StreamKey != want || frames[i].DirReason != "bare JSON-RPC line: direction inferred" {
			t.Fatalf("frame %d: stream %q, reason %q", i, frames[i].StreamKey, frames[i].DirReason)
		}
	}
	if unsafe.StringData(frames[0].StreamKey) != unsafe.StringData(frames[1].StreamKey) || unsafe.StringData(frames[0].DirReason) != unsafe.StringData(frames[2].DirReason) {
		t.Fatal("a repeated string was copied for each frame")
	}
}
