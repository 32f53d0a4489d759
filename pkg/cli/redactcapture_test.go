package cli_test

import (
	"encoding/json"
	"github.com/mcpsleuth/mcpsleuth/pkg/cli"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// findingKeys runs check on a capture and lists its findings as rule, line and
// fingerprint (never the message: the copy's messages quote pseudonyms).
func findingKeys(t *testing.T, path string) ([]string, bool) {
	t.Helper()
	code, out, _ := run(t, "check", "--format", "json", "--fail-on", "never", path)
	if code != 0 {
		return nil, false
	}
	var rep struct {
		Sessions []struct {
			Findings []struct {
				Rule        string `json:"rule"`
				Line        int    `json:"line"`
				Fingerprint string `json:"fingerprint"`
			} `json:"findings"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%s: the report is not JSON: %v", path, err)
	}
	var keys []string
	for _, s := range rep.Sessions {
		for _, f := range s.Findings {
			keys = append(keys, f.Rule+" "+itoa(f.Line)+" "+f.Fingerprint)
		}
	}
	return keys, true
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// intendedDifferences are the fixtures whose copy is judged otherwise, and why.
var intendedDifferences = map[string]string{
	// MCP1011 quotes the request's URL path, whose token the copy replaces: the
	// path is part of the message's shape, and so of the fingerprint.
	"redact-url-path-token.har/":         "a token in a URL path",
	"redact-url-path-token.har/--values": "a token in a URL path",
	// The tool's const is a string that is not UTF-8: the kept definition and
	// the argument decode differently, so the argument is not known as the
	// const and is replaced, which breaks the schema (MCP4003 fires).
	"invalid-utf8-before-escape.jsonl/--values": "a const that is not UTF-8",
	// The error message echoes the argument, which --values replaces there too;
	// MCP3010 quotes the message, and so its fingerprint changes.
	"redact-quoted-echo.jsonl/--values": "an error message that echoes an argument",
}

// TestRedactKeepsFindings (issue 32): the copy redact writes of every fixture,
// with and without --values, gets the findings of the fixture (rule, line and
// fingerprint), but for the intended differences above; a capture with nothing
// to replace is copied byte for byte.
func TestRedactKeepsFindings(t *testing.T) {
	var inputs []string
	err := filepath.WalkDir(filepath.Join("..", "..", "fixtures"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch filepath.Ext(path) {
		case ".want", ".md", ".txtar", ".go":
			return nil
		}
		inputs = append(inputs, path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) < 300 {
		t.Fatalf("only %d fixtures found", len(inputs))
	}
	dir := t.TempDir()
	identical, compared := 0, 0
	for _, in := range inputs {
		want, ok := findingKeys(t, in)
		if !ok {
			continue // not a capture check reads: nothing to keep
		}
		for _, mode := range []string{"", "--values"} {
			out := filepath.Join(dir, "copy"+filepath.Ext(in))
			args := []string{"redact", "--key", "test", "-o", out, in}
			if mode != "" {
				args = append(args, mode)
			}
			code, _, stderr := run(t, args...)
			if code != 0 {
				t.Errorf("redact %s %s: exit %d: %s", mode, in, code, stderr)
				continue
			}
			compared++
			got, ok := findingKeys(t, out)
			same := ok && strings.Join(got, "\n") == strings.Join(want, "\n")
			why, intended := intendedDifferences[filepath.Base(in)+"/"+mode]
			switch {
			case !same && !intended:
				t.Errorf("redact %s %s: the copy's findings differ:\n got  %q\n want %q", mode, in, got, want)
			case same && intended:
				t.Errorf("redact %s %s: listed as differing (%s), but the findings are the same", mode, in, why)
			}
			if mode == "" && strings.Contains(stderr, "nothing replaced") {
				a, _ := os.ReadFile(in)
				b, _ := os.ReadFile(out)
				if string(a) != string(b) {
					t.Errorf("redact %s: nothing was replaced, but the copy differs from the capture", in)
				}
				identical++
			}
		}
	}
	if identical < 100 || compared < 500 {
		t.Errorf("only %d copies compared, %d byte for byte: the test proves little", compared, identical)
	}
}

// TestRedactEnvelopeKeepsFindings: --format envelope writes any capture of a
// stdio session as envelope JSONL in which check finds the rules it finds in
// the capture (as many times each; the lines are the envelope's own), and
// refuses an HTTP capture, saying so. Source files among the fixtures (audit's
// projects, the breadth drivers) are no captures and are left out.
func TestRedactEnvelopeKeepsFindings(t *testing.T) {
	dir := t.TempDir()
	converted, refused := 0, 0
	err := filepath.WalkDir(filepath.Join("..", "..", "fixtures"), func(in string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch filepath.Ext(in) {
		case ".want", ".md", ".txtar", ".go", ".cs", ".mjs", ".js", ".py", ".ts":
			return nil
		}
		if strings.Contains(filepath.ToSlash(in), "/audit/") {
			return nil
		}
		want, ok := findingKeys(t, in)
		if !ok {
			return nil
		}
		out := filepath.Join(dir, "copy.jsonl")
		code, _, stderr := run(t, "redact", "--key", "test", "--format", "envelope", "-o", out, in)
		if code != 0 {
			if !strings.Contains(stderr, "--format envelope does not convert HTTP captures") {
				t.Errorf("redact --format envelope %s: exit %d: %s", in, code, stderr)
			}
			refused++
			return nil
		}
		converted++
		got, ok := findingKeys(t, out)
		if !ok || strings.Join(rulesOf(got), " ") != strings.Join(rulesOf(want), " ") {
			t.Errorf("redact --format envelope %s: the copy's rules differ:\n got  %v\n want %v", in, rulesOf(got), rulesOf(want))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if converted < 200 || refused < 30 {
		t.Errorf("%d converted, %d refused: the test proves little", converted, refused)
	}
}

// rulesOf is the rules of finding keys ("rule line fingerprint"), sorted.
func rulesOf(keys []string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i], _, _ = strings.Cut(k, " ")
	}
	slices.Sort(out)
	return out
}

// TestRedactLeavesNoSecret: no secret of the seeded capture is in its copy, and
// with --values no value either; what the analysis needs stays.
func TestRedactLeavesNoSecret(t *testing.T) {
	const capture = "../report/testdata/captures/secrets.jsonl"
	secrets := []string{"SECRETKEY1234567890abcd", "sk-abcdefghijklmnopqrstuvwx", "eyJhbGciOiJIUzI1", "c2lnbmF0dXJlX2hlcmU",
		"ghp_0123456789abcdefghijABCDEFGHIJ", "AKIAABCDEFGHIJKLMNOP", "xak-", "SECRET-VALUE-META-0001", "SECRET-VALUE-CAPKEY-77",
		"SECRET-VALUE-COOKIE-5"}
	values := []string{"SECRET-VALUE-ARG-1", "SECRET-VALUE-URI-3", "SECRET-VALUE-TEXT-2", "SECRET-VALUE-SSN-7", "SECRET-VALUE-CARD-9",
		"SECRET-VALUE-ERRDATA-6", "SECRET-VALUE-LOG-8", "SECRET-VALUE-PROMPT-10", "SECRET-VALUE-UNANSWERED-11", "SECRET-VALUE-RESNAME-31"}
	kept := []string{`"method":"tools/call"`, `"name":"get_invoice"`, `"protocolVersion":"2025-06-18"`, `"progressToken":"tok-1"`,
		`"code":-32602`, `"type":"text"`, `"level":"info"`, `"ts":"2026-11-30T10:00:01.000Z"`}
	for _, mode := range []string{"", "--values"} {
		args := []string{"redact", "--key", "test", capture}
		if mode != "" {
			args = append(args, mode)
		}
		code, out, stderr := run(t, args...)
		if code != 0 {
			t.Fatalf("redact %s: exit %d: %s", mode, code, stderr)
		}
		leaks := secrets
		if mode != "" {
			leaks = append(leaks, values...)
		} else if !strings.Contains(out, "SECRET-VALUE-ARG-1") || !strings.Contains(out, "Authorization: Bearer redacted-") {
			t.Errorf("redact without --values replaced an argument, or a bearer token's scheme: %s", out)
		}
		for _, s := range leaks {
			if i := strings.Index(out, s); i >= 0 {
				t.Errorf("redact %s: %q left: %q", mode, s, out[max(0, i-60):min(len(out), i+40)])
			}
		}
		for _, k := range kept {
			if !strings.Contains(out, k) {
				t.Errorf("redact %s: %q is gone", mode, k)
			}
		}
		if got, want := strings.Count(out, "\n"), 14; got != want {
			t.Errorf("redact %s: %d lines, want %d", mode, got, want)
		}
		if !strings.Contains(stderr, "14 lines, 12 frames; replaced ") {
			t.Errorf("redact %s: the summary is %q", mode, stderr)
		}
	}
}

// FuzzRedactKeepsFindings: whatever the capture, redact ends (exit 0 when check
// reads it) and check finds in the copy the rules at the lines it finds in the
// capture, with and without --values.
func FuzzRedactKeepsFindings(f *testing.F) {
	for _, seed := range []string{
		"../../fixtures/seeds/sampling-roots-declared.jsonl",
		"../report/testdata/captures/secrets.jsonl",
		"../../fixtures/real/http/go-sdk-post-answers-healthy.har",
		"../../fixtures/real/gosdk-log/ts-client-go-server-sampling-undeclared.log",
	} {
		b, err := os.ReadFile(seed)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, false)
		f.Add(b, true)
	}
	f.Fuzz(func(t *testing.T, capture []byte, values bool) {
		check := func(in []byte) (int, string) {
			var stdout, stderr strings.Builder
			env := cli.Env{Stdin: strings.NewReader(string(in)), Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }}
			code := cli.Run(env, []string{"mcpsleuth", "check", "--format", "jsonl", "--fail-on", "never", "-"})
			var keys []string
			for _, line := range strings.Split(stdout.String(), "\n") {
				var f struct {
					Rule string `json:"rule"`
					Line int    `json:"line"`
				}
				if json.Unmarshal([]byte(line), &f) == nil && f.Rule != "" {
					keys = append(keys, f.Rule+" "+itoa(f.Line))
				}
			}
			return code, strings.Join(keys, "\n")
		}
		code, want := check(capture)
		if code != 0 {
			return
		}
		args := []string{"mcpsleuth", "redact", "--key", "fuzz", "-"}
		if values {
			args = append(args, "--values")
		}
		var copied, stderr strings.Builder
		env := cli.Env{Stdin: strings.NewReader(string(capture)), Stdout: &copied, Stderr: &stderr, Getenv: func(string) string { return "" }}
		if code := cli.Run(env, args); code != 0 {
			t.Fatalf("redact: exit %d: %s", code, stderr.String())
		}
		if _, got := check([]byte(copied.String())); got != want {
			t.Fatalf("the copy's findings differ (values %v):\n got  %s\n want %s\ncopy: %.600q", values, got, want, copied.String())
		}
	})
}

// TestRedactHostileFixtures: the hostile redaction fixtures leave no secret in
// their copy: a password echoed by the server's error and a stderr line, a
// token in a URL path, a session id (and, with --values, the query the server
// quotes back).
func TestRedactHostileFixtures(t *testing.T) {
	for _, c := range []struct {
		capture string
		values  bool
		gone    []string
	}{
		{"../../fixtures/hostile/redact-echoed-secret.jsonl", false, []string{"Tr0ub4dor&3-horse"}},
		{"../../fixtures/hostile/redact-echoed-secret.jsonl", true, []string{"Tr0ub4dor&3-horse", "078-05-1120"}},
		{"../../fixtures/hostile/redact-url-path-token.har", false, []string{"9f86d081884c7d659a2feaa0c55ad015", "c0ffee00-1111-4222-8333-444455556666"}},
	} {
		args := []string{"redact", "--key", "test", c.capture}
		if c.values {
			args = append(args, "--values")
		}
		code, out, stderr := run(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		orig, _ := os.ReadFile(c.capture)
		for _, s := range c.gone {
			if !strings.Contains(string(orig), s) {
				t.Fatalf("%s does not hold %q: the test proves nothing", c.capture, s)
			}
			if i := strings.Index(out, s); i >= 0 {
				t.Errorf("%v: %q left: %q", args, s, out[max(0, i-60):min(len(out), i+40)])
			}
		}
	}
}
