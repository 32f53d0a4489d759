package cli

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/mcpsleuth/mcpsleuth/pkg/config"
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
	"github.com/mcpsleuth/mcpsleuth/pkg/scan"
)

// configFlag returns the flag that names the configuration file (else
// .mcpsleuth.yaml is looked for in the working directory and its parents).
func configFlag() cli.Flag {
	return &cli.StringFlag{Name: "config", Usage: "read the configuration from `FILE` (default: " + config.FileName + " in the working directory or a parent)"}
}

// ruleFlags are the flags of every command that runs the rules: which rules run
// (usage says when, for a command that runs them only sometimes), the options
// the rules declare, and the configuration file that sets the same. Each call
// makes new flags (urfave/cli keeps parse state in a flag).
func ruleFlags(usage string) []cli.Flag {
	return append([]cli.Flag{
		&cli.StringSliceFlag{Name: "enable", Usage: usage + "run only these rules (IDs or names, comma-separated)"},
		&cli.StringSliceFlag{Name: "disable", Usage: usage + "do not run these rules (IDs or names, comma-separated)"},
		configFlag(),
	}, ruleOptionFlags()...)
}

// failOnFlag is --fail-on, for the commands whose exit code follows findings.
func failOnFlag() cli.Flag {
	return &cli.StringFlag{Name: "fail-on", Value: "error", Usage: "exit 1 when a finding is at or above this severity: error, warning, info or never"}
}

// minSeverityFlag is --min-severity, for the commands that show findings.
func minSeverityFlag() cli.Flag {
	return &cli.StringFlag{Name: "min-severity", Usage: "show only findings at or above this severity: error, warning or info (--fail-on still sees every finding)"}
}

// settings are what a run is configured with: flags over the configuration file
// over the defaults, with where each came from (for `mcpsleuth config`).
type settings struct {
	file        *config.Config
	rules       []*rule.Rule
	enable      []string
	disable     []string
	severity    []config.Override
	failOn      string
	minSeverity string
	// options are the values of the options the rules declare (ruleOptions), by
	// name: their defaults, over them the file's, over those the flags'.
	options map[string]any
	from    map[string]string // key -> "flag", the file's path and line, or "default"
	// failOnLevel is failOn read (0: never).
	failOnLevel rule.Severity
	// frame is how the inputs are read (--input-format, --perspective, the
	// limits), for a command that reads captures.
	frame frame.Options
}

// loadSettings is the one builder of a command's configuration: it reads the
// configuration file and the command's flags, validates the catalogue and
// selects its rules (rule.Select), applies the file's severities and the rules'
// options, and reads how inputs are read. Flags a command does not have are
// left to the file and the defaults.
func loadSettings(c *cli.Command) (*settings, error) {
	path := c.String("config")
	if path == "" {
		wd, err := os.Getwd()
		if err == nil {
			path, err = config.Find(wd)
		}
		if err != nil {
			return nil, usageErr("%v", err)
		}
	}
	options := ruleOptions()
	keys := optionKeys()
	file := &config.Config{Lines: map[string]int{}}
	if path != "" {
		var err error
		if file, err = config.Load(path, keys); err != nil {
			return nil, usageErr("%v", err)
		}
	}
	s := &settings{file: file, failOn: "error", options: map[string]any{}, from: map[string]string{}}
	for _, key := range config.Keys(keys) {
		s.from[key] = "default"
		if line, ok := file.Lines[key]; ok {
			s.from[key] = fmt.Sprintf("%s:%d", file.Path, line)
		}
	}
	has := func(name string) bool { return hasFlag(c, name) && c.IsSet(name) }
	// Rules: every name in the file must exist, wherever it is used.
	all := rules.All()
	for _, list := range [][]config.Named{file.Enable, file.Disable} {
		for _, n := range list {
			if _, ok := rules.Lookup(all, n.Rule); !ok {
				return nil, usageErr("%v", file.ErrAt(n.Line, "unknown rule %q (see mcpsleuth rules)", n.Rule))
			}
		}
	}
	for _, o := range file.Severity {
		if _, ok := rules.Lookup(all, o.Rule); !ok {
			return nil, usageErr("%v", file.ErrAt(o.Line, "severity: unknown rule %q (see mcpsleuth rules)", o.Rule))
		}
	}
	for _, sup := range file.Suppress {
		if _, ok := rules.Lookup(all, sup.Rule); sup.Rule != "" && !ok {
			return nil, usageErr("%v", file.ErrAt(sup.Line, "suppress: unknown rule %q (see mcpsleuth rules)", sup.Rule))
		}
		if sup.Path != "" {
			if err := (scan.Selection{Include: []string{sup.Path}}).Check(); err != nil {
				return nil, usageErr("%v", file.ErrAt(sup.Line, "suppress: path: %s", strings.TrimPrefix(err.Error(), "mcpsleuth: ")))
			}
		}
	}
	s.enable, s.disable = ruleNames(file.Enable), ruleNames(file.Disable)
	if has("enable") {
		s.enable, s.from["enable"] = splitList(c.StringSlice("enable")), "flag"
	}
	if has("disable") {
		s.disable, s.from["disable"] = splitList(c.StringSlice("disable")), "flag"
	}
	selected, err := rule.Select(all, s.enable, s.disable)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	s.severity = file.Severity
	for i, r := range selected {
		for _, o := range file.Severity {
			if got, _ := rules.Lookup(all, o.Rule); got == r {
				sev, _ := rule.ParseSeverity(o.Severity)
				selected[i] = rule.WithSeverity(r, sev)
			}
		}
	}
	if file.FailOn != "" {
		s.failOn = file.FailOn
	}
	if has("fail-on") {
		s.failOn, s.from["fail-on"] = c.String("fail-on"), "flag"
	}
	if file.MinSeverity != "" {
		s.minSeverity = file.MinSeverity
	}
	if has("min-severity") {
		s.minSeverity, s.from["min-severity"] = c.String("min-severity"), "flag"
	}
	if s.minSeverity != "" {
		if _, ok := rule.ParseSeverity(s.minSeverity); !ok {
			return nil, usageErr("mcpsleuth: --min-severity must be error, warning or info, not %q", s.minSeverity)
		}
	}
	for _, o := range options {
		s.options[o.Name] = o.Default
		if d, ok := file.Durations[o.Name]; ok {
			s.options[o.Name] = d
		}
		if n, ok := file.Counts[o.Name]; ok {
			s.options[o.Name] = n
		}
		if !has(o.Name) {
			continue
		}
		s.from[o.Name] = "flag"
		switch o.Default.(type) {
		case int:
			n := int(c.Int(o.Name))
			s.options[o.Name] = n
			if n <= 0 {
				return nil, usageErr("mcpsleuth: --%s must be a positive whole number such as 10, not %d", o.Name, n)
			}
		default:
			d := c.Duration(o.Name)
			s.options[o.Name] = d
			if d <= 0 {
				return nil, usageErr("mcpsleuth: --%s must be a positive duration such as 30s or 2m, not %s", o.Name, d)
			}
		}
	}
	s.rules, err = rule.Configure(selected, s.options)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	if s.failOnLevel, err = parseFailOn(s.failOn); err != nil {
		return nil, err
	}
	if hasFlag(c, "input-format") {
		if s.frame, err = frameOptions(c); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// hasFlag reports whether the command defines a flag of that name.
func hasFlag(c *cli.Command, name string) bool {
	for _, f := range c.Flags {
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}

func ruleNames(list []config.Named) []string {
	out := make([]string, len(list))
	for i, n := range list {
		out[i] = n.Rule
	}
	return out
}

// minShown is the lowest severity shown (0: all).
func (s *settings) minShown() rule.Severity {
	sev, _ := rule.ParseSeverity(s.minSeverity)
	return sev
}

func configCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:      "config",
		Usage:     "print the effective configuration: " + config.FileName + " and the defaults, with where each value comes from",
		UsageText: "mcpsleuth config [--config FILE] [--schema]",
		Flags: []cli.Flag{configFlag(),
			&cli.BoolFlag{Name: "schema", Usage: "print the JSON Schema of " + config.FileName + " instead, for editors (# yaml-language-server: $schema=FILE)"}},
		Action: func(_ context.Context, c *cli.Command) error {
			if c.Bool("schema") {
				var names []string
				for _, r := range rules.All() {
					names = append(names, r.ID, strings.ToLower(r.ID), r.Name) // as rules.Lookup reads them
				}
				_, err := env.Stdout.Write(config.Schema(names, optionKeys()))
				return err
			}
			s, err := loadSettings(c)
			if err != nil {
				return err
			}
			return s.write(env.Stdout, terminalWidth(env))
		},
	}
}

// write prints the settings as a configuration file would hold them, each key
// with where its value comes from, fitting width: still YAML when wrapped (a
// comment continues as a comment, a list continues indented, and a key whose
// line would be too wide has its source in a comment line above it).
func (s *settings) write(w io.Writer, width int) error {
	var b strings.Builder
	comment := func(text string) {
		b.WriteString(report.Wrap("# "+text, width, "# ") + "\n")
	}
	if s.file.Path != "" {
		comment("configuration file: " + report.Safe(s.file.Path))
	} else {
		comment(fmt.Sprintf("no %s found: the defaults", config.FileName))
	}
	list := func(names []string) string {
		if len(names) == 0 {
			return "[]"
		}
		return "[" + strings.Join(names, ", ") + "]"
	}
	line := func(key, value string) {
		row := fmt.Sprintf("%-28s # %s", key+": "+value, report.Safe(s.from[key]))
		if len([]rune(row)) <= width {
			b.WriteString(row + "\n")
			return
		}
		comment(key + ": " + report.Safe(s.from[key]))
		b.WriteString(report.Wrap(key+": "+value, width, "  ") + "\n")
	}
	line("enable", list(s.enable))
	line("disable", list(s.disable))
	if len(s.severity) == 0 {
		line("severity", "{}")
	} else {
		fmt.Fprintf(&b, "%-28s # %s\n", "severity:", report.Safe(s.from["severity"]))
		overrides := append([]config.Override(nil), s.severity...)
		sort.SliceStable(overrides, func(i, j int) bool { return overrides[i].Rule < overrides[j].Rule })
		for _, o := range overrides {
			fmt.Fprintf(&b, "  %s: %s\n", report.Safe(o.Rule), o.Severity)
		}
	}
	line("fail-on", s.failOn)
	minSev := s.minSeverity
	if minSev == "" {
		minSev = "info"
	}
	line("min-severity", minSev)
	if len(s.file.Suppress) == 0 {
		line("suppress", "[]")
	} else {
		fmt.Fprintf(&b, "%-28s # %s\n", "suppress:", report.Safe(s.from["suppress"]))
		for _, sup := range s.file.Suppress {
			var match []string
			for _, kv := range [][2]string{{"rule", sup.Rule}, {"path", sup.Path}, {"client", sup.Client}, {"server", sup.Server}, {"method", sup.Method}, {"fingerprint", sup.Fingerprint}} {
				if kv[1] != "" {
					match = append(match, kv[0]+": "+report.Safe(kv[1]))
				}
			}
			b.WriteString(report.Wrap(fmt.Sprintf("  - %s  # line %d: %s", strings.Join(match, ", "), sup.Line, report.Safe(sup.Reason)), width, "      ") + "\n")
		}
	}
	for _, o := range ruleOptions() {
		line(o.Name, fmt.Sprint(s.options[o.Name]))
	}
	comment(fmt.Sprintf("rules that run: %d of %d", len(s.rules), len(rules.All())))
	_, err := io.WriteString(w, b.String())
	return err
}

// ruleOptionFlags returns a flag for each option the rules of the catalogue
// declare (rule.Option), with its default and usage: the rule's own declaration,
// not a flag written for it here.
func ruleOptionFlags() []cli.Flag {
	var out []cli.Flag
	for _, o := range ruleOptions() {
		switch d := o.Default.(type) {
		case time.Duration:
			out = append(out, &cli.DurationFlag{Name: o.Name, Value: d, Usage: o.Usage})
		case int:
			out = append(out, &cli.IntFlag{Name: o.Name, Value: d, Usage: o.Usage})
		default:
			panic(fmt.Sprintf("mcpsleuth: option %s of type %T has no flag or configuration key", o.Name, d))
		}
	}
	return out
}

// ruleOptions are the options the rules of the catalogue declare, each name
// once, in catalogue order: what the flags and the configuration file set.
func ruleOptions() []rule.Option {
	var out []rule.Option
	seen := map[string]bool{}
	for _, r := range rules.All() {
		for _, o := range r.Options {
			if !seen[o.Name] {
				seen[o.Name] = true
				out = append(out, o)
			}
		}
	}
	return out
}

// optionKeys are the configuration keys of the rules' options, by the type of
// their values.
func optionKeys() config.OptionKeys {
	var keys config.OptionKeys
	for _, o := range ruleOptions() {
		keys.Names = append(keys.Names, o.Name)
		if _, ok := o.Default.(int); ok {
			keys.Counts = append(keys.Counts, o.Name)
		}
	}
	return keys
}

// reportConfig is what a report records of the configuration it was made
// under, with baseline the --baseline report ("" when none).
func (s *settings) reportConfig(baseline string) *report.Config {
	c := &report.Config{File: s.file.Path, Enable: orEmpty(s.enable), Disable: orEmpty(s.disable), Severity: map[string]string{},
		FailOn: s.failOn, MinSeverity: s.minSeverity, Options: map[string]string{}, Baseline: baseline,
		RulesRun: len(s.rules), Rules: len(rules.All()), From: maps.Clone(s.from), Suppress: append([]config.Suppression{}, s.file.Suppress...)}
	for _, o := range s.severity {
		c.Severity[o.Rule] = o.Severity
	}
	for name, v := range s.options {
		c.Options[name] = fmt.Sprint(v)
	}
	return c
}

func orEmpty(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}
