package record

import "bytes"

// MaxLine bounds the line a recording keeps whole (the frame reader's default
// limit): a longer one still crosses unchanged, and the recording says it was
// too long instead of holding it.
const MaxLine = 64 << 20

// lineBlock is the most bytes of one part of a line cut into parts: a long line
// is gathered in parts of this size, never in a buffer that doubles (which held
// a 60 MB line one and a half times over while it grew).
const lineBlock = 1 << 20

// lines cuts a byte stream into newline-terminated lines as its chunks arrive,
// holding at most one incomplete line (up to max bytes), in parts.
type lines struct {
	max   int
	parts [][]byte
	size  int
	// over counts the bytes of a line that outgrew max (0: none).
	over int
}

// feed splits a chunk: whole calls back each line it completes (without its
// newline; whole may keep it: the next line is gathered in memory of its own),
// tooLong each line it could not keep, with its length.
func (l *lines) feed(chunk []byte, whole func([]byte), tooLong func(int)) {
	l.feedParts(chunk, joined(whole), tooLong)
}

// feedParts is feed with each line handed over in its parts (one part for a
// line of up to lineBlock bytes), for a caller that need not have it in one
// piece (the recording writes a message from its parts).
func (l *lines) feedParts(chunk []byte, whole func([][]byte), tooLong func(int)) {
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			l.add(chunk)
			return
		}
		l.add(chunk[:i])
		l.emit(whole, tooLong)
		chunk = chunk[i+1:]
	}
}

// end reports the last line, when the stream ended without a newline.
func (l *lines) end(whole func([]byte), tooLong func(int)) {
	l.endParts(joined(whole), tooLong)
}

// endParts is end for feedParts.
func (l *lines) endParts(whole func([][]byte), tooLong func(int)) {
	if l.size > 0 || l.over > 0 {
		l.emit(whole, tooLong)
	}
}

func (l *lines) add(b []byte) {
	if l.over > 0 || l.size+len(b) > l.max {
		if l.over == 0 {
			l.over = l.size
			l.parts, l.size = nil, 0
		}
		l.over += len(b)
		return
	}
	l.size += len(b)
	for len(b) > 0 {
		n := len(l.parts)
		if n == 0 || len(l.parts[n-1]) == lineBlock {
			l.parts = append(l.parts, nil)
			n++
		}
		last := l.parts[n-1]
		take := min(len(b), lineBlock-len(last))
		if len(l.parts) > 1 && cap(last) < lineBlock {
			last = make([]byte, 0, lineBlock) // a block of a long line: its size at once
			l.parts[n-1] = last
		}
		l.parts[n-1] = append(last, b[:take]...)
		b = b[take:]
	}
}

func (l *lines) emit(whole func([][]byte), tooLong func(int)) {
	if l.over > 0 {
		tooLong(l.over)
	} else {
		if len(l.parts) == 0 {
			l.parts = [][]byte{{}}
		}
		whole(l.parts)
	}
	l.parts, l.size, l.over = nil, 0, 0
}

// joined adapts a callback of whole lines to feedParts: the parts of a long
// line are joined into one piece of its size.
func joined(whole func([]byte)) func([][]byte) {
	return func(parts [][]byte) {
		if len(parts) == 1 {
			whole(parts[0])
			return
		}
		n := 0
		for _, p := range parts {
			n += len(p)
		}
		line := make([]byte, 0, n)
		for _, p := range parts {
			line = append(line, p...)
		}
		whole(line)
	}
}
