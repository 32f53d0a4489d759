package rules_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
)

// captures lists every capture under fixtures/, in a stable order.
func captures(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join("..", "..", "fixtures"), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch filepath.Ext(path) {
		case ".jsonl", ".log", ".json", ".har":
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 100 {
		t.Fatalf("only %d captures found under fixtures/", len(out))
	}
	return out
}

// verdicts renders everything a run found, in order: findings with every field a
// report shows, and notes.
func verdicts(t *testing.T, path string, opt rule.RunOptions) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	res, err := rule.Run(path, bytes.NewReader(data), rules.All(), opt)
	if err != nil {
		return "unreadable: " + err.Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "stats %+v broken %v\n", res.Stats, res.Broken)
	for _, s := range res.Sessions {
		fmt.Fprintf(&b, "session %d lines %d-%d\n", s.Session.Index, s.Session.FirstLine, s.Session.LastLine)
		for _, f := range s.Findings {
			fmt.Fprintf(&b, "%s %s %d %s %s %s %q %q %v %q\n", f.Rule, f.Severity, f.Line, f.Dir, f.Method, f.ID, f.Message, f.Hint, f.Related, f.Evidence)
		}
		for _, n := range s.Notes {
			fmt.Fprintf(&b, "note %s\n", n)
		}
	}
	return b.String()
}

// The wire-shape cache must never change a verdict: every fixture gives the same
// findings and notes when every frame is validated in full.
func TestShapeCacheChangesNothing(t *testing.T) {
	for _, path := range captures(t) {
		cached := verdicts(t, path, rule.RunOptions{})
		full := verdicts(t, path, rule.RunOptions{NoShapes: true})
		if cached != full {
			t.Errorf("%s: findings differ with the shape cache:\n--- with\n%s--- without (every frame validated)\n%s", path, cached, full)
		}
	}
}

// The verdicts of one run must not depend on what earlier runs that shared its
// run-wide state saw: every fixture alone equals every fixture after all the others.
func TestSharedStateChangesNothing(t *testing.T) {
	paths := captures(t)
	shared := rule.NewShared()
	for _, path := range paths {
		verdicts(t, path, rule.RunOptions{Shared: shared})
	}
	for _, path := range paths {
		alone := verdicts(t, path, rule.RunOptions{})
		after := verdicts(t, path, rule.RunOptions{Shared: shared})
		if alone != after {
			t.Errorf("%s: findings differ after the other fixtures shared the run's state:\n--- alone\n%s--- after\n%s", path, alone, after)
		}
	}
}

// The parse stage runs beside the replay: the results must be the same on one
// processor as on two.
func TestProcessorsChangeNothing(t *testing.T) {
	paths := captures(t)
	on := func(procs int) []string {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		out := make([]string, len(paths))
		for i, path := range paths {
			out[i] = verdicts(t, path, rule.RunOptions{})
		}
		return out
	}
	one, two := on(1), on(2)
	for i := range paths {
		if one[i] != two[i] {
			t.Errorf("%s: findings differ between GOMAXPROCS=1 and 2:\n--- 1\n%s--- 2\n%s", paths[i], one[i], two[i])
		}
	}
}
