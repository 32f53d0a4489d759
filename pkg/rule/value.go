package rule

import (
	"fmt"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// ValueKind says what a captured value quoted in a message is. Rules say what a
// value is; redaction decides from that what stays (names and protocol strings
// that triage needs) and what is replaced (the data a session carries).
type ValueKind uint8

const (
	_ ValueKind = iota
	// ValueCredential is a bearer-like identifier: an HTTP Mcp-Session-Id.
	ValueCredential
	// ValueData is data a session carries: tool arguments and results,
	// contents, the offending value of a schema violation.
	ValueData
	// ValueURI is a resource, root or file URI.
	ValueURI
	// ValueInstructions is the instructions text of an initialize or discover result.
	ValueInstructions
	// ValueName is a name a peer chose: a tool, prompt or field name, a key of
	// inputRequests, a method the capture used.
	ValueName
	// ValueID is a request id, progress token, task or subscription id.
	ValueID
	// ValueErrorMessage is the message of a JSON-RPC error.
	ValueErrorMessage
	// ValueVersion is a protocolVersion or other version string as captured.
	ValueVersion
	// ValueDefinition is published definition text: a capability object, a
	// tool's description, an enum or schema fragment.
	ValueDefinition
)

// Value is one captured value a message quotes: what it is, the value as
// captured, and how the message shows it (quoted, clipped), so that redaction can
// replace exactly what the message wrote.
type Value struct {
	Kind ValueKind
	// Text is the value as captured: the string, or JSON text when JSON is set.
	Text string
	JSON bool
	// Shown is the value as it stands in the message.
	Shown string
	// as is how Shown was made from Text (Again).
	as rendering
}

// rendering is how a Value's Shown was made from its Text.
type rendering uint8

const (
	renderedOtherwise rendering = iota // Shown: as the rule rendered it
	renderedQuoted                     // Quote
	renderedJSON                       // QuoteJSON
	renderedAs                         // As
)

// Again renders text the way the message rendered the value (its Shown from its
// Text): for a text put in the value's place, such as the value redacted, which
// is then quoted and clipped anew rather than redacted after the clip. ok is
// false for a value shown otherwise (rule.Shown): its Shown is all there is.
func (v Value) Again(text string) (shown string, ok bool) {
	switch v.as {
	case renderedQuoted:
		return quote.String(text, quote.MaxString), true
	case renderedJSON:
		return quote.JSON(text, quote.MaxJSON), true
	case renderedAs:
		return quote.Clip(text, quote.MaxString), true
	}
	return "", false
}

// Quote quotes a captured string for a message (clipped at quote.MaxString
// bytes) and declares it.
func Quote(kind ValueKind, s string) Value {
	return Value{Kind: kind, Text: s, Shown: quote.String(s, quote.MaxString), as: renderedQuoted}
}

// QuoteJSON renders a captured JSON value for a message (compacted, clipped at
// quote.MaxJSON bytes) and declares it.
func QuoteJSON(kind ValueKind, raw string) Value {
	return Value{Kind: kind, Text: raw, JSON: true, Shown: quote.JSON(raw, quote.MaxJSON), as: renderedJSON}
}

// As declares a captured string written into a message as it is, unquoted
// (clipped at quote.MaxString bytes): a tool name in a list of names.
func As(kind ValueKind, s string) Value {
	return Value{Kind: kind, Text: s, Shown: quote.Clip(s, quote.MaxString), as: renderedAs}
}

// Shown declares a captured JSON value written into a message already rendered
// (a schema violation's offending value, as client validators print it).
func Shown(kind ValueKind, raw, shown string) Value {
	return Value{Kind: kind, Text: raw, JSON: true, Shown: shown}
}

// Message is the text of a finding (or of a related frame's note) with the
// captured values it quotes. Build it with Sprintf, Text and Join: a Value
// reaches a message only through them, and is then declared.
type Message struct {
	Text   string
	Values []Value
	// Hint, when set, is this finding's "what to do" instead of the rule's: advice
	// that names what this finding lacks.
	Hint string
	// Party is the side at fault, when the rule can tell (the zero Side: it
	// cannot, or either may be): the HTTP session's findings name it.
	Party spec.Side
}

// WithHint returns m with a finding's own "what to do".
func (m Message) WithHint(hint string) Message {
	m.Hint = hint
	return m
}

// By returns m naming the side at fault: the finding's message ends with
// " (at fault: the client)" (faultSuffix), and its Party is set.
func (m Message) By(party spec.Side) Message {
	m.Party = party
	return m
}

// faultSuffix is what a finding's message ends with when it names the side at
// fault ("" when it names none).
func faultSuffix(party spec.Side) string {
	if party == 0 {
		return ""
	}
	return " (at fault: the " + party.String() + ")"
}

// Clone copies the message's text and the values it quotes, which may alias the
// frame they were read from (memory the reader reuses): what outlives the frame —
// a finding, a verdict kept for the run — keeps a clone.
func (m Message) Clone() Message {
	m.Text, m.Hint = strings.Clone(m.Text), strings.Clone(m.Hint)
	var values []Value
	for _, v := range m.Values {
		v.Text, v.Shown = strings.Clone(v.Text), strings.Clone(v.Shown)
		values = append(values, v)
	}
	m.Values = values
	return m
}

// Text is a message the rule wrote itself, quoting no captured value.
func Text(s string) Message { return Message{Text: s} }

// Sprintf formats a message. Value arguments are written as shown and declared;
// Message arguments are written with the values they declare. Other arguments are
// the rule's own words (numbers, lines, protocol vocabulary).
func Sprintf(format string, args ...any) Message {
	var values []Value
	plain := make([]any, len(args))
	for i, a := range args {
		switch a := a.(type) {
		case Value:
			plain[i] = a.Shown
			values = append(values, a)
		case Message:
			plain[i] = a.Text
			values = append(values, a.Values...)
		default:
			plain[i] = a
		}
	}
	return Message{Text: fmt.Sprintf(format, plain...), Values: values}
}

// Join joins messages with a separator, keeping every declared value.
func Join(parts []Message, sep string) Message {
	var m Message
	texts := make([]string, len(parts))
	for i, p := range parts {
		texts[i] = p.Text
		m.Values = append(m.Values, p.Values...)
	}
	m.Text = strings.Join(texts, sep)
	return m
}

// Plus appends messages to m.
func (m Message) Plus(more ...Message) Message {
	return Join(append([]Message{m}, more...), "")
}

// Quoting is text written elsewhere (by the schema or session package) that
// quotes the given values, each as its Shown says.
func Quoting(text string, values ...Value) Message {
	return Message{Text: text, Values: values}
}

// Note points at a related frame with a note that may quote captured values.
func Note(line int, note Message) Related {
	return Related{Line: line, Note: note.Text, Values: note.Values}
}

// Reason is why a rule could not judge a message (Pass.CannotJudge): the report
// counts messages per rule and reason. The catalogue names its reasons once, as
// constants; no reason quotes a captured value.
type Reason string
