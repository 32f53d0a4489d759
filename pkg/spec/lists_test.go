package spec_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// TestListResultsMatchTheSchemas: in every revision's schema whose result of a
// list request is defined, that result holds the table's Member, an array of the
// table's Item, and an Item requires the table's Key.
func TestListResultsMatchTheSchemas(t *testing.T) {
	results := map[string]string{"tools/list": "ListToolsResult", "prompts/list": "ListPromptsResult", "resources/list": "ListResourcesResult",
		"resources/templates/list": "ListResourceTemplatesResult", "roots/list": "ListRootsResult"}
	type def struct {
		Properties map[string]struct {
			Items struct {
				Ref string `json:"$ref"`
			} `json:"items"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	checked := 0
	for _, r := range spec.Revisions() {
		var doc struct {
			Definitions map[string]def `json:"definitions"`
			Defs        map[string]def `json:"$defs"`
		}
		if err := json.Unmarshal(spec.Schema(r), &doc); err != nil {
			t.Fatalf("%s: %v", r, err)
		}
		defs := doc.Definitions
		if defs == nil {
			defs = doc.Defs
		}
		for _, l := range spec.ListResults() {
			res, ok := defs[results[l.Method]]
			if !ok {
				continue // not in this revision
			}
			checked++
			p, ok := res.Properties[l.Member]
			if !ok {
				t.Errorf("%s: %s has no member %q", r, results[l.Method], l.Member)
				continue
			}
			if want := l.Item; p.Items.Ref != "#/definitions/"+want && p.Items.Ref != "#/$defs/"+want {
				t.Errorf("%s: %s.%s holds %q, not %s", r, results[l.Method], l.Member, p.Items.Ref, want)
			}
			if !slices.Contains(defs[l.Item].Required, l.Key) {
				t.Errorf("%s: %s does not require %q", r, l.Item, l.Key)
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d list results checked across the revisions", checked)
	}
}
