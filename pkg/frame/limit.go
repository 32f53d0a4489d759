package frame

import (
	"fmt"
	"io"
)

// Default limits on what one input may hold. They keep a hostile or runaway input
// (a device read by mistake, a decompression bomb, a log that never ends a line)
// from taking the machine: memory stays near MaxLine, time near the byte limits.
const (
	// DefaultMaxLine is the longest line (or document entry) read into memory; a
	// longer one is one MCP0001 finding, drained without being kept.
	DefaultMaxLine = 64 << 20
	// MaxLineLimit is the highest MaxLine may be: a line's index has 32-bit
	// offsets, and a line of a GiB is far past what a capture holds.
	MaxLineLimit = 1 << 30
	// DefaultMaxInput caps the bytes read from one input as stored.
	DefaultMaxInput = 64 << 30
	// DefaultMaxDecompressed caps what a compressed input may expand to.
	DefaultMaxDecompressed = 16 << 30
)

// LimitError says that an input went past one of the byte limits: reading stopped
// there, and what was read before is judged.
type LimitError struct {
	What  string // "input", "decompressed input"
	Limit int64
	Flag  string // the command-line flag that sets it
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s larger than the limit of %s: stopped reading there (raise it with %s)", e.What, Size(e.Limit), e.Flag)
}

// Size writes a byte count as people read it: 64 MiB, 16 GiB, 512 bytes.
func Size(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// limitReader reads at most left bytes, then fails with err if more would follow
// (an input of exactly the limit is read whole).
type limitReader struct {
	r    io.Reader
	left int64
	err  error
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		var probe [1]byte
		n, err := io.ReadFull(l.r, probe[:])
		if n == 0 && err != nil {
			return 0, err // io.EOF: the input ended at the limit
		}
		return 0, l.err
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}
