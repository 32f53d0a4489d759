package driver

import (
	"bytes"
	"fmt"
	"testing"
)

// The cutter cuts before a line that may start a session once the region holds
// its bytes or maxRegionSessions such lines, whichever comes first, and counts
// lines across the cuts; lines that only name "initialize" elsewhere, or carry
// it behind a long prefix, are never cut at.
func TestCutRegions(t *testing.T) {
	var b bytes.Buffer
	sessions := 2*maxRegionSessions + 10
	for i := range sessions {
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`+"\n")
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"step":"initialize","n":%d}}}`+"\n", i)
		fmt.Fprintf(&b, "%s write: {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\"}\n", bytes.Repeat([]byte("x"), maxCutPrefix))
	}
	data := b.Bytes()
	cut := func(every int) []*region {
		slots := make(chan struct{}, 1<<16)
		work, order := make(chan *region, 1<<16), make(chan *region, 1<<16)
		cutRegions(bytes.NewReader(data), int64(len(data)), every, slots, work, order, make(chan struct{}))
		var out []*region
		for r := range order {
			out = append(out, r)
		}
		return out
	}
	// By sessions: the bytes allow one region.
	rs := cut(len(data) + 1)
	if len(rs) != 3 {
		t.Fatalf("%d regions, want 3 (cut at every %d sessions)", len(rs), maxRegionSessions)
	}
	for i, r := range rs {
		wantLine := 1 + 3*maxRegionSessions*i
		if r.line != wantLine || !bytes.HasPrefix(data[r.off:], []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize"`)) {
			t.Errorf("region %d starts at line %d (byte %d: %.40q), want line %d at an initialize", i, r.line, r.off, data[r.off:], wantLine)
		}
		if i > 0 && rs[i-1].end != r.off {
			t.Errorf("region %d ends at %d, the next starts at %d", i-1, rs[i-1].end, r.off)
		}
	}
	if rs[len(rs)-1].end != -1 {
		t.Error("the last region does not run to the end of the file")
	}
	// By bytes: a cut before every session's first line past the size.
	if rs := cut(1); len(rs) != sessions {
		t.Errorf("%d regions of at least a byte, want %d", len(rs), sessions)
	}
}
