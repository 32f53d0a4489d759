package spec

import (
	"fmt"
	"slices"
	"strings"
)

// Spellings used in the embedded TSV files.
const (
	noGate         = "none"
	extGatePrefix  = "ext:"
	capTypeBoolean = "boolean"
)

// tsvRow is one data row of an embedded TSV file.
type tsvRow struct {
	line   int // 1-based line number in the file
	fields []string
}

// readTSV splits a tab-separated table whose first line must be exactly header.
// Every data row must have as many fields as the header; blank lines are skipped.
func readTSV(data string, header ...string) ([]tsvRow, error) {
	lines := strings.Split(data, "\n")
	var rows []tsvRow
	seenHeader := false
	for i, line := range lines {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		fields := strings.Split(line, "\t")
		if !seenHeader {
			if !slices.Equal(fields, header) {
				return nil, fmt.Errorf("line %d: header is %q, want %q", i+1, fields, header)
			}
			seenHeader = true
			continue
		}
		if len(fields) != len(header) {
			return nil, fmt.Errorf("line %d: %d tab-separated fields, want %d", i+1, len(fields), len(header))
		}
		rows = append(rows, tsvRow{line: i + 1, fields: fields})
	}
	if !seenHeader {
		return nil, fmt.Errorf("empty table, want header %q", header)
	}
	return rows, nil
}

// parseRevisionList parses a comma-separated list of revisions and returns it in
// chronological order.
func parseRevisionList(s string) ([]Revision, error) {
	if s == "" {
		return nil, fmt.Errorf("empty revision list")
	}
	var revs []Revision
	for item := range strings.SplitSeq(s, ",") {
		r := Revision(strings.TrimSpace(item))
		if !r.Known() {
			return nil, fmt.Errorf("unknown revision %q", item)
		}
		if slices.Contains(revs, r) {
			return nil, fmt.Errorf("revision %q listed twice", r)
		}
		revs = append(revs, r)
	}
	slices.SortFunc(revs, func(a, b Revision) int { return a.order() - b.order() })
	return revs, nil
}

// parseSidePath splits "client.<path>" or "server.<path>".
func parseSidePath(s string) (Side, string, error) {
	prefix, path, _ := strings.Cut(s, ".")
	var side Side
	switch prefix {
	case "client":
		side = Client
	case "server":
		side = Server
	default:
		return 0, "", fmt.Errorf("%q does not start with %q or %q", s, "client.", "server.")
	}
	if path == "" || strings.HasPrefix(path, ".") || strings.HasSuffix(path, ".") || strings.Contains(path, "..") {
		return 0, "", fmt.Errorf("%q has an empty path segment", s)
	}
	return side, path, nil
}

// parseGate parses the gate column: "none", "ext:<extension>" or "client.<path>" /
// "server.<path>".
func parseGate(s string) (Gate, error) {
	if s == noGate {
		return Gate{}, nil
	}
	if ext, ok := strings.CutPrefix(s, extGatePrefix); ok {
		if ext == "" {
			return Gate{}, fmt.Errorf("gate %q names no extension", s)
		}
		return Gate{Extension: ext}, nil
	}
	side, path, err := parseSidePath(s)
	if err != nil {
		return Gate{}, fmt.Errorf("gate: %w", err)
	}
	return Gate{Side: side, Path: path}, nil
}

// parseKind parses the kind column of the method tables.
func parseKind(s string) (Kind, error) {
	for _, k := range []Kind{KindRequest, KindNotification, KindInputRequest} {
		if s == k.String() {
			return k, nil
		}
	}
	return 0, fmt.Errorf("unknown kind %q", s)
}

// parseDirections parses the direction column of the method tables; "both" yields
// C2S then S2C.
func parseDirections(s string) ([]Direction, error) {
	switch s {
	case "c2s":
		return []Direction{C2S}, nil
	case "s2c":
		return []Direction{S2C}, nil
	case "both":
		return []Direction{C2S, S2C}, nil
	}
	return nil, fmt.Errorf("unknown direction %q", s)
}

// panicIfMalformed panics if an embedded table failed to parse. Embedded tables are
// build-time facts, so a parse failure is a programming error, not a runtime one.
func panicIfMalformed(file string, err error) {
	if err != nil {
		panic(fmt.Sprintf("spec: malformed embedded %s: %v", file, err))
	}
}
