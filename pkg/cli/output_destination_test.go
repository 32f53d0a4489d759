package cli

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOutputNeverReplacesANode: -o writes a regular file beside and renames it
// into place; it writes a FIFO or a character device in place and never
// replaces the node with a file (issue 29: as root, check -o /dev/full replaced
// the system's /dev/full); through a symbolic link it replaces the target and
// keeps the link; a directory or a link to nothing is refused.
func TestOutputNeverReplacesANode(t *testing.T) {
	dir := t.TempDir()
	report := func(w io.Writer) error { _, err := io.WriteString(w, "the report\n"); return err }
	env := Env{Stdout: io.Discard}

	// A symbolic link: the target is replaced, the link stays a link.
	target := filepath.Join(dir, "reports", "latest.txt")
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "report.txt")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := (output{path: link}).write(env, report); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is no longer a link: %v %v", info, err)
	}
	if b, _ := os.ReadFile(target); string(b) != "the report\n" {
		t.Errorf("the link's target holds %q", b)
	}

	// A FIFO: written in place, with a reader waiting.
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	got := make(chan string)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	if err := (output{path: fifo}).write(env, report); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "the report\n" {
		t.Errorf("the FIFO's reader got %q", s)
	}
	if info, err := os.Lstat(fifo); err != nil || info.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", info, err)
	}

	// A character device: /dev/null takes the report; /dev/full refuses it with
	// an error (exit 2) and stays the device it is.
	if err := (output{path: os.DevNull}).write(env, report); err != nil {
		t.Errorf("-o %s: %v", os.DevNull, err)
	}
	if _, err := os.Stat("/dev/full"); err == nil {
		err := (output{path: "/dev/full"}).write(env, report)
		if err == nil || !strings.Contains(err.Error(), "mcpsleuth: /dev/full: cannot write the report: ") {
			t.Errorf("-o /dev/full: %v, want a write error", err)
		}
		if info, err := os.Lstat("/dev/full"); err != nil || info.Mode()&os.ModeCharDevice == 0 {
			t.Errorf("/dev/full is no longer a character device: %v %v", info, err)
		}
	}

	// Refused: a directory, a link to nothing.
	for path, want := range map[string]string{
		filepath.Join(dir, "reports"):  "a directory: name a file",
		filepath.Join(dir, "dangling"): "a symbolic link to nothing",
	} {
		if strings.HasSuffix(path, "dangling") {
			if err := os.Symlink(filepath.Join(dir, "nowhere", "x"), path); err != nil {
				t.Fatal(err)
			}
		}
		err := (output{path: path}).write(env, report)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("-o %s: %v, want %q", path, err, want)
		}
	}
}
