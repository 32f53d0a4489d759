package rules_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
)

// TestHostileNotes holds the hostile fixtures whose verdict is a cannot-judge note
// rather than a finding to the note they must carry (their .want files, checked by
// TestFixtures, hold the findings).
func TestHostileNotes(t *testing.T) {
	for _, c := range []struct {
		capture string
		note    string // a regexp one of the notes must match
	}{
		// issue 11 item 16: valid JSON too deep for the schema decoder is not invalid JSON.
		{"schema-deeper-than-512.jsonl", `^MCP4001 schema-violation could not judge 1 message: the frame could not be checked: nested deeper than 512 levels`},
	} {
		t.Run(c.capture, func(t *testing.T) {
			notes := analyseNotes(t, "../../fixtures/hostile/"+c.capture)
			re := regexp.MustCompile(c.note)
			for _, n := range notes {
				if re.MatchString(n) {
					return
				}
			}
			t.Errorf("no note matches %q; notes:\n  %s", c.note, strings.Join(notes, "\n  "))
		})
	}
}

func analyseNotes(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := driver.Run(path, f, rules.All(), driver.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	for _, s := range res.Sessions {
		notes = append(notes, s.Notes...)
	}
	return notes
}
