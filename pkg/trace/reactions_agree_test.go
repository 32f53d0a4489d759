package trace_test

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// TestTimelineReactionsAreMCP2007 runs every fixture with every rule and the
// timeline's tracer, and requires the timeline's "(no reaction)" marks on the
// notifications MCP2007 judges (a server's tools, prompts and resources
// list_changed) to be MCP2007's findings: each run of notifications marked missing
// is one finding at the run's first line, which counts the rest of the run ("and N
// more after it"), and each finding is such a run. Both read rules.Reactions; this
// fails when either judges on its own again.
func TestTimelineReactionsAreMCP2007(t *testing.T) {
	more := regexp.MustCompile(`\(and (\d+) more after it\)`)
	judged, found := 0, 0
	eachFixtureSession(t, trace.Needs{Frames: true}, func(in string, sr *rule.SessionResult, tr *trace.Trace) {
		marks := map[int]int{} // run line: notifications marked missing
		for _, fs := range tr.Frames {
			r := fs.Reaction
			if fs.Dir != spec.S2C || r == nil || !judgedByMCP2007(fs.Method) {
				continue
			}
			judged++
			if r.Missing() {
				marks[r.RunLine]++
			}
		}
		findings := map[int]int{}
		for _, fd := range sr.Findings {
			if fd.Rule != rules.ChangeNotRefetched.ID {
				continue
			}
			n := 1
			if m := more.FindStringSubmatch(fd.Message); m != nil {
				k, _ := strconv.Atoi(m[1])
				n += k
			}
			findings[fd.Line] = n
			found++
		}
		for line, n := range marks {
			if findings[line] != n {
				t.Errorf("%s: the timeline marks %d notifications of the run at line %d without reaction; MCP2007 reports %d there", in, n, line, findings[line])
			}
		}
		for line, n := range findings {
			if marks[line] != n {
				t.Errorf("%s: MCP2007 reports %d notifications at line %d; the timeline marks %d without reaction", in, n, line, marks[line])
			}
		}
	})
	if judged == 0 || found == 0 {
		t.Errorf("%d notifications judged and %d MCP2007 findings across the fixtures: the test compared nothing", judged, found)
	}
	t.Logf("%d list_changed notifications compared, %d MCP2007 findings", judged, found)
}

func judgedByMCP2007(method string) bool {
	lc, ok := spec.ListChangeOf(method)
	return ok && (lc.Kind == "tools" || lc.Kind == "prompts" || lc.Kind == "resources")
}
