package report

import (
	"cmp"
	"slices"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
)

// ScanSummary is what a scan adds up over its files, from the analysis results as the
// reports show them (Session): nothing in it is judged again.
type ScanSummary struct {
	// Files are the inputs read (in full or in part); Unread are those that were
	// not, or only in part, or that could not be judged, each with why.
	Files    int
	Sessions int
	Frames   int
	// Bytes are the decompressed bytes read; Wall is the scan's wall time.
	Bytes int64
	Wall  time.Duration
	Jobs  int
	// Findings count by severity.
	Findings map[string]int
	byRule   map[string]*ScanRuleCount
	pairs    map[ScanPairKey]*ScanPair
	Unread   []ScanUnread
}

// ScanRuleCount is the findings of one rule, by severity (a rule's severity can depend
// on the revision).
type ScanRuleCount struct {
	Rule, Name           string
	Error, Warning, Info int
}

// ScanPairKey names the two implementations of a session, as their initialize (or
// discover) said ("" where the capture did not say).
type ScanPairKey struct {
	ClientName, ClientVersion, ServerName, ServerVersion string
}

// ScanPair is one client x server pair: its sessions, how many of them have a
// finding, and per rule the number of its sessions that rule fired in.
type ScanPair struct {
	ScanPairKey
	Sessions int
	Flagged  int
	Rules    map[string]int
}

// ScanUnread is an input the scan could not read (or read only in part, or could
// not judge), with why.
type ScanUnread struct {
	Path string
	Why  string
}

// NewScanSummary starts an empty summary.
func NewScanSummary() *ScanSummary {
	return &ScanSummary{Findings: map[string]int{"error": 0, "warning": 0, "info": 0},
		byRule: map[string]*ScanRuleCount{}, pairs: map[ScanPairKey]*ScanPair{}}
}

// AddFile adds one input that was read: its reader's counts and its sessions.
func (s *ScanSummary) AddFile(in *driver.InputResult, sessions []Session) {
	st := in.Stats
	s.Files++
	s.Frames += st.Frames
	s.Bytes += st.Bytes
	for i := range sessions {
		s.addSession(&sessions[i])
	}
}

func (s *ScanSummary) addSession(sess *Session) {
	s.Sessions++
	key := ScanPairKey{sess.Client.Name, sess.Client.Version, sess.Server.Name, sess.Server.Version}
	p := s.pairs[key]
	if p == nil {
		p = &ScanPair{ScanPairKey: key, Rules: map[string]int{}}
		s.pairs[key] = p
	}
	p.Sessions++
	if len(sess.Findings) > 0 {
		p.Flagged++
	}
	fired := map[string]bool{}
	for _, f := range sess.Findings {
		s.Findings[f.Severity]++
		rc := s.byRule[f.Rule]
		if rc == nil {
			rc = &ScanRuleCount{Rule: f.Rule, Name: f.Name}
			s.byRule[f.Rule] = rc
		}
		switch f.Severity {
		case "error":
			rc.Error++
		case "warning":
			rc.Warning++
		case "info":
			rc.Info++
		}
		if !fired[f.Rule] {
			fired[f.Rule] = true
			p.Rules[f.Rule]++
		}
	}
}

// AddUnread adds an input that could not be read, or was read only in part, or
// could not be judged.
func (s *ScanSummary) AddUnread(path, why string) {
	s.Unread = append(s.Unread, ScanUnread{Path: path, Why: why})
}

// ByRule lists the rules that fired, by rule ID.
func (s *ScanSummary) ByRule() []ScanRuleCount {
	out := make([]ScanRuleCount, 0, len(s.byRule))
	for _, rc := range s.byRule {
		out = append(out, *rc)
	}
	slices.SortFunc(out, func(a, b ScanRuleCount) int { return cmp.Compare(a.Rule, b.Rule) })
	return out
}

// Pairs lists the client x server pairs, sorted by client name and version, then
// server name and version (byte order, as a database orders them).
func (s *ScanSummary) Pairs() []ScanPair {
	out := make([]ScanPair, 0, len(s.pairs))
	for _, p := range s.pairs {
		out = append(out, *p)
	}
	slices.SortFunc(out, func(a, b ScanPair) int {
		return cmp.Or(cmp.Compare(a.ClientName, b.ClientName), cmp.Compare(a.ClientVersion, b.ClientVersion),
			cmp.Compare(a.ServerName, b.ServerName), cmp.Compare(a.ServerVersion, b.ServerVersion))
	})
	return out
}

// RuleIDs lists the rules of a pair, by ID.
func (p ScanPair) RuleIDs() []string {
	ids := make([]string, 0, len(p.Rules))
	for id := range p.Rules {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}
