package spec

import (
	"encoding/json"
	"strings"
	"testing"
)

// ResultTypeInputRequired is the value the 2026-07-28 schema's ResultType names for
// an InputRequiredResult (the schema types it as a string and lists the values in
// its description).
func TestResultTypeInputRequired(t *testing.T) {
	var doc struct {
		Defs map[string]struct {
			Description string `json:"description"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(Schema(Rev20260728), &doc); err != nil {
		t.Fatal(err)
	}
	desc := doc.Defs["ResultType"].Description
	if !strings.Contains(desc, "\n"+ResultTypeInputRequired+" - ") || !strings.Contains(desc, "InputRequiredResult") {
		t.Errorf("the 2026-07-28 ResultType does not name %q for an InputRequiredResult: %q", ResultTypeInputRequired, desc)
	}
}
