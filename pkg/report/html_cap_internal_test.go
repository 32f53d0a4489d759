package report

import (
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// TestCapNotesCountOtherEntries: a session whose only entries past a cap are
// context lines or HTTP exchanges still says the cap was reached, from which
// line, and what it dropped, in the HTML and the text timelines.
func TestCapNotesCountOtherEntries(t *testing.T) {
	for _, c := range []struct {
		tr         trace.Trace
		html, text string
	}{
		{trace.Trace{Capped: true, CappedAt: 6, RunCap: 5, OmittedOther: 2},
			"0 frames and 2 other entries (context lines, HTTP exchanges) of the session, from line 6 on, were not kept by the analysis (an HTML report keeps at most 5 frames over the whole run)",
			"0 frames and 2 other entries (context lines, HTTP exchanges) from line 6 on not shown"},
		{trace.Trace{Capped: true, CappedAt: 9, Omitted: 3, OmittedOther: 1},
			"3 frames and 1 other entry (a context line or an HTTP exchange) of the session, from line 9 on, were not kept by the analysis (the cap on frames kept per session)",
			"3 frames and 1 other entry (a context line or an HTTP exchange) from line 9 on not shown"},
	} {
		tr := c.tr
		var b strings.Builder
		writeHTMLTimeline(&b, Session{Trace: &tr}, 1)
		if !strings.Contains(b.String(), c.html) {
			t.Errorf("the HTML timeline does not say %q:\n%s", c.html, b.String())
		}
		var text strings.Builder
		if err := WriteTimelineSession(&text, Session{Trace: &tr}, TimelineOptions{}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(strings.Fields(text.String()), " "), c.text) {
			t.Errorf("the text timeline does not say %q:\n%s", c.text, text.String())
		}
	}
}
