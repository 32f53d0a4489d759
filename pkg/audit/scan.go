package audit

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// Emission is one place in the source that sends (or may send) an MCP method.
type Emission struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Column   int    `json:"column"` // 1-based byte column
	Method   string `json:"method"`
	Language string `json:"language"`
	// Via is how the line sends it: the method string itself ("literal"), or the
	// SDK helper or constant named there.
	Via  string `json:"via"`
	SDKs string `json:"sdks,omitempty"`
}

// languages maps file extensions to the languages audit reads.
var languages = map[string]string{
	".ts": "TypeScript", ".tsx": "TypeScript", ".mts": "TypeScript", ".cts": "TypeScript",
	".js": "JavaScript", ".jsx": "JavaScript", ".mjs": "JavaScript", ".cjs": "JavaScript",
	".py": "Python", ".go": "Go", ".cs": "C#", ".java": "Java", ".kt": "Kotlin", ".kts": "Kotlin",
}

// skippedDirs are directories of dependencies, build output and tooling: not the
// program's own source.
var skippedDirs = map[string]bool{
	".git": true, ".hg": true, ".svn": true, "node_modules": true, "vendor": true, "third_party": true,
	"dist": true, "build": true, "out": true, "target": true, "bin": true, "obj": true, ".gradle": true,
	".venv": true, "venv": true, "__pycache__": true, "site-packages": true, ".tox": true,
	".next": true, ".nuxt": true, "coverage": true, ".idea": true, ".vscode": true,
}

// testDirs hold tests, skipped unless Options.Tests.
var testDirs = map[string]bool{"test": true, "tests": true, "__tests__": true, "testdata": true}

// Options configure a scan.
type Options struct {
	// Tests includes test files and directories (a test drives the program; its
	// calls are not the program's emissions).
	Tests bool
}

// Stats counts what a scan read and left out.
type Stats struct {
	Files     int            `json:"files"`
	Languages map[string]int `json:"languages"`
	Binary    int            `json:"binarySkipped"`
	Tests     int            `json:"testsSkipped"`
	Dirs      int            `json:"dirsSkipped"`
	Unread    []string       `json:"unread,omitempty"`
	// NotListed counts the places beyond the first MaxSitesPerMethod of a method
	// in one file: seen, judged with the rest, not listed one by one.
	NotListed int `json:"sitesNotListed,omitempty"`
}

// maxFragment bounds the part of a line read at once. A file with a longer line
// is minified or generated code (a bundle): it is not the program's source, and
// is left unread, said with its line (whatever its name: .min.js files are left
// by name too).
const maxFragment = 64 << 10

// MaxSitesPerMethod bounds the places of one method listed for one file: a
// generated file that sends a method from 100,000 lines is judged the same with
// its first 20 listed and the others counted (Stats.NotListed), in memory that
// does not grow with it.
const MaxSitesPerMethod = 20

// Scanner finds emissions in source trees.
type Scanner struct {
	opt     Options
	helpers helperIndex
	stats   Stats
	found   []Emission
	// sites counts the places of each method in the file being read.
	sites map[string]int
}

// NewScanner returns a scanner with the helper table.
func NewScanner(opt Options) *Scanner {
	return &Scanner{opt: opt, helpers: indexHelpers(helpers), stats: Stats{Languages: map[string]int{}}}
}

// Scan reads a file or walks a directory. A root that cannot be read at all is
// an error; a file inside that cannot be read is listed in Stats.Unread.
func (s *Scanner) Scan(root string) error {
	st, err := os.Stat(root)
	if err != nil {
		return fmt.Errorf("mcpsleuth: %s: cannot read: %w", root, unwrapPath(err))
	}
	if !st.IsDir() {
		if _, ok := languages[strings.ToLower(filepath.Ext(root))]; !ok {
			return fmt.Errorf("mcpsleuth: %s: not a source file audit reads (TypeScript, JavaScript, Python, Go, C#, Java, Kotlin)", root)
		}
		s.file(root)
		return nil
	}
	var names []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			s.stats.Unread = append(s.stats.Unread, fmt.Sprintf("%s: %v", path, unwrapPath(err)))
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (skippedDirs[name] || (!s.opt.Tests && testDirs[name]) || (strings.HasPrefix(name, ".") && name != ".")) {
				s.stats.Dirs++
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if _, ok := languages[strings.ToLower(filepath.Ext(name))]; !ok || skippedFile(name) {
			return nil
		}
		if !s.opt.Tests && isTestFile(name) {
			s.stats.Tests++
			return nil
		}
		names = append(names, path)
		return nil
	})
	if err != nil {
		return fmt.Errorf("mcpsleuth: %s: %w", root, err)
	}
	sort.Strings(names)
	for _, name := range names {
		s.file(name)
	}
	return nil
}

// skippedFile: generated or minified code and type declarations.
func skippedFile(name string) bool {
	lower := strings.ToLower(name)
	return strings.HasSuffix(lower, ".min.js") || strings.HasSuffix(lower, ".d.ts") || strings.HasSuffix(lower, ".pb.go") || strings.HasSuffix(lower, ".designer.cs")
}

// isTestFile: the naming conventions of tests in each language (foo_test.go,
// test_foo.py, foo.test.ts, foo.spec.js, FooTest.java, FooTests.cs).
func isTestFile(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	base := strings.TrimSuffix(name, filepath.Ext(name))
	switch ext {
	case ".go":
		return strings.HasSuffix(base, "_test")
	case ".py":
		return strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test")
	case ".java", ".kt", ".kts", ".cs":
		return strings.HasSuffix(base, "Test") || strings.HasSuffix(base, "Tests")
	}
	lower := strings.ToLower(base)
	return strings.HasSuffix(lower, ".test") || strings.HasSuffix(lower, ".spec")
}

// file scans one file, line by line.
func (s *Scanner) file(path string) {
	f, err := os.Open(path)
	if err != nil {
		s.stats.Unread = append(s.stats.Unread, fmt.Sprintf("%s: %v", path, unwrapPath(err)))
		return
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, maxFragment)
	head, _ := br.Peek(8000)
	if bytes.IndexByte(head, 0) >= 0 {
		s.stats.Binary++
		return
	}
	lang := languages[strings.ToLower(filepath.Ext(path))]
	before, notListed := len(s.found), s.stats.NotListed
	s.sites = map[string]int{}
	seen := map[string]bool{} // method per line: one emission a line and method
	for line := 1; ; line++ {
		text, isPrefix, err := br.ReadLine()
		if isPrefix {
			// Minified or generated: what was found in it is not the program's.
			s.found, s.stats.NotListed = s.found[:before], notListed
			s.stats.Unread = append(s.stats.Unread, fmt.Sprintf("%s:%d: a line longer than %d KiB: minified or generated code, not read", path, line, maxFragment>>10))
			return
		}
		if len(text) > 0 && !isComment(text, lang) {
			s.line(path, lang, line, text, seen)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.stats.Unread = append(s.stats.Unread, fmt.Sprintf("%s:%d: %v", path, line, err))
			}
			break
		}
		clear(seen)
	}
	s.stats.Files++
	s.stats.Languages[lang]++
}

// isComment: a line that is a comment as a whole (its first characters say so).
// Comments at the end of code, and block comments without a leading '*', are
// read as code.
func isComment(line []byte, lang string) bool {
	t := bytes.TrimLeft(line, " \t")
	switch {
	case bytes.HasPrefix(t, []byte("//")), bytes.HasPrefix(t, []byte("/*")), bytes.HasPrefix(t, []byte("*")):
		return lang != "Python"
	case bytes.HasPrefix(t, []byte("#")):
		return lang == "Python"
	}
	return false
}

// methodLiteral matches a quoted string shaped like an MCP method name.
var methodLiteral = regexp.MustCompile("[\"'`]([a-z][A-Za-z_]*(?:/[A-Za-z_]+)+)[\"'`]")

// identifier matches a name, with what precedes it.
var identifier = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

func (s *Scanner) line(path, lang string, n int, text []byte, seen map[string]bool) {
	add := func(col int, method, via, sdks string) {
		if seen[method] {
			return
		}
		seen[method] = true
		if s.sites[method]++; s.sites[method] > MaxSitesPerMethod {
			s.stats.NotListed++
			return
		}
		s.found = append(s.found, Emission{File: path, Line: n, Column: col + 1, Method: method, Language: lang, Via: via, SDKs: sdks})
	}
	if bytes.IndexByte(text, '/') >= 0 {
		for _, m := range methodLiteral.FindAllSubmatchIndex(text, -1) {
			if method := string(text[m[2]:m[3]]); spec.KnownMethod(method) {
				add(m[0], method, "literal", "")
			}
		}
	}
	for _, m := range identifier.FindAllIndex(text, -1) {
		h := s.helpers[string(text[m[0]:m[1]])]
		if h == nil {
			continue
		}
		if !h.constant && !(m[0] > 0 && text[m[0]-1] == '.' && followedByCall(text[m[1]:])) {
			continue
		}
		add(m[0], h.method, h.name, h.sdks)
	}
}

// followedByCall: the rest of the line opens a call (generic arguments allowed).
func followedByCall(rest []byte) bool {
	rest = bytes.TrimLeft(rest, " \t")
	if len(rest) > 0 && rest[0] == '<' { // createMessage<T>(...)
		if i := bytes.IndexByte(rest, '>'); i > 0 {
			rest = bytes.TrimLeft(rest[i+1:], " \t")
		}
	}
	return len(rest) > 0 && rest[0] == '('
}

// Emissions returns what the scans found, in file and line order.
func (s *Scanner) Emissions() []Emission {
	out := append([]Emission(nil), s.found...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return out[i].Column < out[j].Column
	})
	return out
}

// Stats says what the scans read.
func (s *Scanner) Stats() Stats { return s.stats }

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
