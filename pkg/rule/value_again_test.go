package rule

import (
	"strings"
	"testing"
)

// TestValueAgain: a value's Again renders its own text as its message showed it
// (Quote, QuoteJSON, As), long enough to be clipped; a value rendered by its rule
// (Shown) has no rendering to repeat.
func TestValueAgain(t *testing.T) {
	long := strings.Repeat("the tool failed on this input ", 10)
	for name, v := range map[string]Value{
		"Quote":     Quote(ValueErrorMessage, long),
		"QuoteJSON": QuoteJSON(ValueDefinition, `{"description": "`+long+`"}`),
		"As":        As(ValueName, long),
	} {
		got, ok := v.Again(v.Text)
		if !ok || got != v.Shown {
			t.Errorf("%s: Again of its own text = %q, %v; want %q", name, got, ok, v.Shown)
		}
		if other, _ := v.Again("[redacted, 300 chars]"); other == v.Shown {
			t.Errorf("%s: Again of another text gave the value's Shown", name)
		}
	}
	if _, ok := Shown(ValueData, `"x"`, "x as the validator printed it").Again("y"); ok {
		t.Error("a value shown by its rule has a rendering to repeat")
	}
}
