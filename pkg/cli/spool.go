package cli

import (
	"bufio"
	"fmt"
	"os"
)

// spool is the temporary file a report written session by session goes through
// (report.Stream): sessions are appended, buffered, as they end, and read back
// in order when the report is finished.
type spool struct {
	*bufio.Writer
	file *os.File
}

func newSpool() (*spool, error) {
	f, err := os.CreateTemp("", "mcpsleuth-report-*")
	if err != nil {
		return nil, &exitError{code: ExitUsage, msg: fmt.Sprintf("mcpsleuth: cannot create a temporary file for the report: %v", unwrapPath(err))}
	}
	return &spool{Writer: bufio.NewWriterSize(f, 256<<10), file: f}, nil
}

// Close closes the file and removes it.
func (s *spool) Close() {
	s.file.Close()
	os.Remove(s.file.Name())
}
