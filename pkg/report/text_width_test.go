package report

import (
	"testing"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
)

// The ASCII fast path measures as twwidth does, and everything else goes to it.
func TestTextWidthAsTwwidth(t *testing.T) {
	for _, s := range []string{"", "tools/list", "a b  c", "~!@#$%^&*()_+{}|:\"<>?`-=[]\\;',./",
		"\x1b[31mred\x1b[0m", "café", "漢字", "e\u0301", "tab\there", "del\x7f", "\u009b2J"} {
		if got, want := textWidth(s), twwidth.Width(s); got != want {
			t.Errorf("textWidth(%q) = %d, twwidth says %d", s, got, want)
		}
	}
}
