package report

import (
	"encoding/json"
	"fmt"
	"io"
)

// WriteJSON writes the report as the JSON document of DESIGN.md section 6.
func WriteJSON(w io.Writer, r *Report) error {
	if r.Errors == nil {
		c := *r
		c.Errors = []InputError{} // always a list: "errors": [] says every input was judged
		r = &c
	}
	enc := json.NewEncoder(safeJSONWriter(w))
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("mcpsleuth: writing the JSON report: %w", err)
	}
	return nil
}

// InputError is an input that could not be read or judged: the top-level
// "errors" of the JSON report (DESIGN.md section 6, docs/json-report.md), a
// SARIF tool execution notification, a JUnit error. The command that read the
// inputs decides them; the formats only show them, so that no artifact shows an
// unread input as a clean run.
type InputError struct {
	// Input is the input as named on the command line or found by a walk: a file,
	// a directory, "-" for stdin.
	Input string `json:"input"`
	// Kind says what went wrong, in a word that never changes (ErrorKind).
	Kind ErrorKind `json:"kind"`
	// Message is the one line that says why, without the program's and the
	// input's names (stderr shows "mcpsleuth: INPUT: MESSAGE").
	Message string `json:"message"`
}

// ErrorKind is the stable reason an input could not be read or judged.
type ErrorKind string

// The kinds of InputError (docs/json-report.md lists them with their exit codes).
const (
	// ErrorUnreadable: the input could not be opened or read at all (missing,
	// permission denied, a directory that cannot be listed, not a capture this
	// reader can open).
	ErrorUnreadable ErrorKind = "unreadable"
	// ErrorReadInPart: reading broke off (a read or decompression error); the
	// report covers what was read before.
	ErrorReadInPart ErrorKind = "read-in-part"
	// ErrorNoCaptures: a directory (or a pattern) that holds no capture file.
	ErrorNoCaptures ErrorKind = "no-captures"
	// ErrorEmpty: the input holds nothing at all.
	ErrorEmpty ErrorKind = "empty"
	// ErrorNoFrames: the input was read to its end and no line of it is a frame
	// in any known format.
	ErrorNoFrames ErrorKind = "no-frames"
	// ErrorLossy: a log that names messages without holding them (Cursor,
	// mcp-remote, the Python SDK's log): nothing in it can be judged.
	ErrorLossy ErrorKind = "lossy"
	// ErrorSkipped: a walk met it and did not read it (a named pipe, a device,
	// a socket, a symlink to nothing or in a loop).
	ErrorSkipped ErrorKind = "skipped"
)

// fails reports whether an input of this kind makes the run unsuccessful: all
// kinds but skipped (what a directory walk leaves out on purpose is named, not
// a failure of the run).
func (k ErrorKind) fails() bool { return k != ErrorSkipped }

// failedInputs counts the errors that make the run unsuccessful.
func failedInputs(errs []InputError) int {
	n := 0
	for _, e := range errs {
		if e.Kind.fails() {
			n++
		}
	}
	return n
}
