package frame

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// DefaultMaxLine is the longest line a Reader accepts by default; a longer one is
// skipped (not held in memory) and reported as an invalid frame.
const DefaultMaxLine = 512 << 20

// Options configure a Reader.
type Options struct {
	// Format names the decoder ("auto" or "" detects it from the content).
	Format string
	// Perspective is the side that wrote a log whose directions are relative
	// (Go SDK read:/write:); zero infers it from who sent initialize or server/discover.
	Perspective spec.Side
	// MaxLine caps one line's size in bytes (0 = DefaultMaxLine).
	MaxLine int
}

// RecordKind tells what a line of the input turned out to be.
type RecordKind uint8

const (
	// RecordFrame: the line carried a frame (possibly an invalid one).
	RecordFrame RecordKind = iota + 1
	// RecordContext: a line of the log that is not a frame (stderr, banners, errors).
	RecordContext
	// RecordBlank: an empty or whitespace-only line.
	RecordBlank
)

// Record is one line of input. Frame is set for RecordFrame; Text for RecordContext.
type Record struct {
	Kind  RecordKind
	Line  int
	Frame *Frame
	Text  []byte
}

// Stats counts what a Reader saw.
type Stats struct {
	Format   string // the decoder used (after detection)
	Lines    int
	Frames   int // frames, valid or not
	Rejected int // frames that are not valid JSON-RPC (MCP0001/MCP0002)
	Context  int
	Blank    int
	Bytes    int64 // decompressed bytes read
}

// lineDecoder interprets the lines of one log format.
type lineDecoder interface {
	name() string
	// decode fills f from line and reports what the line is. A relative direction
	// (read/write, send/receive) is returned as rel; the Reader resolves it.
	decode(line []byte, f *Frame) (kind RecordKind, rel relative)
}

// relative is a direction as seen by the process that wrote the log.
type relative uint8

const (
	relNone relative = iota
	relIncoming
	relOutgoing
)

// Reader streams records from one input.
type Reader struct {
	name    string
	br      *bufio.Reader
	closers []io.Closer
	opt     Options
	dec     lineDecoder
	fixed   bool // the format was given, not detected

	line    int
	buf     []byte
	tooLong bool
	rec     Record
	fr      Frame
	stats   Stats

	perspective spec.Side
	pending     []pendingRecord // records held until the perspective is known
	pendingSize int
	flushing    int // index of the next pending record to hand out, -1 when not flushing
	eof         error
}

type pendingRecord struct {
	rec   Record
	frame Frame
	rel   relative
}

// Limits on what is held while a relative-direction log's perspective is unknown.
const (
	maxPendingRecords = 4096
	maxPendingBytes   = 32 << 20
)

// NewReader wraps an input. Compression (gzip, zstd) is detected from magic bytes and
// a UTF-8 byte order mark is skipped. The error is for an input that cannot be read at all.
func NewReader(name string, r io.Reader, opt Options) (*Reader, error) {
	if opt.MaxLine <= 0 {
		opt.MaxLine = DefaultMaxLine
	}
	rd := &Reader{name: name, opt: opt, perspective: opt.Perspective, flushing: -1}
	br := bufio.NewReaderSize(r, 256<<10)
	magic, err := br.Peek(4)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("mcpsleuth: %s: %w", name, err)
	}
	switch {
	case len(magic) >= 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("mcpsleuth: %s: gzip: %w", name, err)
		}
		rd.closers = append(rd.closers, zr)
		br = bufio.NewReaderSize(zr, 256<<10)
	case len(magic) >= 4 && bytes.Equal(magic, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		zr, err := zstd.NewReader(br, zstd.WithDecoderLowmem(true), zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, fmt.Errorf("mcpsleuth: %s: zstd: %w", name, err)
		}
		rd.closers = append(rd.closers, zr.IOReadCloser())
		br = bufio.NewReaderSize(zr, 256<<10)
	}
	rd.br = br
	if bom, err := br.Peek(3); err == nil && bytes.Equal(bom, []byte{0xef, 0xbb, 0xbf}) {
		_, _ = br.Discard(3)
	}
	if opt.Format != "" && opt.Format != "auto" {
		dec, ok := decoderNamed(opt.Format)
		if !ok {
			return nil, fmt.Errorf("mcpsleuth: %s: unknown input format %q (known: %s)", name, opt.Format, formatList())
		}
		rd.dec, rd.fixed = dec, true
	}
	return rd, nil
}

// Close releases decompressors.
func (r *Reader) Close() error {
	var first error
	for _, c := range r.closers {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Stats returns what was read so far.
func (r *Reader) Stats() Stats {
	s := r.stats
	if r.dec != nil {
		s.Format = r.dec.name()
	} else {
		s.Format = "unknown"
	}
	return s
}

// Next returns the next record, or io.EOF. Any other error means the input broke
// off (a read or decompression error) and reading cannot go on.
// The record and its frame are reused by the following call.
func (r *Reader) Next() (*Record, error) {
	for {
		if r.flushing >= 0 {
			if r.flushing < len(r.pending) {
				p := &r.pending[r.flushing]
				r.flushing++
				r.resolve(&p.frame, p.rel)
				if p.rec.Kind == RecordFrame {
					p.rec.Frame = &p.frame
				}
				return &p.rec, nil
			}
			r.pending, r.pendingSize, r.flushing = r.pending[:0], 0, -1
		}
		if r.eof != nil {
			return nil, r.eof
		}
		line, err := r.readLine()
		if err != nil {
			if len(r.pending) > 0 {
				// The perspective never became known: hand out what was held.
				r.eof = err
				r.flushing = 0
				continue
			}
			return nil, err
		}
		rec, rel := r.decodeLine(line)
		if rel != relNone && r.perspective == 0 {
			r.perspective = inferPerspective(rec, rel)
		}
		if r.perspective == 0 && (rel != relNone || len(r.pending) > 0) {
			if len(r.pending) < maxPendingRecords && r.pendingSize+len(line) < maxPendingBytes {
				r.hold(rec, rel)
				continue
			}
		}
		if len(r.pending) > 0 {
			r.hold(rec, rel)
			r.flushing = 0
			continue
		}
		if rec.Kind == RecordFrame {
			r.resolve(rec.Frame, rel)
		}
		return rec, nil
	}
}

// hold copies a record so that it survives the next read.
func (r *Reader) hold(rec *Record, rel relative) {
	p := pendingRecord{rec: *rec, rel: rel}
	p.rec.Text = bytes.Clone(rec.Text)
	if rec.Kind == RecordFrame {
		p.frame = cloneFrame(rec.Frame)
		p.rec.Frame = nil
		r.pendingSize += len(p.frame.Raw)
	}
	r.pendingSize += len(p.rec.Text)
	r.pending = append(r.pending, p)
}

// cloneFrame deep-copies a frame so it no longer aliases the reader's buffer.
func cloneFrame(f *Frame) Frame {
	c := *f
	raw := bytes.Clone(f.Raw)
	c.Raw = raw
	c.Members = nil
	if f.Kind == KindInvalid && f.Problem == ProblemNotJSON {
		return c
	}
	// Re-decode from the copy so every sub-slice points into it.
	dir, reason := c.Dir, c.DirReason
	c = Frame{Source: f.Source, Line: f.Line, Time: f.Time, Dir: dir, DirReason: reason, StreamKey: f.StreamKey, Offset: -1}
	decodeMessage(&c, raw)
	return c
}

// resolve turns a relative direction into c2s/s2c once the perspective is known.
func (r *Reader) resolve(f *Frame, rel relative) {
	if rel == relNone {
		return
	}
	var d spec.Direction
	switch {
	case r.perspective == spec.Server && rel == relIncoming, r.perspective == spec.Client && rel == relOutgoing:
		d = spec.C2S
	case r.perspective == spec.Server && rel == relOutgoing, r.perspective == spec.Client && rel == relIncoming:
		d = spec.S2C
	default:
		f.Dir, f.DirReason = spec.DirUnknown, "the log says read/write but not which side wrote it (use --perspective client|server)"
		setMembersDir(f)
		return
	}
	f.Dir = d
	setMembersDir(f)
}

func setMembersDir(f *Frame) {
	for i := range f.Members {
		f.Members[i].Dir, f.Members[i].DirReason = f.Dir, f.DirReason
	}
}

// inferPerspective decides which side wrote a read/write log from a message whose
// direction is fixed by the protocol: initialize or server/discover read => server side.
func inferPerspective(rec *Record, rel relative) spec.Side {
	if rec.Kind != RecordFrame {
		return 0
	}
	f := rec.Frame
	msgs := []Frame{*f}
	if f.Kind == KindBatch {
		msgs = f.Members
	}
	for _, m := range msgs {
		if m.Kind != KindRequest && m.Kind != KindNotification {
			continue
		}
		d, ok := spec.DirectionIn(m.Method, "")
		if !ok {
			continue
		}
		switch {
		case d == spec.C2S && rel == relIncoming, d == spec.S2C && rel == relOutgoing:
			return spec.Server
		case d == spec.C2S && rel == relOutgoing, d == spec.S2C && rel == relIncoming:
			return spec.Client
		}
	}
	return 0
}

// decodeLine turns one line into a record, detecting the format on the way.
func (r *Reader) decodeLine(line []byte) (*Record, relative) {
	r.stats.Lines++
	r.rec = Record{Line: r.line}
	members := r.fr.Members[:0]
	r.fr = Frame{Source: r.name, Line: r.line, Members: members, Offset: -1}
	if r.tooLong {
		r.fr.invalid(ProblemNotJSON, fmt.Sprintf("line longer than the %d-byte limit: skipped without reading it into memory", r.opt.MaxLine))
		return r.frameRecord(), relNone
	}
	if len(bytes.TrimSpace(line)) == 0 {
		r.stats.Blank++
		r.rec.Kind = RecordBlank
		return &r.rec, relNone
	}
	dec := r.dec
	if dec == nil {
		dec = detect(line)
		if dec == nil {
			// Not recognisable yet: a text line or a JSON record without a frame is
			// context, a broken JSON line is MCP0001, a JSON scalar is MCP0002.
			valid := validJSON(line)
			if looksLikeJSON(line) && !valid {
				r.fr.notJSON(line, "line")
				return r.frameRecord(), relNone
			}
			if valid && !looksLikeJSON(line) {
				decodeMessage(&r.fr, line)
				return r.frameRecord(), relNone
			}
			r.stats.Context++
			r.rec.Kind, r.rec.Text = RecordContext, line
			return &r.rec, relNone
		}
		r.dec = dec
	}
	kind, rel := dec.decode(line, &r.fr)
	switch kind {
	case RecordFrame:
		return r.frameRecord(), rel
	case RecordBlank:
		r.stats.Blank++
	default:
		kind = RecordContext
		r.stats.Context++
		r.rec.Text = line
	}
	r.rec.Kind = kind
	return &r.rec, relNone
}

func (r *Reader) frameRecord() *Record {
	r.stats.Frames++
	if r.fr.Kind == KindInvalid {
		r.stats.Rejected++
	}
	r.rec.Kind, r.rec.Frame = RecordFrame, &r.fr
	return &r.rec
}

// readLine returns the next line without its line ending. The slice is valid until
// the next call. Lines longer than MaxLine are drained and flagged with tooLong.
func (r *Reader) readLine() ([]byte, error) {
	r.tooLong = false
	if cap(r.buf) > 64<<20 {
		r.buf = nil // do not keep a huge buffer after a huge line
	}
	chunk, err := r.br.ReadSlice('\n')
	if err == nil || (errors.Is(err, io.EOF) && len(chunk) > 0) {
		r.line++
		r.stats.Bytes += int64(len(chunk))
		line := trimEOL(chunk)
		if len(line) > r.opt.MaxLine {
			r.tooLong = true
			return nil, nil
		}
		return line, nil
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("mcpsleuth: %s:%d: %w", r.name, r.line+1, err)
	}
	r.buf = append(r.buf[:0], chunk...)
	r.stats.Bytes += int64(len(chunk))
	for {
		chunk, err = r.br.ReadSlice('\n')
		r.stats.Bytes += int64(len(chunk))
		if !r.tooLong {
			if len(r.buf)+len(chunk) > r.opt.MaxLine+2 { // room for a CRLF
				r.tooLong = true
				r.buf = r.buf[:0]
			} else {
				r.buf = append(r.buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("mcpsleuth: %s:%d: %w", r.name, r.line+1, err)
		}
		break
	}
	r.line++
	line := trimEOL(r.buf)
	if len(line) > r.opt.MaxLine {
		r.tooLong, line = true, nil
	}
	return line, nil
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte{'\n'})
	return bytes.TrimSuffix(b, []byte{'\r'})
}

// looksLikeJSON reports whether a line starts like a JSON object or array.
func looksLikeJSON(line []byte) bool {
	t := bytes.TrimLeft(line, " \t")
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}
