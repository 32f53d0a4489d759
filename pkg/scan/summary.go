package scan

import (
	"cmp"
	"slices"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
)

// Summary is what a scan adds up over its files, from the analysis results as the
// reports show them (report.Session): nothing in it is judged again.
type Summary struct {
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
	byRule   map[string]*RuleCount
	pairs    map[PairKey]*Pair
	Unread   []Unread
}

// RuleCount is the findings of one rule, by severity (a rule's severity can depend
// on the revision).
type RuleCount struct {
	Rule, Name           string
	Error, Warning, Info int
}

// PairKey names the two implementations of a session, as their initialize (or
// discover) said ("" where the capture did not say).
type PairKey struct {
	ClientName, ClientVersion, ServerName, ServerVersion string
}

// Pair is one client x server pair: its sessions, how many of them have a
// finding, and per rule the number of its sessions that rule fired in.
type Pair struct {
	PairKey
	Sessions int
	Flagged  int
	Rules    map[string]int
}

// Unread is an input the scan could not read (or read only in part, or could
// not judge), with why.
type Unread struct {
	Path string
	Why  string
}

// NewSummary starts an empty summary.
func NewSummary() *Summary {
	return &Summary{Findings: map[string]int{"error": 0, "warning": 0, "info": 0},
		byRule: map[string]*RuleCount{}, pairs: map[PairKey]*Pair{}}
}

// AddFile adds one input that was read: its reader's counts and its sessions.
func (s *Summary) AddFile(st frame.Stats, sessions []report.Session) {
	s.Files++
	s.Frames += st.Frames
	s.Bytes += st.Bytes
	for i := range sessions {
		s.addSession(&sessions[i])
	}
}

func (s *Summary) addSession(sess *report.Session) {
	s.Sessions++
	key := PairKey{sess.Client.Name, sess.Client.Version, sess.Server.Name, sess.Server.Version}
	p := s.pairs[key]
	if p == nil {
		p = &Pair{PairKey: key, Rules: map[string]int{}}
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
			rc = &RuleCount{Rule: f.Rule, Name: f.Name}
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
func (s *Summary) AddUnread(path, why string) {
	s.Unread = append(s.Unread, Unread{Path: path, Why: why})
}

// ByRule lists the rules that fired, by rule ID.
func (s *Summary) ByRule() []RuleCount {
	out := make([]RuleCount, 0, len(s.byRule))
	for _, rc := range s.byRule {
		out = append(out, *rc)
	}
	slices.SortFunc(out, func(a, b RuleCount) int { return cmp.Compare(a.Rule, b.Rule) })
	return out
}

// Pairs lists the client x server pairs, sorted by client name and version, then
// server name and version (byte order, as a database orders them).
func (s *Summary) Pairs() []Pair {
	out := make([]Pair, 0, len(s.pairs))
	for _, p := range s.pairs {
		out = append(out, *p)
	}
	slices.SortFunc(out, func(a, b Pair) int {
		return cmp.Or(cmp.Compare(a.ClientName, b.ClientName), cmp.Compare(a.ClientVersion, b.ClientVersion),
			cmp.Compare(a.ServerName, b.ServerName), cmp.Compare(a.ServerVersion, b.ServerVersion))
	})
	return out
}

// RuleIDs lists the rules of a pair, by ID.
func (p Pair) RuleIDs() []string {
	ids := make([]string, 0, len(p.Rules))
	for id := range p.Rules {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}
