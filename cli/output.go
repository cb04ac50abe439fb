package cli

import (
	"encoding/json"
	"os"

	"github.com/authbench/authbench/internal/safefile"
)

// printJSON writes v as one JSON document on stdout.
func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.stdout)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// checkOutFile refuses a file the user names (--out FILE, --trace FILE)
// in a directory that another user controls, or under one
// (safefile.OpenParent): the CLI may run as root.
func checkOutFile(path string) error {
	d, _, err := safefile.OpenParent(path, os.Geteuid())
	if err != nil {
		return err
	}
	return d.Close()
}
