package report

import (
	"encoding/json"
	"fmt"
	"io"
)

// jsonlFinding is one line of the jsonl format: a finding with its session's
// input, index, client and server inlined, the flat shape a warehouse (DuckDB,
// BigQuery, ClickHouse) loads without joins.
type jsonlFinding struct {
	Input           string `json:"input"`
	Session         int    `json:"session"`
	StreamKey       string `json:"streamKey"`
	Era             string `json:"era"`
	ClientName      string `json:"clientName"`
	ClientVersion   string `json:"clientVersion"`
	ServerName      string `json:"serverName"`
	ServerVersion   string `json:"serverVersion"`
	ProtocolVersion string `json:"protocolVersion"`
	Tool            string `json:"tool"`
	// Finding is the finding as the JSON report has it, its members inlined.
	Finding
}

// WriteJSONL writes one finding per line (nothing for a report without findings),
// then a line per input that could not be read or judged (jsonlError).
func WriteJSONL(w io.Writer, r *Report) error {
	tool := r.Tool.Name + " " + r.Tool.Version
	for i := range r.Sessions {
		if err := writeJSONLSession(w, &r.Sessions[i], tool); err != nil {
			return err
		}
	}
	return writeJSONLErrors(w, r.Errors, tool)
}

// writeJSONLSession writes the lines of one session's findings.
func writeJSONLSession(w io.Writer, s *Session, tool string) error {
	enc := json.NewEncoder(safeJSONWriter(w))
	version := s.ProtocolVersion.Negotiated
	if version == "" {
		version = s.ProtocolVersion.Requested
	}
	for _, f := range s.Findings {
		line := jsonlFinding{Input: s.Input, Session: s.Index, StreamKey: s.StreamKey, Era: s.Era,
			ClientName: s.Client.Name, ClientVersion: s.Client.Version, ServerName: s.Server.Name, ServerVersion: s.Server.Version,
			ProtocolVersion: version, Tool: tool, Finding: f}
		if err := enc.Encode(line); err != nil {
			return fmt.Errorf("mcpsleuth: writing the jsonl report: %w", err)
		}
	}
	return nil
}

// jsonlError is a line of the jsonl format for an input that could not be read
// or judged: the input and tool columns of a finding line, and "error" (the
// kind, which no finding line has) with its message, so that a warehouse table
// of findings keeps them apart by `error IS NULL`.
type jsonlError struct {
	Input   string    `json:"input"`
	Tool    string    `json:"tool"`
	Error   ErrorKind `json:"error"`
	Message string    `json:"message"`
}

// writeJSONLErrors writes a line per input that could not be read or judged.
func writeJSONLErrors(w io.Writer, errs []InputError, tool string) error {
	enc := json.NewEncoder(safeJSONWriter(w))
	for _, e := range errs {
		if err := enc.Encode(jsonlError{Input: e.Input, Tool: tool, Error: e.Kind, Message: e.Message}); err != nil {
			return fmt.Errorf("mcpsleuth: writing the jsonl report: %w", err)
		}
	}
	return nil
}
