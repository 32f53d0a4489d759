package trace_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
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
	inputs, err := filepath.Glob("../../fixtures/*/*.want")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	more := regexp.MustCompile(`\(and (\d+) more after it\)`)
	judged, found := 0, 0
	for _, want := range inputs {
		base := strings.TrimSuffix(want, ".want")
		matches, _ := filepath.Glob(base + ".*")
		for _, in := range matches {
			if strings.HasSuffix(in, ".want") {
				continue
			}
			f, err := os.Open(in)
			if err != nil {
				t.Fatal(err)
			}
			tracer := trace.New(trace.Options{Needs: trace.Needs{Frames: true}})
			opt := driver.RunOptions{}
			tracer.Apply(&opt)
			res, err := driver.Run(in, f, rules.All(), opt)
			f.Close()
			if err != nil {
				continue // inputs that cannot be read are other tests' business
			}
			for _, sr := range res.Sessions {
				marks := map[int]int{} // run line: notifications marked missing
				tr := tracer.Of(sr)
				if tr == nil {
					continue
				}
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
			}
		}
	}
	if judged == 0 || found == 0 {
		t.Errorf("%d notifications judged and %d MCP2007 findings across the fixtures: the test compared nothing", judged, found)
	}
	t.Logf("%d list_changed notifications compared, %d MCP2007 findings", judged, found)
}

func judgedByMCP2007(method string) bool {
	lc, ok := spec.ListChangeOf(method)
	return ok && (lc.Kind == "tools" || lc.Kind == "prompts" || lc.Kind == "resources")
}
