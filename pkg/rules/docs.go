package rules

import (
	"fmt"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
)

// Explain renders one rule's documentation as plain text (mcpsleuth explain).
func Explain(r *rule.Rule) string {
	d := r.Documentation()
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s (%s)\n%s\n\n", r.ID, r.Name, d.Severity, r.Title)
	section := func(title, text string) {
		fmt.Fprintf(&b, "%s\n%s\n\n", title, indent(text, "  "))
	}
	for _, sec := range d.Sections {
		section(sec.Title, sec.Text)
	}
	section(rule.ExampleTitle, d.Example)
	section(rule.FixedTitle, d.Fixed)
	fmt.Fprintf(&b, "Anchored at\n  %s\n\nSpecification\n", r.Anchor)
	for _, ref := range d.Spec {
		fmt.Fprintf(&b, "  %s  %s\n", ref.URL, ref.Says)
	}
	return b.String()
}

// Markdown renders the catalogue as docs/rules.md.
func Markdown(all []*rule.Rule) string {
	var b strings.Builder
	b.WriteString("# Rule catalogue\n\n")
	b.WriteString("Generated from the rule metadata in `pkg/rules` (the same text `mcpsleuth explain ID` prints);\n")
	b.WriteString("do not edit by hand: `go test ./pkg/rules -run TestDocs -update` rewrites it.\n\n")
	b.WriteString("| ID | name | severity | title |\n| --- | --- | --- | --- |\n")
	for _, r := range all {
		fmt.Fprintf(&b, "| [%s](#%s) | %s | %s | %s |\n", r.ID, strings.ToLower(r.ID+"-"+r.Name), r.Name, r.Documentation().Severity, escapeCell(r.Title))
	}
	for _, r := range all {
		d := r.Documentation()
		fmt.Fprintf(&b, "\n## %s %s\n\n", r.ID, r.Name)
		fmt.Fprintf(&b, "**%s** (%s)\n\n", r.Title, d.Severity)
		for _, sec := range d.Sections {
			fmt.Fprintf(&b, "**%s.** %s\n\n", sec.Title, sec.Text)
		}
		fmt.Fprintf(&b, "%s:\n\n```\n%s\n```\n\n%s:\n\n```\n%s\n```\n\n", rule.ExampleTitle, d.Example, rule.FixedTitle, d.Fixed)
		fmt.Fprintf(&b, "Anchored at: %s.\n\nSpecification:\n\n", r.Anchor)
		for _, ref := range d.Spec {
			fmt.Fprintf(&b, "- [%s](%s): %s\n", ref.Label, ref.URL, ref.Says)
		}
	}
	return b.String()
}

func indent(text, prefix string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}

func escapeCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// Lookup finds a rule by ID (any case) or name.
func Lookup(all []*rule.Rule, key string) (*rule.Rule, bool) {
	for _, r := range all {
		if strings.EqualFold(r.ID, key) || r.Name == strings.ToLower(key) {
			return r, true
		}
	}
	return nil, false
}
