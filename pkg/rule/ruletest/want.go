package ruletest

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// An Expectation is one line of a .want file: LINE RULE-ID "regexp", optionally
// marked with a leading '?' (DESIGN.md section 8).
type Expectation struct {
	// Line is the 1-based line of the anchor frame; for document formats (HAR,
	// Inspector exports, pretty-printed JSON documents) the 1-based entry that
	// carried it (see WantLine).
	Line int
	// Rule is the rule ID, MCPnnnn.
	Rule string
	// Message must match the finding's message.
	Message *regexp.Regexp
	// Optional expectations may go unreported ('?').
	Optional bool
	// Pos is where the expectation is written, file:line.
	Pos string
}

func (e Expectation) String() string {
	return fmt.Sprintf("%d %s %q", e.Line, e.Rule, e.Message)
}

var wantLine = regexp.MustCompile(`^(\?)?\s*(\d+)\s+(MCP\d{4})\s+"(.*)"\s*$`)

// ParseWant reads the .want file at path. Errors name the file and line.
func ParseWant(path string) ([]Expectation, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(path, f)
}

// Parse reads .want lines from r; name is the file they come from, for positions.
// Blank lines and lines starting with '#' are skipped. The text between the quotes
// is the regular expression as written (no unquoting).
func Parse(name string, r io.Reader) ([]Expectation, error) {
	var out []Expectation
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		pos := fmt.Sprintf("%s:%d", name, n)
		m := wantLine.FindStringSubmatch(text)
		if m == nil {
			return nil, fmt.Errorf("%s: malformed expectation %q (want LINE RULE-ID \"regexp\", ? for optional)", pos, text)
		}
		line, err := strconv.Atoi(m[2])
		if err != nil {
			return nil, fmt.Errorf("%s: line number: %v", pos, err)
		}
		re, err := regexp.Compile(m[4])
		if err != nil {
			return nil, fmt.Errorf("%s: %v", pos, err)
		}
		out = append(out, Expectation{Line: line, Rule: m[3], Message: re, Optional: m[1] == "?", Pos: pos})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return out, nil
}
