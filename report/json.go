package report

import (
	"encoding/json"
	"io"
)

// JSON writes the report as indented JSON (the Report's fields; rates in
// [0, 1], null where a value does not exist).
func (r *Report) JSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
