package frame

import (
	"bytes"
	"io"
	"sync"
	"sync/atomic"
)

// Scanning ahead: the validating scan (scanJSON) is most of what reading a line
// format costs, and a line's scan depends on nothing but the line. Once a Reader
// knows its input is a line format whose decoders scan the line itself (or the JSON
// after a short prefix), it reads the input in blocks of whole lines on a goroutine
// of its own and has workers scan each block's lines, on as many cores as it was
// given (Options.ScanAhead), while it decodes the lines of the blocks before, in
// order. A decoder's scan of exactly the bytes a worker scanned takes the worker's
// index instead of scanning again (Frame.scan); anything else scans as before, so
// what a Reader returns never depends on whether or how far it scanned ahead.
//
// Hand-offs are per block (512 KiB of lines, or one longer line): a few thousand a
// gigabyte, so that idle processors are not woken line by line. Blocks are at least
// twice the Reader's buffer, so that most reads go straight into them.
//
// Scanning ahead only pays when the decoding is what the analysis waits for: when
// the stage after it is the slower one, both cores are busy anyway, and handing
// lines to another core costs more than it saves. The Reader's caller says which it
// is (Reader.ScanAhead); blocks read while it is off are handed over unscanned.

// lineBlockBytes is the size of a block of lines handed to the workers.
const lineBlockBytes = 512 << 10

// aheadBlocksInFlight is how many blocks may be read, scanned or waiting to be
// decoded at once: memory is bounded by bytes (blocks, their views), not frames.
const aheadBlocksInFlight = 6

// aheadLine is one line of a block: its bytes (line ending included: the Reader
// counts them), and what a worker made of it.
type aheadLine struct {
	raw []byte
	// text is the part of the line the worker scanned (nil: none), and view its
	// index, filled when the scan found valid JSON or not (view.pre).
	text []byte
	view *textView
}

// lineBlock is a run of whole lines, or one line too long for a block.
type lineBlock struct {
	data  []byte
	lines []aheadLine
	// tooLong marks a single line longer than MaxLine: drained, not kept; n is the
	// bytes it had.
	tooLong bool
	n       int64
	// huge marks a block that holds one line in memory of its own, larger than a
	// Reader keeps for reuse: its frames may keep it instead of copying it.
	huge bool
	err  error         // reading stopped after this block's lines (io.EOF at the end)
	done chan struct{} // closed when the workers have scanned the block
}

// scanAhead reads blocks of lines from src and scans them with workers.
type scanAhead struct {
	order   chan *lineBlock // blocks in input order, for the Reader
	work    chan *lineBlock // blocks to scan, for the workers
	free    chan []byte     // block memory the Reader is done with
	views   sync.Pool       // *textView for the workers' scans
	stop    chan struct{}
	stopped sync.Once
	wg      sync.WaitGroup
	shaper  Shaper
	maxLine int
	// off says blocks are handed over unscanned (see Reader.ScanAhead).
	off atomic.Bool

	// budget holds the bytes of the blocks read and not yet left by the Reader:
	// the reading goroutine waits while they are maxAheadBytes or more.
	budget *aheadBudget

	cur *lineBlock
	pos int
}

// maxAheadBytes bounds the bytes of the blocks in flight (one line may take it past:
// a block is read when the bytes in flight are below it).
const maxAheadBytes = 8 << 20

// newScanAhead starts reading src (at a line start) in blocks and scanning them
// with workers goroutines.
func newScanAhead(src io.Reader, workers, maxLine int, shaper Shaper) *scanAhead {
	inFlight := min(aheadBlocksInFlight, workers+2) // each block's lines bring their views
	a := &scanAhead{
		order:   make(chan *lineBlock, inFlight),
		work:    make(chan *lineBlock, inFlight),
		free:    make(chan []byte, aheadBlocksInFlight+2),
		stop:    make(chan struct{}),
		shaper:  shaper,
		maxLine: maxLine,
		budget:  newAheadBudget(maxAheadBytes),
	}
	a.wg.Add(workers + 1)
	for range workers {
		go a.scanBlocks()
	}
	go a.readBlocks(src)
	return a
}

// Close stops the goroutines and waits for them.
func (a *scanAhead) Close() error {
	a.stopped.Do(func() {
		close(a.stop)
		a.budget.close()
	})
	// Drain what the reader goroutine may be blocked on.
	go func() {
		for range a.order {
		}
	}()
	a.wg.Wait()
	return nil
}

// recycleBlock keeps a block's memory for a later block, when it has a block's size.
func (a *scanAhead) recycleBlock(b []byte) {
	if c := cap(b); c > 0 && c <= 2*lineBlockBytes {
		select {
		case a.free <- b[:0]:
		default:
		}
	}
}

// next returns the next line (line ending included) and what a worker made of it.
// The line is valid until the call after next. tooLong reports a line over MaxLine
// (no bytes, n of them), huge a line in memory of its own (see lineBlock.huge).
func (a *scanAhead) next() (l *aheadLine, tooLong, huge bool, n int64, err error) {
	for {
		if a.cur != nil && a.pos < len(a.cur.lines) {
			l = &a.cur.lines[a.pos]
			a.pos++
			return l, false, a.cur.huge, int64(len(l.raw)), nil
		}
		if a.cur != nil {
			if a.cur.err != nil {
				return nil, false, false, 0, a.cur.err
			}
			a.budget.account(-len(a.cur.data))
			if !a.cur.huge {
				a.recycleBlock(a.cur.data)
			}
			a.cur = nil
		}
		b, ok := <-a.order
		if !ok {
			return nil, false, false, 0, io.EOF
		}
		<-b.done
		a.cur, a.pos = b, 0
		if b.tooLong {
			return nil, true, false, b.n, nil
		}
	}
}

// blankRun drops the empty lines that follow in the current block (see
// Reader.skipBlankRun); it returns how many, and their bytes.
func (a *scanAhead) blankRun() (lines int, n int64) {
	if a.cur == nil {
		return 0, 0
	}
	for a.pos < len(a.cur.lines) {
		raw := a.cur.lines[a.pos].raw
		if !bytes.Equal(raw, []byte("\n")) && !bytes.Equal(raw, []byte("\r\n")) {
			break
		}
		a.pos++
		lines++
		n += int64(len(raw))
	}
	return lines, n
}

// readBlocks reads src into blocks of whole lines and hands each to the workers
// and, in order, to the Reader.
func (a *scanAhead) readBlocks(src io.Reader) {
	defer a.wg.Done()
	defer close(a.order)
	defer close(a.work)
	var tail []byte // a line begun in the block before
	for {
		if !a.budget.wait() {
			return
		}
		buf := a.block()
		buf = append(buf, tail...)
		buf, long, over, ended, rest, err := a.fill(src, buf)
		tail = nil
		b := &lineBlock{done: make(chan struct{})}
		switch end := bytes.LastIndexByte(buf, '\n') + 1; {
		case over > 0:
			// One line past MaxLine: counted and dropped to its end.
			b.tooLong, b.n, tail = true, int64(over), rest
			if !ended && err == nil {
				var n int64
				n, tail, err = drainLine(src)
				b.n += n
			}
			if err != nil && len(tail) == 0 {
				b.err = err
			}
		case err != nil:
			b.data, b.err = buf, err // the last lines (the last one maybe without an ending)
		default:
			// The line begun at the end is copied to the start of the next block
			// (nothing else uses this part of the block, which is not recycled
			// before the next block is handed over).
			tail = buf[end:]
			b.data = buf[:end]
		}
		if b.data != nil {
			// A block gathered for a long line has memory of its own, never reused:
			// its frames keep it rather than copying it (Frame.handoff).
			b.huge = long
			b.lines = splitLines(b.data, nil)
			a.budget.account(len(b.data))
		}
		if a.off.Load() {
			close(b.done)
		} else {
			select {
			case a.work <- b:
			case <-a.stop:
				return
			}
		}
		select {
		case a.order <- b:
		case <-a.stop:
			return
		}
		if b.err != nil {
			return
		}
	}
}

// block returns memory for a block: a recycled one, or a new one.
func (a *scanAhead) block() []byte {
	select {
	case b := <-a.free:
		return b[:0]
	default:
		return make([]byte, 0, lineBlockBytes)
	}
}

// fill reads into buf (which may hold the start of a line) until it holds a line
// ending or reading ends. It reads once at a time: a block is handed over as soon
// as it holds a whole line, so that an input still being written is read as it
// grows. A line longer than buf is gathered in blocks' worth of memory and joined
// once, into memory of its own (long). A line longer than MaxLine is not kept:
// over is then how many of its bytes were read (its ending included when ended
// says it was read to its end; rest is then what was read after it; otherwise the
// rest of the line is still to be drained).
func (a *scanAhead) fill(src io.Reader, buf []byte) (out []byte, long bool, over int, ended bool, rest []byte, err error) {
	buf, err = readSome(src, buf)
	if err != nil || bytes.IndexByte(buf, '\n') >= 0 {
		return buf, false, 0, false, nil, err
	}
	parts := [][]byte{buf}
	total := len(buf)
	end := -1                                // the line ending in the last part
	for err == nil && total <= a.maxLine+2 { // room for a CRLF
		var part []byte
		part, err = readSome(src, a.block())
		parts = append(parts, part)
		total += len(part)
		if end = bytes.IndexByte(part, '\n'); end >= 0 {
			break
		}
	}
	last := parts[len(parts)-1]
	lineLen := total // the line's bytes read, its ending included when it ended
	if end >= 0 {
		lineLen = total - len(last) + end + 1
	}
	if lineLen > a.maxLine+2 {
		if end >= 0 {
			rest = bytes.Clone(last[end+1:])
		}
		for _, p := range parts {
			a.recycleBlock(p)
		}
		return nil, false, lineLen, end >= 0, rest, err
	}
	return a.joinParts(parts, total), true, 0, false, nil, err
}

// joinParts joins the parts of a long line into memory of its own, and recycles
// the parts.
func (a *scanAhead) joinParts(parts [][]byte, total int) []byte {
	out := make([]byte, 0, total)
	for _, p := range parts {
		out = append(out, p...)
		a.recycleBlock(p)
	}
	return out
}

// readSome reads into buf's free capacity until a read brings a line ending, buf
// is full, or reading ends.
func readSome(src io.Reader, buf []byte) ([]byte, error) {
	for len(buf) < cap(buf) {
		k, err := src.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+k]
		if err != nil {
			return buf, err
		}
		if k > 0 && bytes.IndexByte(buf[len(buf)-k:], '\n') >= 0 {
			return buf, nil
		}
	}
	return buf, nil
}

// drainLine reads src to the end of a line too long to keep: it returns the bytes
// read of the line (its ending included), what was read past it, and the error
// that ended reading before a line ending (nil otherwise).
func drainLine(src io.Reader) (n int64, rest []byte, err error) {
	buf := make([]byte, 64<<10)
	for {
		k, err := src.Read(buf)
		if i := bytes.IndexByte(buf[:k], '\n'); i >= 0 {
			return n + int64(i+1), buf[i+1 : k], err
		}
		n += int64(k)
		if err != nil {
			return n, nil, err
		}
	}
}

// splitLines splits data at line endings (each line keeps its '\n').
func splitLines(data []byte, lines []aheadLine) []aheadLine {
	lines = lines[:0]
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			lines = append(lines, aheadLine{raw: data})
			break
		}
		lines = append(lines, aheadLine{raw: data[: i+1 : i+1]})
		data = data[i+1:]
	}
	return lines
}

// scanBlocks is a worker: it scans the lines of the blocks it is given.
func (a *scanAhead) scanBlocks() {
	defer a.wg.Done()
	for b := range a.work {
		for i := range b.lines {
			a.scanLine(&b.lines[i])
		}
		close(b.done)
	}
}

// scanLine scans the JSON text of a line as a line decoder would: the line, from
// its first '{' or '[' when it starts with one after line-start noise (a carriage
// return, a byte order mark), or after a short prefix (a Go SDK log's "read: ").
func (a *scanAhead) scanLine(l *aheadLine) {
	line := trimEOL(l.raw)
	if len(line) > 0 && line[0] != '{' && line[0] != '[' {
		line = trimLineStart(line)
	}
	if len(line) == 0 {
		return
	}
	if line[0] != '{' && line[0] != '[' {
		i := bytes.IndexAny(line[:min(len(line), maxScannedPrefix)], "{[")
		if i < 0 {
			return
		}
		line = line[i:]
	}
	v, _ := a.views.Get().(*textView)
	if v == nil {
		v = &textView{}
	}
	v.ix.shaper = a.shaper
	v.text = line
	p, _ := scanJSON(line, &v.ix)
	v.pre, v.preOK = line, p == scanOK
	l.text, l.view = line, v
}

// maxScannedPrefix is how far into a line a worker looks for the JSON a prefix
// leads to (the Go SDK log's "read: " after a timestamp).
const maxScannedPrefix = 80

// recycle gives a view the Reader no longer uses back to the workers.
func (a *scanAhead) recycle(v *textView) {
	if v == nil || cap(v.ix.tokens) > maxSpareTokens {
		return
	}
	v.text, v.pre = nil, nil
	a.views.Put(v)
}
