package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
)

// The codequality format is GitLab's Code Quality report (a subset of the Code
// Climate issue format): a JSON array with one issue per finding, which a
// pipeline uploads as artifacts:reports:codequality so that merge requests
// show the findings. GitLab keys issues by fingerprint, so each issue's is
// unique (the finding's fingerprint with its input and line), where the
// finding's own fingerprint is shared by the same problem wherever it stands.
// Inputs that could not be read or judged are issues too, at no line: a
// pipeline never shows them as clean.

type codeQualityIssue struct {
	Description string              `json:"description"`
	CheckName   string              `json:"check_name"`
	Fingerprint string              `json:"fingerprint"`
	Severity    string              `json:"severity"`
	Location    codeQualityLocation `json:"location"`
}

type codeQualityLocation struct {
	Path  string           `json:"path"`
	Lines codeQualityLines `json:"lines"`
}

type codeQualityLines struct {
	Begin int `json:"begin"`
}

// WriteCodeQuality writes the report as a GitLab Code Quality report. Paths are
// relative to root when the input lies under it (the repository's checkout, as
// GitLab wants them); "" keeps the names as given.
func WriteCodeQuality(w io.Writer, r *Report, root string) error {
	issues := []codeQualityIssue{}
	for _, s := range r.Sessions {
		for _, f := range s.Findings {
			path := pathUnder(root, f.Input)
			issues = append(issues, codeQualityIssue{
				Description: Safe(f.Message),
				CheckName:   f.Rule + " " + f.Name,
				Fingerprint: uniqueFingerprint(f.Fingerprint, path, strconv.Itoa(f.Line), f.Rule, f.Message),
				Severity:    codeQualitySeverity(f.severity),
				Location:    codeQualityLocation{Path: Safe(path), Lines: codeQualityLines{Begin: max(f.Line, 1)}},
			})
		}
	}
	for _, e := range r.Errors {
		if !e.Kind.fails() {
			continue
		}
		path := pathUnder(root, e.Input)
		issues = append(issues, codeQualityIssue{
			Description: Safe(e.Message),
			CheckName:   "mcpsleuth " + string(e.Kind),
			Fingerprint: uniqueFingerprint(string(e.Kind), path),
			Severity:    "major",
			Location:    codeQualityLocation{Path: Safe(path), Lines: codeQualityLines{Begin: 1}},
		})
	}
	b, err := json.MarshalIndent(issues, "", "  ")
	if err != nil {
		return fmt.Errorf("mcpsleuth: writing the code quality report: %w", err)
	}
	if _, err := w.Write(append(escapeJSONText(b), '\n')); err != nil {
		return fmt.Errorf("mcpsleuth: writing the code quality report: %w", err)
	}
	return nil
}

// codeQualitySeverity maps a severity to the Code Climate scale.
func codeQualitySeverity(s rule.Severity) string {
	switch s {
	case rule.SeverityError:
		return "major"
	case rule.SeverityWarning:
		return "minor"
	}
	return "info"
}

// uniqueFingerprint hashes its parts into an issue's fingerprint.
func uniqueFingerprint(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// pathUnder is name relative to root (slash-separated) when it lies under it,
// else name as given.
func pathUnder(root, name string) string {
	if root == "" || name == "-" {
		return name
	}
	abs, err := filepath.Abs(name)
	if err != nil {
		return name
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return name
	}
	return filepath.ToSlash(rel)
}
