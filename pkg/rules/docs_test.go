package rules_test

import (
	"flag"
	"os"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
)

var update = flag.Bool("update", false, "rewrite docs/rules.md from the rule metadata")

// TestDocs fails when docs/rules.md no longer matches the rule metadata.
func TestDocs(t *testing.T) {
	const path = "../../docs/rules.md"
	want := rules.Markdown(rules.All())
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("docs/rules.md is stale: run go test ./pkg/rules -run TestDocs -update")
	}
}

// TestCatalogue checks the registry: valid metadata, unique IDs and names, ID order.
func TestCatalogue(t *testing.T) {
	all := rules.All()
	if err := rule.Validate(all); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(all); i++ {
		if all[i-1].ID >= all[i].ID {
			t.Errorf("All() is not in ID order: %s before %s", all[i-1].ID, all[i].ID)
		}
	}
	if r, ok := rules.Lookup(all, "undeclared-request"); !ok || r.ID != "MCP2002" {
		t.Errorf("Lookup by name: got %v", r)
	}
	if r, ok := rules.Lookup(all, "mcp2001"); !ok || r.Name != "undeclared-notification" {
		t.Errorf("Lookup by lower-case ID: got %v", r)
	}
}
