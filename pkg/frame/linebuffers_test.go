package frame

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

// Lines longer than the read buffer are gathered into the Reader's pool of
// buffers, which their frames keep until the arena they were detached into is
// reset: read as the driver reads (batches in two arenas, each reset only once
// the other has been filled, the way a batch is reused once replayed), every
// frame keeps its own bytes until its arena is reset, and the buffers are reused
// (the pool serves later long lines from what earlier ones gave back).
func TestLongLinesKeepTheirBytesUntilTheirArenaIsReset(t *testing.T) {
	sizes := []int{300 << 10, 2 << 20, 1100 << 10, 5 << 20, 700 << 10, 64, 3 << 20, 400 << 10, 2 << 20, 90, 1 << 20, 5 << 20}
	var in strings.Builder
	for i, n := range sizes {
		text := strings.Repeat(string(rune('a'+i%26)), n)
		fmt.Fprintf(&in, `{"ts":"2025-06-18T10:00:00Z","dir":"s2c","msg":{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":%q}]}}}`+"\n", i, text)
	}
	rd, err := NewReader("long.jsonl", strings.NewReader(in.String()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	type kept struct {
		frame Frame
		raw   []byte
	}
	var (
		arenas [2]Arena
		held   [2][]kept
	)
	check := func(a int) {
		for _, k := range held[a] {
			if !bytes.Equal(k.frame.Raw, k.raw) {
				t.Fatalf("line %d: its bytes changed before its arena was reset", k.frame.Line)
			}
		}
		held[a] = held[a][:0]
	}
	eachRecord(t, rd, func(i int, rec *Record) {
		if rec.Kind != RecordFrame {
			t.Fatalf("line %d: not a frame", rec.Line)
		}
		a := i % 2
		if i%2 == 0 && i > 0 {
			// Arena 0 is reused: the batch in it was replayed long ago.
			check(0)
			arenas[0].Reset()
		}
		if i%2 == 1 && i > 1 {
			check(1)
			arenas[1].Reset()
		}
		held[a] = append(held[a], kept{raw: bytes.Clone(rec.Frame.Raw)})
		rd.Detach(rec.Frame, &arenas[a], &held[a][len(held[a])-1].frame, false)
	})
	check(0)
	check(1)
	long := 0
	for _, n := range sizes {
		if n > readBuffer {
			long++
		}
	}
	// Without reuse, each long line takes a part and those over a part take a
	// joined buffer too (17 here); with it, what two arenas hold and a few more.
	if rd.lines.made > long {
		t.Errorf("%d buffers made for %d long lines: the pool served too few", rd.lines.made, long)
	}
	arenas[0].Reset()
	arenas[1].Reset()
	if rd.lines.kept == 0 {
		t.Error("the arenas gave no buffer back to the pool")
	}
}

// The pool serves the smallest free buffer that is large enough, in powers of
// two, clears what it is given back, and keeps no more than its bound.
func TestLineBuffers(t *testing.T) {
	var p lineBuffers
	b := p.get(3 << 20)
	if cap(b) != 4<<20 || len(b) != 0 {
		t.Fatalf("get(3 MiB): len %d cap %d, want an empty buffer of 4 MiB", len(b), cap(b))
	}
	b = append(b, "secret"...)
	p.put(b)
	p.put(make([]byte, 0, 8<<20))
	again := p.get(3<<20 + 1)
	if &again[:1][0] != &b[:1][0] {
		t.Error("get(3 MiB) with 4 and 8 MiB buffers free did not reuse the 4 MiB one")
	}
	if string(again[:6]) != "\x00\x00\x00\x00\x00\x00" {
		t.Errorf("a reused buffer still holds %q", again[:6])
	}
	// A part (a line's first MiB) does not take the 8 MiB buffer a joined line
	// needs: it gets one of its own, and the join gets the 8 MiB one.
	if part := p.get(10); cap(part) != linePart || p.made != 2 {
		t.Errorf("get(10) with an 8 MiB buffer free: cap %d (%d made), want a new part of %d", cap(part), p.made, linePart)
	}
	if big := p.get(5 << 20); cap(big) != 8<<20 || p.made != 2 {
		t.Errorf("get(5 MiB): cap %d (%d made), want the free 8 MiB buffer", cap(big), p.made)
	}
	for range 20 {
		p.put(make([]byte, 0, 4<<20))
	}
	if p.kept > maxKeptLineBuffers {
		t.Errorf("the pool keeps %d bytes, more than its bound %d", p.kept, maxKeptLineBuffers)
	}
}

// The spare views of an arena keep at most twice the index memory its last batch
// used (and a floor): a view keeps the capacity of the largest index it held, and
// without the bound batches of small frames after large ones kept the large ones'
// index memory for the rest of the run.
func TestSpareViewsKeepWhatTheBatchUsed(t *testing.T) {
	frameOf := func(members int) string {
		var b strings.Builder
		b.WriteString(`{"ts":"2025-06-18T10:00:00Z","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"rows":[`)
		for i := range members {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"a":%d}`, i)
		}
		b.WriteString("]}}}}\n")
		return b.String()
	}
	spare := func(a *Arena) int {
		n := 0
		for _, v := range a.spare {
			n += v.ix.capacity()
		}
		return n
	}
	var in strings.Builder
	for range 200 {
		in.WriteString(frameOf(3000)) // about 12,000 tokens each: under the bound a spare view keeps
	}
	for range 200 {
		in.WriteString(frameOf(2))
	}
	rd, err := NewReader("views.jsonl", strings.NewReader(in.String()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var (
		arena Arena
		into  Frame
		large int
	)
	eachRecord(t, rd, func(i int, rec *Record) {
		rd.Detach(rec.Frame, &arena, &into, false)
		if i == 199 {
			arena.Reset() // the batch of large frames
			large = spare(&arena)
		}
	})
	used := arena.indexed
	arena.Reset() // the batch of small frames
	if got, limit := spare(&arena), 2*used+spareFloor; got > limit || large <= limit {
		t.Errorf("spare views keep %d bytes after a batch that used %d (limit %d; %d after the large batch)", got, used, limit, large)
	}
}

// eachRecord calls fn with each record the Reader gives, numbered from 0, to the end.
func eachRecord(t *testing.T, rd *Reader, fn func(i int, rec *Record)) {
	t.Helper()
	for i := 0; ; i++ {
		rec, err := rd.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		fn(i, rec)
	}
}

// An arena dropped instead of reset (the driver drops a replayed batch when enough
// wait to be reused) gives its long lines' buffers back with Release: the next
// long line is gathered into them, not into new ones.
func TestReleasedArenaGivesItsLinesBack(t *testing.T) {
	line := func(id, n int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":%q}]}}`+"\n", id, strings.Repeat("x", n))
	}
	rd, err := NewReader("long.jsonl", strings.NewReader(line(1, 3<<20)+line(2, 3<<20)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var frames [2]Frame
	eachRecord(t, rd, func(i int, rec *Record) {
		var a Arena
		rd.Detach(rec.Frame, &a, &frames[i], false)
		if i == 0 {
			if len(a.lines) != 1 {
				t.Fatalf("the arena holds %d long lines, want the one detached into it", len(a.lines))
			}
			a.Release()
			if len(a.lines) != 0 {
				t.Error("Release kept the arena's long lines")
			}
		}
	})
	// The first line took four parts and a joined buffer; the second reused them.
	if rd.lines.made != 5 {
		t.Errorf("%d buffers made for two long lines of 3 MiB, want 5 (the second line reuses the first's)", rd.lines.made)
	}
}
