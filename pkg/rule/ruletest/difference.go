package ruletest

import (
	"fmt"
	"strings"
)

// FirstDifference shows the first line two renderings of a run differ at (the
// whole run's and another's), for a test's failure message.
func FirstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d of %d/%d:\n--- want\n%s\n--- got\n%s", i+1, len(w), len(g), a, b)
		}
	}
	return "(the same)"
}
