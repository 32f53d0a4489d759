package record

import "bytes"

// MaxLine bounds the line a recording keeps whole (the frame reader's default
// limit): a longer one still crosses unchanged, and the recording says it was
// too long instead of holding it.
const MaxLine = 64 << 20

// lines cuts a byte stream into newline-terminated lines as its chunks arrive,
// holding at most one incomplete line (up to max bytes).
type lines struct {
	max     int
	partial []byte
	// over counts the bytes of a line that outgrew max (0: none).
	over int
}

// feed splits a chunk: whole calls back each line it completes (without its
// newline; whole may keep it: the next line is gathered in memory of its own),
// tooLong each line it could not keep, with its length.
func (l *lines) feed(chunk []byte, whole func([]byte), tooLong func(int)) {
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
	if len(l.partial) > 0 || l.over > 0 {
		l.emit(whole, tooLong)
	}
}

func (l *lines) add(b []byte) {
	if l.over > 0 || len(l.partial)+len(b) > l.max {
		if l.over == 0 {
			l.over = len(l.partial)
			l.partial = nil
		}
		l.over += len(b)
		return
	}
	l.partial = append(l.partial, b...)
}

func (l *lines) emit(whole func([]byte), tooLong func(int)) {
	if l.over > 0 {
		tooLong(l.over)
	} else {
		whole(l.partial)
	}
	l.partial, l.over = nil, 0
}
