package cli

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/term"
)

// The widths text output fits.
const (
	// pipeWidth is the width of text written to a pipe or a file when COLUMNS
	// is not set.
	pipeWidth = 100
	// minWidth is the narrowest width text is laid out for: below it, lines are
	// as wide as this.
	minWidth = 40
)

// terminalWidth is the width text written to stdout fits, decided once per
// run: COLUMNS when it is set to a number, else the terminal's width when
// stdout is a terminal, else 100 (a pipe). Every text view gets it; never
// narrower than 40.
func terminalWidth(env Env) int {
	return outputColumns(env, true)
}

// outputColumns is terminalWidth for output that goes to stdout, or to a file
// (toStdout false: the terminal's size says nothing of it; COLUMNS still does).
func outputColumns(env Env, toStdout bool) int {
	width := pipeWidth
	if n, err := strconv.Atoi(strings.TrimSpace(env.Getenv("COLUMNS"))); err == nil && n > 0 {
		width = n
	} else if toStdout && env.StdoutIsTerminal && env.StdoutColumns > 0 {
		width = env.StdoutColumns
	}
	return max(width, minWidth)
}

// stdoutColumns is the width of the terminal stdout is (0 when it is none).
func stdoutColumns(f *os.File) int {
	w, _, err := term.GetSize(int(f.Fd()))
	if err != nil || w <= 0 {
		return 0
	}
	return w
}
