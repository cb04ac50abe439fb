package cli

import (
	"encoding/json"
)

// printJSON writes v as one JSON document on stdout.
func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.Stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
