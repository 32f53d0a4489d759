package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// InstructionsTokenBudget is the estimated size above which instructions are
// flagged: they are paid on every turn.
const InstructionsTokenBudget = trace.InstructionsTokenBudget

// Handshake is the negotiated contract of one session, spelled out by the
// analysis (trace.Needs.Handshake): the handshake view renders it.
type Handshake = trace.Handshake

// HandshakeRequires is what the handshake view needs of the analysis.
var HandshakeRequires = trace.Needs{Handshake: true}

// WriteHandshakeText renders handshakes for people.
func WriteHandshakeText(w io.Writer, hs []*Handshake, opt TextOptions) error {
	pal := NewPalette(opt.Color)
	var b bytes.Buffer
	for i, h := range hs {
		if i > 0 {
			b.WriteString("\n")
		}
		if err := writeHandshake(&b, h, pal); err != nil {
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
	err := writeHandshake(&b, s.Trace.Handshake, NewPalette(opt.Text.Color))
	return b.Bytes(), err
}

// writeHandshake renders one session's handshake.
func writeHandshake(b *bytes.Buffer, h *Handshake, pal Palette) error {
	fmt.Fprintf(b, "%s  %s  %s era\n", pal.Bold(fmt.Sprintf("Session %d", h.Session)), Safe(h.Input), h.Era)
	fmt.Fprintf(b, "  client     %s  requested %s\n", peerName(h.Client), orDash(h.Requested))
	fmt.Fprintf(b, "  server     %s  answered %s\n", peerName(h.Server), orDash(h.Answered))
	fmt.Fprintf(b, "  negotiated %s: %s\n", pal.Bold(orDash(h.Negotiated)), Safe(h.Explained))
	fmt.Fprintf(b, "\n  client capabilities %s\n", lineRef(h.ClientLine))
	writeIndentedJSON(b, h.Client.Capabilities)
	fmt.Fprintf(b, "  server capabilities %s\n", lineRef(h.ServerLine))
	writeIndentedJSON(b, h.Server.Capabilities)
	if len(h.Permissions) > 0 {
		fmt.Fprintf(b, "\n  %s\n", pal.Bold("Who may send what"))
		table := tablewriter.NewTable(b, tablewriter.WithHeaderAutoFormat(tw.Off), tablewriter.WithRowAutoWrap(tw.WrapNormal),
			tablewriter.WithColumnWidths(tw.NewMapper[int, int]().Set(4, 48)))
		table.Header("METHOD", "KIND", "SENT BY", "NEEDS", "ALLOWED")
		for _, p := range h.Permissions {
			allowed := "yes"
			if !p.Allowed {
				allowed = pal.Bad("no") + ": " + p.Why
			}
			if err := table.Append(p.Method, p.Kind, p.Sender, p.Needs, allowed); err != nil {
				return fmt.Errorf("mcpsleuth: building the permissions table: %w", err)
			}
		}
		if err := table.Render(); err != nil {
			return fmt.Errorf("mcpsleuth: rendering the permissions table: %w", err)
		}
	}
	fmt.Fprintf(b, "\n  %s\n", pal.Bold("Promises made"))
	if len(h.Promises) == 0 {
		b.WriteString("  none\n")
	}
	for _, p := range h.Promises {
		fmt.Fprintf(b, "  %-7s %-28s must %s\n", p.Side, p.Capability, p.Must)
	}
	fmt.Fprintf(b, "\n  %s\n", pal.Bold("Not in this revision"))
	if len(h.Lacking) == 0 {
		b.WriteString("  nothing\n")
	}
	for _, l := range h.Lacking {
		fmt.Fprintf(b, "  %-40s %s\n", l.Feature, l.Detail)
	}
	in := h.Instructions
	switch {
	case !in.Present:
		fmt.Fprintf(b, "\n  instructions: none\n")
	case in.OverBudget:
		fmt.Fprintf(b, "\n  instructions: %d bytes, ~%d tokens: %s\n", in.Bytes, in.EstimatedTokens, pal.Warn("over the "+fmt.Sprint(InstructionsTokenBudget)+"-token budget")+", paid on every turn; move detail into tool descriptions (MCP1007)")
	default:
		fmt.Fprintf(b, "\n  instructions: %d bytes, ~%d tokens (estimated at 4 bytes a token), paid on every turn\n", in.Bytes, in.EstimatedTokens)
	}
	return nil
}

func lineRef(line int) string {
	if line == 0 {
		return ""
	}
	return fmt.Sprintf("(line %d)", line)
}

func writeIndentedJSON(b *bytes.Buffer, raw json.RawMessage) {
	if len(raw) == 0 || string(raw) == "null" {
		b.WriteString("    (not in the capture)\n")
		return
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "    ", "  "); err != nil {
		b.WriteString("    " + Safe(string(raw)) + "\n")
		return
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if !strings.HasPrefix(line, "    ") {
			line = "    " + line
		}
		b.WriteString(Safe(line) + "\n")
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
	if err := splice(w, b.Bytes(), "handshakes", len(s.spooled) > 0, sessions); err != nil {
		return fmt.Errorf("mcpsleuth: writing the handshake: %w", err)
	}
	return nil
}
