// Package report renders analysis results: one file per output format. The JSON
// shape (DESIGN.md section 6) is a public contract.
package report

import (
	"encoding/json"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// Report is the whole analysis of a run, in the shape of the JSON report.
type Report struct {
	Version int  `json:"version"`
	Tool    Tool `json:"tool"`
	// Config is the configuration the report was made under (nil when the
	// caller did not say).
	Config *Config `json:"config,omitempty"`
	Inputs []Input `json:"inputs"`
	// Errors are the inputs that could not be read or judged, in the order met
	// (computed by the command that read them; never nil in a built report).
	Errors   []InputError `json:"errors"`
	Sessions []Session    `json:"sessions"`
	Summary  Summary      `json:"summary"`

	// Rules are the rules that ran, with their documentation (SARIF rule metadata,
	// JUnit test cases, the Markdown "what to do"); nil when the caller did not say.
	Rules []*rule.Rule `json:"-"`
	// Redacted is set once Redact has run over the report.
	Redacted bool `json:"-"`
}

// Options add to a report what the formats beyond JSON and text show.
type Options struct {
	// Rules are the rules that ran.
	Rules []*rule.Rule
	// Trace, when one ran with the rules, holds what it kept of each session:
	// method usage, the declaring frames, the contract table, the frames the
	// Markdown sequence diagram draws (what the formats' Requires asked for).
	Trace *trace.Tracer
}

// Tool names the program that wrote the report.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// inputOf is the report's view of one input read.
func inputOf(in *driver.InputResult) Input {
	st := in.Stats
	return Input{Name: in.Name, Format: st.Format, Lines: st.Lines, Frames: st.Frames, Rejected: st.Rejected,
		FrameLines: st.FrameLines, Context: st.Context, FrameLike: st.FrameLike, Blank: st.Blank, Folded: st.Folded, Mixed: st.Mixed,
		Lossy: st.Lossy, Document: st.Document, Connections: connectionsOf(in.Connections)}
}

// connectionsOf is the report's view of the connections a client's log tells of.
func connectionsOf(conns []frame.Connection) []Connection {
	if len(conns) == 0 {
		return nil
	}
	out := make([]Connection, len(conns))
	for i, c := range conns {
		out[i] = Connection{Transport: c.Transport, URL: c.URL, Server: c.Server, Revision: c.Revision, Connected: c.Connected, Status: c.Status, Cause: c.Cause}
	}
	return out
}

// Connection is one connection a client's log tells of without its messages
// (Claude Code's MCP log): its transport and URL, and the server and revision
// agreed, or the HTTP status and likely cause of its failure.
type Connection struct {
	Transport string `json:"transport,omitempty"`
	URL       string `json:"url,omitempty"`
	Server    string `json:"server,omitempty"`
	Revision  string `json:"revision,omitempty"`
	Connected bool   `json:"connected"`
	Status    int    `json:"status,omitempty"`
	Cause     string `json:"cause,omitempty"`
}

// Input is one analysed input.
type Input struct {
	Name     string `json:"name"`
	Format   string `json:"format"`
	Lines    int    `json:"lines"`
	Frames   int    `json:"frames"`
	Rejected int    `json:"rejected"`
	// The accounting of every line read (entry, for HAR and Inspector): Lines =
	// FrameLines + Context + Blank + Folded, so that nothing read goes unaccounted.
	// FrameLines carried frames; Context are non-frame lines (stderr, banners), of
	// which FrameLike look like a frame (a JSON object with "jsonrpc") but are none;
	// Folded were joined to the frame of an earlier line (a batch one record a
	// member); Mixed counts the frames read in another format than Format.
	FrameLines int `json:"frameLines"`
	Context    int `json:"context"`
	FrameLike  int `json:"frameLike"`
	Blank      int `json:"blank"`
	Folded     int `json:"folded"`
	Mixed      int `json:"mixed"`
	// Lossy says why an input could not be judged at all: a log that holds no
	// frames (Cursor, mcp-remote, Python reprs), with what it does show.
	Lossy string `json:"lossy,omitempty"`
	// Document is set for an input that is one JSON document (HAR, Inspector):
	// Lines and Context count its entries (text says "entries").
	Document bool `json:"-"`
	// Connections are the connections a client's log tells of without their
	// messages (Claude Code's MCP log).
	Connections []Connection `json:"connections,omitempty"`
}

// unjudged lists the inputs that could not be judged at all (lossy logs).
func (r *Report) unjudged() []Input {
	var out []Input
	for _, in := range r.Inputs {
		if in.Lossy != "" {
			out = append(out, in)
		}
	}
	return out
}

// Peer is one side of a session.
type Peer = trace.Peer

// Versions is the revision negotiation of a session.
type Versions struct {
	Requested  string `json:"requested"`
	Answered   string `json:"answered"`
	Negotiated string `json:"negotiated"`
	// Verdict is shown in text only.
	Verdict string `json:"-"`
}

// Session is one session's contract and findings.
type Session struct {
	Input           string    `json:"input"`
	Index           int       `json:"index"`
	StreamKey       string    `json:"streamKey"`
	FirstLine       int       `json:"firstLine"`
	LastLine        int       `json:"lastLine"`
	Era             string    `json:"era"`
	Client          Peer      `json:"client"`
	Server          Peer      `json:"server"`
	ProtocolVersion Versions  `json:"protocolVersion"`
	Frames          int       `json:"frames"`
	Findings        []Finding `json:"findings"`
	Notes           []string  `json:"notes"`

	// Message counts, shown in text.
	Requests      int `json:"-"`
	Notifications int `json:"-"`
	Responses     int `json:"-"`
	Invalid       int `json:"-"`

	// Declared lines of the contract: the frames that carried each side's
	// capabilities (0 = not seen). Shown in Markdown.
	ClientLine int `json:"-"`
	ServerLine int `json:"-"`
	// Trace is what the tracer kept of the session (nil when none ran).
	Trace *trace.Trace `json:"-"`

	// revision is the session's governing revision ("" when unknown).
	revision spec.Revision
	contract bool
}

// Finding is one finding as reported.
type Finding struct {
	Rule     string `json:"rule"`
	Name     string `json:"name"`
	Severity string `json:"severity"`
	Message  string `json:"message"`
	Input    string `json:"input"`
	// Line is the 1-based line of the input where the finding's frame starts.
	Line int `json:"line"`
	// Entry is the 1-based entry of a document format (HAR, Inspector export,
	// pretty-printed JSON documents) that carried the frame; absent for line formats.
	Entry     int             `json:"entry,omitempty"`
	Time      *string         `json:"time"`
	Direction *string         `json:"direction"`
	Method    *string         `json:"method"`
	ID        json.RawMessage `json:"id"`
	// Party is the side at fault ("client" or "server") when the rule names it.
	Party   string         `json:"party,omitempty"`
	Related []rule.Related `json:"related"`
	// Fingerprint identifies the finding across runs (rule.Fingerprint): what
	// --baseline and SARIF partialFingerprints match on.
	Fingerprint string `json:"fingerprint"`
	// Values are the captured values Message quotes (rule.Finding.Values), for
	// redaction; never in JSON.
	Values []rule.Value `json:"-"`

	// Evidence is a copy of the anchor frame (cut at rule.MaxEvidence bytes when
	// Truncated), shown by the formats that show frames; never in JSON.
	Evidence  []byte `json:"-"`
	Truncated bool   `json:"-"`

	severity rule.Severity
	hint     string
	// seq is the frame's position in its session (rule.Finding.Seq, 0 when none):
	// what attaches the finding to its frame in the timeline and the diagram.
	seq int
}

// Summary counts sessions and findings by severity.
type Summary struct {
	Sessions int            `json:"sessions"`
	Findings map[string]int `json:"findings"`
}

// Build assembles a report from the results of each input, in input order.
func Build(version string, inputs []*driver.InputResult) *Report {
	return BuildWith(version, inputs, Options{})
}

// BuildWith assembles a report with the rule metadata and observations that the
// Markdown, SARIF and JUnit formats show.
func BuildWith(version string, inputs []*driver.InputResult, opt Options) *Report {
	r := &Report{Version: 1, Tool: Tool{Name: "mcpsleuth", Version: version},
		Inputs: []Input{}, Errors: []InputError{}, Sessions: []Session{},
		Summary: Summary{Findings: map[string]int{"error": 0, "warning": 0, "info": 0}},
		Rules:   opt.Rules}
	for _, in := range inputs {
		r.Inputs = append(r.Inputs, inputOf(in))
		for _, sr := range in.Sessions {
			s := SessionOf(sr, opt.Trace.Of(sr))
			for _, f := range s.Findings {
				r.Summary.Findings[f.Severity]++
			}
			r.Sessions = append(r.Sessions, s)
		}
	}
	r.Summary.Sessions = len(r.Sessions)
	return r
}

// SessionOf builds one session of a report from its result, with what a tracer
// kept of it (the timeline writes sessions one by one as they end).
func SessionOf(sr *rule.SessionResult, tr *trace.Trace) Session {
	v := trace.ViewOf(sr.Session)
	if tr != nil {
		v = tr.Session
	}
	out := Session{Input: v.Input, Index: v.Index + 1, StreamKey: v.StreamKey, FirstLine: v.FirstLine, LastLine: v.LastLine,
		Era: v.Era, Frames: v.Frames, Findings: []Finding{}, Notes: append([]string{}, sr.Notes...),
		Requests: v.Requests, Notifications: v.Notifications, Responses: v.Responses, Invalid: v.Invalid,
		Client: v.Client, Server: v.Server, Trace: tr}
	if v.HasContract {
		out.ProtocolVersion = Versions{Requested: v.Requested, Answered: v.Answered, Negotiated: string(v.Revision), Verdict: v.Verdict}
		out.ClientLine, out.ServerLine = v.ClientLine, v.ServerLine
		out.revision, out.contract = v.Revision, true
	}
	for _, f := range sr.Findings {
		out.Findings = append(out.Findings, buildFinding(f))
	}
	return out
}

func buildFinding(f rule.Finding) Finding {
	out := Finding{Rule: f.Rule, Name: f.Name, Severity: f.Severity.String(), Message: f.Message, Input: f.Input, Line: f.Line, Entry: f.Entry, seq: f.Seq,
		ID: json.RawMessage("null"), Related: append([]rule.Related{}, f.Related...), Values: f.Values, severity: f.Severity, hint: f.Hint,
		Evidence: f.Evidence, Truncated: f.Truncated, Fingerprint: f.Fingerprint}
	if !f.Time.IsZero() {
		t := f.Time.UTC().Format(time.RFC3339Nano)
		out.Time = &t
	}
	if f.Dir != spec.DirUnknown {
		d := f.Dir.String()
		out.Direction = &d
	}
	if f.Method != "" {
		m := f.Method
		out.Method = &m
	}
	if f.Party != 0 {
		out.Party = f.Party.String()
	}
	if f.ID != "" && json.Valid([]byte(f.ID)) {
		out.ID = json.RawMessage(f.ID)
	}
	return out
}

// worst returns the highest severity in the report (0 when there is no finding).
func (r *Report) worst() rule.Severity {
	var w rule.Severity
	for _, s := range r.Sessions {
		for _, f := range s.Findings {
			if f.severity > w {
				w = f.severity
			}
		}
	}
	return w
}

// hasContract reports whether the session's contract is known (a handshake or a
// modern request was seen).
func (s Session) hasContract() bool { return s.contract }

// rule returns the metadata of a rule that ran, by ID (nil when unknown).
func (r *Report) rule(id string) *rule.Rule {
	for _, ru := range r.Rules {
		if ru.ID == id {
			return ru
		}
	}
	return nil
}
