package mock

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// maxMessage bounds one message the mock reads from its client.
const maxMessage = 64 << 20

// ServeStdio serves the mock on a stdio transport: the client's messages are
// lines of r, the server's are written to w, one a line. It returns when r
// ends (the client closed its end).
func (m *Mock) ServeStdio(r io.Reader, w io.Writer) error {
	bw := bufio.NewWriter(w)
	write := func(msgs [][]byte) error {
		for _, msg := range msgs {
			bw.Write(msg)
			bw.WriteByte('\n')
		}
		return bw.Flush()
	}
	if err := write(m.Start()); err != nil {
		return err
	}
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(br)
		if len(bytes.TrimSpace(line)) > 0 {
			for _, msg := range messages(line) {
				if werr := write(m.Receive(msg)); werr != nil {
					return werr
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// readLine reads one line, at most maxMessage bytes.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxMessage {
			return nil, fmt.Errorf("mcpsleuth: mock: a message longer than %d MiB", maxMessage>>20)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

// messages are the messages of a line: its members when it is a batch.
func messages(line []byte) [][]byte {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '[' {
		return [][]byte{line}
	}
	var batch []json.RawMessage
	if json.Unmarshal(line, &batch) != nil {
		return [][]byte{line}
	}
	out := make([][]byte, len(batch))
	for i, b := range batch {
		out[i] = b
	}
	return out
}
