package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
)

// JUnitOptions configure the JUnit report.
type JUnitOptions struct {
	// FailOn is the lowest severity that fails a test case (0 = never: findings
	// are listed in the test cases' output only).
	FailOn rule.Severity
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string           `xml:"name,attr"`
	Tests      int              `xml:"tests,attr"`
	Failures   int              `xml:"failures,attr"`
	Errors     int              `xml:"errors,attr"`
	Skipped    int              `xml:"skipped,attr"`
	Timestamp  string           `xml:"timestamp,attr,omitempty"`
	Properties *junitProperties `xml:"properties"`
	Cases      []junitCase      `xml:"testcase"`
	SystemOut  *junitText       `xml:"system-out"`
}

// junitText is element text written as CDATA, so that lines stay lines.
type junitText struct {
	Text string `xml:",cdata"`
}

func textOrNil(s string) *junitText {
	if s == "" {
		return nil
	}
	return &junitText{s}
}

type junitProperties struct {
	Items []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Failure   *junitFailure `xml:"failure"`
	Error     *junitFailure `xml:"error"`
	Skipped   *junitSkipped `xml:"skipped"`
	SystemOut *junitText    `xml:"system-out"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",cdata"`
}

// WriteJUnit writes the report as JUnit XML: a test suite per session, a test case
// per rule that ran, failing with the rule's findings at or above FailOn; findings
// below it and the rule's notes (what it could not judge) go to the case's output.
// Captured text is escaped (Safe) before XML escaping: XML 1.0 cannot carry most
// control characters at all.
func WriteJUnit(w io.Writer, r *Report, opt JUnitOptions) error {
	doc := junitSuites{Name: "mcpsleuth", Suites: []junitSuite{}}
	for _, s := range r.Sessions {
		suite := junitSuite{Name: fmt.Sprintf("%s session %d: %s ⇄ %s", Safe(s.Input), s.Index, Safe(peerLabel(s.Client)), Safe(peerLabel(s.Server))),
			Properties: &junitProperties{[]junitProperty{
				{"input", Safe(s.Input)}, {"session", fmt.Sprint(s.Index)}, {"lines", fmt.Sprintf("%d-%d", s.FirstLine, s.LastLine)},
				{"era", s.Era}, {"client", Safe(peerLabel(s.Client))}, {"server", Safe(peerLabel(s.Server))},
				{"protocolVersion", Safe(orDash(s.ProtocolVersion.Negotiated))}, {"verdict", Safe(s.ProtocolVersion.Verdict)},
			}}}
		if s.StreamKey != "" {
			suite.Properties.Items = append(suite.Properties.Items, junitProperty{"streamKey", Safe(s.StreamKey)})
		}
		byRule := map[string][]Finding{}
		for _, f := range s.Findings {
			byRule[f.Rule] = append(byRule[f.Rule], f)
		}
		rules := r.Rules
		for _, f := range s.Findings { // findings of rules the caller did not list
			if r.rule(f.Rule) == nil && !hasRule(rules, f.Rule) {
				rules = append(rules, &rule.Rule{ID: f.Rule, Name: f.Name})
			}
		}
		for _, ru := range rules {
			tc := junitCase{Name: ru.ID + " " + ru.Name, Classname: "mcpsleuth." + ru.ID, File: Safe(s.Input)}
			var failing, other []string
			for _, f := range byRule[ru.ID] {
				text := fmt.Sprintf("%s: %s: %s", f.where(), f.Severity, Safe(f.Message))
				for _, rel := range f.Related {
					text += fmt.Sprintf("\n  related line %d: %s", rel.Line, Safe(rel.Note))
				}
				if opt.FailOn != 0 && f.severity >= opt.FailOn {
					if tc.Line == 0 {
						tc.Line = f.Line
					}
					failing = append(failing, text)
				} else {
					other = append(other, text)
				}
			}
			for _, n := range s.Notes {
				if strings.HasPrefix(n, ru.ID+" ") {
					other = append(other, "note: "+Safe(n))
				}
			}
			if len(failing) > 0 {
				var worst rule.Severity
				for _, f := range byRule[ru.ID] {
					if f.severity >= opt.FailOn {
						worst = max(worst, f.severity)
					}
				}
				tc.Failure = &junitFailure{Type: worst.String(), Message: fmt.Sprintf("%s at or above %s", quote.Count(len(failing), "finding"), opt.FailOn),
					Text: strings.Join(failing, "\n")}
				suite.Failures++
			}
			tc.SystemOut = textOrNil(strings.Join(other, "\n"))
			suite.Cases = append(suite.Cases, tc)
		}
		suite.Tests = len(suite.Cases)
		var notes []string
		for _, n := range s.Notes {
			notes = append(notes, Safe(n))
		}
		suite.SystemOut = textOrNil(strings.Join(notes, "\n"))
		doc.Tests += suite.Tests
		doc.Failures += suite.Failures
		doc.Suites = append(doc.Suites, suite)
	}
	if len(r.Errors) > 0 {
		doc.Suites = append(doc.Suites, junitErrorSuite(r.Errors))
		last := doc.Suites[len(doc.Suites)-1]
		doc.Tests += last.Tests
		doc.Errors += last.Errors
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("mcpsleuth: writing the JUnit report: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("mcpsleuth: writing the JUnit report: %w", err)
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("mcpsleuth: writing the JUnit report: %w", err)
	}
	return nil
}

// junitErrorSuite is the test suite of the inputs that could not be read or
// judged: a test case per input, in error (of the kind, with the message), or
// skipped for what a directory walk left out on purpose.
func junitErrorSuite(errs []InputError) junitSuite {
	suite := junitSuite{Name: "mcpsleuth inputs not read or judged"}
	for _, e := range errs {
		tc := junitCase{Name: Safe(e.Input), Classname: "mcpsleuth.input", File: Safe(e.Input)}
		if e.Kind.fails() {
			tc.Error = &junitFailure{Type: string(e.Kind), Message: Safe(e.Message), Text: fmt.Sprintf("%s: %s: %s", Safe(e.Input), e.Kind, Safe(e.Message))}
			suite.Errors++
		} else {
			tc.Skipped = &junitSkipped{Message: Safe(e.Message)}
			suite.Skipped++
		}
		suite.Cases = append(suite.Cases, tc)
	}
	suite.Tests = len(suite.Cases)
	return suite
}

func hasRule(rules []*rule.Rule, id string) bool {
	for _, r := range rules {
		if r.ID == id {
			return true
		}
	}
	return false
}
