package cli

import (
	"strings"

	"github.com/urfave/cli/v3"
)

// didYouMean is ", did you mean X?" for the name among names nearest to what
// was typed (at most two edits away, and fewer than half its letters), or "".
func didYouMean(typed string, names []string, prefix string) string {
	best, bestDist := "", 3
	for _, n := range names {
		if d := editDistance(typed, n); d < bestDist && d*2 < len(n) {
			best, bestDist = n, d
		}
	}
	if best == "" {
		return ""
	}
	return "; did you mean " + prefix + best + "?"
}

// commandNames are the names of a command's subcommands.
func commandNames(c *cli.Command) []string {
	var out []string
	for _, sub := range c.Commands {
		if !sub.Hidden {
			out = append(out, sub.Names()...)
		}
	}
	return out
}

// flagSuggestion suggests a flag of c for the unknown flag a usage error names
// ("flag provided but not defined: -formt").
func flagSuggestion(c *cli.Command, err error) string {
	_, typed, ok := strings.Cut(err.Error(), "flag provided but not defined: ")
	if !ok || c == nil {
		return ""
	}
	typed = strings.TrimLeft(typed, "-")
	var names []string
	for _, f := range c.Flags {
		for _, n := range f.Names() {
			if len(n) > 1 {
				names = append(names, n)
			}
		}
	}
	return didYouMean(typed, names, "--")
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
