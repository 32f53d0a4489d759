package report

import (
	"cmp"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
)

// ScanSummary is what a scan adds up over its files, from the analysis results as the
// reports show them (Session): nothing in it is judged again.
type ScanSummary struct {
	// Files are the inputs read (in full or in part); Unread are those that were
	// not, or only in part, or that could not be judged, each with why.
	Files    int
	sessions int
	frames   int
	// bytes are the decompressed bytes read; Wall is the scan's wall time.
	bytes int64
	Wall  time.Duration
	Jobs  int
	// findings count by severity.
	findings   map[string]int
	ruleCounts map[string]*scanRuleCount
	pairsByKey map[scanPairKey]*scanPair
	// servers add up, per server, the connections client logs tell of without
	// their messages (Claude Code's MCP logs).
	servers map[string]*scanServer
	// cost adds up what the sessions cost (AddCost).
	cost   *Stats
	Unread []ScanUnread
}

// scanServer is what the client logs of one server tell: how many logs, how many
// connections and their outcomes, the failures by cause, the implementations and
// revisions the handshakes gave.
type scanServer struct {
	Name                           string
	Logs, Connected, Failed, Other int
	Causes                         map[string]int
	Seen                           map[string]bool // "name version, revision"
}

// scanRuleCount is the findings of one rule, by severity (a rule's severity can depend
// on the revision).
type scanRuleCount struct {
	Rule, Name           string
	Error, Warning, Info int
}

// scanPairKey names the two implementations of a session, as their initialize (or
// discover) said ("" where the capture did not say).
type scanPairKey struct {
	ClientName, ClientVersion, ServerName, ServerVersion string
}

// scanPair is one client x server pair: its sessions, how many of them have a
// finding, and per rule the number of its sessions that rule fired in.
type scanPair struct {
	scanPairKey
	Sessions int
	Flagged  int
	Rules    map[string]int
}

// ScanUnread is an input the scan could not read (or read only in part, or could
// not judge), with why.
type ScanUnread struct {
	path string
	why  string
}

// NewScanSummary starts an empty summary.
func NewScanSummary() *ScanSummary {
	return &ScanSummary{findings: map[string]int{"error": 0, "warning": 0, "info": 0},
		ruleCounts: map[string]*scanRuleCount{}, pairsByKey: map[scanPairKey]*scanPair{}, servers: map[string]*scanServer{}, cost: NewStats()}
}

// AddCost adds what one input's sessions cost.
func (s *ScanSummary) AddCost(st *Stats) { s.cost.Merge(st) }

// AddFile adds one input that was read: its reader's counts and its sessions.
func (s *ScanSummary) AddFile(in *driver.InputResult, sessions []Session) {
	st := in.Stats
	s.Files++
	s.frames += st.Frames
	s.bytes += st.Bytes
	for i := range sessions {
		s.addSession(&sessions[i])
	}
	if len(in.Connections) > 0 {
		s.addConnections(in.Name, in.Connections)
	}
}

// addConnections adds the connections one client log tells of, under its server:
// the name Claude Code gives the log's folder (mcp-logs-NAME), else the name the
// server gave in its handshake.
func (s *ScanSummary) addConnections(path string, conns []frame.Connection) {
	name := serverOfLogPath(path)
	for _, c := range conns {
		if name == "" && c.Server != "" {
			name = c.Server
		}
	}
	if name == "" {
		name = "(unknown)"
	}
	sv := s.servers[name]
	if sv == nil {
		sv = &scanServer{Name: name, Causes: map[string]int{}, Seen: map[string]bool{}}
		s.servers[name] = sv
	}
	sv.Logs++
	for _, c := range conns {
		switch {
		case c.Connected:
			sv.Connected++
			if c.Server != "" || c.Revision != "" {
				sv.Seen[strings.TrimSpace(c.Server+" "+c.Revision)] = true
			}
		case c.Cause != "" || c.Status != 0:
			sv.Failed++
			cause := c.Cause
			if cause == "" {
				cause = "HTTP " + strconv.Itoa(c.Status)
			}
			sv.Causes[cause]++
		default:
			sv.Other++
		}
	}
}

// serverOfLogPath is the server a Claude Code MCP log is of, from its folder
// (.../mcp-logs-NAME/TIME.jsonl); "" for another path.
func serverOfLogPath(path string) string {
	dir := filepath.Base(filepath.Dir(path))
	name, ok := strings.CutPrefix(dir, "mcp-logs-")
	if !ok {
		return ""
	}
	return name
}

// servers lists the servers of the client logs, by name.
func (s *ScanSummary) serverRows() []scanServer {
	out := make([]scanServer, 0, len(s.servers))
	for _, sv := range s.servers {
		out = append(out, *sv)
	}
	slices.SortFunc(out, func(a, b scanServer) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

func (s *ScanSummary) addSession(sess *Session) {
	s.sessions++
	key := scanPairKey{sess.Client.Name, sess.Client.Version, sess.Server.Name, sess.Server.Version}
	p := s.pairsByKey[key]
	if p == nil {
		p = &scanPair{scanPairKey: key, Rules: map[string]int{}}
		s.pairsByKey[key] = p
	}
	p.Sessions++
	if len(sess.Findings) > 0 {
		p.Flagged++
	}
	fired := map[string]bool{}
	for _, f := range sess.Findings {
		s.findings[f.Severity]++
		rc := s.ruleCounts[f.Rule]
		if rc == nil {
			rc = &scanRuleCount{Rule: f.Rule, Name: f.Name}
			s.ruleCounts[f.Rule] = rc
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
	s.Unread = append(s.Unread, ScanUnread{path: path, why: why})
}

// byRule lists the rules that fired, by rule ID.
func (s *ScanSummary) byRule() []scanRuleCount {
	out := make([]scanRuleCount, 0, len(s.ruleCounts))
	for _, rc := range s.ruleCounts {
		out = append(out, *rc)
	}
	slices.SortFunc(out, func(a, b scanRuleCount) int { return cmp.Compare(a.Rule, b.Rule) })
	return out
}

// pairs lists the client x server pairs, sorted by client name and version, then
// server name and version (byte order, as a database orders them).
func (s *ScanSummary) pairs() []scanPair {
	out := make([]scanPair, 0, len(s.pairsByKey))
	for _, p := range s.pairsByKey {
		out = append(out, *p)
	}
	slices.SortFunc(out, func(a, b scanPair) int {
		return cmp.Or(cmp.Compare(a.ClientName, b.ClientName), cmp.Compare(a.ClientVersion, b.ClientVersion),
			cmp.Compare(a.ServerName, b.ServerName), cmp.Compare(a.ServerVersion, b.ServerVersion))
	})
	return out
}

// ruleIDs lists the rules of a pair, by ID.
func (p scanPair) ruleIDs() []string {
	ids := make([]string, 0, len(p.Rules))
	for id := range p.Rules {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}
