package report

import (
	"encoding/json"
	"fmt"
	"io"
)

// WriteJSON writes the report as the JSON document of DESIGN.md section 6.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(safeJSONWriter(w))
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("mcpsleuth: writing the JSON report: %w", err)
	}
	return nil
}
