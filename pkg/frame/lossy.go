package frame

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// Logs that users attach to issues and that hold no frames at all: a reader can only
// recognise them, say what they show (the methods they name, the errors they log) and
// report that nothing can be judged (Stats.Lossy), never a clean pass.
const (
	cursorName    = "cursor-mcp-log"
	mcpRemoteName = "mcp-remote-log"
	pythonName    = "python-sdk-log"
)

type lossyFamily uint8

const (
	familyNone lossyFamily = iota
	// familyCursor: Cursor's "Cursor MCP.log" / Output > MCP, lifecycle summaries only.
	familyCursor
	// familyMCPRemote: mcp-remote's stderr ("[pid] [Local→Remote] tools/call"), method
	// or id only, and its --debug file, params cut to 500 characters and results dropped.
	familyMCPRemote
	// familyPython: the Python SDK's logging ("Processing request of type
	// CallToolRequest", DEBUG reprs "root=JSONRPCRequest(method='tools/call', ...)").
	familyPython
	// familyMCPGoText: mcp-go's LoggingTransport through slog's TextHandler.
	familyMCPGoText
)

func (f lossyFamily) String() string {
	switch f {
	case familyCursor:
		return "Cursor MCP log lines"
	case familyMCPRemote:
		return "mcp-remote lines"
	case familyPython:
		return "Python SDK log lines"
	case familyMCPGoText:
		return "mcp-go slog text records"
	}
	return "lines"
}

// lossyDecoder reads a log of one lossy family: every line is context.
type lossyDecoder struct{ family lossyFamily }

func (d lossyDecoder) name() string {
	switch d.family {
	case familyCursor:
		return cursorName
	case familyMCPRemote:
		return mcpRemoteName
	}
	return pythonName
}

// lossyName is the format name of a lossy family's log.
func lossyName(f lossyFamily) string { return lossyDecoder{family: f}.name() }

func (lossyDecoder) decode([]byte, *Frame, *lineExtras) (RecordKind, relative) {
	return RecordContext, relNone
}

func (d lossyDecoder) noFrames() string {
	switch d.family {
	case familyCursor:
		return "a Cursor MCP log: Cursor writes lifecycle summaries (connections, tool counts, errors), never the JSON-RPC messages"
	case familyMCPRemote:
		return "an mcp-remote log: it names each message's method or id but not its content (capabilities and results cannot be recovered)"
	}
	return "a Python SDK log: it names request types and prints Python reprs, not the JSON-RPC messages"
}

var (
	cursorMarkers = []string{
		"ListOfferings", "listOfferings", "CreateClient", "DeleteClient", "No server info found",
		"Error in MCP", "Successfully connected to", "Client closed", "stdio server",
	}
	mcpRemoteMarkers = []string{
		"[Local→Remote]", "[Remote→Local]", "Local → Remote message", "Remote → Local message",
		"Using transport strategy", "Connecting to remote server", "Proxy established successfully",
		"Local STDIO server running", "Using automatically selected callback port",
	}
	pythonMarkers = []string{
		"Processing request of type ", "Received message: root=", "Sending message via SSE: root=",
		" - mcp.server.", " - mcp.client.", "mcp.server.lowlevel.server",
	}
)

// lossyFamilyOf recognises a line of a lossy log.
func lossyFamilyOf(line []byte) lossyFamily {
	s := view(line)
	if _, text, ok := splitVSCode(line); ok {
		if containsAny(view(text), cursorMarkers) {
			return familyCursor
		}
	}
	if isMCPRemotePrefix(line) && containsAny(s, mcpRemoteMarkers) {
		return familyMCPRemote
	}
	if containsAny(s, pythonMarkers) {
		return familyPython
	}
	if isMCPGoTextLine(line) {
		return familyMCPGoText
	}
	return familyNone
}

// isMCPRemotePrefix matches "[12345] " (stderr) and "[2025-...Z][12345] " (debug file).
func isMCPRemotePrefix(line []byte) bool {
	if inner, _, ok := bracketed(line); ok && digits(inner) {
		return true
	}
	if len(line) < 2 || line[0] != '[' {
		return false
	}
	j := bytes.IndexByte(line, ']')
	if j < 0 || !isISOTimestampZ(line[1:j]) || len(line) <= j+1 || line[j+1] != '[' {
		return false
	}
	inner, _, ok := bracketed(line[j+1:])
	return ok && digits(inner)
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// maxLossyMethods bounds the distinct methods a lossy log's summary keeps.
const maxLossyMethods = 64

// lossyScanner watches the context lines of an input that has had no frame yet and
// remembers what they show.
type lossyScanner struct {
	family  lossyFamily
	lines   int
	methods map[string]int
	errors  int
	first   string // the first error line, shortened
}

func (s *lossyScanner) observe(line []byte) {
	fam := lossyFamilyOf(line)
	if fam == familyNone {
		return
	}
	if s.family == familyNone {
		s.family = fam
	}
	s.lines++
	text := view(line)
	if strings.Contains(text, "[error]") || strings.Contains(text, " - ERROR - ") || strings.Contains(text, "level=ERROR") {
		s.errors++
		if s.first == "" {
			s.first = strings.Clone(shorten(strings.TrimSpace(text), 100))
		}
	}
	for _, m := range namedMethods(fam, line) {
		s.addMethod(m)
	}
}

func (s *lossyScanner) addMethod(m string) {
	if m == "" {
		return
	}
	if s.methods == nil {
		s.methods = map[string]int{}
	}
	if _, ok := s.methods[m]; !ok && len(s.methods) >= maxLossyMethods {
		return
	}
	s.methods[strings.Clone(m)]++
}

// namedMethods extracts the methods (or request types) a lossy line names.
func namedMethods(fam lossyFamily, line []byte) []string {
	s := view(line)
	switch fam {
	case familyMCPRemote:
		for _, tag := range []string{"[Local→Remote] ", "[Remote→Local] "} {
			if i := strings.Index(s, tag); i >= 0 {
				m := strings.TrimSpace(s[i+len(tag):])
				if m != "" && !digits([]byte(m)) && !strings.ContainsAny(m, " {") {
					return []string{m}
				}
				return nil
			}
		}
		if i := strings.Index(s, " message {"); i >= 0 {
			if m := gjson.Get(s[i+len(" message "):], "method"); m.Type == gjson.String {
				return []string{m.Str}
			}
		}
	case familyPython:
		if _, after, ok := strings.Cut(s, "Processing request of type "); ok {
			if f := strings.Fields(after); len(f) > 0 {
				return []string{f[0]}
			}
			return nil // the marker with nothing after it names no method
		}
		if _, after, ok := strings.Cut(s, "method='"); ok {
			if m, _, ok := strings.Cut(after, "'"); ok {
				return []string{m}
			}
		}
	case familyMCPGoText:
		if strings.Contains(s, "response") {
			return nil // the answer names its request's method again
		}
		if _, after, ok := strings.Cut(s, " method="); ok {
			if f := strings.Fields(after); len(f) > 0 {
				return []string{f[0]}
			}
			return nil
		}
	}
	return nil
}

// summary says what the lossy lines show ("" when none were recognised).
func (s *lossyScanner) summary() string {
	if s.family == familyNone {
		return ""
	}
	parts := []string{fmt.Sprintf("%d %s", s.lines, s.family)}
	if len(s.methods) > 0 {
		names := make([]string, 0, len(s.methods))
		for m := range s.methods {
			names = append(names, m)
		}
		sort.Strings(names)
		list := make([]string, len(names))
		for i, m := range names {
			list[i] = fmt.Sprintf("%s ×%d", m, s.methods[m])
		}
		parts = append(parts, "naming "+strings.Join(list, ", "))
	}
	if s.errors > 0 {
		what := "error lines"
		if s.errors == 1 {
			what = "error line"
		}
		parts = append(parts, fmt.Sprintf("%d %s (first: %q)", s.errors, what, s.first))
	}
	return strings.Join(parts, ", ")
}

// shorten cuts s to at most max bytes on a character boundary.
func shorten(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max - 3
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// cursorFormat is the cursor format's entry in the table of input formats.
var cursorFormat = format{
	name:    cursorName,
	what:    "Cursor's MCP log: names methods, holds no messages",
	lossy:   true,
	newLine: func() lineDecoder { return lossyDecoder{family: familyCursor} },
}

// mcpRemoteFormat is the mcpRemote format's entry in the table of input formats.
var mcpRemoteFormat = format{
	name:    mcpRemoteName,
	what:    "mcp-remote's log: names methods, holds no messages",
	lossy:   true,
	newLine: func() lineDecoder { return lossyDecoder{family: familyMCPRemote} },
}

// pythonFormat is the python format's entry in the table of input formats.
var pythonFormat = format{
	name:    pythonName,
	what:    "the Python SDK's log: names request types, holds no messages",
	lossy:   true,
	newLine: func() lineDecoder { return lossyDecoder{family: familyPython} },
}
