package trace_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// eachFixtureSession runs every fixture (each capture beside a .want file) with
// every rule and a tracer of needs, and calls fn with each session that has a
// trace. Inputs that cannot be read are other tests' business.
func eachFixtureSession(t *testing.T, needs trace.Needs, fn func(in string, sr *rule.SessionResult, tr *trace.Trace)) {
	t.Helper()
	wants, err := filepath.Glob("../../fixtures/*/*.want")
	if err != nil || len(wants) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, want := range wants {
		matches, _ := filepath.Glob(strings.TrimSuffix(want, ".want") + ".*")
		for _, in := range matches {
			if strings.HasSuffix(in, ".want") {
				continue
			}
			f, err := os.Open(in)
			if err != nil {
				t.Fatal(err)
			}
			tracer := trace.New(trace.Options{Needs: needs})
			opt := driver.RunOptions{}
			tracer.Apply(&opt)
			res, err := driver.Run(in, f, rules.All(), opt)
			f.Close()
			if err != nil {
				continue
			}
			for _, sr := range res.Sessions {
				if tr := tracer.Of(sr); tr != nil {
					fn(in, sr, tr)
				}
			}
		}
	}
}
