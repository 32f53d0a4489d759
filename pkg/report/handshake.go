package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// Handshake is the negotiated contract of one session, spelled out by the
// analysis (trace.Needs.Handshake): the handshake view renders it.
type Handshake = trace.Handshake

// HandshakeRequires is what the handshake view needs of the analysis.
var HandshakeRequires = trace.Needs{Handshake: true}

// WriteHandshakeText renders handshakes for people.
func WriteHandshakeText(w io.Writer, hs []*Handshake, opt TextOptions) error {
	pal := newPalette(opt.Color)
	var b bytes.Buffer
	for i, h := range hs {
		if i > 0 {
			b.WriteString("\n")
		}
		if err := writeHandshake(&b, h, pal, textWidthOf(opt)); err != nil {
			return err
		}
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("mcpsleuth: writing the handshake: %w", err)
	}
	return nil
}

// NewHandshakeTextStream writes the handshakes for people through a spool, as
// sessions end: byte for byte what WriteHandshakeText writes for the sessions'
// handshakes in session order, while memory holds one session at a time. A
// session without a handshake (no contract) writes nothing.
func NewHandshakeTextStream(spool io.Writer, opt StreamOptions) Stream {
	return newSpoolStream(spool, opt, encodeHandshakeText, func(w io.Writer, _ *spoolStream, sessions func(io.Writer, string, string) error) error {
		if err := sessions(w, "\n", ""); err != nil {
			return fmt.Errorf("mcpsleuth: writing the handshake: %w", err)
		}
		return nil
	})
}

func encodeHandshakeText(s *Session, opt StreamOptions) ([]byte, error) {
	if s.Trace == nil || s.Trace.Handshake == nil {
		return nil, nil
	}
	var b bytes.Buffer
	err := writeHandshake(&b, s.Trace.Handshake, newPalette(opt.Text.Color), textWidthOf(opt.Text))
	return b.Bytes(), err
}

// writeHandshake renders one session's handshake, fitting width columns.
func writeHandshake(b *bytes.Buffer, h *Handshake, pal palette, width int) error {
	for _, l := range packParts([]string{pal.bold(fmt.Sprintf("Session %d", h.Session)), Safe(h.Input), h.Era + " era"}, "  ", width, "  ") {
		b.WriteString(l + "\n")
	}
	writeWrapped(b, "  client     "+peerName(h.Client)+"  requested "+orDash(h.Requested), width, "             ")
	writeWrapped(b, "  server     "+peerName(h.Server)+"  answered "+orDash(h.Answered), width, "             ")
	writeWrapped(b, "  negotiated "+pal.bold(orDash(h.Negotiated))+": "+Safe(h.Explained), width, "             ")
	b.WriteString("\n")
	writeWrapped(b, "  client capabilities "+lineRef(h.ClientLine), width, "    ")
	writeIndentedJSON(b, h.Client.Capabilities, width)
	writeWrapped(b, "  server capabilities "+lineRef(h.ServerLine), width, "    ")
	writeIndentedJSON(b, h.Server.Capabilities, width)
	if len(h.Permissions) > 0 {
		fmt.Fprintf(b, "\n  %s\n", pal.bold("Who may send what"))
		table := textTable{header: []string{"METHOD", "KIND", "SENT BY", "NEEDS", "ALLOWED"}}
		for _, p := range h.Permissions {
			allowed := "yes"
			if !p.Allowed {
				allowed = pal.bad("no") + ": " + p.Why
			}
			table.append(p.Method, p.Kind, p.Sender, p.Needs, allowed)
		}
		if err := table.render(b, width); err != nil {
			return fmt.Errorf("mcpsleuth: the permissions table: %w", err)
		}
	}
	fmt.Fprintf(b, "\n  %s\n", pal.bold("Promises made"))
	if len(h.Promises) == 0 {
		b.WriteString("  none\n")
	}
	for _, p := range h.Promises {
		writeColumns(b, fmt.Sprintf("  %-7s %-28s ", p.Side, p.Capability), "must "+p.Must, width)
	}
	fmt.Fprintf(b, "\n  %s\n", pal.bold("Not in this revision"))
	if len(h.Lacking) == 0 {
		b.WriteString("  nothing\n")
	}
	for _, l := range h.Lacking {
		writeColumns(b, fmt.Sprintf("  %-40s ", l.Feature), l.Detail, width)
	}
	in := h.Instructions
	b.WriteString("\n")
	switch {
	case !in.Present:
		b.WriteString("  instructions: none\n")
	case in.OverBudget:
		writeWrapped(b, fmt.Sprintf("  instructions: %s, %s (o200k_base): %s", quote.Count(in.Bytes, "byte"), quote.Count(in.EstimatedTokens, "token"),
			pal.warn("over the "+fmt.Sprint(in.Budget)+"-token budget")+", paid on every turn; move detail into tool descriptions (MCP1007)"), width, "    ")
	default:
		writeWrapped(b, fmt.Sprintf("  instructions: %s, %s (o200k_base), paid on every turn", quote.Count(in.Bytes, "byte"), quote.Count(in.EstimatedTokens, "token")), width, "    ")
	}
	return nil
}

// writeColumns writes a row of two columns (WrapColumns).
func writeColumns(b *bytes.Buffer, lead, text string, width int) {
	for _, l := range columnLines(lead, text, width) {
		b.WriteString(l)
		b.WriteString("\n")
	}
}

func lineRef(line int) string {
	if line == 0 {
		return ""
	}
	return fmt.Sprintf("(line %d)", line)
}

// writeIndentedJSON writes a capability object indented, each of its lines
// wrapped to width (a long string or array continues under its key).
func writeIndentedJSON(b *bytes.Buffer, raw json.RawMessage, width int) {
	if len(raw) == 0 || string(raw) == "null" {
		b.WriteString("    (not in the capture)\n")
		return
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "    ", "  "); err != nil {
		writeWrapped(b, "    "+Safe(string(raw)), width, "      ")
		return
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if !strings.HasPrefix(line, "    ") {
			line = "    " + line
		}
		writeWrapped(b, Safe(line), width, "  ")
	}
}

// WriteHandshakeJSON writes the handshakes as a JSON array.
func WriteHandshakeJSON(w io.Writer, hs []*Handshake) error {
	enc := json.NewEncoder(safeJSONWriter(w))
	enc.SetIndent("", "  ")
	if hs == nil {
		hs = []*Handshake{}
	}
	if err := enc.Encode(map[string]any{"version": 1, "handshakes": hs}); err != nil {
		return fmt.Errorf("mcpsleuth: writing the handshake: %w", err)
	}
	return nil
}

// NewHandshakeJSONStream writes the handshakes as JSON through a spool, as
// sessions end: byte for byte what WriteHandshakeJSON writes for the sessions'
// handshakes in session order.
func NewHandshakeJSONStream(spool io.Writer, opt StreamOptions) Stream {
	return newSpoolStream(spool, opt, encodeHandshakeJSON, finishHandshakeJSON)
}

func encodeHandshakeJSON(s *Session, _ StreamOptions) ([]byte, error) {
	if s.Trace == nil || s.Trace.Handshake == nil {
		return nil, nil
	}
	b, err := json.MarshalIndent(s.Trace.Handshake, "    ", "  ")
	if err != nil {
		return nil, fmt.Errorf("mcpsleuth: writing the handshake: %w", err)
	}
	return escapeJSONText(b), nil
}

func finishHandshakeJSON(w io.Writer, s *spoolStream, sessions func(io.Writer, string, string) error) error {
	var b bytes.Buffer
	if err := WriteHandshakeJSON(&b, nil); err != nil {
		return err
	}
	if err := splice(w, b.Bytes(), "handshakes", s.written > 0, sessions); err != nil {
		return fmt.Errorf("mcpsleuth: writing the handshake: %w", err)
	}
	return nil
}
