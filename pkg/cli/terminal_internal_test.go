//go:build linux

package cli

import (
	"os"
	"testing"

	"github.com/creack/pty"
)

// /dev/null is a character device, not a terminal: a report sent there (as
// benchmarks and scripts do) is written without colour, and input read from there
// is read, not taken for a person at a keyboard. A pseudo-terminal is one.
func TestIsTerminal(t *testing.T) {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if isTerminal(null) {
		t.Errorf("%s is taken for a terminal", os.DevNull)
	}
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	if !isTerminal(tty) {
		t.Error("a pseudo-terminal is not taken for a terminal")
	}
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Error("a regular file is taken for a terminal")
	}
}
