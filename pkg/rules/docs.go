package rules

import (
	"fmt"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
)

// Explain renders one rule's documentation as plain text (mcpsleuth explain).
func Explain(r *rule.Rule) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s (%s)\n%s\n\n", r.ID, r.Name, r.SeverityText(), r.Title)
	section := func(title, text string) {
		fmt.Fprintf(&b, "%s\n%s\n\n", title, indent(text, "  "))
	}
	section("What it sees", r.Doc.Sees)
	section("Why it matters", r.Doc.Why)
	section("How to fix it", r.Doc.Fix)
	section("Example", r.Doc.Bad)
	section("Fixed", r.Doc.Good)
	fmt.Fprintf(&b, "Anchored at\n  %s\n\nSpecification\n", r.Anchor)
	for _, ref := range r.Doc.Spec {
		fmt.Fprintf(&b, "  %s  %s\n", ref.URL(), ref.Says)
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
		fmt.Fprintf(&b, "| [%s](#%s) | %s | %s | %s |\n", r.ID, strings.ToLower(r.ID+"-"+r.Name), r.Name, r.SeverityText(), escapeCell(r.Title))
	}
	for _, r := range all {
		fmt.Fprintf(&b, "\n## %s %s\n\n", r.ID, r.Name)
		fmt.Fprintf(&b, "**%s** (%s)\n\n", r.Title, r.SeverityText())
		fmt.Fprintf(&b, "**What it sees.** %s\n\n", r.Doc.Sees)
		fmt.Fprintf(&b, "**Why it matters.** %s\n\n", r.Doc.Why)
		fmt.Fprintf(&b, "**How to fix it.** %s\n\n", r.Doc.Fix)
		fmt.Fprintf(&b, "Example:\n\n```\n%s\n```\n\nFixed:\n\n```\n%s\n```\n\n", strings.TrimRight(r.Doc.Bad, "\n"), strings.TrimRight(r.Doc.Good, "\n"))
		fmt.Fprintf(&b, "Anchored at: %s.\n\nSpecification:\n\n", r.Anchor)
		for _, ref := range r.Doc.Spec {
			fmt.Fprintf(&b, "- [%s %s](%s): %s\n", ref.Revision, ref.Page, ref.URL(), ref.Says)
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
