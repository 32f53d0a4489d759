// Package rule is the framework the rule catalogue is written in: a Rule is a value
// (ID, name, severity, documentation, and a constructor of per-session state) that
// observes the messages of a session in order and reports findings through a Pass.
// A rule never prints, sorts or decides exit codes.
package rule

import (
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"strings"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// Severity of a finding.
type Severity uint8

const (
	SeverityInfo Severity = iota + 1
	SeverityWarning
	SeverityError
)

func (s Severity) String() string {
	switch s {
	case SeverityInfo:
		return "info"
	case SeverityWarning:
		return "warning"
	case SeverityError:
		return "error"
	}
	return "none"
}

// ParseSeverity reads "error", "warning" or "info".
func ParseSeverity(s string) (Severity, bool) {
	switch strings.ToLower(s) {
	case "error":
		return SeverityError, true
	case "warning":
		return SeverityWarning, true
	case "info":
		return SeverityInfo, true
	}
	return 0, false
}

// Related points at another frame that explains a finding (for example the
// initialize result that did not declare a capability).
type Related struct {
	Line int    `json:"line"`
	Note string `json:"note"`
	// Values are the captured values the note quotes (for redaction); never part
	// of the JSON report.
	Values []Value `json:"-"`
	// Raw is the related frame's bytes when the rule has them (evidence for
	// reports that show frames); never part of the JSON report.
	Raw []byte `json:"-"`
}

// Finding is one thing a rule found, anchored to one frame.
type Finding struct {
	Rule     string
	Name     string
	Severity Severity
	Message  string
	// Values are the captured values Message quotes, as the message shows them.
	Values []Value
	Input  string
	// Line is the 1-based line of the input where the anchor frame's text starts.
	Line int
	// Entry is the 1-based index of the document entry that carried the anchor frame
	// (HAR, Inspector, pretty-printed JSON documents); 0 for line formats.
	Entry int
	// Seq is the anchor frame's position among the frames of its session (from 1;
	// 0 when the finding is about no single frame): what attaches the finding to
	// its frame where several share a line.
	Seq     int
	Time    time.Time
	Dir     spec.Direction
	Method  string
	ID      string // raw JSON token, "" when the frame has none
	Related []Related
	Hint    string
	// Party is the side at fault, when the rule names it (Message.Party).
	Party spec.Side
	// Evidence is a copy of the anchor frame (at most MaxEvidence bytes; Truncated
	// says whether it was cut), for reports that show the offending frame.
	Evidence  []byte
	Truncated bool
	// Fingerprint identifies the finding across runs (see Fingerprint); set when
	// its session ends, when both implementations are known.
	Fingerprint string
}

// MaxEvidence bounds the copy of a frame a finding keeps as evidence.
const MaxEvidence = 16 << 10

// Checker is the per-session state of one rule.
type Checker interface {
	// Message observes one message of the session, in capture order. A batch is
	// observed once as a whole (m.Kind == frame.KindBatch), then member by member.
	Message(p *Pass, m *session.Message)
	// End runs when the session ends: the place to report absences.
	End(p *Pass)
}

// A Recycler is a Checker that can forget a session itself: Recycle leaves it as New
// made it, but keeps the memory its tables grew to, which the next session's
// checker of the rule then reuses (the engine zeroes the other checkers New makes
// as zero structs). A table that grows with every request of a session is worth it:
// a capture of many sessions grows it once instead of once a session.
type Recycler interface {
	Checker
	Recycle()
}

// ExchangeChecker is implemented by a Checker that also judges the HTTP exchanges
// of its session that carried no MCP message (a GET, a DELETE, a status a recording
// wrote on its own), in capture order among the messages.
type ExchangeChecker interface {
	Exchange(p *Pass, e *session.Exchange)
}

// Doc is a rule's documentation: what `mcpsleuth explain` prints and docs/rules.md
// holds, written for a reader who has never read the spec.
type Doc struct {
	// Sees says what the rule looks at in a capture.
	Sees string
	// Why says why it matters: what breaks, for whom.
	Why string
	// Fix says how to fix it, on the side that must change.
	Fix string
	// Bad is a short example of frames that trigger the rule; Good the same fixed.
	Bad  string
	Good string
	// Spec lists the specification sections the rule rests on.
	Spec []SpecRef
}

// Documentation is a rule's documentation in the one form every view renders
// (explain, docs/rules.md, the Markdown and HTML reports' "What to do", SARIF's
// rule help): the parts, their titles and their order are decided here, the
// views only write them in their syntax.
type Documentation struct {
	// Severity is Rule.SeverityText.
	Severity string
	// Sections are the prose parts, in order: what it sees, why it matters, how
	// to fix it.
	Sections []DocSection
	// Example and Fixed are the Bad and Good frames, without trailing newlines,
	// under ExampleTitle and FixedTitle.
	Example, Fixed string
	// Spec are the specification sections, with their labels
	// ("2025-06-18 basic/lifecycle#capability-negotiation") and addresses.
	Spec []DocRef
}

// DocSection is one titled part of a rule's documentation.
type DocSection struct {
	Title, Text string
}

// DocRef is one specification section of a rule's documentation.
type DocRef struct {
	Label, URL, Says string
}

// The titles of the parts of a rule's documentation.
const (
	SeesTitle    = "What it sees"
	WhyTitle     = "Why it matters"
	FixTitle     = "How to fix it"
	ExampleTitle = "Example"
	FixedTitle   = "Fixed"
)

// Documentation compiles the rule's documentation into the form the views render.
func (r *Rule) Documentation() Documentation {
	d := Documentation{
		Severity: r.SeverityText(),
		Sections: []DocSection{{SeesTitle, r.Doc.Sees}, {WhyTitle, r.Doc.Why}, {FixTitle, r.Doc.Fix}},
		Example:  strings.TrimRight(r.Doc.Bad, "\n"),
		Fixed:    strings.TrimRight(r.Doc.Good, "\n"),
	}
	for _, ref := range r.Doc.Spec {
		d.Spec = append(d.Spec, DocRef{Label: string(ref.Revision) + " " + ref.Page, URL: ref.URL(), Says: ref.Says})
	}
	return d
}

// SpecRef is one specification section, in one revision.
type SpecRef struct {
	Revision spec.Revision
	// Page is the path under docs/specification/<revision>/, with an anchor:
	// "basic/lifecycle#capability-negotiation".
	Page string
	// Says quotes or summarises what the section requires.
	Says string
}

// URL is the section's address on modelcontextprotocol.io.
func (r SpecRef) URL() string {
	return "https://modelcontextprotocol.io/specification/" + string(r.Revision) + "/" + r.Page
}

// Rule describes one check of the catalogue.
type Rule struct {
	ID       string // MCPnnnn, stable, never reused
	Name     string // kebab-case
	Severity Severity
	Title    string
	// Anchor says which frame a finding points at.
	Anchor string
	// Hint is the short "what to do" attached to each finding.
	Hint string
	// CapabilityScaled rules are warnings under revisions whose lifecycle said
	// SHOULD (2024-11-05, 2025-03-26) and errors from 2025-06-18 (MUST).
	CapabilityScaled bool
	// Doc is the full documentation.
	Doc Doc
	// New returns fresh per-session state.
	New func() Checker
	// WireShapes says the rule reads Frame.Shape: the parse stage computes each
	// frame's wire shape only when a rule of the run asks for it.
	WireShapes bool
	// Shared, when set, builds the rule's run-wide state (Pass.Shared): caches kept
	// across sessions and inputs, safe for concurrent use. It must never hold what a
	// session did (findings, promises): only what follows from a frame alone.
	Shared func() any
	// Override, when set, is the severity of every finding of the rule, whatever
	// the revision or the rule would say (a project's configuration: WithSeverity).
	Override Severity
	// Requires are the analyses whose results the rule reads (Pass.ResultOf).
	Requires []*Analysis
	// Options are the settings the rule declares (go/analysis's Analyzer.Flags):
	// each is set by the command-line flag and the configuration key of its name
	// (Configure), and read with Pass.Option.
	Options []Option
	// values are the options set for this copy of the rule (Configure).
	values map[string]any
	// Kinds, when set, are the only kinds of message the rule's checker observes
	// (KindsOf): the engine hands it no other, as an inspector filters the nodes
	// an analyzer visits. Zero means every kind.
	Kinds Kinds
	// Methods, when set, are the only methods whose messages the rule's checker
	// observes: requests and notifications of them, responses to requests of them
	// (a response to no known request has no method, nor has a batch or an invalid
	// frame). Each is a method of the spec's table (spec.Resolve). Set it only for
	// a rule whose checker does nothing at all with any other message: the engine
	// dispatches each message to the rules of its kind and method
	// (TestMethodsChangeNothing compares every fixture's findings with every rule
	// asked, AnalyzerOptions.AllMethods).
	Methods []string
}

// Kinds is a set of message kinds (frame.Kind).
type Kinds uint8

// numKinds is how many kinds of message there are.
const numKinds = int(frame.KindBatch) + 1

// NoMessages is the Kinds of a rule that judges its session only when it ends
// (Checker.End): the engine hands it no message at all.
const NoMessages Kinds = 1 << 7

// KindsOf returns the set of the given kinds.
func KindsOf(kinds ...frame.Kind) Kinds {
	var k Kinds
	for _, kind := range kinds {
		k |= 1 << kind
	}
	return k
}

// Has reports whether the set holds kind; the zero set holds every kind.
func (k Kinds) Has(kind frame.Kind) bool { return k == 0 || k&(1<<kind) != 0 }

// SeverityText says the rule's severity as its documentation does: "error", or
// for a CapabilityScaled rule "error from 2025-06-18, warning under 2024-11-05
// and 2025-03-26" (from spec.FeatureCapabilityMust).
func (r *Rule) SeverityText() string {
	if !r.CapabilityScaled {
		return r.Severity.String()
	}
	must, should := capabilityEras()
	return fmt.Sprintf("%s from %s, warning under %s", r.Severity, must, should)
}

// CapabilityScaling says how a CapabilityScaled rule's severity follows the
// revision, for a footnote: "warning under 2024-11-05 and 2025-03-26 (the spec said
// SHOULD), error from 2025-06-18 (MUST)".
func CapabilityScaling() string {
	must, should := capabilityEras()
	return fmt.Sprintf("warning under %s (the spec said SHOULD), error from %s (MUST)", should, must)
}

// capabilityEras are the revision from which using an undeclared capability is a
// MUST violation, and the revisions before it, as a list for a sentence.
func capabilityEras() (must, should string) {
	since := spec.FeatureCapabilityMust.Since
	var before []string
	for _, r := range spec.Revisions() {
		if r.Before(since) {
			before = append(before, string(r))
		}
	}
	if n := len(before); n > 1 {
		should = strings.Join(before[:n-1], ", ") + " and " + before[n-1]
	} else {
		should = strings.Join(before, "")
	}
	return string(since), should
}

// Option is a setting a rule declares.
type Option struct {
	// Name is the flag (--slow) and the configuration key (slow) that set it.
	Name  string
	Usage string
	// Default is its value when nothing sets it; a value set must be of its type.
	Default any
}

// Configure returns the rules with the options in values set (by option name):
// a rule that declares an option named there is replaced by a copy of it with the
// value; the others are returned as they are. A value of another type than the
// option's default is an error.
func Configure(rules []*Rule, values map[string]any) ([]*Rule, error) {
	out := make([]*Rule, len(rules))
	for i, r := range rules {
		out[i] = r
		for _, o := range r.Options {
			v, ok := values[o.Name]
			if !ok {
				continue
			}
			if reflect.TypeOf(v) != reflect.TypeOf(o.Default) {
				return nil, fmt.Errorf("mcpsleuth: rule %s: option %s is a %T, not a %T", r.ID, o.Name, o.Default, v)
			}
			if out[i] == r {
				c := *r
				c.values = maps.Clone(r.values)
				if c.values == nil {
					c.values = map[string]any{}
				}
				out[i] = &c
			}
			out[i].values[o.Name] = v
		}
	}
	return out, nil
}

// Option returns the value of one of the rule's options: set by Configure, else
// its default. Asking for an option the rule does not declare is a programming
// error.
func (r *Rule) Option(name string) any {
	if v, ok := r.values[name]; ok {
		return v
	}
	for _, o := range r.Options {
		if o.Name == name {
			return o.Default
		}
	}
	panic(fmt.Sprintf("mcpsleuth: rule %s has no option %q", r.ID, name))
}

// WithSeverity returns a copy of r whose findings all have severity sev.
func WithSeverity(r *Rule, sev Severity) *Rule {
	c := *r
	c.Override = sev
	return &c
}

// Funcs adapts plain functions to a Checker; either may be nil.
type Funcs struct {
	OnMessage func(p *Pass, m *session.Message)
	OnEnd     func(p *Pass)
}

func (f Funcs) Message(p *Pass, m *session.Message) {
	if f.OnMessage != nil {
		f.OnMessage(p, m)
	}
}

func (f Funcs) End(p *Pass) {
	if f.OnEnd != nil {
		f.OnEnd(p)
	}
}

// PerMessage builds the constructor of a stateless rule that looks at each message
// alone. Having no state, its checker is one value that every session shares (a
// capture of many short sessions does not allocate one per session).
func PerMessage(fn func(p *Pass, m *session.Message)) func() Checker {
	return Stateless(Funcs{OnMessage: fn})
}

// Stateless builds the constructor of a rule whose functions keep no state of
// their own (they read the session, through the Pass): its checker is one value
// that every session shares.
func Stateless(f Funcs) func() Checker {
	var c Checker = &f
	return func() Checker { return c }
}

var (
	idPattern   = regexp.MustCompile(`^MCP[0-9]{4}$`)
	namePattern = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)
)

// Validate checks a catalogue: well-formed, unique IDs and names, and complete metadata.
func Validate(rules []*Rule) error {
	ids, names := map[string]bool{}, map[string]bool{}
	for i, r := range rules {
		switch {
		case r == nil:
			return fmt.Errorf("mcpsleuth: rule %d is nil", i)
		case !idPattern.MatchString(r.ID):
			return fmt.Errorf("mcpsleuth: rule %q: id must look like MCP1234", r.ID)
		case !namePattern.MatchString(r.Name):
			return fmt.Errorf("mcpsleuth: rule %s: name %q must be kebab-case", r.ID, r.Name)
		case ids[r.ID]:
			return fmt.Errorf("mcpsleuth: rule %s: id used twice", r.ID)
		case names[r.Name]:
			return fmt.Errorf("mcpsleuth: rule %s: name %q used twice", r.ID, r.Name)
		case r.Severity < SeverityInfo || r.Severity > SeverityError:
			return fmt.Errorf("mcpsleuth: rule %s: no severity", r.ID)
		case r.Title == "" || r.Anchor == "" || r.Hint == "":
			return fmt.Errorf("mcpsleuth: rule %s: title, anchor and hint are required", r.ID)
		case r.Doc.Sees == "" || r.Doc.Why == "" || r.Doc.Fix == "" || r.Doc.Bad == "" || r.Doc.Good == "" || len(r.Doc.Spec) == 0:
			return fmt.Errorf("mcpsleuth: rule %s: documentation incomplete (sees, why, fix, bad and good examples, spec references)", r.ID)
		case r.New == nil:
			return fmt.Errorf("mcpsleuth: rule %s: no constructor", r.ID)
		}
		for _, m := range r.Methods {
			if !spec.Resolve(m).Known() {
				return fmt.Errorf("mcpsleuth: rule %s: method %q is not in the spec's table", r.ID, m)
			}
		}
		ids[r.ID], names[r.Name] = true, true
	}
	return nil
}

// Select filters a catalogue by --enable / --disable lists of IDs or names
// (an empty enable list keeps every rule). Unknown entries are an error. The
// catalogue is validated first (Validate), as go/analysis's drivers validate
// their analyzers before a run: every command that runs rules selects them here.
func Select(all []*Rule, enable, disable []string) ([]*Rule, error) {
	if err := Validate(all); err != nil {
		return nil, err
	}
	index := map[string]*Rule{}
	for _, r := range all {
		index[strings.ToUpper(r.ID)], index[r.Name] = r, r
	}
	lookup := func(list []string) (map[*Rule]bool, error) {
		set := map[*Rule]bool{}
		for _, item := range list {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			r := index[strings.ToUpper(item)]
			if r == nil {
				r = index[strings.ToLower(item)]
			}
			if r == nil {
				return nil, fmt.Errorf("mcpsleuth: unknown rule %q (see mcpsleuth rules)", item)
			}
			set[r] = true
		}
		return set, nil
	}
	on, err := lookup(enable)
	if err != nil {
		return nil, err
	}
	off, err := lookup(disable)
	if err != nil {
		return nil, err
	}
	var out []*Rule
	for _, r := range all {
		if (len(on) == 0 || on[r]) && !off[r] {
			out = append(out, r)
		}
	}
	return out, nil
}
