package trace

import (
	"fmt"
	"strings"
	"testing"
)

// A definition cut at maxDefinition is not JSON: a Node reads nothing of it, so the
// diff says the item changed, with no details (identical cut bytes are still the
// same item). The gjson code read the members before the cut: the same answer when
// the cut falls in the first member that differs (a long description), and that
// member's change ("inputSchema changed") when it fell after it.
func TestDiffOfCutDefinitions(t *testing.T) {
	long := func(desc string) []byte {
		b := []byte(fmt.Sprintf(`{"name":"big","description":%q,"inputSchema":{"type":"object"}}`, desc))
		return b[:maxDefinition]
	}
	a, b := long(strings.Repeat("a", maxDefinition)), long(strings.Repeat("b", maxDefinition))
	if got := definitionChanges(a, b); got != nil {
		t.Errorf("cut definitions: %q", got)
	}
	if got := listChanges([]ListedItem{{Kind: "tools/list", Name: "big", Definition: a}}, []ListedItem{{Kind: "tools/list", Name: "big", Definition: b}}); len(got) != 1 || got[0].Change != "changed" || got[0].Details != nil {
		t.Errorf("cut definitions: %+v", got)
	}
	if got := listChanges([]ListedItem{{Kind: "tools/list", Name: "big", Definition: a}}, []ListedItem{{Kind: "tools/list", Name: "big", Definition: a}}); len(got) != 0 {
		t.Errorf("the same cut definition: %+v", got)
	}
}
