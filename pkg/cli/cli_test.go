package cli_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mcpsleuth/mcpsleuth/pkg/cli"
	"github.com/mcpsleuth/mcpsleuth/pkg/record/recordtest"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"mcpsleuth":         func() { os.Exit(cli.Main()) },
		"recordtest-server": func() { os.Exit(recordtest.Main()) },
	})
}

// TestScripts runs the end-to-end scripts in testdata/script: the binary as users
// run it. `exit N cmd args...` runs a command and asserts its exact exit code;
// `maxwidth N` fails when a line of the last command's stdout is wider than N
// display columns (wide characters count two).
func TestScripts(t *testing.T) {
	fixtures, err := filepath.Abs("../../fixtures")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("FIXTURES", fixtures)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exit": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 {
					ts.Fatalf("usage: exit CODE command [args...]")
				}
				want, err := strconv.Atoi(args[0])
				if err != nil {
					ts.Fatalf("exit: bad code %q", args[0])
				}
				got := 0
				if err := ts.Exec(args[1], args[2:]...); err != nil {
					var ee *exec.ExitError
					if !errors.As(err, &ee) {
						ts.Fatalf("exit: %v", err)
					}
					got = ee.ExitCode()
				}
				if got != want {
					ts.Fatalf("exit code %d, want %d", got, want)
				}
			},
			"maxwidth": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: maxwidth N")
				}
				limit, err := strconv.Atoi(args[0])
				if err != nil || limit < 1 {
					ts.Fatalf("maxwidth: bad width %q", args[0])
				}
				stdout := ts.ReadFile("stdout")
				if strings.TrimSpace(stdout) == "" {
					ts.Fatalf("maxwidth: the last command wrote nothing to stdout")
				}
				wide := 0
				for i, line := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
					if w := twwidth.Width(line); w > limit {
						ts.Logf("line %d is %d columns wide: %s", i+1, w, line)
						wide++
					}
				}
				if wide > 0 {
					ts.Fatalf("maxwidth: stdout is wider than %d columns (on %d of its lines)", limit, wide)
				}
			},
		},
	})
}
