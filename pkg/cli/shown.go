package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/config"
	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/scan"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/urfave/cli/v3"
)

// shown decides which findings a report shows, after the analysis and before any
// view: findings the configuration suppresses (with a reason) and findings an
// earlier report already had (--baseline) are known problems, not shown and never
// failing the run; findings below --min-severity are not shown but still count
// for --fail-on. Each session says what it leaves out.
type shown struct {
	suppress     []config.Suppression
	configPath   string
	baseline     map[string]int // fingerprint -> findings of the baseline left to match
	baselinePath string
	min          rule.Severity
	// worst is the highest severity of the findings that are not in the baseline.
	worst rule.Severity
}

// apply filters one session's findings.
func (s *shown) apply(sr *rule.SessionResult) {
	var known, below int
	var suppressed []int // by entry of s.suppress
	client, server := peerNames(sr.Session)
	kept := sr.Findings[:0]
	for _, f := range sr.Findings {
		if i := s.suppression(f, client, server); i >= 0 {
			if suppressed == nil {
				suppressed = make([]int, len(s.suppress))
			}
			suppressed[i]++
			continue
		}
		if s.baseline[f.Fingerprint] > 0 {
			s.baseline[f.Fingerprint]--
			known++
			continue
		}
		s.worst = max(s.worst, f.Severity)
		if f.Severity < s.min {
			below++
			continue
		}
		kept = append(kept, f)
	}
	sr.Findings = kept
	for i, n := range suppressed {
		if n > 0 {
			sup := s.suppress[i]
			sr.Notes = append(sr.Notes, fmt.Sprintf("%s suppressed by %s:%d: %s", quote.Count(n, "finding"), report.Safe(s.configPath), sup.Line, report.Safe(sup.Reason)))
		}
	}
	if known > 0 {
		sr.Notes = append(sr.Notes, fmt.Sprintf("%s already in the baseline %s: not shown", quote.Count(known, "finding"), report.Safe(s.baselinePath)))
	}
	if below > 0 {
		sr.Notes = append(sr.Notes, fmt.Sprintf("%s below --min-severity %s: not shown", quote.Count(below, "finding"), s.min))
	}
}

// hidesLive says whether a finding reported as it is found (record --live) is
// not shown: suppressed, or below --min-severity; it counts it in live.
func (s *shown) hidesLive(f rule.Finding, sess *session.Session, live *liveHidden) bool {
	client, server := peerNames(sess)
	if s.suppression(f, client, server) >= 0 {
		live.suppressed++
		return true
	}
	if f.Severity < s.min {
		live.below++
		return true
	}
	return false
}

// liveHidden counts the findings record --live did not print.
type liveHidden struct{ suppressed, below int }

// peerNames are the client's and the server's names in a session's contract
// (empty without one), which suppressions match.
func peerNames(sess *session.Session) (client, server string) {
	if c := sess.Contract(); c != nil {
		return c.Client.Name, c.Server.Name
	}
	return "", ""
}

// baselineFlag is --baseline, for the commands that report findings (check, scan).
func baselineFlag() cli.Flag {
	return &cli.StringFlag{Name: "baseline", Usage: "show and fail only on findings not in `REPORT.json`, an earlier check --format json (matched by fingerprint, never by line)"}
}

// showOf is what a command shows of the findings: those not in --baseline, at
// or above --min-severity (nil when neither is given).
func showOf(c *cli.Command, set *settings) (*shown, error) {
	show := &shown{min: set.minShown(), suppress: set.file.Suppress, configPath: set.file.Path}
	if path := c.String("baseline"); path != "" {
		var err error
		if show.baseline, err = loadBaseline(path); err != nil {
			return nil, err
		}
		show.baselinePath = path
	}
	if show.min == 0 && show.baseline == nil && len(show.suppress) == 0 {
		return nil, nil
	}
	return show, nil
}

// loadBaseline reads the fingerprints of an earlier JSON report (check --format
// json), counting each: a fingerprint seen twice there absorbs two findings. The
// report is read a session at a time: what it keeps is the fingerprints.
func loadBaseline(path string) (map[string]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usageErr("mcpsleuth: %s: cannot read the baseline: %v", report.Safe(path), unwrapPath(err))
	}
	defer f.Close()
	counts, versioned, err := readBaseline(json.NewDecoder(bufio.NewReaderSize(f, 64<<10)))
	if err != nil {
		var syntax *json.SyntaxError
		var fp *noFingerprint
		switch {
		case errors.As(err, &fp):
			return nil, usageErr("mcpsleuth: %s: a %s finding without a fingerprint: the report is older than baselines; write it again with this version", report.Safe(path), report.Safe(fp.rule))
		case errors.As(err, &syntax) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
			return nil, usageErr("mcpsleuth: %s: not a JSON report (mcpsleuth check --format json): %v", report.Safe(path), err)
		}
		return nil, usageErr("mcpsleuth: %s: not a JSON report of mcpsleuth: %v", report.Safe(path), err)
	}
	if !versioned {
		return nil, usageErr("mcpsleuth: %s: not a JSON report of mcpsleuth (no version member; write one with check --format json)", report.Safe(path))
	}
	return counts, nil
}

// noFingerprint is a baseline's finding without a fingerprint.
type noFingerprint struct{ rule string }

func (e *noFingerprint) Error() string { return "a finding without a fingerprint" }

// readBaseline reads a JSON report's version member and the rule and
// fingerprint of each finding, a session at a time: it holds one session's
// findings, never the report whole.
func readBaseline(dec *json.Decoder) (counts map[string]int, versioned bool, err error) {
	counts = map[string]int{}
	if err := expectDelim(dec, '{'); err != nil {
		return nil, false, err
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, false, err
		}
		switch key {
		case "version":
			var v int
			if err := dec.Decode(&v); err != nil {
				return nil, false, err
			}
			versioned = true
		case "sessions":
			if err := expectDelim(dec, '['); err != nil {
				return nil, false, err
			}
			for dec.More() {
				var s struct {
					Findings []struct {
						Rule        string `json:"rule"`
						Fingerprint string `json:"fingerprint"`
					} `json:"findings"`
				}
				if err := dec.Decode(&s); err != nil {
					return nil, false, err
				}
				for _, f := range s.Findings {
					if f.Fingerprint == "" {
						return nil, false, &noFingerprint{rule: f.Rule}
					}
					counts[f.Fingerprint]++
				}
			}
			if err := expectDelim(dec, ']'); err != nil {
				return nil, false, err
			}
		default:
			if err := dec.Decode(new(json.RawMessage)); err != nil { // the tool, the inputs, the configuration: small
				return nil, false, err
			}
		}
	}
	return counts, versioned, expectDelim(dec, '}')
}

// expectDelim reads the token want.
func expectDelim(dec *json.Decoder, want json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if t != want {
		return fmt.Errorf("%v where %v was expected", t, want)
	}
	return nil
}

// suppression is the first entry of the configuration's suppress list that
// matches a finding of a session between client and server (-1: none).
func (s *shown) suppression(f rule.Finding, client, server string) int {
	for i, sup := range s.suppress {
		switch {
		case sup.Rule != "" && !ruleNamed(f, sup.Rule),
			sup.Path != "" && !scan.MatchGlob(sup.Path, filepath.ToSlash(f.Input)),
			sup.Client != "" && sup.Client != client,
			sup.Server != "" && sup.Server != server,
			sup.Method != "" && sup.Method != f.Method,
			sup.Fingerprint != "" && sup.Fingerprint != f.Fingerprint:
			continue
		}
		return i
	}
	return -1
}

// ruleNamed says a finding is of the rule named by ID or name, as the
// configuration names rules.
func ruleNamed(f rule.Finding, name string) bool {
	return strings.EqualFold(f.Rule, name) || f.Name == strings.ToLower(name)
}
