package frame

import (
	"io"
	"sync"
)

// readAhead runs a decompressor in a goroutine of its own, a few blocks ahead of
// the reader: decompression then overlaps the parse stage instead of taking turns
// with it. Blocks are recycled; Close stops the goroutine.
type readAhead struct {
	blocks chan aheadBlock
	free   chan []byte
	done   chan struct{}
	once   sync.Once
	cur    aheadBlock
	off    int
	src    io.Closer
}

type aheadBlock struct {
	data []byte
	err  error
}

const (
	aheadBlockSize = 256 << 10
	aheadBlocks    = 4
)

func newReadAhead(r io.Reader, src io.Closer) *readAhead {
	ra := &readAhead{blocks: make(chan aheadBlock, aheadBlocks), free: make(chan []byte, aheadBlocks+2), done: make(chan struct{}), src: src}
	go ra.fill(r)
	return ra
}

func (ra *readAhead) fill(r io.Reader) {
	defer close(ra.blocks)
	for {
		var buf []byte
		select {
		case buf = <-ra.free:
		default:
			buf = make([]byte, aheadBlockSize)
		}
		buf = buf[:cap(buf)]
		n := 0
		var err error
		for n < len(buf) && err == nil {
			var k int
			k, err = r.Read(buf[n:])
			n += k
		}
		select {
		case ra.blocks <- aheadBlock{data: buf[:n], err: err}:
		case <-ra.done:
			return
		}
		if err != nil {
			return
		}
	}
}

func (ra *readAhead) Read(p []byte) (int, error) {
	for ra.off == len(ra.cur.data) {
		if ra.cur.err != nil {
			return 0, ra.cur.err
		}
		if ra.cur.data != nil {
			select {
			case ra.free <- ra.cur.data[:0]:
			default:
			}
		}
		b, ok := <-ra.blocks
		if !ok {
			return 0, io.EOF
		}
		ra.cur, ra.off = b, 0
	}
	n := copy(p, ra.cur.data[ra.off:])
	ra.off += n
	return n, nil
}

// Close stops the goroutine, waiting for the decompressor's Read in progress to
// return (the input was read to its end or broke off in the usual case), then
// closes the decompressor: never while the goroutine may still use it.
func (ra *readAhead) Close() error {
	ra.once.Do(func() { close(ra.done) })
	for range ra.blocks {
	}
	if ra.src != nil {
		return ra.src.Close()
	}
	return nil
}
