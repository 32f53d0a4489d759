package report

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
)

// SARIF 2.1.0 (OASIS): the subset mcpsleuth writes.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool               sarifTool                   `json:"tool"`
	AutomationDetails  *sarifAutomationDetails     `json:"automationDetails,omitempty"`
	OriginalURIBaseIDs map[string]sarifArtifactURI `json:"originalUriBaseIds,omitempty"`
	Invocations        []sarifInvocation           `json:"invocations"`
	Artifacts          []sarifArtifact             `json:"artifacts"`
	Results            []sarifResult               `json:"results"`
}

type sarifAutomationDetails struct {
	ID string `json:"id"`
}

type sarifArtifactURI struct {
	URI string `json:"uri"`
}

// SARIFOptions say what a SARIF log's paths are relative to and which analysis
// it is.
type SARIFOptions struct {
	// Root is the absolute directory (a repository's checkout) the inputs
	// under it are located from: their URIs are relative to it, with the
	// uriBaseId sarifRoot, whose file URI the run's originalUriBaseIds give, so
	// that code scanning maps each result to a file of the repository. Inputs
	// elsewhere get absolute file URIs. "" writes the names as given.
	Root string
	// Category names the analysis (automationDetails.id "CATEGORY/"): code
	// scanning keeps the results of each category apart. "" leaves it out.
	Category string
}

// sarifRoot is the uriBaseId of the inputs under SARIFOptions.Root.
const sarifRoot = "SRCROOT"

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string            `json:"id"`
	Name                 string            `json:"name"`
	ShortDescription     sarifText         `json:"shortDescription"`
	FullDescription      sarifText         `json:"fullDescription"`
	Help                 sarifMarkdown     `json:"help"`
	HelpURI              string            `json:"helpUri,omitempty"`
	DefaultConfiguration sarifRuleConfig   `json:"defaultConfiguration"`
	Properties           sarifRuleProperty `json:"properties"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifMarkdown struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifRuleConfig struct {
	Level string `json:"level"`
}

type sarifRuleProperty struct {
	Tags             []string `json:"tags"`
	Anchor           string   `json:"anchor"`
	CapabilityScaled bool     `json:"capabilityScaled"`
}

type sarifInvocation struct {
	ExecutionSuccessful        bool                       `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification        `json:"toolExecutionNotifications"`
	Properties                 *sarifInvocationProperties `json:"properties,omitempty"`
}

// sarifInvocationProperties carry the configuration the run was made under.
type sarifInvocationProperties struct {
	Configuration *Config `json:"configuration"`
}

type sarifNotification struct {
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations,omitempty"`
	// Properties carry the kind of an input that could not be read or judged.
	Properties *sarifNotificationProperties `json:"properties,omitempty"`
}

type sarifNotificationProperties struct {
	Kind ErrorKind `json:"kind"`
}

type sarifArtifact struct {
	Location sarifArtifactLocation `json:"location"`
	Roles    []string              `json:"roles"`
}

type sarifResult struct {
	RuleID           string          `json:"ruleId"`
	RuleIndex        int             `json:"ruleIndex"`
	Level            string          `json:"level"`
	Message          sarifText       `json:"message"`
	Locations        []sarifLocation `json:"locations"`
	RelatedLocations []sarifLocation `json:"relatedLocations,omitempty"`
	// PartialFingerprints let code scanning follow a result across runs.
	PartialFingerprints map[string]string     `json:"partialFingerprints,omitempty"`
	Properties          sarifResultProperties `json:"properties"`
}

type sarifResultProperties struct {
	Session int `json:"session"`
	// Entry is the finding's document entry (HAR, Inspector): the region is its line.
	Entry     int             `json:"entry,omitempty"`
	StreamKey string          `json:"streamKey,omitempty"`
	Client    string          `json:"client"`
	Server    string          `json:"server"`
	Revision  string          `json:"protocolVersion"`
	Time      *string         `json:"time,omitempty"`
	Direction *string         `json:"direction,omitempty"`
	Method    *string         `json:"method,omitempty"`
	ID        json.RawMessage `json:"id,omitempty"`
	// Party is the side at fault, when the rule names it.
	Party string `json:"party,omitempty"`
}

type sarifLocation struct {
	ID               *int                  `json:"id,omitempty"`
	PhysicalLocation sarifPhysicalLocation `json:"physicalLocation"`
	Message          *sarifText            `json:"message,omitempty"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Region           *sarifRegion          `json:"region,omitempty"`
}

type sarifArtifactLocation struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
	Index     int    `json:"index"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

// sarifSchema is the $schema a SARIF 2.1.0 log names.
const sarifSchema = "https://json.schemastore.org/sarif-2.1.0.json"

// WriteSARIF writes the report as a SARIF 2.1.0 log: one run, the rules that ran
// (from their metadata) as the driver's rules, one result per finding located at
// its input and line, with the frames it relates to (the declaring frame) as
// related locations, and the notes (what could not be judged) as notifications.
func WriteSARIF(w io.Writer, r *Report) error { return WriteSARIFWith(w, r, SARIFOptions{}) }

// WriteSARIFWith is WriteSARIF with the log's root and category.
func WriteSARIFWith(w io.Writer, r *Report, opt SARIFOptions) error {
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{Name: r.Tool.Name, Version: r.Tool.Version,
			InformationURI: "https://github.com/mcpsleuth/mcpsleuth", Rules: []sarifRule{}}},
		Invocations: []sarifInvocation{{ExecutionSuccessful: true, ToolExecutionNotifications: []sarifNotification{}}},
		Artifacts:   []sarifArtifact{}, Results: []sarifResult{},
	}
	ruleIndex := map[string]int{}
	addRule := func(ru *rule.Rule) {
		if _, ok := ruleIndex[ru.ID]; ok {
			return
		}
		ruleIndex[ru.ID] = len(run.Tool.Driver.Rules)
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRuleOf(ru))
	}
	for _, ru := range r.Rules {
		addRule(ru)
	}
	if opt.Category != "" {
		run.AutomationDetails = &sarifAutomationDetails{ID: opt.Category + "/"}
	}
	if opt.Root != "" {
		root := filepath.Clean(opt.Root)
		if !strings.HasSuffix(root, string(filepath.Separator)) {
			root += string(filepath.Separator) // a directory: what is relative to it resolves inside
		}
		run.OriginalURIBaseIDs = map[string]sarifArtifactURI{sarifRoot: {URI: artifactURI(root)}}
	}
	artifactIndex := map[string]int{}
	artifact := func(name string) sarifArtifactLocation {
		i, ok := artifactIndex[name]
		loc := locatedArtifact(name, opt.Root)
		if !ok {
			i = len(run.Artifacts)
			artifactIndex[name] = i
			run.Artifacts = append(run.Artifacts, sarifArtifact{Location: sarifArtifactLocation{URI: loc.URI, URIBaseID: loc.URIBaseID, Index: i}, Roles: []string{"analysisTarget"}})
		}
		loc.Index = i
		return loc
	}
	for _, in := range r.Inputs {
		artifact(in.Name)
	}
	// The inputs that could not be read or judged: the run did not do its job
	// for them (a skipped entry is a warning: named, not a failure).
	for _, e := range r.Errors {
		level := "error"
		if !e.Kind.fails() {
			level = "warning"
		}
		run.Invocations[0].ToolExecutionNotifications = append(run.Invocations[0].ToolExecutionNotifications,
			sarifNotification{Level: level, Message: sarifText{Text: fmt.Sprintf("%s: %s", Safe(e.Input), Safe(e.Message))},
				Locations:  []sarifLocation{{PhysicalLocation: sarifPhysicalLocation{ArtifactLocation: artifact(e.Input)}}},
				Properties: &sarifNotificationProperties{Kind: e.Kind}})
	}
	run.Invocations[0].ExecutionSuccessful = failedInputs(r.Errors) == 0
	if r.Config != nil {
		run.Invocations[0].Properties = &sarifInvocationProperties{Configuration: r.Config}
	}
	for _, s := range r.Sessions {
		for _, n := range s.Notes {
			run.Invocations[0].ToolExecutionNotifications = append(run.Invocations[0].ToolExecutionNotifications,
				sarifNotification{Level: "note", Message: sarifText{Text: fmt.Sprintf("%s, session %d: %s", Safe(s.Input), s.Index, Safe(n))},
					Locations: []sarifLocation{{PhysicalLocation: sarifPhysicalLocation{ArtifactLocation: artifact(s.Input), Region: region(s.FirstLine)}}}})
		}
		for _, f := range s.Findings {
			if _, ok := ruleIndex[f.Rule]; !ok {
				addRule(&rule.Rule{ID: f.Rule, Name: f.Name, Severity: f.severity, Title: f.Name, Hint: f.hint})
			}
			res := sarifResult{RuleID: f.Rule, RuleIndex: ruleIndex[f.Rule], Level: sarifLevel(f.severity),
				Message:   sarifText{Text: Safe(f.Message)},
				Locations: []sarifLocation{{PhysicalLocation: sarifPhysicalLocation{ArtifactLocation: artifact(f.Input), Region: region(f.Line)}}},
				Properties: sarifResultProperties{Session: s.Index, Entry: f.Entry, StreamKey: Safe(s.StreamKey), Client: Safe(peerLabel(s.Client)), Server: Safe(peerLabel(s.Server)),
					Revision: Safe(s.ProtocolVersion.Negotiated), Time: f.Time, Direction: f.Direction, Method: safePtr(f.Method), ID: f.ID, Party: f.Party}}
			if f.Fingerprint != "" {
				res.PartialFingerprints = map[string]string{"mcpsleuth/v1": f.Fingerprint}
			}
			if string(res.Properties.ID) == "null" {
				res.Properties.ID = nil
			}
			for i, rel := range f.Related {
				id := i + 1
				res.RelatedLocations = append(res.RelatedLocations, sarifLocation{ID: &id,
					PhysicalLocation: sarifPhysicalLocation{ArtifactLocation: artifact(f.Input), Region: region(rel.Line)},
					Message:          &sarifText{Text: Safe(rel.Note)}})
			}
			run.Results = append(run.Results, res)
		}
	}
	enc := json.NewEncoder(safeJSONWriter(w))
	enc.SetIndent("", "  ")
	if err := enc.Encode(sarifLog{Schema: sarifSchema, Version: "2.1.0", Runs: []sarifRun{run}}); err != nil {
		return fmt.Errorf("mcpsleuth: writing the SARIF report: %w", err)
	}
	return nil
}

func sarifRuleOf(ru *rule.Rule) sarifRule {
	d := ru.Documentation()
	sr := sarifRule{ID: ru.ID, Name: ru.Name,
		ShortDescription:     sarifText{Text: ru.Title},
		FullDescription:      sarifText{Text: firstNonEmpty(oneParagraph(ru.Doc.Sees), ru.Title)},
		DefaultConfiguration: sarifRuleConfig{Level: sarifLevel(ru.Severity)},
		Properties:           sarifRuleProperty{Tags: []string{"mcp", ruleFamily(ru.ID)}, Anchor: ru.Anchor, CapabilityScaled: ru.CapabilityScaled},
	}
	text := firstNonEmpty(oneParagraph(ru.Doc.Fix), ru.Hint)
	if ru.Doc.Why != "" {
		text = rule.WhyTitle + ": " + oneParagraph(ru.Doc.Why) + "\n" + rule.FixTitle + ": " + text
	}
	sr.Help = sarifMarkdown{Text: text}
	if ru.Doc.Fix != "" {
		var md strings.Builder
		fmt.Fprintf(&md, "**%s**\n", ru.Title)
		for _, sec := range d.Sections {
			fmt.Fprintf(&md, "\n**%s.** %s\n", sec.Title, oneParagraph(sec.Text))
		}
		for _, ref := range d.Spec {
			fmt.Fprintf(&md, "\n- [%s](%s): %s", ref.Label, ref.URL, oneParagraph(ref.Says))
		}
		sr.Help.Markdown = md.String()
	}
	if len(d.Spec) > 0 {
		sr.HelpURI = d.Spec[0].URL
	}
	return sr
}

// ruleFamily tags a rule by the hundreds of its ID (DESIGN.md section 4).
func ruleFamily(id string) string {
	switch {
	case strings.HasPrefix(id, "MCP0"):
		return "input"
	case strings.HasPrefix(id, "MCP1"):
		return "lifecycle"
	case strings.HasPrefix(id, "MCP2"):
		return "capabilities"
	case strings.HasPrefix(id, "MCP3"):
		return "messaging"
	case strings.HasPrefix(id, "MCP4"):
		return "schema"
	}
	return "other"
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

func sarifLevel(s rule.Severity) string {
	switch s {
	case rule.SeverityError:
		return "error"
	case rule.SeverityWarning:
		return "warning"
	}
	return "note"
}

func region(line int) *sarifRegion {
	if line < 1 {
		return nil
	}
	return &sarifRegion{StartLine: line}
}

func safePtr(s *string) *string {
	if s == nil {
		return nil
	}
	v := Safe(*s)
	return &v
}

// locatedArtifact is where an input is: relative to root (uriBaseId sarifRoot)
// when it lies under it, else its name as artifactURI writes it (an absolute
// file URI for a path outside root).
func locatedArtifact(name, root string) sarifArtifactLocation {
	if root == "" || name == "-" {
		return sarifArtifactLocation{URI: artifactURI(name)}
	}
	abs, err := filepath.Abs(name)
	if err != nil {
		return sarifArtifactLocation{URI: artifactURI(name)}
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return sarifArtifactLocation{URI: artifactURI(abs)}
	}
	return sarifArtifactLocation{URI: artifactURI(rel), URIBaseID: sarifRoot}
}

// artifactURI turns an input name into a URI reference: relative paths stay
// relative (percent-encoded), absolute ones become file URIs, stdin is "stdin".
func artifactURI(name string) string {
	if name == "-" {
		return "stdin"
	}
	u := url.URL{Path: filepath.ToSlash(name)}
	if filepath.IsAbs(name) {
		u.Scheme = "file"
		if !strings.HasPrefix(u.Path, "/") {
			u.Path = "/" + u.Path
		}
	}
	return u.String() // a first segment with a colon gets "./", not to read as a scheme
}
