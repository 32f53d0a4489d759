package scrub

import "bytes"

// window holds the lines of the input that are read but not written yet: the
// Reader's tee writes into it (Write), the copier scrubs them in place as their
// records arrive and writes them out (take) once no record can still place a
// frame in them. Lines keep their end ("\n", "\r\n"); the last line of an input
// may have none.
type window struct {
	first   int      // the line number of lines[0]
	lines   [][]byte // complete lines
	cursors []int    // where the next frame of each line is looked for
	framed  []bool   // a frame was placed in the line
	partial []byte   // the line being read
	bytes   int      // bytes held in lines
}

func newWindow() *window { return &window{first: 1} }

// Write keeps p's bytes, cut into lines.
func (w *window) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.partial = append(w.partial, p...)
			break
		}
		line := append(w.partial, p[:i+1]...)
		w.partial = nil
		w.lines = append(w.lines, line)
		w.cursors = append(w.cursors, 0)
		w.framed = append(w.framed, false)
		w.bytes += len(line)
		p = p[i+1:]
	}
	return n, nil
}

// end makes the partial line a line: the input ended.
func (w *window) end() {
	if len(w.partial) > 0 {
		w.lines = append(w.lines, w.partial)
		w.cursors = append(w.cursors, 0)
		w.framed = append(w.framed, false)
		w.bytes += len(w.partial)
		w.partial = nil
	}
}

// has reports whether line n is held.
func (w *window) has(n int) bool { return n >= w.first && n < w.first+len(w.lines) }

// line is line n's bytes (has(n) must hold).
func (w *window) line(n int) []byte { return w.lines[n-w.first] }

func (w *window) set(n int, b []byte) {
	w.bytes += len(b) - len(w.lines[n-w.first])
	w.lines[n-w.first] = b
}

func (w *window) cursor(n int) int        { return w.cursors[n-w.first] }
func (w *window) setCursor(n int, at int) { w.cursors[n-w.first], w.framed[n-w.first] = at, true }

// last is the number of the last line held (first-1 when none is).
func (w *window) last() int { return w.first + len(w.lines) - 1 }

// take hands the lines before line n to write, in order, each with whether a
// frame was placed in it, and forgets them.
func (w *window) take(n int, write func(line []byte, framed bool)) {
	k := min(n-w.first, len(w.lines))
	for i := 0; i < k; i++ {
		write(w.lines[i], w.framed[i])
		w.bytes -= len(w.lines[i])
		w.lines[i] = nil
	}
	if k > 0 {
		w.lines = append(w.lines[:0], w.lines[k:]...)
		w.cursors = append(w.cursors[:0], w.cursors[k:]...)
		w.framed = append(w.framed[:0], w.framed[k:]...)
		w.first += k
	}
}
