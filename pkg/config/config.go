// Package config reads .mcpsleuth.yaml: the checks a project runs, the severity it
// gives each rule, and when a run fails. It checks the file's structure and values
// (unknown keys, severities, durations), naming the line of every problem; which
// rule IDs exist is the catalogue's to say, so rule names are returned with their
// lines for the caller to check.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
)

// FileName is the name looked for in the working directory and its parents.
const FileName = ".mcpsleuth.yaml"

// fixedKeys are the keys every configuration file may hold, in the order
// `mcpsleuth config` prints them.
var fixedKeys = [...]string{"enable", "disable", "severity", "fail-on", "min-severity", "suppress"}

// OptionKeys are the keys, beyond the fixed ones, that set the options the
// rules declare (such as MCP3008's slow), in catalogue order: those in Counts
// hold a positive whole number, the others a positive duration.
type OptionKeys struct {
	Names, Counts []string
}

// Keys returns the keys a configuration file may hold, in the order `mcpsleuth
// config` prints them: the fixed keys, then the option keys.
func Keys(options OptionKeys) []string {
	return append(fixedKeys[:len(fixedKeys):len(fixedKeys)], options.Names...)
}

// Config is one configuration file, as read.
type Config struct {
	// Path is the file it was read from ("" when there is none).
	Path string
	// Enable and Disable name rules (IDs or names), each with its line.
	Enable, Disable []Named
	// Severity overrides rules' severities.
	Severity []Override
	// FailOn and MinSeverity are severities or "never" (FailOn only); "" when unset.
	FailOn, MinSeverity string
	// Suppress are the findings hidden, each with its reason.
	Suppress []Suppression
	// Durations and Counts are the values of the option keys that were set
	// (the rules' options, by name).
	Durations map[string]time.Duration
	Counts    map[string]int
	// Lines says on which line each key was set.
	Lines map[string]int
}

// Named is a rule named in the file.
type Named struct {
	Rule string
	Line int
}

// Override is a severity given to a rule.
type Override struct {
	Rule     string
	Severity string // error, warning or info
	Line     int
}

// Find returns the configuration file that governs dir: dir's own FileName or
// the nearest parent's ("" when none).
func Find(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		path := filepath.Join(dir, FileName)
		if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
			return path, nil
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("mcpsleuth: %s: %w", path, err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil
		}
		dir = parent
	}
}

// Load reads a configuration file; options are the keys, beyond the fixed
// ones, that set the options the rules declare.
func Load(path string, options OptionKeys) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("mcpsleuth: %s: cannot read the configuration: %w", path, unwrapPath(err))
	}
	return Parse(path, data, options)
}

// maxSize bounds a configuration file: it is a handful of keys.
const maxSize = 1 << 20

// Parse reads a configuration file's contents, as Load; path names it in errors.
func Parse(path string, data []byte, options OptionKeys) (*Config, error) {
	c := &Config{Path: path, Lines: map[string]int{}, Durations: map[string]time.Duration{}, Counts: map[string]int{}}
	keys := Keys(options)
	if len(data) > maxSize {
		return nil, fmt.Errorf("mcpsleuth: %s: a configuration file of %d bytes: too large", path, len(data))
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return c, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("mcpsleuth: %s: %s", path, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(doc.Content) == 0 {
		return c, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, c.errAt(root, "want a mapping of keys (%s), not %s", strings.Join(keys, ", "), describe(root))
	}
	var problems []string
	fail := func(err error) { problems = append(problems, err.Error()) }
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if _, seen := c.Lines[k.Value]; seen {
			fail(c.errAt(k, "%s is set twice (first on line %d)", k.Value, c.Lines[k.Value]))
			continue
		}
		c.Lines[k.Value] = k.Line
		switch k.Value {
		case "enable", "disable":
			list, err := c.names(v)
			if err != nil {
				fail(err)
			}
			if k.Value == "enable" {
				c.Enable = list
			} else {
				c.Disable = list
			}
		case "severity":
			if v.Kind != yaml.MappingNode {
				fail(c.errAt(v, "severity: want a mapping of rule to error, warning or info, not %s", describe(v)))
				continue
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				r, s := v.Content[j], v.Content[j+1]
				if s.Kind != yaml.ScalarNode || !isSeverity(s.Value) {
					fail(c.errAt(s, "severity of %s: want error, warning or info, not %s", r.Value, describe(s)))
					continue
				}
				c.Severity = append(c.Severity, Override{Rule: r.Value, Severity: strings.ToLower(s.Value), Line: r.Line})
			}
		case "fail-on":
			if v.Kind != yaml.ScalarNode || !(isSeverity(v.Value) || strings.EqualFold(v.Value, "never")) {
				fail(c.errAt(v, "fail-on: want error, warning, info or never, not %s", describe(v)))
				continue
			}
			c.FailOn = strings.ToLower(v.Value)
		case "suppress":
			var errs []error
			c.Suppress, errs = c.suppressions(v)
			for _, err := range errs {
				fail(err)
			}
		case "min-severity":
			if v.Kind != yaml.ScalarNode || !isSeverity(v.Value) {
				fail(c.errAt(v, "min-severity: want error, warning or info, not %s", describe(v)))
				continue
			}
			c.MinSeverity = strings.ToLower(v.Value)
		default:
			if slices.Contains(options.Counts, k.Value) {
				n, err := strconv.Atoi(v.Value)
				if v.Kind != yaml.ScalarNode || err != nil || n <= 0 {
					fail(c.errAt(v, "%s: want a positive whole number such as 10, not %s", k.Value, describe(v)))
					continue
				}
				c.Counts[k.Value] = n
				continue
			}
			if !slices.Contains(options.Names, k.Value) {
				fail(c.errAt(k, "unknown key %q (known: %s)", k.Value, strings.Join(keys, ", ")))
				continue
			}
			d, err := time.ParseDuration(v.Value)
			if v.Kind != yaml.ScalarNode || err != nil || d <= 0 {
				fail(c.errAt(v, "%s: want a positive duration such as 30s or 2m, not %s", k.Value, describe(v)))
				continue
			}
			c.Durations[k.Value] = d
		}
	}
	if len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, "\n"))
	}
	return c, nil
}

// names reads a list of rule names: a sequence, or one comma-separated string.
func (c *Config) names(v *yaml.Node) ([]Named, error) {
	var out []Named
	add := func(n *yaml.Node) {
		for _, part := range strings.Split(n.Value, ",") {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, Named{Rule: part, Line: n.Line})
			}
		}
	}
	switch v.Kind {
	case yaml.ScalarNode:
		add(v)
	case yaml.SequenceNode:
		for _, item := range v.Content {
			if item.Kind != yaml.ScalarNode {
				return out, c.errAt(item, "want rule IDs or names, not %s", describe(item))
			}
			add(item)
		}
	default:
		return nil, c.errAt(v, "want a list of rule IDs or names, not %s", describe(v))
	}
	return out, nil
}

// ErrAt is a problem at a line of the file, worded as every mcpsleuth error.
//
// A value quoted from the file is cut to maxEchoed bytes: a 900 KB value is an
// error of one line, not 900 KB of stderr.
func (c *Config) ErrAt(line int, format string, args ...any) error {
	for i, a := range args {
		if s, ok := a.(string); ok && len(s) > maxEchoed {
			args[i] = quote.Clip(s, maxEchoed)
		}
	}
	return fmt.Errorf("mcpsleuth: %s:%d: %s", c.Path, line, fmt.Sprintf(format, args...))
}

// maxEchoed bounds the bytes of a value an error quotes from the file.
const maxEchoed = 200

func (c *Config) errAt(n *yaml.Node, format string, args ...any) error {
	return c.ErrAt(n.Line, format, args...)
}

func isSeverity(s string) bool {
	switch strings.ToLower(s) {
	case "error", "warning", "info":
		return true
	}
	return false
}

// describe names a YAML value for an error: "a mapping", "a list", "\"sometimes\"".
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return quote.String(n.Value, quote.MaxString)
	}
	return "nothing"
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
