//go:build unix

package cli_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	duckdbInstall    sync.Once
	duckdbInstallErr error
)

// duckDB makes sure the pinned @duckdb/node-api package (package-lock.json) is
// installed and returns the path of node; it skips the test, saying why, where
// Node.js or the npm registry is absent.
func duckDB(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the jsonl output was not loaded into DuckDB (install Node.js, then npm ci --prefix pkg/cli/testdata/duckdb)")
	}
	if _, err := os.Stat("testdata/duckdb/node_modules/@duckdb/node-api/package.json"); err != nil {
		// The test installs the package itself on a fresh checkout (.ci/run installs
		// it beforehand, so there an install failure fails CI instead).
		duckdbInstall.Do(func() {
			npm, err := exec.LookPath("npm")
			if err != nil {
				duckdbInstallErr = err
				return
			}
			out, err := exec.Command(npm, "ci", "--prefix", "testdata/duckdb", "--no-audit", "--no-fund").CombinedOutput()
			if err != nil {
				duckdbInstallErr = fmt.Errorf("npm ci: %v: %s", err, bytes.TrimSpace(out))
			}
		})
		if duckdbInstallErr != nil {
			t.Skipf("the @duckdb/node-api npm package could not be installed (%v): the jsonl output was not loaded into DuckDB; run npm ci --prefix pkg/cli/testdata/duckdb", duckdbInstallErr)
		}
	}
	return node
}

// query runs SQL in a real DuckDB in dir and returns the rows, every value as text.
func query(t *testing.T, node, dir, sql string) []map[string]string {
	t.Helper()
	script, err := filepath.Abs("testdata/duckdb/query.mjs")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, script)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(sql)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("DuckDB rejected the query: %s\n%s", stderr.String(), sql)
		}
		t.Fatalf("running DuckDB: %v\n%s", err, stderr.String())
	}
	var raw []map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &raw); err != nil {
		t.Fatalf("DuckDB's rows do not decode: %v\n%s", err, stdout.String())
	}
	rows := make([]map[string]string, len(raw))
	for i, r := range raw {
		rows[i] = map[string]string{}
		for k, v := range r {
			rows[i][k] = fmt.Sprint(v)
		}
	}
	return rows
}

// docQueries are the SQL blocks of docs/scale.md, by their first line.
func docQueries(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("../../docs/scale.md")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	blocks := strings.Split(string(b), "```sql\n")
	for _, blk := range blocks[1:] {
		sql, _, ok := strings.Cut(blk, "```")
		if !ok {
			t.Fatal("docs/scale.md: an sql block is not closed")
		}
		first, _, _ := strings.Cut(sql, "\n")
		out[first] = sql
	}
	return out
}

// TestScanJSONLInDuckDB: the jsonl parts of a scan spread over three shares,
// loaded into a real DuckDB with the queries of docs/scale.md as written, give the
// rows of the text summary of one whole scan: the client x server table (flagged
// sessions and rules), the findings by rule and severity, and, from the shares'
// JSON reports, the sessions of every pair.
func TestScanJSONLInDuckDB(t *testing.T) {
	node := duckDB(t)
	queries := docQueries(t)
	for _, name := range []string{"-- summary: client x server", "-- summary: findings by rule", "-- summary: sessions per pair"} {
		if queries[name] == "" {
			t.Fatalf("docs/scale.md has no sql block starting %q", name)
		}
	}
	archive, _ := mixedArchive(t)
	work := t.TempDir()
	for _, sub := range []string{"parts", "reports"} {
		if err := os.Mkdir(filepath.Join(work, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const n = 3
	for k := range n {
		shard := fmt.Sprintf("--shard=%d/%d", k, n)
		for _, out := range []struct{ format, path string }{
			{"jsonl", filepath.Join(work, "parts", fmt.Sprintf("part-%d.jsonl", k))},
			{"json", filepath.Join(work, "reports", fmt.Sprintf("part-%d.json", k))},
		} {
			r := runScanCLI(t, nil, "scan", "--quiet", "--fail-on=never", "--format="+out.format, shard, "--output="+out.path, archive)
			if r.code != 0 {
				t.Fatalf("scan %s --format %s: exit %d: %s", shard, out.format, r.code, r.stderr)
			}
		}
	}
	summary := runScanCLI(t, nil, "scan", "--fail-on", "never", archive).stdout
	rows := tableRows(summary)
	pairRows, ruleRows := 0, 0
	for _, r := range rows {
		switch {
		case len(r) != 5 || r[0] == "RULE" || r[0] == "CLIENT": // another table, or a header
		case strings.HasPrefix(r[0], "MCP"):
			ruleRows++
		case r[3] != "0":
			pairRows++
		}
	}

	pairs := query(t, node, work, queries["-- summary: client x server"])
	if len(pairs) == 0 || len(pairs) != pairRows {
		t.Errorf("DuckDB gives %d pairs with findings, the summary %d:\n%s", len(pairs), pairRows, summary)
	}
	for _, p := range pairs {
		want := []string{p["clientName"] + " " + p["clientVersion"], p["serverName"] + " " + p["serverVersion"], "", p["flagged"], p["rules"]}
		if !hasRow(rows, want) {
			t.Errorf("the summary has no row %q (from DuckDB):\n%s", want, summary)
		}
	}
	byRule := query(t, node, work, queries["-- summary: findings by rule"])
	if len(byRule) == 0 || len(byRule) != ruleRows {
		t.Errorf("DuckDB gives %d rules, the summary %d:\n%s", len(byRule), ruleRows, summary)
	}
	for _, r := range byRule {
		want := []string{r["rule"], r["name"], r["error"], r["warning"], r["info"]}
		if !hasRow(rows, want) {
			t.Errorf("the summary has no row %q (from DuckDB):\n%s", want, summary)
		}
	}
	sessions := query(t, node, work, queries["-- summary: sessions per pair"])
	if len(sessions) == 0 {
		t.Error("DuckDB found no session in the JSON reports")
	}
	for _, s := range sessions {
		want := []string{s["client"] + " " + s["client_version"], s["server"] + " " + s["server_version"], s["sessions"], "", ""}
		if !hasRow(rows, want) {
			t.Errorf("the summary has no row %q (from DuckDB):\n%s", want, summary)
		}
	}
	// The files not read or judged are error lines of the parts (issue 12): the
	// shares together name each file of the summary's "Not read or not judged".
	const notRead = "-- the files not read or judged (the summary's \"Not read or not judged\")"
	if queries[notRead] == "" {
		t.Fatalf("docs/scale.md has no sql block starting %q", notRead)
	}
	unread := query(t, node, work, queries[notRead])
	if len(unread) == 0 {
		t.Errorf("DuckDB found no error line in the parts:\n%s", summary)
	}
	for _, u := range unread {
		if u["error"] == "" || u["error"] == "<nil>" || !strings.Contains(summary, filepath.Base(u["input"])) {
			t.Errorf("error line %v: no kind, or a file the summary does not name:\n%s", u, summary)
		}
	}
	if want := strings.Count(summary, "\n│ "+archive); len(unread) != want {
		t.Errorf("DuckDB gives %d files not read or judged, the summary %d:\n%s", len(unread), want, summary)
	}
}

// TestStatsJSONLInDuckDB: stats --format jsonl over captures of known figures,
// loaded into a real DuckDB, answers the two questions of docs/scale.md as written:
// the slowest tools across the archive, and the definitions over 500 tokens.
func TestStatsJSONLInDuckDB(t *testing.T) {
	node := duckDB(t)
	queries := docQueries(t)
	slowest, large := queries["-- stats: slowest tools across the archive"], queries["-- stats: definitions over 500 tokens"]
	if slowest == "" || large == "" {
		t.Fatal("docs/scale.md lacks the stats queries")
	}
	work := t.TempDir()
	if err := os.Mkdir(filepath.Join(work, "stats"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, capture := range []string{"../../fixtures/rules/MCP3009-fires.jsonl", "../../fixtures/rules/MCP3010-fires.jsonl", "../../fixtures/rules/MCP1016-fires.jsonl"} {
		r := runScanCLI(t, nil, "stats", "--format=jsonl", "--output="+filepath.Join(work, "stats", fmt.Sprintf("%d.jsonl", i)), capture)
		if r.code != 0 {
			t.Fatalf("stats %s: exit %d: %s", capture, r.code, r.stderr)
		}
	}
	rows := query(t, node, work, slowest)
	// build_report: answered 1.9 s and 2.388 s after its calls; query: 3 ms each.
	if len(rows) != 2 || rows[0]["tool"] != "build_report" || rows[0]["slowest_ms"] != "2388" || rows[0]["calls"] != "2" ||
		rows[1]["tool"] != "query" || rows[1]["slowest_ms"] != "3" || rows[1]["calls"] != "3" {
		t.Errorf("slowest tools: %v", rows)
	}
	rows = query(t, node, work, large)
	// MCP1016-fires: 16 definitions of 642 tokens (update_issue_*, close_issue_*), 16 of
	// 530 and 529 (link_pull_request_*, add_comment_*); the others are under 500.
	if len(rows) != 32 || rows[0]["definitionTokens"] != "642" || rows[0]["tool"] != "close_issue_00" || rows[31]["definitionTokens"] != "529" {
		t.Errorf("definitions over 500 tokens: %d rows: %v", len(rows), rows)
	}
}
