package frame

import (
	"bytes"
	"testing"

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
