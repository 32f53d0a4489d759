package scrub

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/redact"
	"github.com/mcpsleuth/mcpsleuth/pkg/schema"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// Options configure Copy.
type Options struct {
	// Values replaces every string value the session carries (arguments,
	// results, resource contents, log data, URIs, instructions), not only
	// secrets.
	Values bool
	// Key makes the pseudonyms: the same key gives the same pseudonym to the
	// same value in every capture. nil draws a random key, so that nobody can
	// test a guess against a pseudonym.
	Key []byte
	// Reader configures the reading of the capture (its format, its limits).
	// Its Tee is Copy's own.
	Reader frame.Options
	// Envelope writes envelope JSONL ({"ts","dir","msg"}, one record a line)
	// whatever the input's format, instead of the input's own bytes: the
	// frames' messages scrubbed, context lines as {"dir":"stderr","text"}.
	// HTTP captures are refused (ErrHTTPEnvelope).
	Envelope bool
}

// Kind is a kind of value Copy replaces, as the summary counts them.
type Kind string

const (
	KindCredential Kind = "credential members" // a member whose name says credential (apiKey, token, password)
	KindHeader     Kind = "credential headers" // Authorization, Cookie, X-Api-Key ... headers and fields of the container
	KindSessionID  Kind = "session ids"        // Mcp-Session-Id headers, a recording's session
	KindText       Kind = "secrets in text"    // bearer tokens, keys of known shapes, tokens in URLs
	KindValue      Kind = "values"             // --values: strings the session carries
)

// Summary is what Copy replaced.
type Summary struct {
	Lines, Frames int
	// Replaced counts the values replaced by kind, each occurrence once.
	Replaced map[Kind]int
	// Distinct is how many distinct values were replaced.
	Distinct int
	// Unplaced are the lines of frames with values to replace whose bytes were
	// not found in the source (a message the format rebuilt): their values were
	// replaced as text wherever they appear in lines not yet written.
	Unplaced []int
	// Deep are the lines of frames nested deeper than redaction reads: the
	// strings after the first value too deep were scrubbed by their shape only.
	Deep []int
	// EchoesCapped is set when the capture carried more values than are looked
	// for as echoes elsewhere (textSet's bounds): the later ones were replaced
	// where they lie, not where a message quotes them again.
	EchoesCapped bool
}

// String says what was replaced, in one line.
func (s Summary) String() string {
	var parts []string
	for _, k := range []Kind{KindCredential, KindHeader, KindSessionID, KindText, KindValue} {
		if n := s.Replaced[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	what := "nothing replaced"
	if len(parts) > 0 {
		what = "replaced " + strings.Join(parts, ", ") + fmt.Sprintf(" (%d distinct values)", s.Distinct)
	}
	return fmt.Sprintf("%d lines, %d frames; %s", s.Lines, s.Frames, what)
}

// Copy reads a capture and writes it to out with its secrets (and, with
// Values, every value the session carries) replaced by pseudonyms: the same
// format, byte for byte but the values replaced. Memory is bounded by the
// lines the Reader reads ahead for a line format; a document format (a HAR, an
// Inspector export, pretty-printed JSON) is held until its end, because its
// records may come in another order than its lines.
func Copy(name string, in io.Reader, out io.Writer, opt Options) (Summary, error) {
	names, err := newPseudonyms(opt.Key)
	if err != nil {
		return Summary{}, fmt.Errorf("mcpsleuth: %s: a key for the pseudonyms: %w", name, err)
	}
	c := &copier{
		opt: opt, names: names, win: newWindow(), out: bufio.NewWriterSize(out, 256<<10),
		sum:       Summary{Replaced: map[Kind]int{}},
		seen:      map[string]bool{},
		protected: map[string]bool{},
		global:    newTextSet(),
	}
	ropt := opt.Reader
	ropt.Tee = c.win
	if opt.Envelope {
		ropt.Tee = nil // the input's bytes are not written
	}
	// The copy places each record in the bytes the Reader read up to it: none
	// read ahead.
	ropt.ScanAhead, ropt.EntriesAhead = 0, false
	r, err := frame.NewReader(name, in, ropt)
	if err != nil {
		return Summary{}, err
	}
	defer r.Close()
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return c.sum, err
		}
		if opt.Envelope {
			if err := c.envelope(rec); err != nil {
				if errors.Is(err, ErrHTTPEnvelope) {
					return c.sum, fmt.Errorf("mcpsleuth: %s: %w", name, err)
				}
				c.werr = err
			}
			if c.werr != nil {
				return c.sum, fmt.Errorf("mcpsleuth: %s: writing the copy: %w", name, c.werr)
			}
			continue
		}
		c.record(rec)
		if c.werr != nil {
			return c.sum, fmt.Errorf("mcpsleuth: %s: writing the copy: %w", name, c.werr)
		}
	}
	// What the Reader read and handed out no record for (a document's end,
	// blank lines) is in the window too.
	c.win.end()
	c.win.take(c.win.last()+1, c.write)
	if err := c.out.Flush(); err != nil && c.werr == nil {
		c.werr = err
	}
	if c.werr != nil {
		return c.sum, fmt.Errorf("mcpsleuth: %s: writing the copy: %w", name, c.werr)
	}
	c.sum.Distinct = len(c.seen)
	c.sum.EchoesCapped = c.global.Full
	return c.sum, nil
}

// copier is one Copy.
type copier struct {
	opt   Options
	names pseudonyms
	win   *window
	out   *bufio.Writer
	werr  error
	sum   Summary
	// document is set once a record came from a document entry: lines are then
	// written at the end.
	document bool
	// seen holds the values replaced (for Distinct).
	seen map[string]bool
	// protected holds short strings the capture keeps (names, enumerations,
	// literals of definitions): a value equal to one is not replaced under
	// Values, so that a tool's enumerated argument still validates.
	protected map[string]bool
	// global holds the secrets replaced so far: they are replaced wherever they
	// appear again, in any line still to be written.
	global *textSet
	// header is the container's state across lines (containerScan).
	header containerState
}

// see notes a pseudonym given out, for Summary.Distinct (bounded: an
// archive's values under --values would be millions).
func (c *copier) see(with string) {
	if len(c.seen) < maxSeen {
		c.seen[with] = true
	}
}

// maxSeen bounds the pseudonyms Summary.Distinct counts.
const maxSeen = 1_000_000

// maxProtected bounds the protected strings: names and literals, not text.
const (
	maxProtected    = 100_000
	maxProtectedLen = 64
)

// record handles one record of the Reader: a frame's values are replaced where
// its bytes lie; the lines before it are written when no later record can
// fall in them.
func (c *copier) record(rec *frame.Record) {
	if rec.Entry > 0 {
		c.document = true
	}
	if rec.Kind == frame.RecordFrame && rec.Frame != nil {
		c.sum.Frames++
		c.frame(rec.Frame, rec.Line)
	}
	if !c.document && rec.Line > 0 {
		c.win.take(rec.Line, c.write)
	}
}

// frame replaces the values of a frame where its bytes lie in the window.
func (c *copier) frame(f *frame.Frame, line int) {
	edits, kinds := c.edits(f, line)
	if c.win.has(line) {
		c.win.framed[line-c.win.first] = true // its strings were searched as the frame was walked
	}
	if len(edits) == 0 {
		return
	}
	if c.place(f.Raw, line, edits) {
		c.countKinds(kinds)
		return
	}
	// Not found where the Reader read it: replace the values as text in the
	// lines still held (each where it stands alone).
	c.sum.Unplaced = append(c.sum.Unplaced, line)
	for _, e := range edits {
		c.global.addAny(unescapedBody(f.Raw[e.start:e.end]), e.with)
	}
}

// countKinds counts the values of placed edits by kind.
func (c *copier) countKinds(kinds []Kind) {
	for _, k := range kinds {
		c.sum.Replaced[k]++
	}
}

// edits are the replacements of a frame's values, in the frame's bytes, and
// the kind of each.
func (c *copier) edits(f *frame.Frame, line int) ([]span, []Kind) {
	raw := f.Raw
	if len(raw) == 0 {
		return nil, nil
	}
	// The tokens the Reader's scan recorded (no second parse): their offsets are
	// in the text the frame was read from, where the frame's bytes start at base.
	n := f.Node()
	if !n.Exists() {
		return nil, nil // not JSON: its line is scrubbed as text
	}
	base, _ := n.Span()
	if r := n.Raw(); len(r) != len(raw) || &r[0] != &raw[0] {
		var err error
		if n, err = frame.Parse(raw); err != nil {
			return nil, nil
		}
		base = 0
	}
	var edits []span
	var kinds []Kind
	complete := redact.Visit(n, func(s frame.Node, class redact.StringClass) {
		v, _ := s.Str()
		if v == "" || isPseudonym(v) {
			return
		}
		kind := KindCredential
		switch class {
		case redact.StringKept:
			if len(v) <= maxProtectedLen && len(c.protected) < maxProtected {
				c.protected[strings.Clone(v)] = true
			}
			c.shapeSecrets(v)
			return
		case redact.StringData:
			if !c.opt.Values || c.protected[v] || protocolValue(v) {
				c.shapeSecrets(v)
				return
			}
			kind = KindValue
		}
		start, end := s.Span()
		with := c.names.of(v)
		edits = append(edits, span{start - base + 1, end - base - 1, with})
		kinds = append(kinds, kind)
		c.see(with)
		// An echo of the value elsewhere (an error message, a stderr line)
		// goes too: a credential always, a value under Values.
		c.global.add(v, with)
	})
	if !complete {
		c.sum.Deep = append(c.sum.Deep, line)
	}
	return edits, kinds
}

// protocolValue reports whether a string the session carries is a protocol
// value all the same, which the analysis judges: a literal of the official
// schemas (a task's status, a content type, a role), a revision (a modern
// error's list of supported versions).
func protocolValue(v string) bool {
	return schema.IsLiteral(v) || spec.RevisionShaped(v)
}

// place finds a frame's bytes from line on and applies the edits there: in
// the line itself (as they are, or inside one of its JSON strings), else in
// the lines from it on joined (a message that spans lines).
func (c *copier) place(raw []byte, line int, edits []span) bool {
	if !c.win.has(line) {
		return false
	}
	text := c.win.line(line)
	if out, end, ok := placeIn(text, c.win.cursor(line), raw, edits); ok {
		c.win.set(line, out)
		c.win.setCursor(line, end)
		return true
	}
	// A message over several lines: join the lines it can span.
	joined := append([]byte(nil), text...)
	last := line
	for last < c.win.last() && len(joined) < len(text)+len(raw)+len(raw)/2+64 {
		last++
		joined = append(joined, c.win.line(last)...)
	}
	if last == line {
		return false
	}
	out, end, ok := placeIn(joined, c.win.cursor(line), raw, edits)
	if !ok {
		return false
	}
	// Split back: a pseudonym holds no newline, so the lines are as many.
	at := 0
	for n := line; n <= last; n++ {
		size := len(c.win.line(n))
		if n == last {
			size = len(out) - at
		} else if i := indexNewline(out[at:]); i >= 0 {
			size = i + 1
		}
		c.win.set(n, out[at:at+size:at+size])
		if end >= at && end <= at+size {
			c.win.setCursor(n, end-at)
		}
		at += size
	}
	return true
}

func indexNewline(b []byte) int {
	for i, c := range b {
		if c == '\n' {
			return i
		}
	}
	return -1
}

// write scrubs a line's container and text and writes it. A line a frame
// was placed in had its strings searched for secrets by their shape as the
// frame was walked, and its container's strings are searched one by one
// (containerScan); any other line (stderr, a log's banner) is searched whole.
func (c *copier) write(line []byte, framed bool) {
	c.sum.Lines++
	line = c.containerScan(line)
	if !framed {
		line = c.textScan(line)
	}
	line = c.global.replace(line, func() { c.sum.Replaced[KindText]++ })
	if c.werr == nil {
		_, c.werr = c.out.Write(line)
	}
}

// textScan replaces the secrets redaction finds by their shape in a line
// (redact.Secrets): bearer tokens, keys of known shapes, credentials in URLs
// and name=value pairs, tokens in URL paths; each wherever it stands alone in
// the line, and in the lines after when it is long enough to be looked for.
func (c *copier) textScan(line []byte) []byte {
	var here *textSet
	redact.Secrets(string(line), func(secret string) {
		secret = credentialOf(secret)
		if isPseudonym(secret) || strings.HasPrefix(secret, "[redacted") {
			return
		}
		with := c.names.of(secret)
		if here == nil {
			here = newTextSet()
		}
		here.addAny(secret, with)
		c.see(with)
		c.global.add(secret, with)
	})
	if here == nil {
		return line
	}
	return here.replace(line, func() { c.sum.Replaced[KindText]++ })
}

// shapeSecrets searches a string a frame keeps for secrets by their shape
// (redact.Secrets: a bearer token in an error message, a key in a tool's
// output): each is replaced wherever it stands alone, in this line (written
// after) and the lines after.
func (c *copier) shapeSecrets(v string) {
	redact.Secrets(v, func(secret string) {
		secret = credentialOf(secret)
		if isPseudonym(secret) || strings.HasPrefix(secret, "[redacted") {
			return
		}
		with := c.names.of(secret)
		c.see(with)
		c.global.addAny(secret, with)
	})
}

// credentialOf is the credential in a header's value: the token after an
// authentication scheme ("Bearer abc", "Basic dXNl"), else the whole value
// ("session=abc; theme=dark": a cookie header hides all its cookies).
func credentialOf(v string) string {
	f := strings.Fields(v)
	if len(f) == 2 {
		switch strings.ToLower(f[0]) {
		case "bearer", "basic", "token", "digest", "dpop", "apikey", "negotiate", "ntlm":
			return f[1]
		}
	}
	return v
}

// unescapedBody is a string's body as text: decoded when it has escapes.
func unescapedBody(body []byte) string {
	if isPlain(body) {
		return string(body)
	}
	d, _ := decodeWithOrigins(body)
	return string(d)
}
