package frame

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"

	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// Options configure a Reader.
type Options struct {
	// Format names the decoder ("auto" or "" detects it from the content).
	Format string
	// Perspective is the side that wrote a log whose directions are relative
	// (Go SDK read:/write:); zero infers it from who sent initialize or server/discover.
	Perspective spec.Side
	// MaxLine caps one line's size in bytes (0 = DefaultMaxLine; at most MaxLineLimit).
	MaxLine int
	// MaxInput caps the bytes read from the input as stored, compressed or not
	// (0 = DefaultMaxInput; < 0: no limit).
	MaxInput int64
	// MaxDecompressed caps the bytes a compressed input expands to
	// (0 = DefaultMaxDecompressed; < 0: no limit).
	MaxDecompressed int64
	// SizeHint is the input's size as stored, when known (a regular file; 0 when
	// unknown): an input smaller than the read buffer gets a buffer its size, so an
	// archive of small captures does not allocate and clear readBuffer bytes each.
	SizeHint int64
	// Shaper, when set, gives every frame the Reader hands out its wire shape
	// (Frame.Shape): the scan that validates a line records the tokens a shape is
	// computed from when asked for. The Reader calls Wire from one goroutine at a
	// time; Shape may be called for frames of the Reader from any goroutine.
	Shaper Shaper
	// ScanAhead, when above 0, lets a Reader of a line format scan lines ahead of
	// its decoders on that many workers (see scanAhead): the records are the same,
	// read on more cores. 0 scans each line when it is decoded, on the caller's
	// goroutine alone.
	ScanAhead int
	// EntriesAhead lets a Reader of a HAR document read its entries (find where
	// each ends, scan and read it) on a goroutine of its own, ahead of the
	// decoder that turns them into frames (see entriesAhead): the records are the
	// same.
	EntriesAhead bool
	// Tee, when set, receives every byte of text the Reader reads, as it reads
	// it: after decompression and decoding (UTF-16 becomes UTF-8), before any
	// line is cut, byte order mark included. A writer of the capture as it was
	// (mcpsleuth redact) places each record's frame in these bytes.
	Tee io.Writer
	// Resume, when set, reads the input as the rest of a capture another Reader
	// read the start of (a region of a file: see Resumable): its first line is
	// line Resume.Line, and its lines are of the format that Reader detected,
	// as if this Reader had detected it (other formats' lines are still tried).
	// The input is plain text: no compression, byte order mark or document is
	// looked for.
	Resume *Resume
	// LinePool, when set, is where the Reader keeps the buffers of long lines
	// for the next ones: Readers that read at once (the regions of a file) then
	// keep one pool's worth between them instead of one each. nil: a pool of its
	// own.
	LinePool *LinePool
}

// LinePool holds the buffers of long lines for the Readers that share it
// (Options.LinePool). It is safe for concurrent use.
type LinePool struct{ buffers lineBuffers }

// pool is the pool to read with: p's, or a new one.
func (p *LinePool) pool() *lineBuffers {
	if p == nil {
		return new(lineBuffers)
	}
	return &p.buffers
}

// Resume is where a resumed Reader starts (Options.Resume).
type Resume struct {
	// Format is the line format the Reader of the capture's start detected
	// (Stats.Format).
	Format string
	// Line is the 1-based number of the input's first line in the capture.
	Line int
	// Perspective is the side that wrote a read/write log as that Reader had
	// inferred it (Reader.Perspective; 0: not known yet).
	Perspective spec.Side
}

// Shaper computes wire shapes (Frame.Shape) for a Reader; schema.Shaper is the one
// the analysis uses, and owns what a shape is. The validating scan records the
// tokens of each text it reads and the Shaper shapes a message from its tokens
// (Shape), without reading its bytes again; a frame the scan did not shape (one
// decoded from bytes the Reader had to copy or rebuild) is shaped from its bytes
// (Wire).
type Shaper interface {
	// Shape is the shape of a value of text from its tokens (see Token), from its
	// opening token to its closing one. It must be safe for concurrent use.
	Shape(text []byte, tokens []Token) uint64
	// Wire is the shape of a message read from its bytes.
	Wire(raw []byte) uint64
}

// readBuffer is the size of the buffer input is read through.
const readBuffer = 256 << 10

// firstBuffer is the size of the buffer the stored input is read through: its size
// when it is known and smaller than readBuffer (never under 4 KiB), else readBuffer.
func (o Options) firstBuffer() int {
	if o.SizeHint > 0 && o.SizeHint < readBuffer {
		return max(int(o.SizeHint)+1, 4<<10)
	}
	return readBuffer
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

// Record is one line of input (or entry of a document). Frame is set for
// RecordFrame; Text for RecordContext.
type Record struct {
	Kind RecordKind
	Line int
	// Entry is the 1-based index of the document entry the record is (see
	// Frame.Entry); 0 for line formats.
	Entry int
	Frame *Frame
	Text  []byte
	// Run is, for a blank record, how many consecutive empty lines it stands for
	// (1 or more): a run of newlines is one record.
	Run int
	// Exchange is set on a context record that is an HTTP exchange (or the part of
	// one a recording proxy wrote as a record) that carried no MCP message: a GET,
	// a DELETE, a POST answered without a body, a status. It is what rules judge
	// such an exchange by (MCP0005), anchored at the record's line and entry;
	// sessions and frame counts never see it. nil for every other record.
	Exchange *Exchange
	// Lifecycle is set on a context record that is an event of a stdio server's
	// process a recording wrote (the client closed its stdin, a signal, the
	// exit); nil for every other record.
	Lifecycle *Lifecycle
}

// Lifecycle is an event of the server process of a stdio session, as a
// recording of mcpsleuth record writes it ({"ts","event":...}).
type Lifecycle struct {
	// Event is "client-closed" (the client closed the server's stdin), "signal"
	// or "exit".
	Event string
	// Signal names the signal of a "signal" event ("SIGINT", "SIGTERM",
	// "SIGKILL"), By who sent it: "client" (the recorder forwarded what the client
	// sent it) or "recorder" (the recorder's own, after the client hung up).
	Signal, By string
	Time       time.Time
}

// Exchange is an HTTP exchange that carried no MCP message, as a context record
// holds it.
type Exchange struct {
	HTTP *HTTP
	// StreamKey is the session the exchange belongs to (its Mcp-Session-Id).
	StreamKey string
	Time      time.Time
}

// Stats counts what a Reader saw. Every line (document entry) read is accounted
// for: Lines = FrameLines + Context + Blank + Folded (see Unaccounted).
type Stats struct {
	Format   string // the decoder used (after detection)
	Lines    int    // lines read, or entries of a document format
	Frames   int    // frames, valid or not
	Rejected int    // frames that are not valid JSON-RPC (MCP0001/MCP0002)
	// FrameLines counts the lines (entries) that carried frames: one line may carry
	// more than one (a HAR entry's request and response, an mcp-cassette "chunks"
	// record), and a batch put back together from several lines counts once.
	FrameLines int
	Context    int
	Blank      int
	// Folded counts lines merged into the frame of an earlier line: the messages of a
	// batch that a recorder wrote one record each (mcpsnoop "batch": true).
	Folded int
	// Mixed counts the frames (among Frames) read from lines in another format than
	// Format: a capture that mixes formats, each line read in its own.
	Mixed int
	// FrameLike counts the context lines (among Context) that look like a frame (a
	// JSON object with a "jsonrpc" member) but are none in any format that could read
	// them: a frame cut inside text, or a server's own log of traffic copied into a
	// client log (a Go SDK server's "write:" lines in Claude Desktop's log).
	FrameLike int
	// OutOfOrder counts the HAR entries that started before an entry already judged
	// and could not be put in order (more entries than the reordering window holds
	// came between): judged where they are in the file.
	OutOfOrder int
	Bytes      int64 // decompressed bytes read
	// Lossy is set once the input has been read to its end without a single frame:
	// "cannot judge: this log holds no frames", what kind of log it is and what it
	// does show (lifecycle lines, the methods named). A report must show it as a
	// verdict of its own: an input without frames is never a clean pass.
	Lossy string
	// Document is set when the input is one JSON document (HAR, an Inspector
	// export): Lines, FrameLines and Context count its entries, not lines.
	Document bool
}

// Connection is one connection attempt a client's log tells of: its transport
// and URL, the server and revision agreed, or why it failed.
type Connection struct {
	Transport, URL string
	// Server is the server's name and version as the handshake gave them;
	// Revision the protocol revision agreed.
	Server, Revision string
	Connected        bool
	// Status is the HTTP status of a failure (0: none logged); Cause its likely
	// cause in a few words ("authorization", "timeout", ...; "" when unknown).
	Status int
	Cause  string
}

// connectionLog is implemented by the decoders of client logs that tell each
// connection's story (Reader.Connections).
type connectionLog interface {
	connections() []Connection
}

// lineDecoder interprets the lines of one log format.
type lineDecoder interface {
	name() string
	// decode fills f from line and reports what the line is. A relative direction
	// (read/write, send/receive) is returned as rel; the Reader resolves it. x is
	// for the rare line that is part of a frame or holds several (see lineExtras).
	decode(line []byte, f *Frame, x *lineExtras) (kind RecordKind, rel relative)
}

// lineExtras is what a line decoder can say beyond one frame per line.
type lineExtras struct {
	// batchKey marks the frame as one message of a batch that the recorder split
	// into one record per message (mcpsnoop "batch": true): consecutive records with
	// the same key are put back together into one batch frame, at the first line.
	batchKey string
	// more holds further frames of the line, after the one decode filled
	// (mcp-cassette "chunks" records). They may alias the line.
	more []Frame
	// exchange is set on a context line that is an HTTP exchange without a message
	// (see Record.Exchange); it must not alias the line.
	exchange *Exchange
	// lifecycle is set on a context line that is an event of a stdio server's
	// process (see Record.Lifecycle); it must not alias the line.
	lifecycle *Lifecycle
}

// noFramesNote is implemented by decoders of logs that can hold no frames at all
// (lifecycle-only logs, logs at a level that leaves frames out): it says what the log
// is, for Stats.Lossy.
type noFramesNote interface {
	noFrames() string
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
	// weak is set while the detected format is a lossy one (no frames): a line of a
	// format with frames, further on, still takes over.
	weak bool
	// doc reads whole-document formats (HAR, Inspector export) entry by entry; nil
	// for line formats.
	doc      docDecoder
	docInput *jsonDoc
	// others are the decoders of other line formats met among the detected one's
	// lines, by name (see decodeOther).
	others map[string]lineDecoder

	x        lineExtras
	ready    []pendingRecord // records to hand out before reading on
	readyPos int
	group    *batchGroup // a recorder-split batch being put back together
	lineEOF  error       // the line input ended (io.EOF or an error) while a group was open
	finished bool        // Next returned io.EOF
	cut      bool        // the end of the input closed something open (a group, held records)
	lossy    lossyScanner

	line    int
	tooLong bool
	handoff bool // the line is in memory its frames keep (see Frame.handoff)
	// lines are the buffers long lines are gathered into (see lineBuffers); long
	// is the current line's, when it is one of them, and held says a frame keeps
	// it (else the next line gives it back).
	lines *lineBuffers
	long  []byte
	held  bool
	rec   Record
	fr    Frame
	stats Stats

	// ahead reads and scans lines ahead of the decoders once the format is known
	// (Options.ScanAhead); nil until then, and for other inputs.
	ahead *scanAhead
	// spareViews are views of frames the Reader built, detached since
	// (newView, takeBack).
	spareViews []*textView

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

// NewReader wraps an input. Compression (gzip, zstd) is detected from magic bytes, a
// UTF-16 input (with its byte order mark) is decoded to UTF-8, and a UTF-8 byte
// order mark is skipped. The error is for an input that cannot be read at all.
func NewReader(name string, r io.Reader, opt Options) (*Reader, error) {
	if opt.MaxLine <= 0 {
		opt.MaxLine = DefaultMaxLine
	}
	opt.MaxLine = min(opt.MaxLine, MaxLineLimit)
	if opt.MaxInput == 0 {
		opt.MaxInput = DefaultMaxInput
	}
	if opt.MaxDecompressed == 0 {
		opt.MaxDecompressed = DefaultMaxDecompressed
	}
	rd := &Reader{name: name, opt: opt, perspective: opt.Perspective, flushing: -1, lines: opt.LinePool.pool()}
	if rs := opt.Resume; rs != nil {
		line, _, ok := decoderNamed(rs.Format)
		if !ok || line == nil {
			return nil, fmt.Errorf("mcpsleuth: %s: cannot resume %q: not a line format", name, rs.Format)
		}
		rd.dec, rd.line = line, rs.Line-1
		if rd.perspective == 0 {
			rd.perspective = rs.Perspective // inferred by the Reader before
		}
		rd.br = bufio.NewReaderSize(r, opt.firstBuffer())
		return rd, nil
	}
	if opt.MaxInput > 0 {
		r = &limitReader{r: r, left: opt.MaxInput, err: &LimitError{What: "input", Limit: opt.MaxInput, Flag: "--max-input"}}
	}
	br := bufio.NewReaderSize(r, opt.firstBuffer())
	magic, err := br.Peek(4)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("mcpsleuth: %s: %w", name, err)
	}
	switch {
	case isGzip(magic):
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("mcpsleuth: %s: gzip: %w", name, err)
		}
		ra := newReadAhead(opt.decompressed(zr), zr)
		rd.closers = append(rd.closers, ra)
		br = bufio.NewReaderSize(ra, readBuffer)
	case isZstd(magic):
		zr, err := zstd.NewReader(br, zstd.WithDecoderLowmem(true), zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, fmt.Errorf("mcpsleuth: %s: zstd: %w", name, err)
		}
		ra := newReadAhead(opt.decompressed(zr), zr.IOReadCloser())
		rd.closers = append(rd.closers, ra)
		br = bufio.NewReaderSize(ra, readBuffer)
	}
	if enc := utf16Of(br); enc != nil {
		// What PowerShell's > writes: UTF-16 with a byte order mark. Decoded as it
		// is read (the BOM goes too); memory stays bounded as for any input.
		br = bufio.NewReaderSize(transform.NewReader(br, enc.NewDecoder()), readBuffer)
	}
	if opt.Tee != nil {
		br = bufio.NewReaderSize(io.TeeReader(br, opt.Tee), readBuffer)
	}
	rd.br = br
	if bom, err := br.Peek(3); err == nil && bytes.Equal(bom, utf8BOM) {
		_, _ = br.Discard(3)
	}
	forced := opt.Format != "" && opt.Format != "auto"
	var line lineDecoder
	var doc docDecoder
	if forced {
		var ok bool
		line, doc, ok = decoderNamed(opt.Format)
		if !ok {
			return nil, fmt.Errorf("mcpsleuth: %s: unknown input format %q (known: %s)", name, opt.Format, formatList())
		}
	}
	sniffed, why := sniffDocument(br)
	if sniffed == "" && sniffPretty(br) {
		sniffed = prettyName
	}
	switch {
	case doc != nil && doc.name() == prettyName && (sniffed == "" || sniffed == prettyName):
		// Forced on lines: each line that opens a JSON value is a document.
	case doc != nil && doc.name() != sniffed:
		if sd, ok := docNamed(sniffed); ok {
			why = "it is " + sd.describe()
		}
		return nil, fmt.Errorf("mcpsleuth: %s: not %s: %s (try --input-format auto)", name, doc.describe(), why)
	case line != nil && sniffed == prettyName:
		return nil, fmt.Errorf("mcpsleuth: %s: this input is pretty-printed JSON, documents that span lines, not %s lines (use --input-format %s or auto)", name, line.name(), prettyName)
	case line != nil && sniffed != "":
		sd, _ := docNamed(sniffed)
		return nil, fmt.Errorf("mcpsleuth: %s: this input is %s, one JSON document, not %s lines (use --input-format %s or auto)", name, sd.describe(), line.name(), sniffed)
	case line != nil:
		rd.dec, rd.fixed = line, true
	case sniffed != "":
		doc, _ = docNamed(sniffed)
	}
	if doc != nil {
		rd.doc = doc
		if doc.name() != prettyName {
			rd.docInput = newJSONDoc(name, br, int64(opt.MaxLine))
		}
	}
	return rd, nil
}

// decompressed applies MaxDecompressed to a decompressor's output.
func (opt Options) decompressed(r io.Reader) io.Reader {
	if opt.MaxDecompressed < 0 {
		return r
	}
	return &limitReader{r: r, left: opt.MaxDecompressed, err: &LimitError{What: "decompressed input", Limit: opt.MaxDecompressed, Flag: "--max-decompressed"}}
}

// Close releases decompressors and the workers that scan ahead.
func (r *Reader) Close() error {
	var first error
	if r.ahead != nil {
		r.ahead.Close()
	}
	for _, c := range r.closers {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Resumable reports whether a Reader that Next has returned io.EOF from ended in
// the state a Reader resumed after it (Options.Resume, with the format of its
// Stats and its Perspective) starts in: a line format detected for good, no other format met, no
// decoder state that lines to come would read (a cassette's start time, the
// exchanges of an HTTP recording), no scan ahead, and nothing put together
// across the end (a recorder-split batch, records held for a perspective). Then
// reading the text that followed this Reader's with a resumed Reader gives the
// records this Reader would have given, and the same counts.
func (r *Reader) Resumable() bool {
	if !r.finished || r.cut || r.doc != nil || r.dec == nil || r.weak || r.fixed || len(r.others) > 0 || r.ahead != nil || len(r.pending) > 0 {
		return false
	}
	d, ok := r.dec.(resumableDecoder)
	return ok && d.resumable()
}

// Perspective is the side that wrote a read/write log, as given or inferred so
// far (0: not known).
func (r *Reader) Perspective() spec.Side { return r.perspective }

// Resumes reports whether a Reader of the named format can be resumed
// (Options.Resume): a line format whose decoder can say it holds nothing for
// the lines to come (Resumable).
func Resumes(format string) bool {
	line, _, ok := decoderNamed(format)
	_, resumes := line.(resumableDecoder)
	return ok && resumes
}

// resumableDecoder is a line decoder that can say whether it holds state that
// lines to come would read (Reader.Resumable).
type resumableDecoder interface {
	resumable() bool
}

// Add adds the counts of another reading (a region of the same file, read by a
// Reader resumed where this one's text ended): the format and the document flag
// are the first reading's, Lossy that of the last while none has a frame.
func (s *Stats) Add(o Stats) {
	if s.Format == "" {
		s.Format, s.Document = o.Format, o.Document
	}
	s.Lines += o.Lines
	s.Frames += o.Frames
	s.Rejected += o.Rejected
	s.FrameLines += o.FrameLines
	s.Context += o.Context
	s.Blank += o.Blank
	s.Folded += o.Folded
	s.Mixed += o.Mixed
	s.FrameLike += o.FrameLike
	s.OutOfOrder += o.OutOfOrder
	s.Bytes += o.Bytes
	if s.Frames == 0 {
		s.Lossy = o.Lossy
	}
}

// Unaccounted is the number of lines (entries) read that are neither a frame's,
// context, blank nor folded into a frame: 0 unless something read was lost.
func (s Stats) Unaccounted() int { return s.Lines - s.FrameLines - s.Context - s.Blank - s.Folded }

// Stats returns what was read so far.
func (r *Reader) Stats() Stats {
	s := r.stats
	switch {
	case r.doc != nil:
		// Lines counts the entries of a HAR or Inspector document, but the physical
		// lines of pretty-printed JSON.
		_, pretty := r.doc.(*prettyDecoder)
		s.Format, s.Document = r.doc.name(), !pretty
		if r.docInput != nil { // else the decoder counts the bytes it reads
			s.Bytes = r.docInput.bytesRead()
		}
	case r.dec != nil:
		s.Format = r.dec.name()
	default:
		s.Format = "unknown"
	}
	if r.finished && s.Frames == 0 {
		s.Lossy = r.lossyNote(s)
	}
	return s
}

// Connections are the connections a client's log tells of without their messages
// (Claude Code's MCP log), in order: what scan adds up per server. nil for every
// other input.
func (r *Reader) Connections() []Connection {
	if c, ok := r.dec.(connectionLog); ok && r.dec != nil {
		return c.connections()
	}
	return nil
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
					r.shape(&p.frame)
				}
				return &p.rec, nil
			}
			r.pending, r.pendingSize, r.flushing = r.pending[:0], 0, -1
			if r.eof != nil && errors.Is(r.eof, io.EOF) {
				r.finished = true
			}
		}
		if r.eof != nil {
			return nil, r.eof
		}
		rec, rel, err := r.nextRecord()
		if err != nil {
			if errors.Is(err, io.EOF) {
				r.finished = true
			}
			if len(r.pending) > 0 {
				// The perspective never became known: hand out what was held.
				r.cut = true
				r.eof = err
				r.flushing = 0
				continue
			}
			return nil, err
		}
		if rel != relNone && r.perspective == 0 {
			r.perspective = inferPerspective(rec, rel)
		}
		if r.perspective == 0 && (rel != relNone || len(r.pending) > 0) {
			if len(r.pending) < maxPendingRecords && r.pendingSize+recordSize(rec) < maxPendingBytes {
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
			r.shape(rec.Frame)
		}
		return rec, nil
	}
}

// Detach copies the frame of the record Next returned into the arena (see
// Frame.Detach). The index of a frame read from the current line, which no frame
// still to come shares, is handed over instead of copied: the Reader scans the
// next line into a spare view of the arena.
//
// With shape, the copy's wire shape is computed now (Frame.ShapeNow), from the
// tokens of the scan that just ran, still in this core's cache; without, it is
// computed when it is asked for.
func (r *Reader) Detach(f *Frame, a *Arena, into *Frame, shape bool) {
	v := r.fr.view
	if v == nil || f.view != v || r.readyPos < len(r.ready) || r.flushing >= 0 {
		if f.handoff && r.long != nil {
			r.held = true // the frame keeps the line's buffer; the collector has it after
		}
		f.Detach(a, into)
		r.takeBack(f)
		return
	}
	if f.handoff && r.long != nil && !r.held {
		// The line's last frame: the arena gives the buffer back to the pool once
		// the batch it is in has been replayed (batches are replayed and reset in
		// order, so every frame of the line is done with it then).
		a.lines = append(a.lines, heldLine{buf: r.long, pool: r.lines})
		r.held = true
	}
	if f.detach(a, into, true) {
		r.fr.view = a.lend(v.ix.shaper)
	}
	if shape {
		into.ShapeNow()
	}
}

// newView is a text view of its own for a frame the Reader builds and queues (a
// HAR body, an Inspector entry): one whose scan shapes, when the Reader shapes
// frames; nil otherwise, and the frame's scan makes one.
func (r *Reader) newView() *textView {
	if r.opt.Shaper == nil {
		return nil
	}
	if n := len(r.spareViews); n > 0 {
		v := r.spareViews[n-1]
		r.spareViews = r.spareViews[:n-1]
		return v
	}
	return &textView{ix: index{shaper: r.opt.Shaper}, spare: true}
}

// Bounds of the views a Reader keeps for the frames it builds (newView): a HAR
// entry's body frames each scanned into a view of their own, whose tokens grew
// from nothing each time (a fifth of the allocations of a HAR check).
const (
	maxSpareViews      = 16
	maxSpareViewTokens = 1 << 16
)

// takeBack keeps a detached frame's view for newView, when newView made it.
func (r *Reader) takeBack(f *Frame) {
	v := f.view
	if v == nil || !v.spare || len(r.spareViews) >= maxSpareViews || cap(v.ix.tokens) > maxSpareViewTokens {
		return
	}
	f.view = nil
	v.text, v.pre, v.preOK = nil, nil, false
	v.ix.tokens, v.ix.taped = v.ix.tokens[:0], false
	r.spareViews = append(r.spareViews, v)
}

// shape gives a frame the scan did not shape its wire shape (or its members theirs)
// from its bytes, when the Reader shapes frames.
func (r *Reader) shape(f *Frame) {
	if r.opt.Shaper == nil || f.shaped {
		return
	}
	f.shaped = true
	switch f.Kind {
	case KindInvalid:
	case KindBatch:
		for i := range f.Members {
			if m := &f.Members[i]; m.Kind != KindInvalid && !m.shaped {
				m.shape, m.shaped = r.opt.Shaper.Wire(m.Raw), true
			}
		}
	default:
		f.shape = r.opt.Shaper.Wire(f.Raw)
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
	c = Frame{Source: f.Source, Line: f.Line, Entry: f.Entry, Time: f.Time, Dir: dir, DirReason: reason, StreamKey: f.StreamKey, HTTP: f.HTTP, Unordered: f.Unordered, Offset: -1}
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
	r.resetFrame()
	if r.tooLong {
		r.fr.invalid(ProblemNotJSON, "line longer than the --max-line limit of "+Size(int64(r.opt.MaxLine))+": skipped, not judged")
		return r.frameRecord(), relNone
	}
	if len(line) > 0 && line[0] != '{' && line[0] != '[' {
		line = trimLineStart(line)
	}
	if len(bytes.TrimSpace(line)) == 0 {
		r.stats.Blank++
		r.rec.Kind = RecordBlank
		r.rec.Run = 1 + r.skipBlankRun()
		return &r.rec, relNone
	}
	dec := r.dec
	if dec == nil || r.weak {
		found, weak := detect(line)
		switch {
		case found != nil && (dec == nil || !weak):
			dec, r.dec, r.weak = found, found, weak
		case dec == nil:
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
			return r.contextRecord(line), relNone
		}
	}
	kind, rel := dec.decode(line, &r.fr, &r.x)
	switch kind {
	case RecordFrame:
		return r.frameRecord(), rel
	case RecordBlank:
		r.stats.Blank++
		r.rec.Kind, r.rec.Run = kind, 1
		return &r.rec, relNone
	}
	if x := r.x.exchange; x != nil {
		r.x.exchange = nil
		rec := r.contextRecord(line)
		rec.Exchange = x
		return rec, relNone
	}
	if l := r.x.lifecycle; l != nil {
		r.x.lifecycle = nil
		rec := r.contextRecord(line)
		rec.Lifecycle = l
		return rec, relNone
	}
	if !r.fixed && !r.weak {
		if rec, rel, ok := r.decodeOther(line, dec); ok {
			return rec, rel
		}
	}
	return r.contextRecord(line), relNone
}

// skipBlankRun counts and drops the empty lines already buffered after a blank
// line, so that a run of newlines (a log padded with them, a decompression bomb
// of them) costs one record, not one per line. It never waits for more input.
func (r *Reader) skipBlankRun() (skipped int) {
	if r.doc != nil {
		return 0
	}
	if r.ahead != nil {
		lines, n := r.ahead.blankRun()
		r.line += lines
		r.stats.Lines += lines
		r.stats.Blank += lines
		r.stats.Bytes += n
		return lines
	}
	for {
		b, _ := r.br.Peek(r.br.Buffered())
		i, lines := 0, 0
		for i < len(b) {
			switch {
			case b[i] == '\n':
				i++
			case b[i] == '\r' && i+1 < len(b) && b[i+1] == '\n':
				i += 2
			default:
				goto done
			}
			lines++
		}
	done:
		if lines == 0 {
			return skipped
		}
		_, _ = r.br.Discard(i)
		skipped += lines
		r.line += lines
		r.stats.Lines += lines
		r.stats.Blank += lines
		r.stats.Bytes += int64(i)
		if i < len(b) {
			return skipped
		}
	}
}

// decodeOther reads a line that the detected format calls context in the format the
// line itself is written in, if that is another format with frames (DESIGN.md
// section 7: bare JSON-RPC lines, then an envelope or a Go SDK "write:" line; an
// envelope capture, then a Claude Desktop line). Each other format keeps its decoder
// (and its state) for the rest of the input. In a log that copies the server's
// stderr, a server's own log lines are not read (see stderrCopier).
func (r *Reader) decodeOther(line []byte, dec lineDecoder) (*Record, relative, bool) {
	name, weak := detectFormat(line)
	if name == "" || weak || name == dec.name() {
		return nil, relNone, false
	}
	if _, copier := dec.(stderrCopier); copier && serverLogFormat(name) {
		return nil, relNone, false
	}
	other := r.others[name]
	if other == nil {
		other, _, _ = decoderNamed(name)
		if r.others == nil {
			r.others = map[string]lineDecoder{}
		}
		r.others[name] = other
	}
	r.resetFrame()
	kind, rel := other.decode(line, &r.fr, &r.x)
	if kind != RecordFrame {
		r.resetFrame()
		return nil, relNone, false
	}
	r.stats.Mixed++
	return r.frameRecord(), rel, true
}

// resetFrame makes the reader's frame a fresh one for the current line, reusing its
// memory (members, index).
func (r *Reader) resetFrame() {
	members := r.fr.Members[:0]
	r.fr = Frame{Source: r.name, Line: r.line, Members: members, Offset: -1, view: r.fr.view, root: -1}
	if r.fr.view != nil {
		r.fr.view.text = nil // the index is reused; what it indexed is gone
	} else if r.opt.Shaper != nil {
		r.fr.view = &textView{ix: index{shaper: r.opt.Shaper}}
	}
	r.fr.handoff = r.handoff
	if r.x.batchKey != "" || len(r.x.more) > 0 {
		r.x.batchKey, r.x.more = "", r.x.more[:0]
	}
	r.x.exchange, r.x.lifecycle = nil, nil
}

func (r *Reader) contextRecord(line []byte) *Record {
	r.stats.Context++
	if looksLikeFrame(line) {
		r.stats.FrameLike++
	}
	r.rec.Kind, r.rec.Text = RecordContext, line
	if r.stats.Frames == 0 {
		r.lossy.observe(line)
	}
	return &r.rec
}

func (r *Reader) frameRecord() *Record {
	r.stats.FrameLines++
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
	r.handoff = false
	if r.ahead == nil && r.opt.ScanAhead > 0 && r.doc == nil && r.dec != nil && !r.weak {
		// The format is known: the rest of the input is lines of it.
		r.ahead = newScanAhead(r.br, r.opt.ScanAhead, r.opt.MaxLine, r.opt.Shaper)
	}
	if r.ahead != nil {
		return r.readAheadLine()
	}
	if r.long != nil {
		if !r.held {
			r.lines.put(r.long) // no frame kept the last long line
		}
		r.long, r.held = nil, false
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
	// A line longer than the read buffer: gathered into parts, buffers of the
	// Reader's pool (lineBuffers), joined once at the end into another when it took
	// more than one; the frames of the line keep the buffer it ends in, which goes
	// back to the pool once they have been replayed. A line past MaxLine is dropped
	// as soon as it is known too long.
	cur := r.lines.get(linePart)
	var parts [][]byte
	total := 0
	for {
		if !r.tooLong {
			if total+len(chunk) > r.opt.MaxLine+2 { // room for a CRLF
				r.tooLong = true
				r.lines.putAll(append(parts, cur))
				cur, parts = nil, nil
			} else {
				for c := chunk; len(c) > 0; {
					if len(cur) == cap(cur) {
						parts = append(parts, cur)
						cur = r.lines.get(linePart)
					}
					n := copy(cur[len(cur):cap(cur)], c)
					cur, c = cur[:len(cur)+n], c[n:]
				}
			}
			total += len(chunk)
		}
		r.stats.Bytes += int64(len(chunk))
		if !errors.Is(err, bufio.ErrBufferFull) {
			break
		}
		chunk, err = r.br.ReadSlice('\n')
	}
	if err != nil && !errors.Is(err, io.EOF) {
		r.lines.putAll(append(parts, cur))
		return nil, fmt.Errorf("mcpsleuth: %s:%d: %w", r.name, r.line+1, err)
	}
	r.line++
	if r.tooLong {
		return nil, nil
	}
	if parts != nil {
		joined := r.lines.get(total)
		for _, p := range parts {
			joined = append(joined, p...)
			r.lines.put(p)
		}
		joined = append(joined, cur...)
		r.lines.put(cur)
		cur = joined
	}
	r.long = cur
	line := trimEOL(cur)
	if len(line) > r.opt.MaxLine {
		r.tooLong, line = true, nil
	}
	// The line's frames keep its buffer instead of copying it (Frame.Detach).
	r.handoff = true
	return line, nil
}

// ScanAhead turns the workers that scan lines ahead (Options.ScanAhead) on or off
// for the blocks read from now on: on while what follows the Reader waits for its
// records, off while the Reader waits for what follows (the cores are then busy
// anyway). What Next returns is the same either way.
func (r *Reader) ScanAhead(on bool) {
	if r.ahead != nil {
		r.ahead.off.Store(!on)
	}
}

// readAheadLine is readLine from the lines scanAhead read: a line a worker
// scanned brings its view, which becomes the frame's (the view it replaces goes
// back to the workers).
func (r *Reader) readAheadLine() ([]byte, error) {
	l, tooLong, huge, n, err := r.ahead.next()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("mcpsleuth: %s:%d: %w", r.name, r.line+1, err)
	}
	r.line++
	r.stats.Bytes += n
	if tooLong {
		r.tooLong = true
		return nil, nil
	}
	if l.view != nil {
		r.ahead.recycle(r.fr.view)
		r.fr.view, l.view = l.view, nil
	} else if r.fr.view != nil {
		r.fr.view.pre = nil
	}
	line := trimEOL(l.raw)
	if len(line) > r.opt.MaxLine {
		r.tooLong = true
		return nil, nil
	}
	r.handoff = huge
	return line, nil
}

// maxReusedBuffer is the largest buffer a pretty-printed document is gathered in
// that a Reader keeps for the next document (long lines have lineBuffers).
const maxReusedBuffer = 64 << 20

// utf8BOM is the UTF-8 encoding of U+FEFF, the byte order mark.
var utf8BOM = []byte{0xef, 0xbb, 0xbf}

// Wrapped reports whether an input that starts with head (its first four bytes,
// or all of a shorter one) is read through a decoder before its lines are: gzip,
// zstd, or UTF-16 with a byte order mark. Its bytes are then not its lines.
func Wrapped(head []byte) bool { return isGzip(head) || isZstd(head) || utf16Encoding(head) != nil }

// isGzip and isZstd report whether an input's first bytes are the format's magic.
func isGzip(head []byte) bool { return len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b }
func isZstd(head []byte) bool {
	return len(head) >= 4 && bytes.Equal(head[:4], []byte{0x28, 0xb5, 0x2f, 0xfd})
}

// utf16Of returns the encoding of an input that starts with a UTF-16 byte order
// mark, or nil (utf16Encoding).
func utf16Of(br *bufio.Reader) encoding.Encoding {
	b, _ := br.Peek(4)
	return utf16Encoding(b)
}

// utf16Encoding returns the encoding of an input whose first bytes are b when
// they are a UTF-16 byte order mark (FF FE little-endian, FE FF big-endian), or
// nil. The mark is consumed by the decoder. A UTF-32 mark (FF FE 00 00) is not
// UTF-16: nil, and the input reads as what it is (no line is a frame).
func utf16Encoding(b []byte) encoding.Encoding {
	switch {
	case len(b) >= 4 && b[0] == 0xff && b[1] == 0xfe && b[2] == 0 && b[3] == 0:
		return nil
	case len(b) >= 2 && b[0] == 0xff && b[1] == 0xfe:
		return unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM)
	case len(b) >= 2 && b[0] == 0xfe && b[1] == 0xff:
		return unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM)
	}
	return nil
}

// trimLineStart drops what can precede a line's text without being part of it: byte
// order marks (each file of a capture joined with cat may start with one) and
// carriage returns (a CR LF line end split as LF then CR, a "\r" progress redraw).
func trimLineStart(b []byte) []byte {
	for len(b) > 0 {
		switch {
		case b[0] == '\r':
			b = b[1:]
		case bytes.HasPrefix(b, utf8BOM):
			b = b[len(utf8BOM):]
		default:
			return b
		}
	}
	return b
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte{'\n'})
	return bytes.TrimSuffix(b, []byte{'\r'})
}

// looksLikeJSON reports whether a line starts like a JSON object or array, and not
// like a log line behind a bracketed tag ("[48213] Connecting...", "[supergateway] ...").
func looksLikeJSON(line []byte) bool {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++ // a loop, not bytes.TrimLeft: it runs for every line, and a cutset costs a set a call
	}
	t := line[i:]
	return len(t) > 0 && (t[0] == '{' || (t[0] == '[' && !isBracketTag(t)))
}

// isBracketTag reports whether b starts with "[tag] " where tag holds no JSON structure.
func isBracketTag(b []byte) bool {
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case ']':
			return i > 1 && i+1 < len(b) && b[i+1] == ' '
		case '[', '{', '"', ',':
			return false
		}
	}
	return false
}

// nextRecord returns the next record before the perspective is applied: a queued
// one, the next entry of a document, or the next line.
func (r *Reader) nextRecord() (*Record, relative, error) {
	for {
		if r.readyPos < len(r.ready) {
			p := &r.ready[r.readyPos]
			r.readyPos++
			if p.rec.Kind == RecordFrame {
				p.rec.Frame = &p.frame
			}
			return &p.rec, p.rel, nil
		}
		if len(r.ready) > 0 {
			clear(r.ready) // drop references to the handed-out frames
			r.ready, r.readyPos = r.ready[:0], 0
		}
		if r.doc != nil {
			if err := r.doc.next(r); err != nil {
				return nil, relNone, err
			}
			continue
		}
		if r.lineEOF != nil {
			if r.group != nil {
				r.cut = true
				r.flushGroup()
				continue
			}
			return nil, relNone, r.lineEOF
		}
		line, err := r.readLine()
		if err != nil {
			if r.group != nil {
				r.lineEOF = err
				continue
			}
			return nil, relNone, err
		}
		rec, rel := r.decodeLine(line)
		if r.group == nil && r.x.batchKey == "" && len(r.x.more) == 0 {
			return rec, rel, nil // the common case: one line, one record
		}
		if r.regroup(rec, rel) {
			return rec, rel, nil
		}
	}
}

// regroup handles a line that is part of a recorder-split batch, ends one, or holds
// several frames. It reports whether rec can be handed out as it is; otherwise the
// records to hand out are queued.
func (r *Reader) regroup(rec *Record, rel relative) bool {
	key := r.x.batchKey
	if r.group != nil && rec.Kind == RecordFrame && key == r.group.key && rel == r.group.rel && len(r.group.raw)+len(rec.Frame.Raw) < r.opt.MaxLine {
		r.group.add(rec.Frame)
		r.foldFrame(rec.Frame)
		return false
	}
	if r.group != nil {
		r.flushGroup() // the batch ended (or reached MaxLine: memory stays bounded)
		if key == "" {
			r.queue(rec, rel)
			r.queueExtras(rel)
			return false
		}
	}
	if key != "" && rec.Kind == RecordFrame {
		r.group = &batchGroup{key: key, rel: rel}
		r.group.add(rec.Frame)
		r.foldFrame(rec.Frame)
		return false
	}
	if len(r.x.more) == 0 {
		return true
	}
	r.queue(rec, rel)
	r.queueExtras(rel)
	return false
}

// foldFrame takes a frame's line out of the frame count: it is now part of a batch.
func (r *Reader) foldFrame(f *Frame) {
	r.stats.Frames--
	r.stats.FrameLines--
	if f.Kind == KindInvalid {
		r.stats.Rejected--
	}
	r.stats.Folded++
}

// queue appends a record that aliases the current line; the queue is drained before
// the next line is read.
func (r *Reader) queue(rec *Record, rel relative) {
	p := pendingRecord{rec: *rec, rel: rel}
	if rec.Kind == RecordFrame {
		p.frame = *rec.Frame
		p.rec.Frame = nil
	}
	r.ready = append(r.ready, p)
}

func (r *Reader) queueExtras(rel relative) {
	for i := range r.x.more {
		f := r.x.more[i]
		r.stats.Frames++
		if f.Kind == KindInvalid {
			r.stats.Rejected++
		}
		r.ready = append(r.ready, pendingRecord{rec: Record{Kind: RecordFrame, Line: f.Line}, frame: f, rel: rel})
	}
}

// flushGroup queues the batch put back together from its members.
func (r *Reader) flushGroup() {
	g := r.group
	r.group = nil
	f := g.head
	g.raw = append(g.raw, ']')
	decodeMessage(&f, g.raw)
	r.stats.Frames++
	r.stats.FrameLines++
	r.stats.Folded--
	if f.Kind == KindInvalid {
		r.stats.Rejected++
	}
	r.ready = append(r.ready, pendingRecord{rec: Record{Kind: RecordFrame, Line: f.Line}, frame: f, rel: g.rel})
}

// batchGroup collects the messages of a batch that a recorder wrote as one record each.
type batchGroup struct {
	key  string
	rel  relative
	head Frame  // the first member's source, line, time, direction and stream
	raw  []byte // "[m1,m2,..." (owned)
}

func (g *batchGroup) add(f *Frame) {
	if g.raw == nil {
		g.head = Frame{Source: f.Source, Line: f.Line, Time: f.Time, Dir: f.Dir, DirReason: f.DirReason, StreamKey: f.StreamKey, HTTP: f.HTTP, Offset: -1}
		g.raw = append(g.raw, '[')
	} else {
		g.raw = append(g.raw, ',')
	}
	g.raw = append(g.raw, f.Raw...)
}

// queueFrame queues a frame of a document entry; f must not alias anything reused.
func (r *Reader) queueFrame(f Frame) {
	r.stats.Frames++
	if f.Kind == KindInvalid {
		r.stats.Rejected++
	}
	r.ready = append(r.ready, pendingRecord{rec: Record{Kind: RecordFrame, Line: f.Line, Entry: f.Entry}, frame: f})
}

// queueContext queues a document entry that carried no frame, described by text: the
// entry's 1-based index, and the line it starts on.
func (r *Reader) queueContext(line, entry int, text string) {
	r.stats.Context++
	r.ready = append(r.ready, pendingRecord{rec: Record{Kind: RecordContext, Line: line, Entry: entry, Text: []byte(text)}})
}

// queueExchange queues a document entry that was an HTTP exchange without an MCP
// message (see Record.Exchange), described by text.
func (r *Reader) queueExchange(line, entry int, text string, x *Exchange) {
	r.stats.Context++
	r.ready = append(r.ready, pendingRecord{rec: Record{Kind: RecordContext, Line: line, Entry: entry, Text: []byte(text), Exchange: x}})
}

// lossyNote says why an input that ended without a frame cannot be judged.
func (r *Reader) lossyNote(s Stats) string {
	const prefix = "cannot judge: this log holds no frames"
	var what string
	if n, ok := r.dec.(noFramesNote); ok && r.dec != nil {
		what = n.noFrames()
	}
	if n, ok := r.doc.(noFramesNote); ok && r.doc != nil {
		what = n.noFrames()
	}
	shown := r.lossy.summary()
	switch {
	case what == "" && shown == "" && s.Lines == 0:
		what = "the input is empty"
	case what == "" && shown == "":
		what = fmt.Sprintf("no line is a frame in any known format (%s, %d of context)", quote.Count(s.Lines, "line"), s.Context)
	}
	out := prefix
	if what != "" {
		out += ": " + what
	}
	if shown != "" {
		out += "; it shows " + shown
	}
	return out
}

// recordSize is the bytes a held record keeps.
func recordSize(rec *Record) int {
	n := len(rec.Text)
	if rec.Frame != nil {
		n += len(rec.Frame.Raw)
	}
	return n
}
