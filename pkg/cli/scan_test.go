//go:build unix

package cli_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"

	"github.com/mcpsleuth/mcpsleuth/pkg/cli"
)

// result is one in-process run of the program.
type result struct {
	code           int
	stdout, stderr string
}

// run runs mcpsleuth in-process with the given arguments; stdin is empty and not a
// terminal, COLUMNS is 200 unless env says otherwise.
func runScanCLI(t testing.TB, env map[string]string, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	getenv := func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		if k == "COLUMNS" {
			return "200"
		}
		return ""
	}
	code := cli.Run(cli.Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: getenv}, append([]string{"mcpsleuth"}, args...))
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

func fixture(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "fixtures", rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func write(t testing.TB, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func zstded(t *testing.T, b []byte) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll(b, nil)
}

// mixedArchive lays out a directory of mixed captures: envelope, bare, Go SDK
// log, HAR, gzip, zstd, in subdirectories too, a file that is not a capture, a
// corrupt gzip, and what a walk must not open (a FIFO, a symlink to a device, a
// symlink loop, a dangling symlink, a symlink back up the tree). It returns the
// directory and the captures it holds, in the sorted order a walk gives.
func mixedArchive(t *testing.T) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	files := map[string][]byte{
		"envelope.jsonl":               fixture(t, "real/ts-client-go-server-sampling-undeclared.jsonl"),
		"bare.jsonl":                   fixture(t, "real/bare/ts-client-go-server-sampling-undeclared.jsonl"),
		"gosdk.log":                    fixture(t, "real/gosdk-log/ts-client-go-server-sampling-undeclared.log"),
		"http/sampling.har":            fixture(t, "real/http/http-ts-client-go-server-sampling-undeclared.har"),
		"http/healthy.har":             fixture(t, "real/http/http-ts-everything-healthy.har"),
		"2026/12/cancel.jsonl.gz":      gzipped(t, fixture(t, "real/ts-everything-cancel.jsonl")),
		"2026/12/subscribe.jsonl.zst":  zstded(t, fixture(t, "real/ts-client-mcpgo053-subscribe-not-implemented.jsonl")),
		"2026/11/killed.jsonl":         fixture(t, "real/ts-everything-killed-midcall.jsonl"),
		"2026/11/silent-change.jsonl":  fixture(t, "real/ts-client-mcpgo-server-tools-silent-change.jsonl"),
		"claude/mcp.log":               fixture(t, "formats/claude-mcp-log-interleaved.log"),
		"notes.txt":                    []byte("These are notes about the captures.\nNothing here is a frame.\n"),
		"broken.jsonl.gz":              []byte("\x1f\x8b\x08\x00this is not a gzip stream"),
		"README.md":                    []byte("not a capture name: never read\n"),
		"inspector/protocol.json":      fixture(t, "formats/inspector-protocol-sampling.json"),
		"2026/11/discover-modern.json": fixture(t, "real/go-client-go-server-2026-07-28-discover.jsonl"),
	}
	var names []string
	for name, b := range files {
		write(t, filepath.Join(dir, name), b)
		if name != "README.md" {
			names = append(names, filepath.Join(dir, name))
		}
	}
	sort.Strings(names)
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.jsonl"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"zero.log": "/dev/zero", "loop.jsonl": "loop.jsonl", "dangling.jsonl": "nowhere", "http/up": ".."} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	return dir, names
}

// jsonReport is the part of the JSON report the tests read.
type jsonReport struct {
	Inputs []struct {
		Name   string `json:"name"`
		Format string `json:"format"`
		Frames int    `json:"frames"`
	} `json:"inputs"`
	Sessions []json.RawMessage `json:"sessions"`
	Summary  struct {
		Sessions int            `json:"sessions"`
		Findings map[string]int `json:"findings"`
	} `json:"summary"`
}

type jsonSession struct {
	Input  string `json:"input"`
	Client struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"client"`
	Server struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"server"`
	Frames   int `json:"frames"`
	Findings []struct {
		Rule     string `json:"rule"`
		Severity string `json:"severity"`
		Line     int    `json:"line"`
		Message  string `json:"message"`
	} `json:"findings"`
}

func decodeReport(t *testing.T, s string) jsonReport {
	t.Helper()
	var r jsonReport
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		t.Fatalf("the JSON report does not decode: %v\n%s", err, s)
	}
	return r
}

func decodeSession(t *testing.T, raw json.RawMessage) jsonSession {
	t.Helper()
	var s jsonSession
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestScanMatchesCheckOnMixedArchive: scan over a directory of mixed captures
// gives, for every file, exactly the sessions and findings of check on that file
// (rule, line and message, every member of the JSON), in the same order for one
// job and for eight, and the same documents as check over the directory, for
// every format the two share.
func TestScanMatchesCheckOnMixedArchive(t *testing.T) {
	dir, captures := mixedArchive(t)
	one := runScanCLI(t, nil, "scan", "--format", "json", "--fail-on", "never", "--jobs", "1", dir)
	eight := runScanCLI(t, nil, "scan", "--format", "json", "--fail-on", "never", "--jobs", "8", dir)
	if one.code != 0 || eight.code != 0 {
		t.Fatalf("scan --fail-on never: exit %d and %d\n%s", one.code, eight.code, one.stderr)
	}
	if one.stdout != eight.stdout {
		t.Fatalf("scan --jobs 1 and --jobs 8 differ:\n%s\n---\n%s", one.stdout, eight.stdout)
	}
	if one.stderr != eight.stderr {
		t.Errorf("stderr differs between --jobs 1 and --jobs 8:\n%s\n---\n%s", one.stderr, eight.stderr)
	}
	rep := decodeReport(t, one.stdout)

	// The inputs are the captures, in sorted order (the corrupt gzip included: it
	// is read in part, as check reads it, and named on stderr).
	var names []string
	for _, in := range rep.Inputs {
		names = append(names, in.Name)
	}
	if !slices.Equal(names, captures) {
		t.Fatalf("inputs:\n%s\nwant:\n%s", strings.Join(names, "\n"), strings.Join(captures, "\n"))
	}

	// Per file: the sessions of check on that file alone.
	bySource := map[string][]json.RawMessage{}
	for _, raw := range rep.Sessions {
		s := decodeSession(t, raw)
		bySource[s.Input] = append(bySource[s.Input], raw)
	}
	findings := 0
	for _, name := range captures {
		c := runScanCLI(t, nil, "check", "--format", "json", "--fail-on", "never", name)
		want := decodeReport(t, c.stdout)
		got := bySource[name]
		if len(got) != len(want.Sessions) {
			t.Errorf("%s: scan has %d sessions, check %d", name, len(got), len(want.Sessions))
			continue
		}
		for i := range got {
			if !bytes.Equal(compactJSON(t, got[i]), compactJSON(t, want.Sessions[i])) {
				t.Errorf("%s: session %d differs:\nscan:  %s\ncheck: %s", name, i+1, compactJSON(t, got[i]), compactJSON(t, want.Sessions[i]))
			}
			findings += len(decodeSession(t, got[i]).Findings)
		}
	}
	if findings == 0 {
		t.Fatal("the mixed archive produced no finding: the comparison proves nothing")
	}
	// Findings the captures are known for, by rule, line and message.
	wantFindings := []struct{ input, rule string }{
		{"envelope.jsonl", "MCP2002"}, {"bare.jsonl", "MCP2002"}, {"gosdk.log", "MCP2002"},
		{"http/sampling.har", "MCP2002"}, {"2026/12/subscribe.jsonl.zst", "MCP2004"},
		{"2026/11/silent-change.jsonl", "MCP2005"},
	}
	for _, w := range wantFindings {
		found := false
		for _, raw := range bySource[filepath.Join(dir, w.input)] {
			for _, f := range decodeSession(t, raw).Findings {
				found = found || (f.Rule == w.rule && f.Line > 0 && f.Message != "")
			}
		}
		if !found {
			t.Errorf("%s: no %s finding in the scan", w.input, w.rule)
		}
	}

	// The whole documents equal check's over the directory, for every shared format.
	for _, format := range []string{"json", "jsonl", "sarif", "junit"} {
		c := runScanCLI(t, nil, "check", "--format", format, "--fail-on", "never", dir)
		for _, jobs := range []string{"1", "2", "8"} {
			s := runScanCLI(t, nil, "scan", "--format", format, "--fail-on", "never", "--jobs", jobs, dir)
			if s.stdout != c.stdout {
				t.Errorf("--format %s --jobs %s: scan and check over the directory differ:\n%s\n---\n%s", format, jobs, s.stdout, c.stdout)
			}
		}
	}

	// What was not read or not judged is in the artifact, each with its kind
	// (issue 12), as check lists it (the documents are equal above).
	var doc struct {
		Errors []struct{ Input, Kind, Message string }
	}
	if err := json.Unmarshal([]byte(runScanCLI(t, nil, "scan", "--format", "json", "--fail-on", "never", dir).stdout), &doc); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, e := range doc.Errors {
		rel, _ := filepath.Rel(dir, e.Input)
		kinds[filepath.ToSlash(rel)] = e.Kind
		if e.Message == "" {
			t.Errorf("%s: an error without a message", rel)
		}
	}
	for input, kind := range map[string]string{"pipe.jsonl": "skipped", "zero.log": "skipped", "loop.jsonl": "skipped",
		"dangling.jsonl": "skipped", "http/up": "skipped", "broken.jsonl.gz": "read-in-part", "notes.txt": "no-frames"} {
		if kinds[input] != kind {
			t.Errorf("%s: kind %q in the JSON errors, want %q (errors: %v)", input, kinds[input], kind, doc.Errors)
		}
	}

	// What the walk did not read is named on stderr, one line each, and never read.
	for _, want := range []string{
		`pipe.jsonl: skipped: a named pipe (FIFO): only regular files are read from a directory`,
		`zero.log: skipped: a symlink to a character device: only regular files are read from a directory`,
		`loop.jsonl: skipped: a symlink loop: too many levels of symbolic links`,
		`dangling.jsonl: skipped: a symlink to nothing: no such file or directory`,
		`http/up: skipped: a symlink loop: it leads back to `,
		`broken.jsonl.gz: read in part: line 1: `,
		`notes.txt: cannot judge: this log holds no frames`,
	} {
		if !strings.Contains(one.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, one.stderr)
		}
	}
	// A file not named as a capture is not read, and said to be left (issue 28).
	if !strings.Contains(one.stderr, "mcpsleuth: 1 entry of the directories given not read (") || !strings.Contains(one.stderr, "README.md): not a capture's name") {
		t.Errorf("the file not named as a capture was not said to be left unread:\n%s", one.stderr)
	}
	if strings.Contains(one.stderr, "README.md: ") {
		t.Errorf("a file that is not named as a capture was read:\n%s", one.stderr)
	}
}

func compactJSON(t *testing.T, raw json.RawMessage) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestScanSummaryAddsUpTheReports: the text summary's counts, rule table, pair
// table and unread list are those of the JSON report of the same scan.
func TestScanSummaryAddsUpTheReports(t *testing.T) {
	dir, _ := mixedArchive(t)
	rep := decodeReport(t, runScanCLI(t, nil, "scan", "--format", "json", "--fail-on", "never", dir).stdout)
	text := runScanCLI(t, nil, "scan", "--jobs", "3", dir)
	if text.code != 1 {
		t.Errorf("scan of an archive with errors: exit %d, want 1", text.code)
	}
	out := text.stdout
	frames := 0
	for _, in := range rep.Inputs {
		frames += in.Frames
	}
	head := fmt.Sprintf("scanned   %d files, %d sessions, %d frames, ", len(rep.Inputs), rep.Summary.Sessions, frames)
	if !strings.HasPrefix(out, head) {
		t.Errorf("summary starts %q, want %q", firstLine(out), head)
	}
	if !regexp.MustCompile(`(?m)^time      \S+, [0-9.]+ MB/s, 3 jobs$`).MatchString(out) {
		t.Errorf("no time line with MB/s and 3 jobs:\n%s", out)
	}
	f := rep.Summary.Findings
	wantFindings := fmt.Sprintf("findings  %d errors, %d warnings, %d info findings", f["error"], f["warning"], f["info"])
	if !strings.Contains(out, wantFindings) {
		t.Errorf("summary lacks %q:\n%s", wantFindings, out)
	}

	// Expected tables, computed here from the sessions of the JSON report.
	type pairKey struct{ client, server string }
	type pair struct {
		sessions, flagged int
		rules             map[string]int
	}
	pairs := map[pairKey]*pair{}
	byRule := map[string]map[string]int{}
	for _, raw := range rep.Sessions {
		s := decodeSession(t, raw)
		k := pairKey{strings.TrimSpace(s.Client.Name + " " + s.Client.Version), strings.TrimSpace(s.Server.Name + " " + s.Server.Version)}
		p := pairs[k]
		if p == nil {
			p = &pair{rules: map[string]int{}}
			pairs[k] = p
		}
		p.sessions++
		if len(s.Findings) > 0 {
			p.flagged++
		}
		seen := map[string]bool{}
		for _, fd := range s.Findings {
			if byRule[fd.Rule] == nil {
				byRule[fd.Rule] = map[string]int{}
			}
			byRule[fd.Rule][fd.Severity]++
			if !seen[fd.Rule] {
				seen[fd.Rule] = true
				p.rules[fd.Rule]++
			}
		}
	}
	rows := tableRows(out)
	for id, sev := range byRule {
		want := []string{id, "", fmt.Sprint(sev["error"]), fmt.Sprint(sev["warning"]), fmt.Sprint(sev["info"])}
		if !hasRow(rows, want) {
			t.Errorf("rules table lacks the row %q:\n%s", want, out)
		}
	}
	for k, p := range pairs {
		var rules []string
		for id, n := range p.rules {
			rules = append(rules, fmt.Sprintf("%s:%d", id, n))
		}
		sort.Strings(rules)
		rs := strings.Join(rules, ", ")
		if rs == "" {
			rs = "-"
		}
		client, server := k.client, k.server
		if client == "" {
			client = "(unknown)"
		}
		if server == "" {
			server = "(unknown)"
		}
		want := []string{client, server, fmt.Sprint(p.sessions), fmt.Sprint(p.flagged), rs}
		if !hasRow(rows, want) {
			t.Errorf("pairs table lacks the row %q:\n%s", want, out)
		}
	}
	for _, want := range [][]string{
		{filepath.Join(dir, "pipe.jsonl"), "skipped: a named pipe (FIFO): only regular files are read from a directory"},
		{filepath.Join(dir, "broken.jsonl.gz"), ""},
		{filepath.Join(dir, "notes.txt"), ""},
	} {
		if !hasRow(rows, want) {
			t.Errorf("unread table lacks %q:\n%s", want, out)
		}
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// tableRows reads the rows of the summary's tables back. The rules table has a
// line a row; the others have lines between their rows, and the lines of a row
// are joined cell by cell (a space between the pieces).
func tableRows(text string) [][]string {
	var rows [][]string
	var cur []string
	lineARow := false
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "│") {
			if cur != nil {
				rows = append(rows, cur)
			}
			cur = nil
			continue
		}
		cells := strings.Split(strings.Trim(line, "│"), "│")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		switch {
		case cells[0] == "RULE":
			lineARow = true
		case cells[0] == "CLIENT" || cells[0] == "FILE":
			lineARow = false
		}
		if cur == nil || lineARow {
			if cur != nil {
				rows = append(rows, cur)
			}
			cur = cells
			continue
		}
		for i, c := range cells {
			if c != "" && i < len(cur) {
				cur[i] = strings.TrimSpace(cur[i] + " " + c)
			}
		}
	}
	if cur != nil {
		rows = append(rows, cur)
	}
	return rows
}

// hasRow reports whether a row matches want ("" matches any cell), spaces
// aside (a cell wrapped over lines was joined with spaces).
func hasRow(rows [][]string, want []string) bool {
	for _, r := range rows {
		if len(r) != len(want) {
			continue
		}
		ok := true
		for i := range want {
			ok = ok && (want[i] == "" || strings.ReplaceAll(r[i], " ", "") == strings.ReplaceAll(want[i], " ", ""))
		}
		if ok {
			return true
		}
	}
	return false
}

// TestScanShardsAddUpToTheWholeScan: the shards of a scan, together, hold every
// input, finding and skipped entry of the whole scan exactly once.
func TestScanShardsAddUpToTheWholeScan(t *testing.T) {
	dir, captures := mixedArchive(t)
	whole := runScanCLI(t, nil, "scan", "--format", "jsonl", "--fail-on", "never", dir)
	wholeInputs := decodeReport(t, runScanCLI(t, nil, "scan", "--format", "json", "--fail-on", "never", dir).stdout).Inputs
	const n = 3
	var lines, inputs, skipped []string
	nonEmpty := 0
	for k := range n {
		shard := fmt.Sprintf("%d/%d", k, n)
		part := runScanCLI(t, nil, "scan", "--format", "jsonl", "--fail-on", "never", "--shard", shard, dir)
		if part.code == 2 {
			// A share with nothing readable in it is possible, but not here.
			t.Fatalf("shard %s: exit 2: %s", shard, part.stderr)
		}
		if part.stdout != "" {
			nonEmpty++
		}
		lines = append(lines, splitLines(part.stdout)...)
		rep := decodeReport(t, runScanCLI(t, nil, "scan", "--format", "json", "--fail-on", "never", "--shard", shard, dir).stdout)
		for _, in := range rep.Inputs {
			inputs = append(inputs, in.Name)
		}
		for _, l := range splitLines(part.stderr) {
			if strings.Contains(l, ": skipped: ") {
				skipped = append(skipped, l)
			}
		}
	}
	if nonEmpty < 2 {
		t.Errorf("only %d of %d shards hold findings: the shares are not spread", nonEmpty, n)
	}
	var want []string
	for _, in := range wholeInputs {
		want = append(want, in.Name)
	}
	sort.Strings(inputs)
	sort.Strings(want)
	if !slices.Equal(inputs, want) || len(want) != len(captures) {
		t.Errorf("the shards' inputs:\n%s\nthe whole scan's:\n%s", strings.Join(inputs, "\n"), strings.Join(want, "\n"))
	}
	wantLines := splitLines(whole.stdout)
	sort.Strings(lines)
	sort.Strings(wantLines)
	if !slices.Equal(lines, wantLines) {
		t.Errorf("the shards' findings (%d lines) are not the whole scan's (%d lines)", len(lines), len(wantLines))
	}
	var wantSkipped []string
	for _, l := range splitLines(whole.stderr) {
		if strings.Contains(l, ": skipped: ") {
			wantSkipped = append(wantSkipped, l)
		}
	}
	sort.Strings(skipped)
	sort.Strings(wantSkipped)
	if !slices.Equal(skipped, wantSkipped) || len(wantSkipped) != 5 {
		t.Errorf("skipped in the shards:\n%s\nin the whole scan:\n%s", strings.Join(skipped, "\n"), strings.Join(wantSkipped, "\n"))
	}
}

func splitLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// TestCheckDirectorySkipsWhatIsNotARegularFile: check DIR reads the same files as
// scan, names the FIFO, the device link and the loops, and never blocks on them.
func TestCheckDirectorySkipsWhatIsNotARegularFile(t *testing.T) {
	dir, captures := mixedArchive(t)
	c := runScanCLI(t, nil, "check", "--format", "json", dir)
	if c.code != 2 {
		t.Errorf("check over a directory with a corrupt gzip: exit %d, want 2", c.code)
	}
	var names []string
	for _, in := range decodeReport(t, c.stdout).Inputs {
		names = append(names, in.Name)
	}
	if !slices.Equal(names, captures) {
		t.Errorf("check read:\n%s\nwant:\n%s", strings.Join(names, "\n"), strings.Join(captures, "\n"))
	}
	for _, want := range []string{"pipe.jsonl: skipped: a named pipe", "zero.log: skipped: a symlink to a character device", "loop.jsonl: skipped: a symlink loop"} {
		if !strings.Contains(c.stderr, want) {
			t.Errorf("check's stderr lacks %q:\n%s", want, c.stderr)
		}
	}
}

// TestScanEscapesFileNames: a file name with terminal escapes reaches stderr and
// the summary escaped.
func TestScanEscapesFileNames(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "ok.jsonl"), fixture(t, "real/ts-everything-healthy.jsonl"))
	hostile := filepath.Join(dir, "evil\x1b]0;pwned\a\x1b[2J.jsonl")
	if err := syscall.Mkfifo(hostile, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{{"scan", dir}, {"check", dir}} {
		r := runScanCLI(t, nil, cmd...)
		if strings.ContainsAny(r.stderr+r.stdout, "\x1b\a") {
			t.Errorf("%s: a raw control character reached the output:\n%q", cmd[0], r.stderr+r.stdout)
		}
		if !strings.Contains(r.stderr, `evil\x1b]0;pwned\x07\x1b[2J.jsonl: skipped: a named pipe`) {
			t.Errorf("%s: stderr does not name the pipe, escaped:\n%q", cmd[0], r.stderr)
		}
	}
}

// TestScanExitCodes: 2 only when nothing could be read; 1 for findings at or
// above --fail-on, or a file not read or not judged; usage errors are 2.
func TestScanExitCodes(t *testing.T) {
	dir := t.TempDir()
	healthy := filepath.Join(dir, "healthy.jsonl")
	write(t, healthy, fixture(t, "real/ts-everything-healthy.jsonl"))
	flagged := filepath.Join(dir, "flagged.jsonl")
	write(t, flagged, fixture(t, "real/ts-client-go-server-sampling-undeclared.jsonl"))
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"scan", healthy}, 0, ""},
		{[]string{"scan", flagged}, 1, ""},
		{[]string{"scan", "--fail-on", "never", flagged}, 0, ""},
		{[]string{"scan", healthy, filepath.Join(dir, "missing.jsonl")}, 1, "missing.jsonl: cannot read: no such file or directory"},
		{[]string{"scan", filepath.Join(dir, "missing.jsonl")}, 2, "mcpsleuth: scan: none of the 1 inputs could be read"},
		{[]string{"scan", empty}, 2, "mcpsleuth: scan: no capture was found"},
		{[]string{"scan", filepath.Join(dir, "*.nothing")}, 2, "*.nothing: cannot read: no such file or directory"},
		{[]string{"check", filepath.Join(dir, "*.nothing")}, 2, "*.nothing: cannot read: no such file or directory"},
		{[]string{"scan", filepath.Join(dir, "h*.jsonl")}, 0, ""},
		{[]string{"scan"}, 2, "mcpsleuth: scan: give the directories, patterns or files to scan"},
		{[]string{"scan", "--jobs", "0", dir}, 2, "mcpsleuth: --jobs must be at least 1, not 0"},
		{[]string{"scan", "--shard", "3/3", dir}, 2, `mcpsleuth: --shard "3/3": K must be from 0 to 2`},
		{[]string{"scan", "--shard", "x", dir}, 2, `mcpsleuth: --shard must be K/N such as 0/4`},
		{[]string{"scan", "--format", "markdown", dir}, 2, `mcpsleuth: --format must be one of text, json, jsonl, sarif, junit, lines, codequality, not "markdown"`},
	}
	for _, c := range cases {
		r := runScanCLI(t, nil, c.args...)
		if r.code != c.code {
			t.Errorf("%q: exit %d, want %d\n%s", c.args, r.code, c.code, r.stderr)
		}
		if !strings.Contains(r.stderr, c.stderr) {
			t.Errorf("%q: stderr %q lacks %q", c.args, r.stderr, c.stderr)
		}
	}
	// A glob matches like a walk: the summary of h*.jsonl is the healthy file alone.
	r := runScanCLI(t, nil, "scan", "--format", "json", filepath.Join(dir, "h*.jsonl"))
	rep := decodeReport(t, r.stdout)
	if len(rep.Inputs) != 1 || rep.Inputs[0].Name != healthy {
		t.Errorf("the glob read %+v, want %s alone", rep.Inputs, healthy)
	}
}

// TestScanGoesOnPastAnUnreadableFile: a file that cannot be opened is named, with
// why, and the other files are scanned (root opens every file: skipped there).
func TestScanGoesOnPastAnUnreadableFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root, which opens a file without permissions: nothing to test")
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.jsonl"), fixture(t, "real/ts-everything-healthy.jsonl"))
	locked := filepath.Join(dir, "b.jsonl")
	write(t, locked, fixture(t, "real/ts-everything-healthy.jsonl"))
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	r := runScanCLI(t, nil, "scan", dir)
	if r.code != 1 {
		t.Errorf("exit %d, want 1 (a file not read is never a clean pass)", r.code)
	}
	if !strings.Contains(r.stderr, locked+": cannot read: permission denied") {
		t.Errorf("stderr %q", r.stderr)
	}
	if !strings.Contains(r.stdout, "scanned   1 file, 1 session") || !hasRow(tableRows(r.stdout), []string{locked, "cannot read: permission denied"}) {
		t.Errorf("summary:\n%s", r.stdout)
	}
}

// TestScanSummaryFitsTheWidth: every line of the summary fits COLUMNS, and the
// summary is the same for any --jobs but for its time line.
func TestScanSummaryFitsTheWidth(t *testing.T) {
	dir, _ := mixedArchive(t)
	for _, cols := range []int{80, 100, 132} {
		env := map[string]string{"COLUMNS": fmt.Sprint(cols)}
		one := runScanCLI(t, env, "scan", "--jobs", "1", dir).stdout
		eight := runScanCLI(t, env, "scan", "--jobs", "8", dir).stdout
		for _, line := range strings.Split(one, "\n") {
			if n := utf8.RuneCountInString(line); n > cols {
				t.Errorf("COLUMNS=%d: a line of %d columns:\n%s", cols, n, line)
			}
		}
		timeLine := regexp.MustCompile(`(?m)^time .*\n`)
		if timeLine.ReplaceAllString(one, "") != timeLine.ReplaceAllString(eight, "") {
			t.Errorf("COLUMNS=%d: the summaries of --jobs 1 and --jobs 8 differ:\n%s\n---\n%s", cols, one, eight)
		}
	}
}

// TestCheckDirectoryWithAnUnlistableSubdirectory: check reads the rest of the
// directory, names the one it cannot list, and exits 2 (an input it could not
// read); scan names it and exits 1 (root lists every directory: skipped there).
func TestCheckDirectoryWithAnUnlistableSubdirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root, which lists a directory without permissions: nothing to test")
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.jsonl"), fixture(t, "real/ts-everything-healthy.jsonl"))
	locked := filepath.Join(dir, "locked")
	write(t, filepath.Join(locked, "b.jsonl"), fixture(t, "real/ts-everything-healthy.jsonl"))
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(locked, 0o755)
	c := runScanCLI(t, nil, "check", "--format", "json", dir)
	if c.code != 2 || !strings.Contains(c.stderr, locked+": cannot read: permission denied") {
		t.Errorf("check: exit %d, stderr %q", c.code, c.stderr)
	}
	if rep := decodeReport(t, c.stdout); len(rep.Inputs) != 1 || rep.Inputs[0].Name != filepath.Join(dir, "a.jsonl") {
		t.Errorf("check read %+v", rep.Inputs)
	}
	s := runScanCLI(t, nil, "scan", dir)
	if s.code != 1 || !strings.Contains(s.stderr, locked+": skipped: cannot list the directory: permission denied") {
		t.Errorf("scan: exit %d, stderr %q", s.code, s.stderr)
	}
}

// Each job of a scan analyses a file of its own: the soft memory limit is raised to
// one analysis's per job (at the default --max-line, 128 MiB each), and the
// collector's pacing (GOGC 400 during a scan) is put back when it ends.
func TestScanMemoryLimitPerJob(t *testing.T) {
	if os.Getenv("GOMEMLIMIT") != "" || os.Getenv("GOGC") != "" {
		t.Skip("GOMEMLIMIT or GOGC is set: the limits are the environment's")
	}
	before := debug.SetMemoryLimit(128 << 20) // what Main sets at the default --max-line
	defer debug.SetMemoryLimit(before)
	gc := debug.SetGCPercent(100)
	defer debug.SetGCPercent(gc)
	if r := runScanCLI(t, nil, "scan", "--quiet", "--jobs", "7", "--fail-on", "never", filepath.Join("..", "..", "fixtures", "real")); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got, want := debug.SetMemoryLimit(-1), int64(7*128<<20); got < want {
		t.Errorf("soft memory limit %d after a scan of 7 jobs, want at least %d", got, want)
	}
	// --jobs is clamped to the files (and to four a core): a huge --jobs over one
	// file is one job, one analysis's limit (issue 29: 100,000 jobs took 470 MiB).
	debug.SetMemoryLimit(128 << 20)
	r := runScanCLI(t, nil, "scan", "--jobs", "100000", "--fail-on", "never", filepath.Join("..", "..", "fixtures", "real", "ts-everything-healthy.jsonl"))
	if r.code != 0 || !strings.Contains(r.stdout, ", 1 job\n") {
		t.Errorf("exit %d, want a summary of 1 job: %s", r.code, r.stdout)
	}
	if got := debug.SetMemoryLimit(-1); got != 128<<20 {
		t.Errorf("soft memory limit %d after a scan of one file with --jobs 100000, want %d", got, 128<<20)
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC %d after the scan, want 100 back", got)
	}
}
